//! An account's standing: whether it is a moderator and whether it was closed (by its owner or
//! a moderator). A table of its own beside `accounts`, so that databases made before it keep
//! working unchanged: an account without a row is a player in good standing.

use super::super::sql::{FromRow, Row, Sql};
use super::super::StoreResult;

/// An account's role and closed mark.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Standing {
    pub moderator: bool,
    /// When the account was closed; `None` while it is open.
    pub closed: Option<i64>,
}

impl FromRow for Standing {
    fn from_row(r: &Row) -> StoreResult<Standing> {
        Ok(Standing {
            moderator: r.opt_text("role")?.as_deref() == Some("moderator"),
            closed: r.opt_int("closed")?,
        })
    }
}

pub(super) fn standing(db: &mut dyn Sql, name: &str) -> StoreResult<Standing> {
    Ok(db
        .row(
            "SELECT role, closed FROM account_standing WHERE account = $1",
            &[name.into()],
        )?
        .unwrap_or_default())
}

fn ensure_row(db: &mut dyn Sql, name: &str) -> StoreResult<()> {
    db.execute(
        "INSERT INTO account_standing (account) VALUES ($1) ON CONFLICT (account) DO NOTHING",
        &[name.into()],
    )?;
    Ok(())
}

pub(super) fn set_moderator(db: &mut dyn Sql, name: &str, on: bool) -> StoreResult<()> {
    ensure_row(db, name)?;
    let role: Option<&str> = on.then_some("moderator");
    db.execute(
        "UPDATE account_standing SET role = $2 WHERE account = $1",
        &[name.into(), role.into()],
    )?;
    Ok(())
}

/// Marks the account closed (or open again with `None`). Closing ends every session, so that
/// whoever holds one is out at their next request; a reset link waiting for it goes too.
pub(super) fn set_closed(db: &mut dyn Sql, name: &str, at: Option<i64>) -> StoreResult<()> {
    ensure_row(db, name)?;
    db.execute(
        "UPDATE account_standing SET closed = $2 WHERE account = $1",
        &[name.into(), at.into()],
    )?;
    if at.is_some() {
        db.execute("DELETE FROM sessions WHERE account = $1", &[name.into()])?;
        db.execute(
            "DELETE FROM reset_tokens WHERE account = $1",
            &[name.into()],
        )?;
    }
    Ok(())
}

/// The moderators' names, in byte order.
pub(super) fn moderators(db: &mut dyn Sql) -> StoreResult<Vec<String>> {
    let rows = db.query(
        "SELECT account FROM account_standing WHERE role = 'moderator' ORDER BY account",
        &[],
    )?;
    rows.iter().map(|r| r.text("account")).collect()
}
