//! What a community needs to govern itself (issue 38, moderators and account care): an
//! account's standing (`standing.rs`: moderator, closed), one-time password-reset tokens
//! (`resets.rs`), reports with the evidence the server attaches (`reports.rs`) and the
//! append-only moderation log (`log.rs`). Every moderator's action is one [`Moderate`]
//! change: the action and its log line commit together or not at all.

mod copy;
mod log;
mod marks;
mod reports;
mod resets;
mod standing;

pub use copy::ModerationDump;
pub(super) use log::last_act;
pub use log::{LogRow, ADMIN_CLI};
pub(super) use marks::MARK_TABLES;
pub use marks::{marked_sql, MarkKind, MarkRow, REFUND_GAMES_MAX, REFUND_PREFIX, REFUND_WINDOW_MS};
pub use reports::{
    Filed, ReportReason, ReportRow, ReportsOf, REPORTS_PER_WINDOW, REPORT_TEXT_MAX,
    REPORT_WINDOW_MS,
};
pub use resets::RESET_MS;
pub use standing::Standing;

use serde_json::{json, Value};

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
    /// Marks the target (computer-assisted or booster): its opponents get back the points they
    /// lost to it lately, and it leaves the leaderboards and TV and plays casual games only.
    Mark {
        kind: MarkKind,
    },
    /// Lifts a mark; the points given back stay given.
    Unmark {
        kind: MarkKind,
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
            Act::Mark {
                kind: MarkKind::Computer,
            } => "mark_computer",
            Act::Mark {
                kind: MarkKind::Booster,
            } => "mark_booster",
            Act::Unmark {
                kind: MarkKind::Computer,
            } => "unmark_computer",
            Act::Unmark {
                kind: MarkKind::Booster,
            } => "unmark_booster",
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
        let Some(more) = self.perform(db)? else {
            return Ok(false);
        };
        let at = self.at;
        let mut detail = self.detail.clone();
        if let (Value::Object(map), Value::Object(more)) = (&mut detail, more) {
            map.extend(more);
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

impl Moderate {
    /// Does the action; what it adds to the log line's detail, or `None` (nothing done, no
    /// line) for a report that was not open.
    fn perform(&self, db: &mut dyn super::sql::Sql) -> StoreResult<Option<Value>> {
        let (name, at) = (self.target.as_str(), self.at);
        let none = Value::Object(Default::default());
        Ok(Some(match &self.act {
            Act::GrantModerator => standing::set_moderator(db, name, true).map(|_| none)?,
            Act::RevokeModerator => standing::set_moderator(db, name, false).map(|_| none)?,
            Act::Close => standing::set_closed(db, name, Some(at)).map(|_| none)?,
            Act::Reopen => standing::set_closed(db, name, None).map(|_| none)?,
            Act::Warn | Act::LiftWait => none,
            Act::ResetLink { hash } => resets::issue(db, name, hash, at).map(|_| none)?,
            Act::CloseReport { id } => {
                if !reports::close(db, id, &self.moderator, at)? {
                    return Ok(None);
                }
                json!({ "report": id })
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
                json!({ "until": until })
            }
            Act::Mark { kind } => {
                marks::set(db, name, *kind, &self.moderator, at)?;
                // Every mark refunds, a second one too: a game rated after the first (it was in
                // play when the mark landed) is refunded then, and no game twice.
                let r = marks::refund(db, name, at)?;
                json!({ "kind": kind, "games": r.games, "refunds": r.refunds, "points": r.points })
            }
            Act::Unmark { kind } => {
                marks::unset(db, name, *kind)?;
                json!({ "kind": kind })
            }
        }))
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

    /// `name`'s marks (its name as stored), oldest first.
    pub fn marks(&self, name: &str) -> StoreResult<Vec<MarkRow>> {
        self.readers.sql(|db| marks::marks(db, name))
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
