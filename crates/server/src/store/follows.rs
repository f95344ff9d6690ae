//! Follows (issue 38): who follows whom, and who is online now. A follow is one row
//! (follower, followed, at); "online" is a lease each instance holds for the accounts that have
//! a lobby socket open on it and renews while they do, so that every instance sharing the
//! database sees the same answer and an instance that dies stops counting within a lease.

use super::sql::{FromRow, Row, Sql};
use super::writer::Change;
use super::StoreResult;
use super::{Conn, Store};

/// The tables, the same text in both backends.
pub(super) const FOLLOW_TABLES: &str = "
CREATE TABLE IF NOT EXISTS follows (
    follower TEXT NOT NULL REFERENCES accounts (name),
    followed TEXT NOT NULL REFERENCES accounts (name),
    at BIGINT NOT NULL,
    PRIMARY KEY (follower, followed)
);
CREATE INDEX IF NOT EXISTS follows_by_followed ON follows (followed);
CREATE TABLE IF NOT EXISTS presence (
    account TEXT NOT NULL,
    instance TEXT NOT NULL,
    until BIGINT NOT NULL,
    PRIMARY KEY (account, instance)
);
CREATE INDEX IF NOT EXISTS presence_by_until ON presence (until);
";

/// What following someone did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Followed {
    /// A new follow.
    New,
    /// The follower followed them already: nothing changed.
    Already,
    /// The follower follows `max` players already: nothing changed.
    TooMany { max: i64 },
    /// One of the two blocks the other: nothing changed (a block also ends their follows).
    Blocked,
}

/// One followed player, as the follower's list shows them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FollowRow {
    pub name: String,
    /// Since when (milliseconds since the epoch).
    pub at: i64,
    /// Holds a live presence lease (see the module).
    pub online: bool,
    /// The id of a public game in play the player holds a seat in, the latest changed.
    pub playing: Option<String>,
}

impl FromRow for FollowRow {
    fn from_row(r: &Row) -> StoreResult<FollowRow> {
        Ok(FollowRow {
            name: r.text("name")?,
            at: r.int("at")?,
            online: r.int("online")? > 0,
            playing: r.opt_text("playing")?,
        })
    }
}

/// `follower` follows `followed` (both account names as stored), at most `max` in all.
struct Follow {
    follower: String,
    followed: String,
    at: i64,
    max: i64,
}

impl Change for Follow {
    type Out = Followed;

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<Followed> {
        let db = c.sql();
        // PostgreSQL: the follower's account row, locked, orders two follows of one account
        // made at once on two instances, so that the count below holds for both.
        let lock = db.dialect().for_update();
        db.query(
            &format!("SELECT name FROM accounts WHERE name = $1{lock}"),
            &[(&self.follower).into()],
        )?;
        let already = db.count(
            "SELECT COUNT(*) AS n FROM follows WHERE follower = $1 AND followed = $2",
            &[(&self.follower).into(), (&self.followed).into()],
            "n",
        )?;
        if already > 0 {
            return Ok(Followed::Already);
        }
        if crate::store::community::blocked_between(db, &self.follower, &self.followed)? {
            return Ok(Followed::Blocked);
        }
        let n = db.count(
            "SELECT COUNT(*) AS n FROM follows WHERE follower = $1",
            &[(&self.follower).into()],
            "n",
        )?;
        if n >= self.max {
            return Ok(Followed::TooMany { max: self.max });
        }
        db.execute(
            "INSERT INTO follows (follower, followed, at) VALUES ($1, $2, $3)",
            &[
                (&self.follower).into(),
                (&self.followed).into(),
                self.at.into(),
            ],
        )?;
        Ok(Followed::New)
    }
}

/// `follower` stops following `followed`: whether it did.
struct Unfollow {
    follower: String,
    followed: String,
}

impl Change for Unfollow {
    type Out = bool;

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<bool> {
        let n = c.sql().execute(
            "DELETE FROM follows WHERE follower = $1 AND followed = $2",
            &[(&self.follower).into(), (&self.followed).into()],
        )?;
        Ok(n > 0)
    }
}

/// This instance's leases: `here` renewed until `until`, `gone` ended.
struct Leases {
    instance: String,
    here: Vec<String>,
    gone: Vec<String>,
    until: i64,
}

