//! Accounts, their sessions, the challenges between them and their ratings (`ratings.rs`),
//! in SQL that both backends run as it is (`sql.rs`). Changes go through the writer like a
//! game's (`AccountOp`); a rated game's ratings change in the transaction that ends it
//! (`ratings::rate`).

mod ratings;

pub(super) use ratings::rate;
pub use ratings::{RateGame, RatingPoint, RatingRow};

use super::sql::{FromRow, Row, Sql};
use super::writer::Change;
use super::{Conn, Store, StoreResult};
pub(in crate::store) use ratings::add_point;
use ratings::{history, ratings};

/// An account as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccountRow {
    /// The name in lower case: what makes two names the same.
    pub key: String,
    /// The name as typed.
    pub name: String,
    /// The password's Argon2id hash (PHC string).
    pub hash: String,
    pub created: i64,
}

/// A session: the SHA-256 of its cookie, whose account, and its CSRF token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionRow {
    pub token: String,
    pub name: String,
    pub csrf: String,
    pub created: i64,
}

/// A change to accounts, run by the writer.
#[derive(Clone, Debug)]
pub enum AccountOp {
    /// A new account and its first session; refused (answering false) if the name is taken.
    Create {
        account: AccountRow,
        session: SessionRow,
    },
    AddSession(SessionRow),
    /// Ends the account's sessions, but for `except` (a session's token).
    EndSessions {
        name: String,
        except: Option<String>,
    },
    EndSession {
        token: String,
    },
    SetPassword {
        name: String,
        hash: String,
    },
    /// Claims seek `id` for whoever accepts, cancels or drops it: false if another did first
    /// (on any instance). Claims older than a day go.
    TakeSeek {
        id: String,
        at: i64,
    },
    AddChallenge(ChallengeRow),
    /// An account copied from another store with its ratings and their history
    /// (`anywoli db migrate`); false if the name is there already.
    Import {
        account: AccountRow,
        ratings: Vec<RatingRow>,
        history: Vec<RatingPoint>,
    },
    /// Removes challenge `id`: false if it was gone already (answered elsewhere).
    TakeChallenge {
        id: String,
    },
}

/// A challenge waiting for its answer; `body` is crate::lobby::message::Challenge as JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChallengeRow {
    pub id: String,
    pub from: String,
    pub to: String,
    pub body: String,
    pub at: i64,
}

/// Answers whether it took effect: false for a name taken, a seek or challenge gone.
impl Change for AccountOp {
    type Out = bool;

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<bool> {
        write(c.sql(), self)
    }
}

fn write(db: &mut dyn Sql, op: &AccountOp) -> StoreResult<bool> {
    match op {
        AccountOp::Create { account, session } => {
            if !insert_account(db, account)? {
                return Ok(false);
            }
            add_session(db, session)?;
        }
        AccountOp::AddSession(s) => add_session(db, s)?,
        AccountOp::EndSessions { name, except } => {
            db.execute(
                "DELETE FROM sessions WHERE account = $1 AND token != $2",
                &[name.into(), except.clone().unwrap_or_default().into()],
            )?;
        }
        AccountOp::EndSession { token } => {
            db.execute("DELETE FROM sessions WHERE token = $1", &[token.into()])?;
        }
        AccountOp::SetPassword { name, hash } => {
            db.execute(
                "UPDATE accounts SET hash = $2 WHERE name = $1",
                &[name.into(), hash.into()],
            )?;
        }
        AccountOp::TakeSeek { id, at } => {
            db.execute(
                "DELETE FROM seek_claims WHERE at < $1",
                &[(at - 24 * 3600 * 1000).into()],
            )?;
            let n = db.execute(
                "INSERT INTO seek_claims (id, at) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING",
                &[id.into(), (*at).into()],
            )?;
            return Ok(n == 1);
        }
        AccountOp::AddChallenge(c) => {
            db.execute(
                "INSERT INTO challenges (id, from_account, to_account, body, at)
                 VALUES ($1, $2, $3, $4, $5)",
                &[
                    (&c.id).into(),
                    (&c.from).into(),
                    (&c.to).into(),
                    (&c.body).into(),
                    c.at.into(),
                ],
            )?;
        }
        AccountOp::Import {
            account,
            ratings,
            history,
        } => return import(db, account, ratings, history),
        AccountOp::TakeChallenge { id } => {
            let n = db.execute("DELETE FROM challenges WHERE id = $1", &[id.into()])?;
            return Ok(n == 1);
        }
    }
    Ok(true)
}

