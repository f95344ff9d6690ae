//! The game store: one SQLite file in WAL mode with `synchronous=FULL`, so that a move the
//! server has acknowledged survives a crash or `kill -9` of the server (and a power cut, as far
//! as the disk keeps its promises).
//!
//! Changes go to one writer thread (`writer/`) that commits whatever is waiting in one
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
//! `--db postgres://…` keeps the games in PostgreSQL instead (`pg/`): the same writer
//! thread and batches, on a PostgreSQL connection, and read connections of its own. What the
//! writer and the readers need of a connection is the trait `Conn`, implemented for both
//! (`sqlite.rs`, `pg/mod.rs`); the rest is SQL both run as it is (`sql.rs`), beside the
//! aggregate it stores: `games/`, `accounts/`, `puzzles.rs`, `puzzle_ratings.rs`,
//! `reviews.rs`, `lessons.rs`, each with the `Store` methods that reach it.

mod accounts;
mod addresses;
mod community;
mod explorer;
mod follows;
mod games;
mod heard;
mod leaderboards;
mod lessons;
mod moderation;
mod offences;
mod pg;
mod puzzle_ratings;
mod puzzles;
mod read;
mod reviews;
mod schema;
mod signals;
mod sql;
mod sqlite;
mod tokens;
mod tournaments;
mod tv;
mod writer;

pub use accounts::{
    AccountOp, AccountRow, ChallengeRow, RateGame, RatingPoint, RatingRow, SessionRow, SESSION_MS,
};
pub use addresses::{AddressRow, SharedRow, ADDRESSES_KEPT, ADDRESS_RETENTION_MS};
pub use community::{BlockRow, ChatLine, CommunityDump, MuteRow, Pace, Room, Said};
pub use explorer::{band_of, ExploreGame, ExplorerRow, BANDS, EXPLORER_PLIES};
pub use follows::{FollowRow, Followed};
pub use games::{
    ClockRow, Counts, Cursor, EngineClaim, ExportFilter, GameRow, Head, Listing, Outcome,
    PlayerGames, StatusRow, Summary,
};
pub use heard::{Changed, Heard, HeardMove};
pub use leaderboards::LeaderRow;
pub use moderation::{
    Act, Filed, LogRow, Moderate, ReportReason, ReportRow, ReportsOf, Standing, ADMIN_CLI,
    REPORTS_PER_WINDOW, REPORT_TEXT_MAX, REPORT_WINDOW_MS, RESET_MS,
};
pub use moderation::{
    MarkKind, MarkRow, ModerationDump, REFUND_GAMES_MAX, REFUND_PREFIX, REFUND_WINDOW_MS,
};
pub use offences::{
    wait_from, OffenceKind, OffenceRow, PlayWait, OFFENCES_READ, OFFENCE_WINDOW_MS, WAIT_LADDER_MS,
};
pub use puzzle_ratings::{Attempt, Rated, RatingRow as PuzzleRatingRow, RatingsDump};
pub use puzzles::PuzzleRow;
pub use reviews::ReviewRow;
pub use tokens::{HouseMade, Minted, TokenRow, Upgraded, USED_EVERY_MS};
pub use tournaments::{
    Entry, EntryRow, MissedRow, NewGame, Progress, ScheduleRow, Settled, Step, TGameRow,
    TournamentRow, TournamentState, Unsettled,
};

#[cfg(test)]
mod tests;

use std::path::Path;
use std::sync::{Arc, Mutex};

use rusqlite::Connection;

use read::Readers;
use writer::{Publish, SetReadOnly, Writer};

