//! The game store: one SQLite file in WAL mode with `synchronous=FULL`, so that a move the
//! server has acknowledged survives a crash or `kill -9` of the server (and a power cut, as far
//! as the disk keeps its promises).
//!
//! Changes go to one writer thread (`writer.rs`) that commits whatever is waiting in one
//! transaction, so that many games' moves share an fsync; each caller is answered once the
//! commit holding its change has returned. Reads have connections of their own (`read.rs`),
//! which WAL lets go on while the writer writes.
//!
//! An in-memory database (tests) keeps one connection for both: SQLite shares an in-memory
//! database between connections only through its shared cache, whose table locks make a
//! reader fail at once (`SQLITE_LOCKED`, which no busy timeout waits out) while a write
//! transaction is open, or see uncommitted changes with `read_uncommitted`. Neither is worth
//! it for tests, so there the readers lock the writer's connection and a read waits for the
//! batch in progress, which without fsyncs takes microseconds.
//!
//! Every call is blocking; the server makes them from `spawn_blocking`, never on the async
//! runtime's threads.
//!
//! `--db postgres://…` keeps the games in PostgreSQL instead (`pg.rs`): the same writer
//! thread and batches, on a PostgreSQL connection, and read connections of its own. What the
//! writer and the readers need of a connection is the trait `Conn`, implemented for both.

mod pg;
mod read;
mod schema;
mod writer;

#[cfg(test)]
mod tests;

use std::path::Path;
use std::sync::{Arc, Mutex};

use rusqlite::Connection;

use read::Readers;
use writer::{Op, Writer};

/// The connection-level operations of a backend, used by the writer thread (its batches of
/// savepoints) and by the readers. One trait, two implementations: SQLite's
/// (`rusqlite::Connection`, in `writer.rs` and `read.rs`) and PostgreSQL's (`pg.rs`).
trait Conn: Send {
    /// Starts the transaction of a batch.
    fn begin(&mut self) -> StoreResult<()>;
    /// Runs transaction control (`SAVEPOINT op`, `COMMIT`, `ROLLBACK`...).
    fn exec(&mut self, sql: &str) -> StoreResult<()>;
    /// Whether a transaction is open (after an error that ended it, false).
    fn in_transaction(&self) -> bool;
    /// Runs one change (never a test's `Hold`, which `writer::apply` unwraps).
    fn apply(&mut self, op: &Op) -> StoreResult<bool>;
    fn load(&mut self, id: &str) -> StoreResult<Option<(GameRow, Vec<String>)>>;
    fn recent(&mut self, limit: usize) -> StoreResult<Vec<Summary>>;
    fn ids_after(&mut self, after: &str, limit: usize) -> StoreResult<Vec<String>>;
}

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
    // Dropped first: the writer finishes what is queued before the readers' connections close.
    writer: Writer,
    readers: Readers,
    /// Dropped last: a test's PostgreSQL schema, removed once the connections are closed.
    _scratch: Option<pg::DropSchema>,
}

/// Read connections of a database file: enough that a read seldom waits for another, few
/// enough that their page caches cost little.
const READERS: usize = 2;

impl Store {
    /// Opens (creating if needed) the database file.
    pub fn open(path: &Path) -> StoreResult<Store> {
        let cannot_open = |e: rusqlite::Error| {
            StoreError(format!("cannot open database {}: {e}", path.display()))
        };
        let conn = Connection::open(path).map_err(cannot_open)?;
        schema::set_up_writer(&conn)?;
        // Opened after the writer has made the file, set WAL and brought the schema up to date.
        let readers = (0..READERS)
            .map(|_| {
                let c = Connection::open(path).map_err(cannot_open)?;
                schema::set_up_reader(&c)?;
                Ok(Arc::new(Mutex::new(c)) as Arc<Mutex<dyn Conn>>)
            })
            .collect::<StoreResult<Vec<_>>>()?;
        Ok(Store {
            writer: Writer::start(Arc::new(Mutex::new(conn)))?,
            readers: Readers::new(readers),
            _scratch: None,
        })
    }

    /// Opens what `--db` names: a `postgres://` or `postgresql://` URL opens PostgreSQL,
    /// anything else is a SQLite file (see [`Store::open`]).
    pub fn open_db(db: &Path) -> StoreResult<Store> {
        match db.to_str() {
            Some(url) if is_postgres_url(url) => Store::open_postgres(url),
            _ => Store::open(db),
        }
    }

    /// Connects to PostgreSQL (a writer connection and a few readers) and brings its schema
    /// up to date with the versioned migrations in `schema_migrations`.
    pub fn open_postgres(url: &str) -> StoreResult<Store> {
        let config = url
            .parse::<::postgres::Config>()
            .map_err(|e| StoreError(format!("bad PostgreSQL URL: {e}")))?;
        pg::open(config, None)
    }

    /// A store in a fresh PostgreSQL schema of the database `ANYWOLI_TEST_POSTGRES` names,
    /// dropped with the store, for running the same tests against both backends. `None`
    /// (after saying so loudly) when the variable is not set; a panic if `CI` is set then.
    /// Like [`Store::test_postgres`], for tests that start servers: a URL whose search path
    /// is a fresh schema (left in place), or `None` after saying SKIPPED.
    #[doc(hidden)]
    pub fn test_postgres_url(what: &str) -> Option<String> {
        let url = test_postgres_env(what)?;
        Some(pg::scratch_url(&url).expect("cannot make a PostgreSQL test schema"))
    }