/// Makes an account copied from another store, with its ratings and their history: false
/// (making nothing) if its name is taken.
fn import(
    db: &mut dyn Sql,
    account: &AccountRow,
    ratings: &[RatingRow],
    history: &[RatingPoint],
) -> StoreResult<bool> {
    if !insert_account(db, account)? {
        return Ok(false);
    }
    for r in ratings {
        db.execute(
            "INSERT INTO ratings (account, category, rules, rating, deviation, volatility,
                games, at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            &[
                (&account.name).into(),
                (&r.category).into(),
                (&r.rules).into(),
                r.rating.rating.into(),
                r.rating.deviation.into(),
                r.rating.volatility.into(),
                r.games.into(),
                r.at.into(),
            ],
        )?;
    }
    for p in history {
        add_point(db, &account.name, p)?;
    }
    Ok(true)
}

impl FromRow for ChallengeRow {
    fn from_row(r: &Row) -> StoreResult<ChallengeRow> {
        Ok(ChallengeRow {
            id: r.text("id")?,
            from: r.text("from_account")?,
            to: r.text("to_account")?,
            body: r.text("body")?,
            at: r.int("at")?,
        })
    }
}

const CHALLENGE_COLUMNS: &str = "SELECT id, from_account, to_account, body, at FROM challenges";

pub(super) fn challenge(db: &mut dyn Sql, id: &str) -> StoreResult<Option<ChallengeRow>> {
    db.row(&format!("{CHALLENGE_COLUMNS} WHERE id = $1"), &[id.into()])
}

pub(super) fn challenges(db: &mut dyn Sql, name: &str) -> StoreResult<Vec<ChallengeRow>> {
    db.rows(
        &format!("{CHALLENGE_COLUMNS} WHERE from_account = $1 OR to_account = $1 ORDER BY at, id"),
        &[name.into()],
    )
}

pub(super) fn old_challenges(db: &mut dyn Sql, before: i64) -> StoreResult<Vec<ChallengeRow>> {
    db.rows(
        &format!("{CHALLENGE_COLUMNS} WHERE at < $1 ORDER BY at LIMIT 500"),
        &[before.into()],
    )
}

/// How long a session lasts (the cookie's `Max-Age` says the same to the browser).
pub const SESSION_MS: i64 = 30 * 24 * 3600 * 1000;

/// Makes `account`: false (making nothing) if its name is taken.
fn insert_account(db: &mut dyn Sql, account: &AccountRow) -> StoreResult<bool> {
    let taken = db.query(
        "SELECT 1 FROM accounts WHERE key = $1",
        &[(&account.key).into()],
    )?;
    if !taken.is_empty() {
        return Ok(false);
    }
    db.execute(
        "INSERT INTO accounts (key, name, hash, created) VALUES ($1, $2, $3, $4)",
        &[
            (&account.key).into(),
            (&account.name).into(),
            (&account.hash).into(),
            account.created.into(),
        ],
    )?;
    Ok(true)
}

fn add_session(db: &mut dyn Sql, s: &SessionRow) -> StoreResult<()> {
    // The account's sessions past their time go as a new one comes: the table holds only
    // sessions that may still be used.
    db.execute(
        "DELETE FROM sessions WHERE account = $1 AND created < $2",
        &[(&s.name).into(), (s.created - SESSION_MS).into()],
    )?;
    db.execute(
        "INSERT INTO sessions (token, account, csrf, created) VALUES ($1, $2, $3, $4)",
        &[
            (&s.token).into(),
            (&s.name).into(),
            (&s.csrf).into(),
            s.created.into(),
        ],
    )?;
    Ok(())
}

impl FromRow for AccountRow {
    fn from_row(r: &Row) -> StoreResult<AccountRow> {
        Ok(AccountRow {
            key: r.text("key")?,
            name: r.text("name")?,
            hash: r.text("hash")?,
            created: r.int("created")?,
        })
    }
}

impl FromRow for SessionRow {
    fn from_row(r: &Row) -> StoreResult<SessionRow> {
        Ok(SessionRow {
            token: r.text("token")?,
            name: r.text("account")?,
            csrf: r.text("csrf")?,
            created: r.int("created")?,
        })
    }
}

