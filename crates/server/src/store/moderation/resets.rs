//! One-time password-reset tokens: the store keeps only their SHA-256 (a copy of the database
//! opens no account), one per account (a new link voids the older one), each good until it
//! expires and for one use.

use super::super::sql::Sql;
use super::super::StoreResult;

/// How long a reset link works.
pub const RESET_MS: i64 = 24 * 3600 * 1000;

/// Stores `hash` as `name`'s reset token, replacing any older one.
pub(super) fn issue(db: &mut dyn Sql, name: &str, hash: &str, at: i64) -> StoreResult<()> {
    db.execute(
        "INSERT INTO reset_tokens (account, hash, created, expires) VALUES ($1, $2, $3, $4)
         ON CONFLICT (account) DO UPDATE SET hash = excluded.hash, created = excluded.created,
            expires = excluded.expires",
        &[name.into(), hash.into(), at.into(), (at + RESET_MS).into()],
    )?;
    Ok(())
}

/// Uses the token whose SHA-256 is `hash` at `now`: sets the account's password hash to
/// `password` and ends its sessions, answering whose account it was. `None` (changing
/// nothing) for a token unknown, used already, voided by a newer one or expired.
pub(super) fn redeem(
    db: &mut dyn Sql,
    hash: &str,
    now: i64,
    password: &str,
) -> StoreResult<Option<String>> {
    let found = db.query(
        &format!(
            "SELECT account FROM reset_tokens WHERE hash = $1 AND expires > $2
             AND NOT EXISTS (SELECT 1 FROM account_standing
                WHERE account_standing.account = reset_tokens.account AND closed IS NOT NULL){}",
            db.dialect().for_update()
        ),
        &[hash.into(), now.into()],
    )?;
    let Some(row) = found.first() else {
        return Ok(None);
    };
    let name = row.text("account")?;
    // Deleted before the password is set: of two uses at once, one deletes the row, the other
    // finds nothing to delete and changes nothing.
    if db.execute("DELETE FROM reset_tokens WHERE hash = $1", &[hash.into()])? != 1 {
        return Ok(None);
    }
    db.execute(
        "UPDATE accounts SET hash = $2 WHERE name = $1",
        &[(&name).into(), password.into()],
    )?;
    db.execute("DELETE FROM sessions WHERE account = $1", &[(&name).into()])?;
    Ok(Some(name))
}
