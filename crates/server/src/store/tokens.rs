//! Personal API tokens and BOT accounts (issue 40, docs/api-bots.md). A token is kept as the
//! SHA-256 of its text, as a session's cookie is: a copy of the database opens nothing. A BOT
//! account is one row in `bots`, made once (an account with no games yet) and never undone;
//! a house bot's row also holds the level the server plays it at. `leases` lets one instance
//! at a time do a job for all (the house bots' seeks).

use super::sql::{FromRow, Row, Sql};
use super::writer::Change;
use super::StoreResult;
use super::{Conn, Store};

/// The tables, the same text in both backends.
pub(super) const TOKEN_TABLES: &str = "
CREATE TABLE IF NOT EXISTS api_tokens (
    id TEXT PRIMARY KEY,
    hash TEXT NOT NULL UNIQUE,
    account TEXT NOT NULL REFERENCES accounts (name),
    description TEXT NOT NULL,
    scopes TEXT NOT NULL,
    created BIGINT NOT NULL,
    used BIGINT
);
CREATE INDEX IF NOT EXISTS api_tokens_by_account ON api_tokens (account);
CREATE TABLE IF NOT EXISTS bots (
    account TEXT PRIMARY KEY REFERENCES accounts (name),
    at BIGINT NOT NULL,
    level BIGINT
);
CREATE TABLE IF NOT EXISTS leases (
    name TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    until BIGINT NOT NULL
);
";

/// A token as stored (never its text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenRow {
    /// Its public name, for listing and revoking.
    pub id: String,
    pub account: String,
    pub description: String,
    /// Its scopes, as named in docs/api-bots.md, separated by spaces.
    pub scopes: String,
    pub created: i64,
    /// When it was last used, to within [`USED_EVERY_MS`].
    pub used: Option<i64>,
}

/// A token's `used` is written at most this often: a bot's every request reads its token,
/// and a write each time would make every read a write.
pub const USED_EVERY_MS: i64 = 10 * 60 * 1000;

impl FromRow for TokenRow {
    fn from_row(r: &Row) -> StoreResult<TokenRow> {
        Ok(TokenRow {
            id: r.text("id")?,
            account: r.text("account")?,
            description: r.text("description")?,
            scopes: r.text("scopes")?,
            created: r.int("created")?,
            used: r.opt_int("used")?,
        })
    }
}

/// What making a token did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Minted {
    New,
    /// The account holds `max` tokens already: nothing changed.
    TooMany {
        max: i64,
    },
}

struct Mint {
    row: TokenRow,
    hash: String,
    max: i64,
}

impl Change for Mint {
    type Out = Minted;

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<Minted> {
        let db = c.sql();
        // The account's row, locked, orders two tokens made at once on two instances.
        let lock = db.dialect().for_update();
        db.query(
            &format!("SELECT name FROM accounts WHERE name = $1{lock}"),
            &[(&self.row.account).into()],
        )?;
        let n = db.count(
            "SELECT COUNT(*) AS n FROM api_tokens WHERE account = $1",
            &[(&self.row.account).into()],
            "n",
        )?;
        if n >= self.max {
            return Ok(Minted::TooMany { max: self.max });
        }
        let r = &self.row;
        db.execute(
            "INSERT INTO api_tokens (id, hash, account, description, scopes, created)
             VALUES ($1, $2, $3, $4, $5, $6)",
            &[
                (&r.id).into(),
                (&self.hash).into(),
                (&r.account).into(),
                (&r.description).into(),
                (&r.scopes).into(),
                r.created.into(),
            ],
        )?;
        Ok(Minted::New)
    }
}

/// Revokes token `id` of `account`: whether there was one.
struct Revoke {
    account: String,
    id: String,
}

impl Change for Revoke {
    type Out = bool;

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<bool> {
        Ok(c.sql().execute(
            "DELETE FROM api_tokens WHERE account = $1 AND id = $2",
            &[(&self.account).into(), (&self.id).into()],
        )? > 0)
    }
}

struct Used {
    hash: String,
    at: i64,
}

impl Change for Used {
    type Out = ();

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<()> {
        c.sql().execute(
            "UPDATE api_tokens SET used = $2 WHERE hash = $1",
            &[(&self.hash).into(), self.at.into()],
        )?;
        Ok(())
    }
}

/// What making an account a BOT did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Upgraded {
    New,
    Already,
    /// The account has played (or is playing) a game: nothing changed.
    HasGames,
}

struct Upgrade {
    account: String,
    at: i64,
}

impl Change for Upgrade {
    type Out = Upgraded;

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<Upgraded> {
        let db = c.sql();
        let lock = db.dialect().for_update();
        db.query(
            &format!("SELECT name FROM accounts WHERE name = $1{lock}"),
            &[(&self.account).into()],
        )?;
        if is_bot(db, &self.account)? {
            return Ok(Upgraded::Already);
        }
        let games = db.count(
            "SELECT COUNT(*) AS n FROM games WHERE south_account = $1 OR north_account = $1",
            &[(&self.account).into()],
            "n",
        )?;
        if games > 0 {
            return Ok(Upgraded::HasGames);
        }
        db.execute(
            "INSERT INTO bots (account, at) VALUES ($1, $2)",
            &[(&self.account).into(), self.at.into()],
        )?;
        Ok(Upgraded::New)
    }
}

/// What making a house bot did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HouseMade {
    /// A new account, or a BOT already: its level is set.
    Ready,
    /// The name is a person's account: nothing changed.
    Person,
}

struct House {
    account: super::AccountRow,
    level: u8,
}

