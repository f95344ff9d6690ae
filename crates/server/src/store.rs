//! The game store: one SQLite file in WAL mode with `synchronous=FULL`, so that a move the
//! server has acknowledged survives a crash or `kill -9` of the server (and a power cut, as far
//! as the disk keeps its promises).
//!
//! Every call is blocking; the server makes them from `spawn_blocking`, never on the async
//! runtime's threads.

use std::path::Path;
use std::sync::Mutex;

use rusqlite::{params, Connection, OptionalExtension};

/// What the store failed to do, as text for the log and the `storage` error.
#[derive(Debug)]
pub struct StoreError(pub String);

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StoreError {}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> StoreError {
        StoreError(format!("database: {e}"))
    }
}

pub type StoreResult<T> = Result<T, StoreError>;

/// One row of `games`: everything about a game but its moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRow {
    pub id: String,
    /// Milliseconds since the Unix epoch.
    pub created: i64,
    pub updated: i64,
    /// `computer`, `friend` or `local`.
    pub mode: String,
    pub rules: String,
    /// The lottery seed, as text because SQLite integers are signed 64-bit.
    pub seed: String,
    /// The position string the game started from.
    pub start: String,
    /// `human` or `level:N`, for South and North.
    pub seats: [String; 2],
    /// The seat secrets; `None` for a computer seat or a friend's seat nobody has taken yet.
    pub secrets: [Option<String>; 2],
    /// `playing` or `over`.
    pub status: String,
    /// `*`, `1-0`, `0-1` or `1/2-1/2`.
    pub result: String,
    /// Why the game ended: `last_seeds`, `quiet`, `resignation`, or a record's own text.
    pub termination: Option<String>,
    /// The game that a rematch of this one started.
    pub rematch: Option<String>,
    /// Free tags of an imported record, as a JSON array of pairs.
    pub tags: String,
    /// Hints may be asked for. Between friends only when both agreed as the game was made.
    pub hints: bool,
    /// A friend game's join token (only the invite link carries it); `None` before tokens.
    pub invite: Option<String>,
}

/// A line of the archive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    pub id: String,
    pub created: i64,
    pub updated: i64,
    pub mode: String,
    pub rules: String,
    pub seats: [String; 2],
    pub status: String,
    pub result: String,
    pub moves: i64,
}

pub struct Store {
    conn: Mutex<Connection>,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    created INTEGER NOT NULL,
    updated INTEGER NOT NULL,
    mode TEXT NOT NULL,
    rules TEXT NOT NULL,
    seed TEXT NOT NULL,
    start TEXT NOT NULL,
    south TEXT NOT NULL,
    north TEXT NOT NULL,
    south_secret TEXT,
    north_secret TEXT,
    status TEXT NOT NULL,
    result TEXT NOT NULL,
    termination TEXT,
    rematch TEXT,
    tags TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX IF NOT EXISTS games_by_update ON games(updated DESC);
CREATE TABLE IF NOT EXISTS moves (
    game TEXT NOT NULL REFERENCES games(id),
    ply INTEGER NOT NULL,
    mv TEXT NOT NULL,
    at INTEGER NOT NULL,
    PRIMARY KEY (game, ply)
) WITHOUT ROWID;
";

impl Store {
    /// Opens (creating if needed) the database file.
    pub fn open(path: &Path) -> StoreResult<Store> {
        let conn = Connection::open(path)
            .map_err(|e| StoreError(format!("cannot open database {}: {e}", path.display())))?;
        Store::setup(conn)
    }

    /// A database that lives in memory only, for tests of things other than durability.
    pub fn in_memory() -> StoreResult<Store> {
        Store::setup(Connection::open_in_memory()?)
    }