/// The connection-level operations of a backend, used by the writer thread (its batches of
/// savepoints) and by the readers: what the two dialects do differently. One trait, two
/// implementations: SQLite's (`rusqlite::Connection`, in `sqlite.rs`) and PostgreSQL's
/// (`pg/mod.rs`); everything else is SQL both run as it is, over [`sql::Sql`].
trait Conn: Send {
    /// Starts the transaction of a batch.
    fn begin(&mut self) -> StoreResult<()>;
    /// Runs transaction control (`SAVEPOINT op`, `COMMIT`, `ROLLBACK`...).
    fn exec(&mut self, sql: &str) -> StoreResult<()>;
    /// Whether a transaction is open (after an error that ended it, false).
    fn in_transaction(&self) -> bool;
    /// The connection for the statements that both backends run as they are.
    fn sql(&mut self) -> &mut dyn sql::Sql;
    /// Runs a change of a game row checked against its revision, in this dialect's form:
    /// how many game rows it changed.
    fn change(&mut self, change: &games::GameChange, params: &[sql::Val]) -> StoreResult<u64>;
    /// Starts a read-only transaction that sees one snapshot (ended by `COMMIT`).
    fn begin_snapshot(&mut self) -> StoreResult<()>;
    /// Runs `read`, again on a new connection if the connection was lost (PostgreSQL).
    fn reading(
        &mut self,
        read: &mut dyn FnMut(&mut dyn Conn) -> StoreResult<()>,
    ) -> StoreResult<()>;
    /// Refuses every write from now on, or allows them again (a setting of the connection).
    fn set_read_only(&mut self, on: bool) -> StoreResult<()>;
    /// Tells the other instances' lobbies `payload` on `channel`, with the batch. Nothing to
    /// tell for SQLite, which one process uses.
    fn notify(&mut self, _channel: &str, _payload: &str) -> StoreResult<()> {
        Ok(())
    }
    /// Tells the other server instances, as part of the batch's transaction (so only if it
    /// commits), what the batch changed. Nothing to tell for SQLite.
    fn announce(&mut self, _changes: &[Heard]) -> StoreResult<()> {
        Ok(())
    }
}

/// What the store failed to do.
#[derive(Clone, Debug, thiserror::Error)]
pub enum StoreError {
    /// The database refused or could not be reached; the text says why, for the log and the
    /// `storage` error.
    #[error("{0}")]
    Failed(String),
    /// The game was changed by someone else (another server instance on the same database)
    /// since the caller read it: nothing was written. The caller reads the game again.
    #[error("game {id} was changed meanwhile by another server")]
    Conflict { id: String },
    /// The database cannot take the change just now (unreachable, restarting, read-only for
    /// maintenance, locked, its disk full): nothing was written, and asking again later may
    /// work.
    #[error("{0}")]
    Unavailable(String),
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> StoreError {
        use rusqlite::ErrorCode::{DatabaseBusy, DatabaseLocked, DiskFull, ReadOnly};
        let text = format!("database: {e}");
        // What an operator can end (a lock, read-only, a full disk): worth asking again later.
        match e.sqlite_error_code() {
            Some(DatabaseBusy | DatabaseLocked | ReadOnly | DiskFull) => {
                StoreError::Unavailable(text)
            }
            _ => StoreError::Failed(text),
        }
    }
}

pub type StoreResult<T> = Result<T, StoreError>;