pub(super) fn account(db: &mut dyn Sql, key: &str) -> StoreResult<Option<AccountRow>> {
    db.row(
        "SELECT key, name, hash, created FROM accounts WHERE key = $1",
        &[key.into()],
    )
}

/// Up to `limit` accounts whose key is after `after`, in byte order (`""` for the first page).
pub(super) fn accounts_after(
    db: &mut dyn Sql,
    after: &str,
    limit: usize,
) -> StoreResult<Vec<AccountRow>> {
    let collate = db.dialect().byte_order();
    let sql = format!(
        "SELECT key, name, hash, created FROM accounts WHERE key {collate} > $1
         ORDER BY key {collate} LIMIT $2"
    );
    db.rows(&sql, &[after.into(), (limit as i64).into()])
}

/// The session whose token is `token`, unless it is past its time at `now`.
pub(super) fn session(db: &mut dyn Sql, token: &str, now: i64) -> StoreResult<Option<SessionRow>> {
    db.row(
        // A closed account's sessions are deleted as it closes; the check also covers a
        // login that raced the closing.
        "SELECT token, account, csrf, created FROM sessions WHERE token = $1 AND created >= $2
         AND NOT EXISTS (SELECT 1 FROM account_standing
            WHERE account_standing.account = sessions.account AND closed IS NOT NULL)",
        &[token.into(), (now - SESSION_MS).into()],
    )
}

/// The account's sessions that may still be used at `now`, newest first (at most 100: a
/// session is made only by a login, which is rate-limited).
pub(super) fn sessions_of(db: &mut dyn Sql, name: &str, now: i64) -> StoreResult<Vec<SessionRow>> {
    db.rows(
        "SELECT token, account, csrf, created FROM sessions WHERE account = $1 AND created >= $2
         ORDER BY created DESC, token LIMIT 100",
        &[name.into(), (now - SESSION_MS).into()],
    )
}

/// Accounts, sessions, challenges and players' ratings.
impl Store {
    /// The sessions of account `name` that may still be used at `now`, newest first.
    pub fn sessions_of(&self, name: &str, now: i64) -> StoreResult<Vec<SessionRow>> {
        self.readers.sql(|db| sessions_of(db, name, now))
    }

    /// The challenge `id`: its sender, whom it is for, and its body (JSON).
    pub fn challenge(&self, id: &str) -> StoreResult<Option<ChallengeRow>> {
        self.readers.sql(|db| challenge(db, id))
    }

    /// The challenges to and from `name`, and those made before `expired_before` (to drop).
    pub fn challenges(&self, name: &str) -> StoreResult<Vec<ChallengeRow>> {
        self.readers.sql(|db| challenges(db, name))
    }

    /// Challenges made before `before`, which have run out.
    pub fn old_challenges(&self, before: i64) -> StoreResult<Vec<ChallengeRow>> {
        self.readers.sql(|db| old_challenges(db, before))
    }

    /// A change to accounts and sessions; false for a new account whose name is taken.
    pub fn account_op(&self, op: AccountOp) -> StoreResult<bool> {
        self.writer.call(op)
    }

    /// The account whose name is `key` in lower case.
    pub fn account(&self, key: &str) -> StoreResult<Option<AccountRow>> {
        self.readers.sql(|db| account(db, key))
    }

    /// Up to `limit` accounts whose key (lower-case name) is after `after` in byte order, for
    /// walking every account a page at a time (`anywoli db migrate`).
    pub fn accounts_after(&self, after: &str, limit: usize) -> StoreResult<Vec<AccountRow>> {
        self.readers.sql(|db| accounts_after(db, after, limit))
    }

    /// The session whose cookie's SHA-256 is `token`, if it has not run out at `now`.
    pub fn session(&self, token: &str, now: i64) -> StoreResult<Option<SessionRow>> {
        self.readers.sql(|db| session(db, token, now))
    }

    /// A player's ratings (those with games), most played first.
    pub fn ratings(&self, name: &str) -> StoreResult<Vec<RatingRow>> {
        self.readers.sql(|db| ratings(db, name))
    }

    /// The last `limit` points of a player's rating history, oldest first.
    pub fn rating_history(&self, name: &str, limit: usize) -> StoreResult<Vec<RatingPoint>> {
        self.readers.sql(|db| history(db, name, limit))
    }
}
