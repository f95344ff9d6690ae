//! Blocks: an account keeping another away (no challenges, seeks, chat or watching between
//! the two). Stored one way (who blocked whom); the server checks both ways.

use crate::store::sql::{FromRow, Row, Sql};
use crate::store::writer::Change;
use crate::store::{Conn, Store, StoreResult};

/// One account's block of another.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockRow {
    pub blocker: String,
    pub blocked: String,
    pub at: i64,
}

impl FromRow for BlockRow {
    fn from_row(r: &Row) -> StoreResult<BlockRow> {
        Ok(BlockRow {
            blocker: r.text("blocker")?,
            blocked: r.text("blocked")?,
            at: r.int("at")?,
        })
    }
}

/// Blocks (`on`) or unblocks: whether anything changed.
struct SetBlock {
    row: BlockRow,
    on: bool,
}

impl Change for SetBlock {
    type Out = bool;

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<bool> {
        let r = &self.row;
        let n = if self.on {
            // Neither follows the other any more: a follower would see the other come online
            // and which game they play (lichess ends follows with a block too).
            c.sql().execute(
                "DELETE FROM follows WHERE (follower = $1 AND followed = $2)
                    OR (follower = $2 AND followed = $1)",
                &[(&r.blocker).into(), (&r.blocked).into()],
            )?;
            c.sql().execute(
                "INSERT INTO blocks (blocker, blocked, at) VALUES ($1, $2, $3)
                 ON CONFLICT DO NOTHING",
                &[(&r.blocker).into(), (&r.blocked).into(), r.at.into()],
            )?
        } else {
            c.sql().execute(
                "DELETE FROM blocks WHERE blocker = $1 AND blocked = $2",
                &[(&r.blocker).into(), (&r.blocked).into()],
            )?
        };
        Ok(n > 0)
    }
}

/// Whether `a` blocks `b` or `b` blocks `a`.
pub(crate) fn between(db: &mut dyn Sql, a: &str, b: &str) -> StoreResult<bool> {
    let n = db.count(
        "SELECT COUNT(*) AS n FROM blocks
         WHERE (blocker = $1 AND blocked = $2) OR (blocker = $2 AND blocked = $1)",
        &[a.into(), b.into()],
        "n",
    )?;
    Ok(n > 0)
}

/// Blocks.
impl Store {
    /// `blocker` blocks `blocked` (account names): whether it is new.
    pub fn block(&self, blocker: &str, blocked: &str) -> StoreResult<bool> {
        self.set_block(blocker, blocked, true)
    }

    /// `blocker` lifts its block of `blocked`: whether there was one.
    pub fn unblock(&self, blocker: &str, blocked: &str) -> StoreResult<bool> {
        self.set_block(blocker, blocked, false)
    }

    fn set_block(&self, blocker: &str, blocked: &str, on: bool) -> StoreResult<bool> {
        self.writer.call(SetBlock {
            row: BlockRow {
                blocker: blocker.to_string(),
                blocked: blocked.to_string(),
                at: crate::dates::now_ms(),
            },
            on,
        })
    }

    /// The accounts `blocker` blocks, newest first, at most `limit`.
    pub fn blocks_of(&self, blocker: &str, limit: usize) -> StoreResult<Vec<BlockRow>> {
        self.readers.sql(|db| {
            db.rows(
                "SELECT blocker, blocked, at FROM blocks WHERE blocker = $1
                 ORDER BY at DESC, blocked LIMIT $2",
                &[blocker.into(), (limit as i64).into()],
            )
        })
    }

    /// The accounts `name` blocks or is blocked by, at most `limit`: those it never hears
    /// from nor speaks to.
    pub fn blocked_with(&self, name: &str, limit: usize) -> StoreResult<Vec<String>> {
        self.readers.sql(|db| {
            db.query(
                "SELECT blocked AS other FROM blocks WHERE blocker = $1
                 UNION SELECT blocker AS other FROM blocks WHERE blocked = $1
                 ORDER BY other LIMIT $2",
                &[name.into(), (limit as i64).into()],
            )?
            .iter()
            .map(|r| r.text("other"))
            .collect()
        })
    }

    /// Whether `blocker` blocks `blocked` (one way).
    pub fn blocks(&self, blocker: &str, blocked: &str) -> StoreResult<bool> {
        self.readers.sql(|db| {
            let n = db.count(
                "SELECT COUNT(*) AS n FROM blocks WHERE blocker = $1 AND blocked = $2",
                &[blocker.into(), blocked.into()],
                "n",
            )?;
            Ok(n > 0)
        })
    }

    /// Whether either of two accounts blocks the other.
    pub fn blocked_between(&self, a: &str, b: &str) -> StoreResult<bool> {
        self.readers.sql(|db| between(db, a, b))
    }
}
