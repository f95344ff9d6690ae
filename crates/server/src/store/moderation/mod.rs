//! What a community needs to govern itself (issue 38, moderators and account care): an
//! account's standing (`standing.rs`: moderator, closed), one-time password-reset tokens
//! (`resets.rs`), reports with the evidence the server attaches (`reports.rs`) and the
//! append-only moderation log (`log.rs`). Every moderator's action is one [`Moderate`]
//! change: the action and its log line commit together or not at all.

mod log;
mod reports;
mod resets;
mod standing;

pub(super) use log::last_act;
pub use log::{LogRow, ADMIN_CLI};
pub use reports::{
    Filed, ReportReason, ReportRow, ReportsOf, REPORTS_PER_WINDOW, REPORT_TEXT_MAX,
    REPORT_WINDOW_MS,
};
pub use resets::RESET_MS;
pub use standing::Standing;

use serde_json::Value;

use super::writer::Change;
use super::{Conn, Store, StoreResult};

/// The tables, the same text in both backends; new in issue 38, so an older database gains
/// them at its next open and every account in it starts as a player in good standing.
pub(super) const MODERATION_TABLES: &str = "
CREATE TABLE IF NOT EXISTS account_standing (
    account TEXT PRIMARY KEY REFERENCES accounts (name),
    role TEXT,
    closed BIGINT
);
CREATE TABLE IF NOT EXISTS reset_tokens (
    account TEXT PRIMARY KEY REFERENCES accounts (name),
    hash TEXT NOT NULL UNIQUE,
    created BIGINT NOT NULL,
    expires BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS mod_log (
    id TEXT PRIMARY KEY,
    at BIGINT NOT NULL,
    moderator TEXT NOT NULL,
    action TEXT NOT NULL,
    target TEXT NOT NULL,
    reason TEXT NOT NULL,
    detail TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS mod_log_by_at ON mod_log (at);
CREATE INDEX IF NOT EXISTS mod_log_by_target ON mod_log (target, at);
CREATE TABLE IF NOT EXISTS reports (
    id TEXT PRIMARY KEY,
    at BIGINT NOT NULL,
    reporter TEXT NOT NULL REFERENCES accounts (name),
    target TEXT NOT NULL REFERENCES accounts (name),
    reason TEXT NOT NULL,
    text TEXT NOT NULL,
    evidence TEXT NOT NULL,
    status TEXT NOT NULL,
    closed_by TEXT,
    closed_at BIGINT
);
CREATE INDEX IF NOT EXISTS reports_open ON reports (status, at);
CREATE INDEX IF NOT EXISTS reports_by_target ON reports (target, at);
CREATE INDEX IF NOT EXISTS reports_by_reporter ON reports (reporter, at);
";

/// Log lines about a player looked through for their warnings.
const WARNINGS_SEEN: usize = 50;

/// What a moderator (or the owner, closing their own account) does to an account.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Act {
    GrantModerator,
    RevokeModerator,
    /// Closes the account: its sessions and reset link end; its games stay.
    Close,
    Reopen,
    /// A warning: the log line only, which the warned player is shown too (without who).
    Warn,
    /// A reset link was made; the store keeps the token's SHA-256 only.
    ResetLink {
        hash: String,
    },
    /// Closes report `id` (about the target).
    CloseReport {
        id: String,
    },
    /// Mutes the target's chat until `until` (ms since the epoch); a time past lifts it.
    Mute {
        until: i64,
    },
    /// Lifts the wait before the next game that the target's offences earned: the log line
    /// only, whose time forgives the offences before it (store::offences::wait_from).
    LiftWait,
}

impl Act {
    /// The log's word for it.
    pub fn name(&self) -> &'static str {
        match self {
            Act::GrantModerator => "grant_moderator",
            Act::RevokeModerator => "revoke_moderator",
            Act::Close => "close",
            Act::Reopen => "reopen",
            Act::Warn => "warn",
            Act::ResetLink { .. } => "reset_link",
            Act::CloseReport { .. } => "close_report",
            Act::Mute { .. } => "mute",
            Act::LiftWait => "lift_wait",
        }
    }
}

/// An action and its log line, in one transaction.
#[derive(Clone, Debug)]
pub struct Moderate {
    pub act: Act,
    /// Who acts: a moderator's name, the owner's, or [`ADMIN_CLI`].
    pub moderator: String,
    /// The account acted on (its name as stored).
    pub target: String,
    pub reason: String,
    /// More for the log (JSON object).
    pub detail: Value,
    pub at: i64,
}