    fn setup(conn: Connection) -> StoreResult<Store> {
        // WAL lets readers go on during a write; FULL makes each commit reach the disk before
        // it returns, which is what "a move is acknowledged only once it is stored" needs.
        let mode: String = conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))?;
        if mode != "wal" && mode != "memory" {
            return Err(StoreError(format!(
                "the database refused WAL mode (journal mode is {mode})"
            )));
        }
        conn.execute_batch(
            "PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON; PRAGMA busy_timeout=5000;",
        )?;
        conn.execute_batch(SCHEMA)?;
        migrate(&conn)?;
        Ok(Store {
            conn: Mutex::new(conn),
        })
    }

    fn with<T>(&self, f: impl FnOnce(&mut Connection) -> rusqlite::Result<T>) -> StoreResult<T> {
        // A panic while holding the lock cannot leave a half-done transaction behind (SQLite
        // rolls it back when the transaction is dropped), so a poisoned lock is still usable.
        let mut conn = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        Ok(f(&mut conn)?)
    }

    pub fn create_game(&self, g: &GameRow, moves: &[String]) -> StoreResult<()> {
        self.with(|c| {
            let tx = c.transaction()?;
            insert_game(&tx, g, moves)?;
            tx.commit()
        })
    }

    pub fn load(&self, id: &str) -> StoreResult<Option<(GameRow, Vec<String>)>> {
        self.with(|c| {
            let row = c
                .query_row(
                    "SELECT id, created, updated, mode, rules, seed, start, south, north,
                        south_secret, north_secret, status, result, termination, rematch, tags,
                        hints, invite
                     FROM games WHERE id = ?1",
                    [id],
                    |r| {
                        Ok(GameRow {
                            id: r.get(0)?,
                            created: r.get(1)?,
                            updated: r.get(2)?,
                            mode: r.get(3)?,
                            rules: r.get(4)?,
                            seed: r.get(5)?,
                            start: r.get(6)?,
                            seats: [r.get(7)?, r.get(8)?],
                            secrets: [r.get(9)?, r.get(10)?],
                            status: r.get(11)?,
                            result: r.get(12)?,
                            termination: r.get(13)?,
                            rematch: r.get(14)?,
                            tags: r.get(15)?,
                            hints: {
                                let mode: String = r.get(3)?;
                                hints_or_default(r.get(16)?, &mode)
                            },
                            invite: r.get(17)?,
                        })
                    },
                )
                .optional()?;
            let Some(row) = row else { return Ok(None) };
            let mut st = c.prepare("SELECT mv FROM moves WHERE game = ?1 ORDER BY ply")?;
            let moves = st
                .query_map([id], |r| r.get::<_, String>(0))?
                .collect::<rusqlite::Result<Vec<String>>>()?;
            Ok(Some((row, moves)))
        })
    }

    /// Appends move number `ply` (counting from 1) and the game's new status in one
    /// transaction. Fails, changing nothing, if that ply is already stored.
    #[allow(clippy::too_many_arguments)]
    pub fn append_move(
        &self,
        id: &str,
        ply: usize,
        mv: &str,
        at: i64,
        status: &str,
        result: &str,
        termination: Option<&str>,
    ) -> StoreResult<()> {
        self.with(|c| {
            let tx = c.transaction()?;
            tx.execute(
                "INSERT INTO moves (game, ply, mv, at) VALUES (?1, ?2, ?3, ?4)",
                params![id, ply as i64, mv, at],
            )?;
            tx.execute(
                "UPDATE games SET updated = ?2, status = ?3, result = ?4, termination = ?5
                 WHERE id = ?1",
                params![id, at, status, result, termination],
            )?;
            tx.commit()
        })
    }

    /// Keeps the first `keep` moves and deletes the rest (a take-back), with the new status.
    pub fn truncate_moves(&self, id: &str, keep: usize, at: i64) -> StoreResult<()> {
        self.with(|c| {
            let tx = c.transaction()?;
            tx.execute(
                "DELETE FROM moves WHERE game = ?1 AND ply > ?2",
                params![id, keep as i64],
            )?;
            tx.execute(
                "UPDATE games SET updated = ?2, status = 'playing', result = '*',
                    termination = NULL WHERE id = ?1",
                params![id, at],
            )?;
            tx.commit()
        })
    }

    pub fn set_status(
        &self,
        id: &str,
        at: i64,
        status: &str,
        result: &str,
        termination: Option<&str>,
    ) -> StoreResult<()> {
        self.with(|c| {
            c.execute(
                "UPDATE games SET updated = ?2, status = ?3, result = ?4, termination = ?5
                 WHERE id = ?1",
                params![id, at, status, result, termination],
            )
            .map(drop)
        })
    }

    /// Refuses every write from now on (`true`), or allows them again: for an operator's
    /// maintenance, and for the tests of what the server does when the database refuses one.
    pub fn set_read_only(&self, on: bool) -> StoreResult<()> {
        self.with(|c| c.pragma_update(None, "query_only", on))
    }

    /// Gives an untaken seat its secret; false if someone took it first.
    pub fn claim_seat(&self, id: &str, seat: usize, secret: &str) -> StoreResult<bool> {
        let column = if seat == 0 {
            "south_secret"
        } else {
            "north_secret"
        };
        self.with(|c| {
            c.execute(
                &format!("UPDATE games SET {column} = ?2 WHERE id = ?1 AND {column} IS NULL"),
                params![id, secret],
            )
            .map(|n| n == 1)
        })
    }

    /// Creates the rematch game `next` and links `id` to it, in one transaction; false
    /// (creating nothing) if the game already has a rematch.
    pub fn create_rematch(&self, id: &str, next: &GameRow) -> StoreResult<bool> {
        self.with(|c| {
            let tx = c.transaction()?;
            let n = tx.execute(
                "UPDATE games SET rematch = ?2 WHERE id = ?1 AND rematch IS NULL",
                params![id, next.id],
            )?;
            if n != 1 {
                return Ok(false);
            }
            insert_game(&tx, next, &[])?;
            tx.commit()?;
            Ok(true)
        })
    }

    /// The most recently updated games, newest first; live friend games are unlisted (their
    /// players did not make them public, and their free seat is for the invited friend).
    pub fn recent(&self, limit: usize) -> StoreResult<Vec<Summary>> {
        self.with(|c| {
            let mut st = c.prepare(
                "SELECT g.id, g.created, g.updated, g.mode, g.rules, g.south, g.north, g.status,
                    g.result, (SELECT COUNT(*) FROM moves m WHERE m.game = g.id)
                 FROM games g WHERE NOT (g.mode = 'friend' AND g.status = 'playing')
                 ORDER BY g.updated DESC, g.id LIMIT ?1",
            )?;
            let rows = st.query_map([limit as i64], |r| {
                Ok(Summary {
                    id: r.get(0)?,
                    created: r.get(1)?,
                    updated: r.get(2)?,
                    mode: r.get(3)?,
                    rules: r.get(4)?,
                    seats: [r.get(5)?, r.get(6)?],
                    status: r.get(7)?,
                    result: r.get(8)?,
                    moves: r.get(9)?,
                })
            })?;
            rows.collect()
        })
    }
}

