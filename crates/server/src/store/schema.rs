//! The tables, the pragmas every write connection needs, and the steps that bring an older
//! database up to date.

use rusqlite::Connection;

use super::sql::Dialect;
use super::{StoreError, StoreResult};

/// `games` and `moves` as a new database makes them, written once for both dialects: `{if_new}`,
/// `{int}`, `{later}` and `{options}` are what `games_tables` puts in for each.
const GAMES_TABLES: &str = "
CREATE TABLE {if_new}games (
    id TEXT PRIMARY KEY,
    created {int} NOT NULL,
    updated {int} NOT NULL,
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
    tags TEXT NOT NULL DEFAULT '[]'{later}
);
CREATE INDEX {if_new}games_by_update ON games(updated DESC);
CREATE TABLE {if_new}moves (
    game TEXT NOT NULL REFERENCES games(id),
    ply {int} NOT NULL,
    mv TEXT NOT NULL,
    at {int} NOT NULL,
    PRIMARY KEY (game, ply)
){options};
";

/// `games` and `moves` in `dialect`. SQLite's run at every open (hence `IF NOT EXISTS`), its
/// later columns added by `STEPS`, so that a new database and an old one brought up to date
/// are made alike; PostgreSQL's are its first migration, which already had `hints` and
/// `invite`.
pub(super) fn games_tables(dialect: Dialect) -> String {
    let (if_new, int, later, options) = match dialect {
        Dialect::Sqlite => ("IF NOT EXISTS ", "INTEGER", "", " WITHOUT ROWID"),
        Dialect::Postgres => ("", "BIGINT", ",\n    hints BOOLEAN,\n    invite TEXT", ""),
    };
    GAMES_TABLES
        .replace("{if_new}", if_new)
        .replace("{int}", int)
        .replace("{later}", later)
        .replace("{options}", options)
}

/// Accounts (found by `key`, the name in lower case; known everywhere else by `name`, as
/// typed, which never changes), their sessions and ratings, and the indexes that find a player's games (the
/// same text serves PostgreSQL's migration: nothing in it differs).
pub(super) const ACCOUNT_TABLES: &str = "
CREATE TABLE accounts (
    key TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    hash TEXT NOT NULL,
    created BIGINT NOT NULL
);
CREATE TABLE sessions (
    token TEXT PRIMARY KEY,
    account TEXT NOT NULL REFERENCES accounts (name),
    csrf TEXT NOT NULL,
    created BIGINT NOT NULL
);
CREATE INDEX sessions_by_account ON sessions (account);
CREATE TABLE ratings (
    account TEXT NOT NULL REFERENCES accounts (name),
    category TEXT NOT NULL,
    rules TEXT NOT NULL,
    rating DOUBLE PRECISION NOT NULL,
    deviation DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    games BIGINT NOT NULL,
    at BIGINT NOT NULL,
    PRIMARY KEY (account, category, rules)
);
CREATE TABLE rating_history (
    account TEXT NOT NULL REFERENCES accounts (name),
    category TEXT NOT NULL,
    rules TEXT NOT NULL,
    at BIGINT NOT NULL,
    rating DOUBLE PRECISION NOT NULL,
    deviation DOUBLE PRECISION NOT NULL,
    game TEXT NOT NULL
);
CREATE INDEX rating_history_by_account ON rating_history (account, at);
CREATE INDEX games_by_south_account ON games (south_account, updated) WHERE south_account IS NOT NULL;
CREATE INDEX games_by_north_account ON games (north_account, updated) WHERE north_account IS NOT NULL;
";

/// What the lobbies of several instances share: which seeks were taken (so that one seek
/// makes one game, whichever instances its takers reached) and the challenges waiting.
pub(super) const LOBBY_TABLES: &str = "
CREATE TABLE IF NOT EXISTS seek_claims (
    id TEXT PRIMARY KEY,
    at BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS challenges (
    id TEXT PRIMARY KEY,
    from_account TEXT NOT NULL,
    to_account TEXT NOT NULL,
    body TEXT NOT NULL,
    at BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS challenges_from ON challenges (from_account);
CREATE INDEX IF NOT EXISTS challenges_to ON challenges (to_account);
CREATE INDEX IF NOT EXISTS challenges_at ON challenges (at);
";

/// Readies the connection that will write: journal, durability, schema.
pub(super) fn set_up_writer(conn: &Connection) -> StoreResult<()> {
    // WAL lets readers go on during a write; FULL makes each commit reach the disk before
    // it returns, which is what "a move is acknowledged only once it is stored" needs.
    let mode: String = conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))?;
    if mode != "wal" && mode != "memory" {
        return Err(StoreError::Failed(format!(
            "the database refused WAL mode (journal mode is {mode})"
        )));
    }
    conn.execute_batch(
        "PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON; PRAGMA busy_timeout=5000;",
    )?;
    conn.execute_batch(&games_tables(Dialect::Sqlite))?;
    migrate(conn)?;
    conn.execute_batch(LOBBY_TABLES)?;
    conn.execute_batch(super::reviews::REVIEW_TABLES)?;
    conn.execute_batch(super::puzzles::PUZZLE_TABLES)?;
    conn.execute_batch(super::puzzle_ratings::PUZZLE_RATING_TABLES)?;
    conn.execute_batch(super::lessons::LESSON_TABLES)?;
    conn.execute_batch(super::follows::FOLLOW_TABLES)?;
    conn.execute_batch(super::moderation::MODERATION_TABLES)?;
    conn.execute_batch(super::community::COMMUNITY_TABLES)?;
    conn.execute_batch(super::moderation::MARK_TABLES)?;
    conn.execute_batch(super::addresses::ADDRESS_TABLES)?;
    conn.execute_batch(super::offences::OFFENCE_TABLES)?;
    conn.execute_batch(super::tournaments::TOURNAMENT_TABLES)?;
    conn.execute_batch(super::tournaments::SCHEDULE_TABLES)?;
    conn.execute_batch(super::tokens::TOKEN_TABLES)?;
    conn.execute_batch(super::explorer::EXPLORER_TABLES)?;
    Ok(())
}

