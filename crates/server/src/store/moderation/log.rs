//! The moderation log: append-only (nothing here updates or deletes a line), one line per
//! moderator's action, whether taken on the page, over the API or from `anywoli admin`.

use super::super::sql::{FromRow, Row, Sql};
use super::super::StoreResult;

/// What `anywoli admin` writes as the moderator of its lines.
pub const ADMIN_CLI: &str = "admin (cli)";

/// One line of the log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogRow {
    pub id: String,
    pub at: i64,
    /// Who acted: a moderator's name, or [`ADMIN_CLI`].
    pub moderator: String,
    /// What was done: `grant_moderator`, `close`, `warn`, `close_report`…
    pub action: String,
    /// Whom it was done to (an account's name).
    pub target: String,
    /// Why, as the moderator wrote it (may be empty).
    pub reason: String,
    /// More, as JSON (a report's id, say); `{}` for nothing.
    pub detail: String,
}

impl FromRow for LogRow {
    fn from_row(r: &Row) -> StoreResult<LogRow> {
        Ok(LogRow {
            id: r.text("id")?,
            at: r.int("at")?,
            moderator: r.text("moderator")?,
            action: r.text("action")?,
            target: r.text("target")?,
            reason: r.text("reason")?,
            detail: r.text("detail")?,
        })
    }
}

pub(super) fn append(db: &mut dyn Sql, l: &LogRow) -> StoreResult<()> {
    db.execute(
        "INSERT INTO mod_log (id, at, moderator, action, target, reason, detail)
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
        &[
            (&l.id).into(),
            l.at.into(),
            (&l.moderator).into(),
            (&l.action).into(),
            (&l.target).into(),
            (&l.reason).into(),
            (&l.detail).into(),
        ],
    )?;
    Ok(())
}

const COLUMNS: &str = "SELECT id, at, moderator, action, target, reason, detail FROM mod_log";

/// The newest `limit` lines, about `target` only if given, newest first.
pub(super) fn lines(
    db: &mut dyn Sql,
    target: Option<&str>,
    limit: usize,
) -> StoreResult<Vec<LogRow>> {
    match target {
        Some(t) => db.rows(
            &format!("{COLUMNS} WHERE target = $1 ORDER BY at DESC, id LIMIT $2"),
            &[t.into(), (limit as i64).into()],
        ),
        None => db.rows(
            &format!("{COLUMNS} ORDER BY at DESC, id LIMIT $1"),
            &[(limit as i64).into()],
        ),
    }
}

/// When `action` was last done to `target` (for a lift of a wait: `lift_wait`), if ever.
pub(in crate::store) fn last_act(
    db: &mut dyn Sql,
    target: &str,
    action: &str,
) -> StoreResult<Option<i64>> {
    let rows = db.query(
        "SELECT MAX(at) AS at FROM mod_log WHERE target = $1 AND action = $2",
        &[target.into(), action.into()],
    )?;
    match rows.first() {
        Some(r) => r.opt_int("at"),
        None => Ok(None),
    }
}