impl Change for Leases {
    type Out = ();

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<()> {
        let db = c.sql();
        for a in &self.here {
            db.execute(
                "INSERT INTO presence (account, instance, until) VALUES ($1, $2, $3)
                 ON CONFLICT (account, instance) DO UPDATE SET until = excluded.until",
                &[a.into(), (&self.instance).into(), self.until.into()],
            )?;
        }
        for a in &self.gone {
            db.execute(
                "DELETE FROM presence WHERE account = $1 AND instance = $2",
                &[a.into(), (&self.instance).into()],
            )?;
        }
        // Leases of instances gone long ago would otherwise stay for ever.
        db.execute(
            "DELETE FROM presence WHERE until < $1",
            &[(self.until - 3_600_000).into()],
        )?;
        Ok(())
    }
}

/// Follows copied from another store (`anywoli db migrate`): how many were new.
struct ImportFollows(Vec<(String, String, i64)>);

impl Change for ImportFollows {
    type Out = u64;

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<u64> {
        let db = c.sql();
        let mut n = 0;
        for (follower, followed, at) in &self.0 {
            n += db.execute(
                "INSERT INTO follows (follower, followed, at) VALUES ($1, $2, $3)
                 ON CONFLICT DO NOTHING",
                &[follower.into(), followed.into(), (*at).into()],
            )?;
        }
        Ok(n)
    }
}

/// The players `follower` follows, most recently followed first, each with whether it is
/// online at `now` and the public game in play it holds a seat in, if any.
fn following(db: &mut dyn Sql, follower: &str, now: i64) -> StoreResult<Vec<FollowRow>> {
    db.rows(
        "SELECT f.followed AS name, f.at AS at,
            (SELECT COUNT(*) FROM presence p WHERE p.account = f.followed AND p.until > $2)
                AS online,
            (SELECT g.id FROM games g
             WHERE (g.south_account = f.followed OR g.north_account = f.followed)
               AND g.status = 'playing' AND g.public
             ORDER BY g.updated DESC LIMIT 1) AS playing
         FROM follows f WHERE f.follower = $1
         ORDER BY f.at DESC, f.followed",
        &[follower.into(), now.into()],
    )
}

/// Follows and presence.
impl Store {
    /// `follower` follows `followed` (account names as stored), unless it follows `max`
    /// players already.
    pub fn follow(&self, follower: &str, followed: &str, max: i64) -> StoreResult<Followed> {
        self.writer.call(Follow {
            follower: follower.to_string(),
            followed: followed.to_string(),
            at: crate::dates::now_ms(),
            max,
        })
    }

    /// `follower` stops following `followed`: whether it did.
    pub fn unfollow(&self, follower: &str, followed: &str) -> StoreResult<bool> {
        self.writer.call(Unfollow {
            follower: follower.to_string(),
            followed: followed.to_string(),
        })
    }

    /// Whether `follower` follows `followed`.
    pub fn follows(&self, follower: &str, followed: &str) -> StoreResult<bool> {
        self.readers.sql(|db| {
            Ok(db.count(
                "SELECT COUNT(*) AS n FROM follows WHERE follower = $1 AND followed = $2",
                &[follower.into(), followed.into()],
                "n",
            )? > 0)
        })
    }

    /// The players `follower` follows, most recent first, with their presence at `now`.
    pub fn following(&self, follower: &str, now: i64) -> StoreResult<Vec<FollowRow>> {
        self.readers.sql(|db| following(db, follower, now))
    }

    /// Every follow, (follower, followed, at), for `anywoli db migrate`.
    pub fn follows_dump(&self) -> StoreResult<Vec<(String, String, i64)>> {
        self.readers.sql(|db| {
            db.query(
                "SELECT follower, followed, at FROM follows ORDER BY follower, followed",
                &[],
            )?
            .iter()
            .map(|r| Ok((r.text("follower")?, r.text("followed")?, r.int("at")?)))
            .collect()
        })
    }

    /// Writes the follows of `rows` that are not there yet: how many.
    pub fn import_follows(&self, rows: Vec<(String, String, i64)>) -> StoreResult<u64> {
        self.writer.call(ImportFollows(rows))
    }

    /// Renews this instance's presence leases of `here` until `until` and ends those of
    /// `gone`.
    pub fn renew_presence(
        &self,
        here: Vec<String>,
        gone: Vec<String>,
        until: i64,
    ) -> StoreResult<()> {
        self.writer.call(Leases {
            instance: self.instance().to_string(),
            here,
            gone,
            until,
        })
    }
}
