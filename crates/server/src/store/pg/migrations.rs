//! PostgreSQL's schema: versioned migrations recorded in `schema_migrations`, run at open in
//! one transaction holding an advisory lock, so that two servers starting together against
//! one database do not both run them.

use std::borrow::Cow;

use postgres::Client;

use crate::store::schema;
use crate::store::sql::Dialect;
use crate::store::{StoreError, StoreResult};

/// The key of the advisory lock that migrations hold ("anywoli" in ASCII).
const MIGRATION_LOCK: i64 = 0x0061_6e79_776f_6c69;

/// The migrations, in order: (version, SQL). Add to the end; never change one that shipped.
const MIGRATIONS: &[(i32, &str)] = &[
    (
        1,
        // The games and their moves: their tables follow (`schema::games_tables`, written once
        // with SQLite's).
        "SELECT 1;",
    ),
    (
        2,
        // Several instances on one database: each change is checked against the revision
        // it was made from, and one instance at a time owes the engine's reply.
        "ALTER TABLE games ADD COLUMN revision BIGINT NOT NULL DEFAULT 0;
    ALTER TABLE games ADD COLUMN engine_owner TEXT;
    ALTER TABLE games ADD COLUMN engine_until BIGINT;
    CREATE INDEX games_engine_due ON games (engine_until) WHERE engine_owner IS NOT NULL;",
    ),
    (
        3,
        // Clocks: the time control, what each side has left, since when the side to move
        // uses its time, and when its time is up whatever its lag.
        "ALTER TABLE games ADD COLUMN clock TEXT;
    ALTER TABLE games ADD COLUMN clock_south BIGINT;
    ALTER TABLE games ADD COLUMN clock_north BIGINT;
    ALTER TABLE games ADD COLUMN clock_since BIGINT;
    ALTER TABLE games ADD COLUMN deadline BIGINT;
    CREATE INDEX games_deadline ON games (deadline) WHERE deadline IS NOT NULL;",
    ),
    (
        4,
        // A draw offered or a take-back asked for, waiting for the other player.
        "ALTER TABLE games ADD COLUMN offer TEXT;",
    ),
    (
        5,
        // Since when each side's player has had no connection to the game (claiming a win).
        "ALTER TABLE games ADD COLUMN south_away BIGINT;
    ALTER TABLE games ADD COLUMN north_away BIGINT;",
    ),
    (
        6,
        // Accounts: who holds each seat, rated games, games listed while played; the account
        // tables follow (`schema::ACCOUNT_TABLES`, shared with SQLite).
        "ALTER TABLE games ADD COLUMN south_account TEXT;
    ALTER TABLE games ADD COLUMN north_account TEXT;
    ALTER TABLE games ADD COLUMN rated BOOLEAN NOT NULL DEFAULT false;
    ALTER TABLE games ADD COLUMN public BOOLEAN NOT NULL DEFAULT false;
    UPDATE games SET public = true WHERE mode != 'friend';
    ALTER TABLE games ADD COLUMN ratings TEXT;
    ALTER TABLE games ADD COLUMN category TEXT;",
    ),
    (
        7,
        // The lobby shared by the instances: its tables follow (`schema::LOBBY_TABLES`).
        "SELECT 1;",
    ),
    (
        8,
        // Game reviews: their table follows (`reviews::REVIEW_TABLES`).
        "SELECT 1;",
    ),
    (
        9,
        // Community puzzles: their table follows (`puzzles::PUZZLE_TABLES`).
        "SELECT 1;",
    ),
    (
        10,
        // Puzzle ratings: their tables follow (`puzzle_ratings::PUZZLE_RATING_TABLES`).
        "SELECT 1;",
    ),
    (
        11,
        // Course progress of accounts: its table follows (`lessons::LESSON_TABLES`).
        "SELECT 1;",
    ),
    (
        12,
        // Follows and presence leases: their tables follow (`follows::FOLLOW_TABLES`).
        "SELECT 1;",
    ),
    (
        13,
        // Chat lines, blocks and mutes: their tables follow (`community::COMMUNITY_TABLES`).
        "SELECT 1;",
    ),
    (
        14,
        // Moderators, closed accounts, reset tokens, reports, the moderation log: their
        // tables follow (`moderation::MODERATION_TABLES`).
        "SELECT 1;",
    ),
    (
        15,
        // Marks (computer-assisted, booster) and the rating points they gave back: their
        // tables follow (`moderation::MARK_TABLES`).
        "SELECT 1;",
    ),
    (
        16,
        // The addresses accounts log in from: their table follows (`addresses::ADDRESS_TABLES`).
        "SELECT 1;",
    ),
    (
        17,
        // Offences against the players' time (waits before the next game): their table
        // follows (`offences::OFFENCE_TABLES`).
        "SELECT 1;",
    ),
    (
        18,
        // Tournaments, their entrants, games and rounds without a game: their tables follow
        // (`tournaments::TOURNAMENT_TABLES`).
        "SELECT 1;",
    ),
    (
        19,
        // Recurring tournaments: their table follows (`tournaments::SCHEDULE_TABLES`).
        "SELECT 1;",
    ),
    (
        20,
        // API tokens and BOT accounts: their tables follow (`tokens::TOKEN_TABLES`).
        "SELECT 1;",
    ),
    (
        21,
        // The opening explorer's counts: their table follows (`explorer::EXPLORER_TABLES`).
        "SELECT 1;",
    ),
];