/// Answers false (writing nothing, not even the log line) for a report that is not open.
impl Change for Moderate {
    type Out = bool;

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<bool> {
        let db = c.sql();
        let (name, at) = (self.target.as_str(), self.at);
        match &self.act {
            Act::GrantModerator => standing::set_moderator(db, name, true)?,
            Act::RevokeModerator => standing::set_moderator(db, name, false)?,
            Act::Close => standing::set_closed(db, name, Some(at))?,
            Act::Reopen => standing::set_closed(db, name, None)?,
            Act::Warn | Act::LiftWait => {}
            Act::ResetLink { hash } => resets::issue(db, name, hash, at)?,
            Act::CloseReport { id } => {
                if !reports::close(db, id, &self.moderator, at)? {
                    return Ok(false);
                }
            }
            Act::Mute { until } => {
                let mute = crate::store::MuteRow {
                    account: name.to_string(),
                    until: *until,
                    by: self.moderator.clone(),
                    reason: self.reason.clone(),
                    at,
                };
                crate::store::community::set_mute(db, &mute)?;
            }
        }
        let mut detail = self.detail.clone();
        if let Value::Object(map) = &mut detail {
            match &self.act {
                Act::CloseReport { id } => {
                    map.insert("report".into(), Value::String(id.clone()));
                }
                Act::Mute { until } => {
                    map.insert("until".into(), Value::from(*until));
                }
                _ => {}
            }
        }
        let line = LogRow {
            id: crate::ids::new_id(),
            at,
            moderator: self.moderator.clone(),
            action: self.act.name().to_string(),
            target: self.target.clone(),
            reason: self.reason.clone(),
            detail: detail.to_string(),
        };
        log::append(db, &line)?;
        Ok(true)
    }
}

/// Files a report (the store attaches its evidence), unless it floods.
struct FileReport(ReportRow);

impl Change for FileReport {
    type Out = Filed;

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<Filed> {
        reports::file(c.sql(), &self.0)
    }
}

/// Uses a reset token: see `resets::redeem`.
struct Redeem {
    hash: String,
    now: i64,
    password: String,
}

impl Change for Redeem {
    type Out = Option<String>;

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<Option<String>> {
        resets::redeem(c.sql(), &self.hash, self.now, &self.password)
    }
}

/// Moderators, closed accounts, reset tokens, reports and the moderation log.
impl Store {
    /// Does `m` and writes its log line; false for a report that was not open.
    pub fn moderate(&self, m: Moderate) -> StoreResult<bool> {
        self.writer.call(m)
    }

    /// `name`'s role and closed mark (its name as stored).
    pub fn standing(&self, name: &str) -> StoreResult<Standing> {
        self.readers.sql(|db| standing::standing(db, name))
    }

    /// The moderators' names.
    pub fn moderators(&self) -> StoreResult<Vec<String>> {
        self.readers.sql(standing::moderators)
    }

    /// Uses the reset token whose SHA-256 is `hash`: the account's password hash becomes
    /// `password` and its sessions end. Whose account, or `None` for a token unknown, used,
    /// voided or expired (nothing changed).
    pub fn redeem_reset(
        &self,
        hash: &str,
        now: i64,
        password: &str,
    ) -> StoreResult<Option<String>> {
        self.writer.call(Redeem {
            hash: hash.to_string(),
            now,
            password: password.to_string(),
        })
    }

    /// Files `report` (its evidence is the store's to attach) unless it floods.
    pub fn file_report(&self, report: ReportRow) -> StoreResult<Filed> {
        self.writer.call(FileReport(report))
    }

    /// Up to `limit` reports of `of`.
    pub fn reports(&self, of: ReportsOf<'_>, limit: usize) -> StoreResult<Vec<ReportRow>> {
        self.readers.sql(|db| reports::list(db, of, limit))
    }

    /// The warnings moderators gave `name`, newest first (among the newest [`WARNINGS_SEEN`]
    /// log lines about it): (when, why). Who gave them is the moderators' to know.
    pub fn warnings(&self, name: &str) -> StoreResult<Vec<(i64, String)>> {
        let lines = self.mod_log(Some(name), WARNINGS_SEEN)?;
        Ok(lines
            .into_iter()
            .filter(|l| l.action == Act::Warn.name())
            .map(|l| (l.at, l.reason))
            .collect())
    }

    /// The newest `limit` lines of the moderation log (about `target` only, if given).
    pub fn mod_log(&self, target: Option<&str>, limit: usize) -> StoreResult<Vec<LogRow>> {
        self.readers.sql(|db| log::lines(db, target, limit))
    }
}