/// Brings a database made by an older version up to this one's schema. Each step is checked
/// by looking, so it runs once and a newer database is left alone.
fn migrate(conn: &Connection) -> rusqlite::Result<()> {
    let has_hints: bool = conn.query_row(
        "SELECT COUNT(*) FROM pragma_table_info('games') WHERE name = 'hints'",
        [],
        |r| r.get::<_, i64>(0).map(|n| n > 0),
    )?;
    if !has_hints {
        // NULL in games made before hints could be turned off: see `hints_or_default`.
        conn.execute_batch("ALTER TABLE games ADD COLUMN hints INTEGER")?;
    }
    let has_invite: bool = conn.query_row(
        "SELECT COUNT(*) FROM pragma_table_info('games') WHERE name = 'invite'",
        [],
        |r| r.get::<_, i64>(0).map(|n| n > 0),
    )?;
    if !has_invite {
        // NULL: a friend game made before invite tokens, whose old link still opens its seat.
        conn.execute_batch("ALTER TABLE games ADD COLUMN invite TEXT")?;
    }
    Ok(())
}

/// Games stored before the `hints` column: friend games get none (nobody agreed to them),
/// the others keep the hints they always had.
fn hints_or_default(stored: Option<bool>, mode: &str) -> bool {
    stored.unwrap_or(mode != "friend")
}

fn insert_game(
    tx: &rusqlite::Transaction<'_>,
    g: &GameRow,
    moves: &[String],
) -> rusqlite::Result<()> {
    tx.execute(
        "INSERT INTO games (id, created, updated, mode, rules, seed, start, south, north,
            south_secret, north_secret, status, result, termination, rematch, tags, hints, invite)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)",
        params![
            g.id,
            g.created,
            g.updated,
            g.mode,
            g.rules,
            g.seed,
            g.start,
            g.seats[0],
            g.seats[1],
            g.secrets[0],
            g.secrets[1],
            g.status,
            g.result,
            g.termination,
            g.rematch,
            g.tags,
            g.hints,
            g.invite
        ],
    )?;
    let mut ins = tx.prepare("INSERT INTO moves (game, ply, mv, at) VALUES (?1, ?2, ?3, ?4)")?;
    for (i, mv) in moves.iter().enumerate() {
        ins.execute(params![g.id, i as i64 + 1, mv, g.created])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A database made before hints could be turned off: the column is added, friend games
    /// get no hints (nobody agreed to them), the others keep theirs; reopening changes nothing.
    #[test]
    fn an_older_database_gains_the_hints_column() {
        let dir = std::env::temp_dir().join(format!("anywoli-migrate-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("old.sqlite");
        {
            let c = Connection::open(&path).unwrap();
            let old_schema = SCHEMA;
            c.execute_batch(old_schema).unwrap();
            for (id, mode) in [("friendgame01", "friend"), ("computer0001", "computer")] {
                c.execute(
                    "INSERT INTO games (id, created, updated, mode, rules, seed, start, south,
                        north, south_secret, north_secret, status, result, termination, rematch,
                        tags)
                     VALUES (?1, 0, 0, ?2, 'anywoli', '0', 's', 'human', 'human', NULL, NULL,
                        'playing', '*', NULL, NULL, '[]')",
                    params![id, mode],
                )
                .unwrap();
            }
        }
        for _ in 0..2 {
            let store = Store::open(&path).unwrap();
            assert!(!store.load("friendgame01").unwrap().unwrap().0.hints);
            assert!(store.load("computer0001").unwrap().unwrap().0.hints);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