/// What a migration runs after its own text.
fn migration_tail(version: i32) -> Cow<'static, str> {
    let shared = match version {
        1 => return schema::games_tables(Dialect::Postgres).into(),
        6 => schema::ACCOUNT_TABLES,
        7 => schema::LOBBY_TABLES,
        8 => crate::store::reviews::REVIEW_TABLES,
        9 => crate::store::puzzles::PUZZLE_TABLES,
        10 => crate::store::puzzle_ratings::PUZZLE_RATING_TABLES,
        11 => crate::store::lessons::LESSON_TABLES,
        12 => crate::store::follows::FOLLOW_TABLES,
        13 => crate::store::community::COMMUNITY_TABLES,
        14 => crate::store::moderation::MODERATION_TABLES,
        15 => crate::store::moderation::MARK_TABLES,
        16 => crate::store::addresses::ADDRESS_TABLES,
        17 => crate::store::offences::OFFENCE_TABLES,
        18 => crate::store::tournaments::TOURNAMENT_TABLES,
        19 => crate::store::tournaments::SCHEDULE_TABLES,
        20 => crate::store::tokens::TOKEN_TABLES,
        21 => crate::store::explorer::EXPLORER_TABLES,
        _ => "",
    };
    shared.into()
}

/// Brings the schema up to date: one transaction, holding the advisory lock, so that of two
/// servers starting together one migrates and the other then finds nothing to do.
pub(super) fn migrate(client: &mut Client) -> StoreResult<()> {
    let mut tx = client.transaction()?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (
            version INTEGER PRIMARY KEY,
            applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
        )",
    )?;
    let done = tx
        .query("SELECT version FROM schema_migrations", &[])?
        .iter()
        .map(|r| r.try_get(0))
        .collect::<Result<Vec<i32>, _>>()?;
    let latest = MIGRATIONS.last().map_or(0, |m| m.0);
    if let Some(v) = done.iter().copied().filter(|&v| v > latest).max() {
        return Err(StoreError::Failed(format!(
            "the database's schema (version {v}) is newer than this anywoli knows (version {latest})"
        )));
    }
    for &(version, sql) in MIGRATIONS {
        if !done.contains(&version) {
            tx.batch_execute(sql)?;
            tx.batch_execute(&migration_tail(version))?;
            tx.execute(
                "INSERT INTO schema_migrations (version) VALUES ($1)",
                &[&version],
            )?;
        }
    }
    tx.commit()?;
    Ok(())
}