    #[doc(hidden)]
    pub fn test_postgres(what: &str) -> Option<Store> {
        let url = test_postgres_env(what)?;
        let config = url
            .parse::<::postgres::Config>()
            .expect("ANYWOLI_TEST_POSTGRES is not a PostgreSQL URL");
        Some(pg::open_scratch(config).expect("cannot open the PostgreSQL test store"))
    }

    /// A database that lives in memory only, for tests of things other than durability. One
    /// connection reads and writes (see the module comment).
    pub fn in_memory() -> StoreResult<Store> {
        let conn = Connection::open_in_memory()?;
        schema::set_up_writer(&conn)?;
        let conn: Arc<Mutex<dyn Conn>> = Arc::new(Mutex::new(conn));
        Ok(Store {
            writer: Writer::start(conn.clone())?,
            readers: Readers::new(vec![conn]),
            _scratch: None,
        })
    }

    pub fn create_game(&self, g: &GameRow, moves: &[String]) -> StoreResult<()> {
        self.writer
            .call(Op::CreateGame {
                row: g.clone(),
                moves: moves.to_vec(),
            })
            .map(drop)
    }

    pub fn load(&self, id: &str) -> StoreResult<Option<(GameRow, Vec<String>)>> {
        self.readers.with(|c| c.load(id))
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
        self.writer
            .call(Op::AppendMove {
                id: id.to_string(),
                ply: ply as i64,
                mv: mv.to_string(),
                at,
                status: status.to_string(),
                result: result.to_string(),
                termination: termination.map(str::to_string),
            })
            .map(drop)
    }

    /// Keeps the first `keep` moves and deletes the rest (a take-back), with the new status.
    pub fn truncate_moves(&self, id: &str, keep: usize, at: i64) -> StoreResult<()> {
        self.writer
            .call(Op::TruncateMoves {
                id: id.to_string(),
                keep: keep as i64,
                at,
            })
            .map(drop)
    }

    pub fn set_status(
        &self,
        id: &str,
        at: i64,
        status: &str,
        result: &str,
        termination: Option<&str>,
    ) -> StoreResult<()> {
        self.writer
            .call(Op::SetStatus {
                id: id.to_string(),
                at,
                status: status.to_string(),
                result: result.to_string(),
                termination: termination.map(str::to_string),
            })
            .map(drop)
    }

    /// Refuses every write from now on (`true`), or allows them again: for an operator's
    /// maintenance, and for the tests of what the server does when the database refuses one.
    /// Changes sent before this call are committed first; reads go on either way.
    pub fn set_read_only(&self, on: bool) -> StoreResult<()> {
        self.writer.call(Op::SetReadOnly(on)).map(drop)
    }

    /// Gives an untaken seat its secret; false if someone took it first.
    pub fn claim_seat(&self, id: &str, seat: usize, secret: &str) -> StoreResult<bool> {
        self.writer.call(Op::ClaimSeat {
            id: id.to_string(),
            seat,
            secret: secret.to_string(),
        })
    }

    /// Creates the rematch game `next` and links `id` to it, in one transaction; false
    /// (creating nothing) if the game already has a rematch.
    pub fn create_rematch(&self, id: &str, next: &GameRow) -> StoreResult<bool> {
        self.writer.call(Op::CreateRematch {
            id: id.to_string(),
            next: next.clone(),
        })
    }

    /// The most recently updated games, newest first; live friend games are unlisted (their
    /// players did not make them public, and their free seat is for the invited friend).
    pub fn recent(&self, limit: usize) -> StoreResult<Vec<Summary>> {
        self.readers.with(|c| c.recent(limit))
    }

    /// Up to `limit` game ids greater than `after`, in byte order (`""` for the first page),
    /// every game included: for walking a whole store a page at a time (`anywoli db migrate`).
    pub fn ids_after(&self, after: &str, limit: usize) -> StoreResult<Vec<String>> {
        self.readers.with(|c| c.ids_after(after, limit))
    }
}

/// Whether `--db` names a PostgreSQL database rather than a SQLite file.
pub fn is_postgres_url(db: &str) -> bool {
    db.starts_with("postgres://") || db.starts_with("postgresql://")
}

/// `--db` as it may be shown in a log: a PostgreSQL URL without its password.
pub fn db_label(db: &Path) -> String {
    let text = db.display().to_string();
    if !is_postgres_url(&text) {
        return text;
    }
    let Some((scheme, rest)) = text.split_once("://") else {
        return text;
    };
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => match rest[..at].split_once(':') {
            Some((user, _password)) => format!("{scheme}://{user}:***{}", &rest[at..]),
            None => text,
        },
        None => text,
    }
}

/// `ANYWOLI_TEST_POSTGRES`, or `None` after saying loudly that the PostgreSQL runs are
/// skipped; a panic instead if `CI` is set, where they may not be.
fn test_postgres_env(what: &str) -> Option<String> {
    match std::env::var("ANYWOLI_TEST_POSTGRES") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI is set but ANYWOLI_TEST_POSTGRES is not: the PostgreSQL tests may not be skipped"
            );
            // Once per test binary, and past the test harness's capture of `eprintln!`.
            static ONCE: std::sync::Once = std::sync::Once::new();
            ONCE.call_once(|| {
                use std::io::Write;
                let _ = writeln!(
                    std::io::stderr().lock(),
                    "\n*** SKIPPED: the PostgreSQL runs ({what}, and the others of this test binary): \
                     set ANYWOLI_TEST_POSTGRES=postgres://USER:PASS@HOST/DB to run them ***\n"
                );
            });
            None
        }
    }
}
