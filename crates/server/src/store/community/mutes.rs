//! Mutes: a moderator's "this account says nothing in chat until …", one per account (a
//! new mute replaces the earlier one; the moderation log keeps the history).

use crate::store::sql::{FromRow, Row, Sql};
use crate::store::writer::Change;
use crate::store::{Conn, Store, StoreResult};

/// An account's mute: until when (ms), by which moderator, why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MuteRow {
    pub account: String,
    pub until: i64,
    pub by: String,
    pub reason: String,
    pub at: i64,
}

impl FromRow for MuteRow {
    fn from_row(r: &Row) -> StoreResult<MuteRow> {
        Ok(MuteRow {
            account: r.text("account")?,
            until: r.int("until")?,
            by: r.text("by_account")?,
            reason: r.text("reason")?,
            at: r.int("at")?,
        })
    }
}

struct SetMute(MuteRow);

impl Change for SetMute {
    type Out = ();

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<()> {
        set_mute(c.sql(), &self.0)
    }
}

/// Writes mute `m` (replacing the account's earlier one): the chat's own change and a
/// moderator's (`moderation::Act::Mute`, with its log line) run the same SQL.
pub(in crate::store) fn set_mute(db: &mut dyn Sql, m: &MuteRow) -> StoreResult<()> {
    {
        db.execute(
            "INSERT INTO mutes (account, until, by_account, reason, at)
             VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (account) DO UPDATE SET until = excluded.until,
                by_account = excluded.by_account, reason = excluded.reason, at = excluded.at",
            &[
                (&m.account).into(),
                m.until.into(),
                (&m.by).into(),
                (&m.reason).into(),
                m.at.into(),
            ],
        )?;
    }
    Ok(())
}

/// Mutes.
impl Store {
    /// Mutes `account` (its name) until `until` (ms since the epoch), by moderator `by`, for
    /// `reason`; replaces an earlier mute. A mute until now or earlier lifts it.
    pub fn mute(&self, account: &str, until: i64, by: &str, reason: &str) -> StoreResult<()> {
        self.writer.call(SetMute(MuteRow {
            account: account.to_string(),
            until,
            by: by.to_string(),
            reason: reason.to_string(),
            at: crate::dates::now_ms(),
        }))
    }

    /// `account`'s mute if it holds at `now`.
    pub fn muted(&self, account: &str, now: i64) -> StoreResult<Option<MuteRow>> {
        self.readers.sql(|db| {
            db.row(
                "SELECT account, until, by_account, reason, at FROM mutes
                 WHERE account = $1 AND until > $2",
                &[account.into(), now.into()],
            )
        })
    }
}