impl Change for House {
    type Out = HouseMade;

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<HouseMade> {
        let db = c.sql();
        let name = &self.account.name;
        let exists = db.count(
            "SELECT COUNT(*) AS n FROM accounts WHERE name = $1",
            &[name.into()],
            "n",
        )? > 0;
        if exists && !is_bot(db, name)? {
            return Ok(HouseMade::Person);
        }
        if !exists {
            let a = &self.account;
            db.execute(
                "INSERT INTO accounts (key, name, hash, created) VALUES ($1, $2, $3, $4)",
                &[
                    (&a.key).into(),
                    name.into(),
                    (&a.hash).into(),
                    a.created.into(),
                ],
            )?;
        }
        db.execute(
            "INSERT INTO bots (account, at, level) VALUES ($1, $2, $3)
             ON CONFLICT (account) DO UPDATE SET level = excluded.level",
            &[
                name.into(),
                self.account.created.into(),
                i64::from(self.level).into(),
            ],
        )?;
        Ok(HouseMade::Ready)
    }
}

/// Takes lease `name` for `owner` until `until`, if it is free, ran out before `now`, or is
/// `owner`'s already: whether `owner` holds it.
struct Lease {
    name: String,
    owner: String,
    now: i64,
    until: i64,
}

impl Change for Lease {
    type Out = bool;

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<bool> {
        let n = c.sql().execute(
            "INSERT INTO leases (name, owner, until) VALUES ($1, $2, $3)
             ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, until = excluded.until
             WHERE leases.owner = excluded.owner OR leases.until < $4",
            &[
                (&self.name).into(),
                (&self.owner).into(),
                self.until.into(),
                self.now.into(),
            ],
        )?;
        Ok(n > 0)
    }
}

fn is_bot(db: &mut dyn Sql, account: &str) -> StoreResult<bool> {
    Ok(db.count(
        "SELECT COUNT(*) AS n FROM bots WHERE account = $1",
        &[account.into()],
        "n",
    )? > 0)
}

/// Tokens and BOT accounts.
impl Store {
    /// Stores a new token of `row.account` whose text hashes to `hash`, unless the account
    /// holds `max` already.
    pub fn mint_token(&self, row: TokenRow, hash: String, max: i64) -> StoreResult<Minted> {
        self.writer.call(Mint { row, hash, max })
    }

    /// Revokes `account`'s token `id`: whether it had one.
    pub fn revoke_token(&self, account: &str, id: &str) -> StoreResult<bool> {
        self.writer.call(Revoke {
            account: account.to_string(),
            id: id.to_string(),
        })
    }

    /// The token whose text hashes to `hash`, if it is not revoked.
    pub fn token(&self, hash: &str) -> StoreResult<Option<TokenRow>> {
        self.readers.sql(|db| {
            db.row(
                "SELECT id, account, description, scopes, created, used FROM api_tokens
                 WHERE hash = $1",
                &[hash.into()],
            )
        })
    }

    /// Notes that the token whose text hashes to `hash` was used at `at`.
    pub fn token_used(&self, hash: &str, at: i64) -> StoreResult<()> {
        self.writer.call(Used {
            hash: hash.to_string(),
            at,
        })
    }

    /// `account`'s tokens, newest first.
    pub fn tokens(&self, account: &str) -> StoreResult<Vec<TokenRow>> {
        self.readers.sql(|db| {
            db.rows(
                "SELECT id, account, description, scopes, created, used FROM api_tokens
                 WHERE account = $1 ORDER BY created DESC, id",
                &[account.into()],
            )
        })
    }

    /// Makes `account` a BOT, if it has no games yet.
    pub fn upgrade_to_bot(&self, account: &str, at: i64) -> StoreResult<Upgraded> {
        self.writer.call(Upgrade {
            account: account.to_string(),
            at,
        })
    }

    /// Makes `account` a house bot played at `level` (creating it), unless it is a person's.
    pub fn make_house_bot(&self, account: super::AccountRow, level: u8) -> StoreResult<HouseMade> {
        self.writer.call(House { account, level })
    }

    /// The level the server plays each of `accounts` at that is a house bot.
    pub fn house_levels(&self, accounts: &[String]) -> StoreResult<Vec<(String, u8)>> {
        self.readers.sql(|db| {
            let mut out = Vec::new();
            for a in accounts {
                let rows = db.query(
                    "SELECT level FROM bots WHERE account = $1 AND level IS NOT NULL",
                    &[a.into()],
                )?;
                if let Some(r) = rows.first() {
                    let level = r.int("level")?.clamp(1, 10) as u8;
                    out.push((a.clone(), level));
                }
            }
            Ok(out)
        })
    }

    /// Takes or renews lease `name` for this instance until `until`: whether it holds it.
    pub fn lease(&self, name: &str, now: i64, until: i64) -> StoreResult<bool> {
        self.writer.call(Lease {
            name: name.to_string(),
            owner: self.instance().to_string(),
            now,
            until,
        })
    }

    /// Whether `account` is a BOT.
    pub fn is_bot(&self, account: &str) -> StoreResult<bool> {
        self.readers.sql(|db| is_bot(db, account))
    }

    /// Which of `accounts` are BOTs.
    pub fn bots_among(&self, accounts: &[String]) -> StoreResult<Vec<String>> {
        // Built inside the read, which PostgreSQL may run again on a new connection.
        self.readers.sql(|db| {
            let mut out = Vec::new();
            for a in accounts {
                if is_bot(db, a)? {
                    out.push(a.clone());
                }
            }
            Ok(out)
        })
    }
}