/// Readies a connection that only reads. `query_only` makes a write sent to it by mistake
/// fail instead of going around the writer (and its batching and ordering).
pub(super) fn set_up_reader(conn: &Connection) -> StoreResult<()> {
    // A WAL reader can still meet a lock for a moment (while another connection recovers
    // or restarts the log); it waits like the writer does rather than failing the read.
    conn.execute_batch("PRAGMA busy_timeout=5000; PRAGMA query_only=ON;")?;
    Ok(())
}

/// The steps that bring an older database up to date, in order: the column of `games` whose
/// presence says the step ran, and the step (run in one transaction, because the check looks
/// at that one column only).
const STEPS: &[(&str, &str)] = &[
    // NULL in games made before hints could be turned off: see `hints_or_default`.
    ("hints", "ALTER TABLE games ADD COLUMN hints INTEGER;"),
    // NULL: a friend game made before invite tokens, whose old link still opens its seat.
    ("invite", "ALTER TABLE games ADD COLUMN invite TEXT;"),
    // Games made before revisions start at 0; no engine owes them a reply yet, which the
    // server finds out when it loads one (crate::round).
    (
        "revision",
        "ALTER TABLE games ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
         ALTER TABLE games ADD COLUMN engine_owner TEXT;
         ALTER TABLE games ADD COLUMN engine_until INTEGER;
         CREATE INDEX IF NOT EXISTS games_engine_due ON games(engine_until)
            WHERE engine_owner IS NOT NULL;",
    ),
    // Games made before clocks have none (NULL): untimed, as they were played.
    (
        "clock",
        "ALTER TABLE games ADD COLUMN clock TEXT;
         ALTER TABLE games ADD COLUMN clock_south INTEGER;
         ALTER TABLE games ADD COLUMN clock_north INTEGER;
         ALTER TABLE games ADD COLUMN clock_since INTEGER;
         ALTER TABLE games ADD COLUMN deadline INTEGER;
         CREATE INDEX IF NOT EXISTS games_deadline ON games(deadline)
            WHERE deadline IS NOT NULL;",
    ),
    ("offer", "ALTER TABLE games ADD COLUMN offer TEXT;"),
    (
        "south_away",
        "ALTER TABLE games ADD COLUMN south_away INTEGER;
         ALTER TABLE games ADD COLUMN north_away INTEGER;",
    ),
    // Games made before accounts belong to nobody, are casual, and are listed as they were
    // (finished ones, and live ones but between friends); the account tables follow.
    (
        "south_account",
        "ALTER TABLE games ADD COLUMN south_account TEXT;
         ALTER TABLE games ADD COLUMN north_account TEXT;
         ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;
         ALTER TABLE games ADD COLUMN public INTEGER NOT NULL DEFAULT 0;
         UPDATE games SET public = 1 WHERE mode != 'friend';
         ALTER TABLE games ADD COLUMN ratings TEXT;
         ALTER TABLE games ADD COLUMN category TEXT;",
    ),
];

/// What a step runs after its own text.
fn step_tail(column: &str) -> &'static str {
    match column {
        "south_account" => ACCOUNT_TABLES,
        _ => "",
    }
}

/// Brings a database made by an older version up to this one's schema. Each step is checked
/// by looking, so it runs once and a newer database is left alone.
fn migrate(conn: &Connection) -> rusqlite::Result<()> {
    for (column, step) in STEPS {
        let present: i64 = conn.query_row(
            "SELECT COUNT(*) FROM pragma_table_info('games') WHERE name = ?1",
            [column],
            |r| r.get(0),
        )?;
        if present == 0 {
            let tail = step_tail(column);
            conn.execute_batch(&format!("BEGIN; {step} {tail} COMMIT;"))?;
        }
    }
    Ok(())
}