pub struct Store {
    // Dropped first: the writer finishes what is queued before the readers' connections close.
    writer: Writer,
    readers: Readers,
    /// This process's name among the server instances sharing the database: its engine
    /// claims and its change announcements carry it.
    instance: String,
    /// Set when the store is dropped, which ends the thread listening for other instances'
    /// changes (PostgreSQL).
    closing: Arc<std::sync::atomic::AtomicBool>,
    /// How to reach the database again for listening (PostgreSQL); `None` for SQLite.
    listen: Option<pg::tls::Target>,
    /// The channel the lobbies of the instances sharing the database talk on (PostgreSQL):
    /// one per schema, so that stores in other schemas of the database do not hear it.
    lobby_channel: Option<String>,
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
            StoreError::Failed(format!("cannot open database {}: {e}", path.display()))
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
            instance: new_instance(),
            closing: Default::default(),
            listen: None,
            lobby_channel: None,
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
        pg::open(pg::tls::Target::parse(url)?, None)
    }

    /// For tests that start servers: a URL whose search path is a fresh schema (left in
    /// place) of the database `ANYWOLI_TEST_POSTGRES` names. Such tests are marked
    /// `#[ignore = "needs PostgreSQL: ANYWOLI_TEST_POSTGRES"]`; one run without the variable
    /// panics and says what to set (a test never skips silently).
    #[doc(hidden)]
    pub fn test_postgres_url(what: &str) -> String {
        let url = test_postgres_env(what);
        pg::scratch_url(&url).expect("cannot make a PostgreSQL test schema")
    }

    /// Two stores on one fresh schema, as two server instances on one database (drop the
    /// second first: the schema goes with the first). Panics as [`Store::test_postgres_url`].
    #[doc(hidden)]
    pub fn test_postgres_pair(what: &str) -> (Store, Store) {
        let url = test_postgres_env(what);
        let config =
            pg::tls::Target::parse(&url).expect("ANYWOLI_TEST_POSTGRES is not a PostgreSQL URL");
        pg::open_scratch_pair(config).expect("cannot open the PostgreSQL test stores")
    }

    /// A store in a fresh PostgreSQL schema of the database `ANYWOLI_TEST_POSTGRES` names,
    /// dropped with the store, for running the same tests against both backends. Panics as
    /// [`Store::test_postgres_url`].
    #[doc(hidden)]
    pub fn test_postgres(what: &str) -> Store {
        let url = test_postgres_env(what);
        let config =
            pg::tls::Target::parse(&url).expect("ANYWOLI_TEST_POSTGRES is not a PostgreSQL URL");
        pg::open_scratch(config).expect("cannot open the PostgreSQL test store")
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
            instance: new_instance(),
            closing: Default::default(),
            listen: None,
            lobby_channel: None,
            _scratch: None,
        })
    }

    /// This process's name among the instances sharing the database.
    pub fn instance(&self) -> &str {
        &self.instance
    }

    /// Whether other server processes may change the same games (PostgreSQL): a game in
    /// memory may then be behind the database.
    pub fn is_shared(&self) -> bool {
        self.listen.is_some()
    }

    /// Calls `on` with what other instances change, from a thread of its own, until the
    /// store is dropped. Nothing to hear for SQLite, which one process uses.
    pub fn listen(&self, on: impl Fn(Changed) + Send + 'static) -> StoreResult<()> {
        match &self.listen {
            Some(config) => pg::listen(
                config.clone(),
                self.instance.clone(),
                self.lobby_channel.clone().unwrap_or_default(),
                self.closing.clone(),
                Box::new(on),
            ),
            None => Ok(()),
        }
    }

    /// Refuses every write from now on (`true`), or allows them again: for an operator's
    /// maintenance, and for the tests of what the server does when the database refuses one.
    /// Changes sent before this call are committed first; reads go on either way.
    pub fn set_read_only(&self, on: bool) -> StoreResult<()> {
        self.writer.call(SetReadOnly(on))
    }

    /// Tells the other instances' lobbies `payload` (once committed, in a transaction of its
    /// own); nothing to tell with SQLite, which one process uses.
    pub fn publish(&self, payload: &str) -> StoreResult<()> {
        match &self.lobby_channel {
            Some(channel) => self.writer.call(Publish {
                channel: channel.clone(),
                payload: payload.to_string(),
            }),
            None => Ok(()),
        }
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        self.closing
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// A name for this process among the server instances sharing a database.
fn new_instance() -> String {
    let mut b = [0u8; 6];
    // Without randomness, the process id and the clock still tell instances apart.
    if getrandom::fill(&mut b).is_err() {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
            ^ u64::from(std::process::id()) << 40;
        b.copy_from_slice(&t.to_le_bytes()[..6]);
    }
    b.iter().map(|x| format!("{x:02x}")).collect()
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

/// `ANYWOLI_TEST_POSTGRES`, or a panic that says what to set.
fn test_postgres_env(what: &str) -> String {
    match std::env::var("ANYWOLI_TEST_POSTGRES") {
        Ok(url) if !url.is_empty() => url,
        _ => panic!(
            "{what} needs PostgreSQL: set ANYWOLI_TEST_POSTGRES=postgres://USER:PASS@HOST/DB \
             (tests that need it are #[ignore]d, and run with --include-ignored)"
        ),
    }
}
