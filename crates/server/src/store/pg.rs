//! The PostgreSQL backend (`--db postgres://…`): the same tables and the same writer thread
//! as SQLite's (one connection committing batches of changes, a savepoint around each), and
//! a few read connections of its own, each read of a game in one repeatable-read snapshot.
//!
//! The schema is brought up to date by versioned migrations recorded in `schema_migrations`,
//! run at open in one transaction holding an advisory lock, so that two servers starting
//! together against one database do not both run them.
//!
//! `postgres::Client` is blocking: it runs a Tokio runtime of its own, which cannot be
//! started (nor a client closed) on a thread of another runtime. The store's calls come from
//! `spawn_blocking` or the writer thread, where that is allowed; opening and dropping, which
//! may happen in async code (tests), are done on a thread of their own.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use postgres::fallible_iterator::FallibleIterator;
use postgres::types::ToSql;
use postgres::{Client, IsolationLevel, Statement};

use super::pg_errors::classify;
use super::pg_tls::Target;

use super::read::{claim, clock_row, hints_or_default, Readers};
use super::sql::{Sql, Val};
use super::writer::{claim_columns, clock_columns, conflict, Op, Writer};
use super::{Changed, Conn, GameRow, Head, Heard, StatusRow, Store, StoreError, StoreResult};

/// Read connections: each is a server process, and PostgreSQL's default allows 100 in all.
pub(super) const READERS: usize = 2;

/// The channel on which instances announce the games they changed.
const CHANNEL: &str = "anywoli_games";

/// PostgreSQL's limit on a notification's payload is 8000 bytes; a batch's ids are split
/// below it.
const PAYLOAD_MAX: usize = 7900;

/// The key of the advisory lock that migrations hold ("anywoli" in ASCII).
const MIGRATION_LOCK: i64 = 0x0061_6e79_776f_6c69;

/// The migrations, in order: (version, SQL). Add to the end; never change one that shipped.
const MIGRATIONS: &[(i32, &str)] = &[
    (
        1,
        "CREATE TABLE games (
        id TEXT PRIMARY KEY,
        created BIGINT NOT NULL,
        updated BIGINT NOT NULL,
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
        tags TEXT NOT NULL DEFAULT '[]',
        hints BOOLEAN,
        invite TEXT
    );
    CREATE INDEX games_by_update ON games (updated DESC);
    CREATE TABLE moves (
        game TEXT NOT NULL REFERENCES games (id),
        ply BIGINT NOT NULL,
        mv TEXT NOT NULL,
        at BIGINT NOT NULL,
        PRIMARY KEY (game, ply)
    );",
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
];

/// What a migration runs after its own text.
fn migration_tail(version: i32) -> &'static str {
    match version {
        6 => super::schema::ACCOUNT_TABLES,
        7 => super::schema::LOBBY_TABLES,
        8 => super::reviews::REVIEW_TABLES,
        9 => super::puzzles::PUZZLE_TABLES,
        10 => super::puzzle_ratings::PUZZLE_RATING_TABLES,
        11 => super::lessons::LESSON_TABLES,
        _ => "",
    }
}

impl From<postgres::Error> for StoreError {
    fn from(e: postgres::Error) -> StoreError {
        // The error's own text is just "db error" when the server refused: say why.
        let text = match e.as_db_error() {
            Some(db) => format!("database: {db}"),
            None => format!("database: {e}"),
        };
        classify(&e, text)
    }
}

/// The SQL of a change to a game row checked against its revision: the head's eleven columns
/// (`$1`–`$11`, bound by [`PgConn::change`]) and the columns `$set` names (from `$12`), where
/// `$cond` holds too, then `$then` (statements on the changed row `g`), answering how many
/// rows changed. One text for the head, however many changes use it.
macro_rules! head_change {
    ($set:literal, $cond:literal, $then:literal) => {
        concat!(
            "WITH g AS (UPDATE games SET revision = revision + 1, engine_owner = $3, \
             engine_until = $4, clock_south = $5, clock_north = $6, clock_since = $7, \
             deadline = $8, offer = $9, south_away = $10, north_away = $11",
            $set,
            " WHERE id = $1 AND revision = $2",
            $cond,
            " RETURNING id)",
            $then,
            " SELECT COUNT(*) FROM g"
        )
    };
}

/// A connection, with the statements it has prepared. A connection that was lost (the
/// database restarted, say) is made again at the next batch or read: the change or read that
/// met the loss fails, the ones after it work.
pub(super) struct PgConn {
    config: Target,
    /// Named in the announcements of changes, so that an instance skips its own.
    instance: String,
    /// `SET default_transaction_read_only = on`: a reader's, or the writer's while writes are
    /// refused; set again on a new connection.
    read_only: bool,
    /// `None` only while dropping.
    client: Option<Client>,
    /// Whether a batch's transaction is open: PostgreSQL keeps it open after an error (the
    /// savepoint undoes the change), and only COMMIT, ROLLBACK or a lost connection end it.
    in_tx: bool,
    /// A `RELEASE op` not sent yet: it goes with the next `SAVEPOINT op` (one round trip
    /// instead of two per change), and COMMIT or ROLLBACK make it needless.
    release_pending: bool,
    statements: HashMap<&'static str, Statement>,
}

impl PgConn {
    fn connect(config: &Target, instance: &str, read_only: bool) -> StoreResult<PgConn> {
        let mut c = PgConn {
            config: config.clone(),
            instance: instance.to_string(),
            read_only,
            client: None,
            in_tx: false,
            release_pending: false,
            statements: HashMap::new(),
        };
        c.client = Some(c.new_client()?);
        Ok(c)
    }

    fn new_client(&self) -> StoreResult<Client> {
        let mut client = self.config.connect()?;
        if self.read_only {
            client.batch_execute("SET default_transaction_read_only = on")?;
        }
        Ok(client)
    }

    /// Connects again if the connection was lost.
    fn reopen_if_lost(&mut self) -> StoreResult<()> {
        if self.client.as_ref().is_some_and(|c| !c.is_closed()) {
            return Ok(());
        }
        let fresh = self.new_client()?;
        if let Some(old) = self.client.replace(fresh) {
            let _ = std::thread::spawn(move || drop(old)).join();
        }
        self.statements.clear();
        self.in_tx = false;
        self.release_pending = false;
        Ok(())
    }

    fn lost(&self) -> bool {
        self.client.as_ref().is_some_and(|c| c.is_closed())
    }

    fn client(&mut self) -> &mut Client {
        self.client.as_mut().expect("open until dropped")
    }

    fn statement(&mut self, sql: &'static str) -> Result<Statement, postgres::Error> {
        if let Some(s) = self.statements.get(sql) {
            return Ok(s.clone());
        }
        let s = self.client().prepare(sql)?;
        self.statements.insert(sql, s.clone());
        Ok(s)
    }

    fn run(
        &mut self,
        sql: &'static str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<u64, postgres::Error> {
        let st = self.statement(sql)?;
        self.client().execute(&st, params)
    }

    fn insert_game(&mut self, g: &GameRow, moves: &[String]) -> Result<(), postgres::Error> {
        let (owner, until) = claim_columns(g.engine.as_ref());
        let c = clock_columns(g.clock.as_ref());
        let control = g.clock.as_ref().map(|c| c.control.as_str());
        self.run(
            "INSERT INTO games (id, created, updated, mode, rules, seed, start, south, north,
                south_secret, north_secret, status, result, termination, rematch, tags, hints,
                invite, revision, engine_owner, engine_until, clock, clock_south, clock_north,
                clock_since, deadline, offer, south_away, north_away, south_account,
                north_account, rated, public, ratings, category)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,
                $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32,
                $33, $34, $35)",
            &[
                &g.id,
                &g.created,
                &g.updated,
                &g.mode,
                &g.rules,
                &g.seed,
                &g.start,
                &g.seats[0],
                &g.seats[1],
                &g.secrets[0],
                &g.secrets[1],
                &g.status,
                &g.result,
                &g.termination,
                &g.rematch,
                &g.tags,
                &g.hints,
                &g.invite,
                &g.revision,
                &owner,
                &until,
                &control,
                &c.0,
                &c.1,
                &c.2,
                &c.3,
                &g.offer,
                &g.away[0],
                &g.away[1],
                &g.accounts[0],
                &g.accounts[1],
                &g.rated,
                &g.public,
                &g.ratings,
                &g.category,
            ],
        )?;
        for (i, mv) in moves.iter().enumerate() {
            let ply = i as i64 + 1;
            self.run(
                "INSERT INTO moves (game, ply, mv, at) VALUES ($1, $2, $3, $4)",
                &[&g.id, &ply, mv, &g.created],
            )?;
        }
        Ok(())
    }

    /// Runs a change that moves game `head.id` on from `head.expect`: one statement whose
    /// parameters start with the head's ($1 id, $2 expect, $3 engine owner, $4 engine until,
    /// $5 to $8 the clocks: South's, North's, since, deadline; $9 the offer; $10 and $11 since
    /// when South and North are away), and whose answer counts the game rows it changed; none
    /// is a conflict.
    fn change(
        &mut self,
        head: &Head,
        sql: &'static str,
        more: &[&(dyn ToSql + Sync)],
    ) -> StoreResult<()> {
        let (owner, until) = claim_columns(head.engine.as_ref());
        let (south, north, since, deadline) = clock_columns(head.clock.as_ref());
        let mut params: Vec<&(dyn ToSql + Sync)> = vec![
            &head.id,
            &head.expect,
            &owner,
            &until,
            &south,
            &north,
            &since,
            &deadline,
            &head.offer,
            &head.away[0],
            &head.away[1],
        ];
        params.extend_from_slice(more);
        let st = self.statement(sql)?;
        let n: i64 = self.client().query_one(&st, &params)?.try_get(0)?;
        if n == 1 {
            Ok(())
        } else {
            Err(conflict(&head.id))
        }
    }

    /// The ratings of a rated game that `status` ends (see `accounts::rate`).
    fn rate(&mut self, head: &Head, status: &StatusRow) -> StoreResult<()> {
        let Some(rate) = &status.rate else {
            return Ok(());
        };
        let start: Option<String> = self
            .client()
            .query_one("SELECT ratings FROM games WHERE id = $1", &[&head.id])?
            .try_get(0)?;
        super::accounts::rate(self, &head.id, head.at, start.as_deref(), rate, true)
    }

    fn apply_pg(&mut self, op: &Op) -> StoreResult<bool> {
        match op {
            Op::CreateGame { row, moves } => self.insert_game(row, moves)?,
            // Each change is one statement, one round trip: the game row moves to its next
            // revision only if it is still at the expected one, and the rest follows from it.
            Op::AppendMove {
                head,
                ply,
                mv,
                status,
            } => self.change(
                head,
                head_change!(", updated = $12, status = $13, result = $14, termination = $15", "", ", m AS (INSERT INTO moves (game, ply, mv, at) SELECT id, $16, $17, $12 FROM g)"),
                &[
                    &head.at,
                    &status.status,
                    &status.result,
                    &status.termination,
                    ply,
                    mv,
                ],
            )
            .and_then(|()| self.rate(head, status))?,
            Op::TruncateMoves { head, keep } => self.change(
                head,
                head_change!(", updated = $12, status = 'playing', result = '*', termination = NULL", "", ", d AS (DELETE FROM moves WHERE game IN (SELECT id FROM g) AND ply > $13)"),
                &[&head.at, keep],
            )?,
            Op::SetStatus { head, status } => self.change(
                head,
                head_change!(", updated = $12, status = $13, result = $14, termination = $15", "", ""),
                &[
                    &head.at,
                    &status.status,
                    &status.result,
                    &status.termination,
                ],
            )
            .and_then(|()| self.rate(head, status))?,
            Op::Touch { head } => self.change(
                head,
                head_change!("", "", ""),
                &[],
            )?,
            Op::ClaimSeat {
                head,
                seat,
                secret,
                account,
            } => {
                let sql = if *seat == 0 {
                    head_change!(", south_secret = $12, south_account = $13, updated = $14", " AND south_secret IS NULL", "")
                } else {
                    head_change!(", north_secret = $12, north_account = $13, updated = $14", " AND north_secret IS NULL", "")
                };
                self.change(head, sql, &[secret, account, &head.at])?
            }
            Op::SetSeating {
                head,
                accounts,
                public,
            } => self.change(
                head,
                head_change!(", south_account = $12, north_account = $13, public = $14", "", ""),
                &[&accounts[0], &accounts[1], public],
            )?,
            Op::Account(op) => return super::accounts::apply(self, op),
            Op::SaveReview(r) => super::reviews::save(self, r)?,
            Op::SavePuzzle(p) => return super::puzzles::save(self, p),
            Op::RatePuzzle { attempt, out } => {
                let r = super::puzzle_ratings::rate(self, attempt, true)?;
                let rated = r.is_some();
                *out.lock().unwrap_or_else(|e| e.into_inner()) = r;
                return Ok(rated);
            }
            Op::ImportPuzzleRatings { dump, out } => {
                *out.lock().unwrap_or_else(|e| e.into_inner()) =
                    super::puzzle_ratings::import(self, dump)?;
            }
            Op::LessonsDone {
                account,
                exercises,
                at,
            } => return Ok(super::lessons::record(self, account, exercises, *at)? > 0),
            Op::ImportLessonProgress { rows, out } => {
                *out.lock().unwrap_or_else(|e| e.into_inner()) =
                    super::lessons::import(self, rows)?;
            }
            Op::CreateRematch { head, next } => {
                self.change(
                    head,
                    head_change!(", rematch = $12", " AND rematch IS NULL", ""),
                    &[&next.id],
                )?;
                self.insert_game(next, &[])?;
            }
            Op::ClaimEngine {
                id,
                expect,
                claim,
                now,
            } => {
                let n = self.run(
                    "UPDATE games SET engine_owner = $3, engine_until = $4
                     WHERE id = $1 AND revision = $2
                       AND (engine_owner IS NULL OR engine_until < $5 OR engine_owner = $3)",
                    &[id, expect, &claim.owner, &claim.until, now],
                )?;
                return Ok(n == 1);
            }
            // A setting of the session, run between batches: the transactions after it are
            // read-only (or not), and a write in one fails.
            Op::Publish { channel, payload } => {
                self.run("SELECT pg_notify($1, $2)", &[channel, payload])?;
            }
            Op::SetReadOnly(on) => {
                self.read_only = *on;
                let sql = if *on {
                    "SET default_transaction_read_only = on"
                } else {
                    "SET default_transaction_read_only = off"
                };
                self.client().batch_execute(sql)?;
            }
            #[cfg(test)]
            Op::Sql(sql) => self.client().batch_execute(sql)?,
            #[cfg(test)]
            Op::Hold { .. } => unreachable!("writer::apply runs a Hold itself"),
        }
        Ok(true)
    }
}

impl Drop for PgConn {
    fn drop(&mut self) {
        if let Some(c) = self.client.take() {
            let _ = std::thread::spawn(move || drop(c)).join();
        }
    }
}

impl Conn for PgConn {
    fn begin(&mut self) -> StoreResult<()> {
        self.reopen_if_lost()?;
        self.exec("BEGIN")
    }

    fn exec(&mut self, sql: &str) -> StoreResult<()> {
        let pending = std::mem::take(&mut self.release_pending);
        let result = match sql {
            "RELEASE op" => {
                self.release_pending = true;
                return Ok(());
            }
            "SAVEPOINT op" if pending => self.client().batch_execute("RELEASE op; SAVEPOINT op"),
            _ if pending && !matches!(sql, "COMMIT" | "ROLLBACK") => {
                self.client().batch_execute(&format!("RELEASE op; {sql}"))
            }
            _ => self.client().batch_execute(sql),
        };
        match sql {
            "BEGIN" => self.in_tx = result.is_ok(),
            // A failed COMMIT ends the transaction too.
            "COMMIT" | "ROLLBACK" => self.in_tx = false,
            _ => {}
        }
        Ok(result?)
    }

    fn in_transaction(&self) -> bool {
        self.in_tx && self.client.as_ref().is_some_and(|c| !c.is_closed())
    }

    fn apply(&mut self, op: &Op) -> StoreResult<bool> {
        self.apply_pg(op)
    }

    fn sql(&mut self) -> Box<dyn Sql + '_> {
        Box::new(self)
    }

    fn announce(&mut self, changes: &[Heard]) -> StoreResult<()> {
        if changes.is_empty() {
            return Ok(());
        }
        let lines: Vec<String> = changes.iter().map(Heard::line).collect();
        for payload in payloads(&self.instance, &lines) {
            let st = self.statement("SELECT pg_notify($1, $2)")?;
            self.client().execute(&st, &[&CHANNEL, &payload])?;
        }
        Ok(())
    }

    fn due(&mut self, now: i64, limit: usize) -> StoreResult<Vec<String>> {
        self.reading(|c| {
            let st = c.statement(
                "(SELECT id FROM games WHERE engine_owner IS NOT NULL AND engine_until < $1
                  ORDER BY engine_until LIMIT $2)
                 UNION
                 (SELECT id FROM games WHERE deadline < $1 ORDER BY deadline LIMIT $2)",
            )?;
            let limit = limit as i64;
            let rows = c.client().query(&st, &[&now, &limit])?;
            Ok(rows
                .iter()
                .map(|r| r.try_get(0))
                .collect::<Result<Vec<String>, _>>()?)
        })
    }

    fn load(&mut self, id: &str) -> StoreResult<Option<(GameRow, Vec<String>)>> {
        self.reading(|c| c.load_once(id))
    }

    fn ids_after(&mut self, after: &str, limit: usize) -> StoreResult<Vec<String>> {
        self.reading(|c| c.ids_after_once(after, limit))
    }
}

impl PgConn {
    /// Runs a read, once more on a new connection if the connection was lost.
    fn reading<T>(&mut self, read: impl Fn(&mut PgConn) -> StoreResult<T>) -> StoreResult<T> {
        self.reopen_if_lost()?;
        match read(self) {
            Err(_) if self.lost() => {
                self.reopen_if_lost()?;
                read(self)
            }
            r => r,
        }
    }

    fn load_once(&mut self, id: &str) -> StoreResult<Option<(GameRow, Vec<String>)>> {
        let game = self.statement(
            "SELECT id, created, updated, mode, rules, seed, start, south, north,
                south_secret, north_secret, status, result, termination, rematch, tags,
                hints, invite, revision, engine_owner, engine_until, clock, clock_south,
                clock_north, clock_since, deadline, offer, south_away, north_away,
                south_account, north_account, rated, public, ratings, category
             FROM games WHERE id = $1",
        )?;
        let moves = self.statement("SELECT mv FROM moves WHERE game = $1 ORDER BY ply")?;
        // One snapshot for both queries, as in SQLite's `read::load`.
        let mut tx = self
            .client()
            .build_transaction()
            .isolation_level(IsolationLevel::RepeatableRead)
            .read_only(true)
            .start()?;
        let Some(r) = tx.query_opt(&game, &[&id])? else {
            return Ok(None);
        };
        let mode: String = r.try_get(3)?;
        let row = GameRow {
            id: r.try_get(0)?,
            created: r.try_get(1)?,
            updated: r.try_get(2)?,
            rules: r.try_get(4)?,
            seed: r.try_get(5)?,
            start: r.try_get(6)?,
            seats: [r.try_get(7)?, r.try_get(8)?],
            secrets: [r.try_get(9)?, r.try_get(10)?],
            status: r.try_get(11)?,
            result: r.try_get(12)?,
            termination: r.try_get(13)?,
            rematch: r.try_get(14)?,
            tags: r.try_get(15)?,
            hints: hints_or_default(r.try_get(16)?, &mode),
            invite: r.try_get(17)?,
            revision: r.try_get(18)?,
            engine: claim(r.try_get(19)?, r.try_get(20)?),
            clock: clock_row(
                r.try_get(21)?,
                [r.try_get(22)?, r.try_get(23)?],
                r.try_get(24)?,
                r.try_get(25)?,
            ),
            offer: r.try_get(26)?,
            away: [r.try_get(27)?, r.try_get(28)?],
            accounts: [r.try_get(29)?, r.try_get(30)?],
            rated: r.try_get(31)?,
            public: r.try_get(32)?,
            ratings: r.try_get(33)?,
            category: r.try_get(34)?,
            mode,
        };
        let moves = tx
            .query(&moves, &[&id])?
            .iter()
            .map(|r| r.try_get(0))
            .collect::<Result<Vec<String>, _>>()?;
        tx.commit()?;
        Ok(Some((row, moves)))
    }

    fn ids_after_once(&mut self, after: &str, limit: usize) -> StoreResult<Vec<String>> {
        // `COLLATE "C"`: byte order, as SQLite's.
        let st = self.statement(
            "SELECT id FROM games WHERE id COLLATE \"C\" > $1
             ORDER BY id COLLATE \"C\" LIMIT $2",
        )?;
        let limit = limit as i64;
        let rows = self.client().query(&st, &[&after, &limit])?;
        let ids = rows
            .iter()
            .map(|r| r.try_get(0))
            .collect::<Result<Vec<String>, postgres::Error>>()?;
        Ok(ids)
    }
}

/// Brings the schema up to date: one transaction, holding the advisory lock, so that of two
/// servers starting together one migrates and the other then finds nothing to do.
fn migrate(client: &mut Client) -> StoreResult<()> {
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
            tx.batch_execute(migration_tail(version))?;
            tx.execute(
                "INSERT INTO schema_migrations (version) VALUES ($1)",
                &[&version],
            )?;
        }
    }
    tx.commit()?;
    Ok(())
}

/// Opens the store (on a thread of its own: see the module comment).
pub(super) fn open(config: Target, scratch: Option<DropSchema>) -> StoreResult<Store> {
    std::thread::spawn(move || open_here(config, scratch))
        .join()
        .map_err(|_| StoreError::Failed("opening the PostgreSQL store panicked".to_string()))?
}

fn open_here(config: Target, scratch: Option<DropSchema>) -> StoreResult<Store> {
    let instance = super::new_instance();
    let mut writer = PgConn::connect(&config, &instance, false)?;
    migrate(writer.client())?;
    let schema: String = writer
        .client()
        .query_one("SELECT current_schema()", &[])?
        .try_get(0)?;
    let lobby_channel = lobby_channel(&schema);
    let readers = (0..READERS)
        .map(|_| {
            // Read-only: a write sent to a reader by mistake fails instead of going around
            // the writer.
            let c = PgConn::connect(&config, &instance, true)?;
            Ok(Arc::new(Mutex::new(c)) as Arc<Mutex<dyn Conn>>)
        })
        .collect::<StoreResult<Vec<_>>>()?;
    Ok(Store {
        writer: Writer::start(Arc::new(Mutex::new(writer)))?,
        readers: Readers::new(readers),
        instance,
        closing: Default::default(),
        listen: Some(config),
        lobby_channel: Some(lobby_channel),
        _scratch: scratch,
    })
}

/// The lobby's channel for the tables of `schema`: a valid identifier whatever the schema's
/// name (letters, digits and `_` kept, the rest as hex), within PostgreSQL's 63 bytes.
fn lobby_channel(schema: &str) -> String {
    let mut name = String::from("anywoli_lobby_");
    for c in schema.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            name.push(c.to_ascii_lowercase());
        } else {
            name.push_str(&format!("x{:x}", u32::from(c)));
        }
    }
    name.truncate(63);
    name
}

/// The announcements of a batch's changes: this instance's name, then one change a line
/// ([`Heard::line`]), split so that each stays under PostgreSQL's payload limit.
pub(super) fn payloads(instance: &str, lines: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = instance.to_string();
    for id in lines {
        if cur.len() + 1 + id.len() > PAYLOAD_MAX && cur.len() > instance.len() {
            out.push(std::mem::replace(&mut cur, instance.to_string()));
        }
        cur.push('\n');
        cur.push_str(id);
    }
    out.push(cur);
    out
}

/// What an announcement says, unless it came from `me`.
pub(super) fn heard(payload: &str, me: &str) -> Option<Vec<Heard>> {
    let mut lines = payload.lines();
    let from = lines.next()?;
    if from == me {
        return None;
    }
    Some(lines.filter_map(Heard::parse).collect())
}

/// How long the listener waits between attempts to reconnect, at most.
const RELISTEN_MAX: Duration = Duration::from_secs(5);

/// Listens for the other instances' announcements on a connection of its own, on a thread of
/// its own, until `closing`. A lost connection is made again (waiting 0.1 s, doubling up to
/// [`RELISTEN_MAX`]), after which `on` hears [`Changed::Missed`]: announcements made
/// meanwhile are gone. The first connection is made before this returns, so that a server
/// that cannot listen says so at start.
pub(super) fn listen(
    config: Target,
    instance: String,
    lobby: String,
    closing: Arc<AtomicBool>,
    on: Box<dyn Fn(Changed) + Send>,
) -> StoreResult<()> {
    let (first_tx, first_rx) = std::sync::mpsc::sync_channel(1);
    std::thread::Builder::new()
        .name("anywoli-store-listen".to_string())
        .spawn(move || {
            let mut client = match listening(&config, &lobby) {
                Ok(c) => {
                    let _ = first_tx.send(Ok(()));
                    c
                }
                Err(e) => {
                    let _ = first_tx.send(Err(e));
                    return;
                }
            };
            let mut wait = Duration::from_millis(100);
            loop {
                if let Err(e) = hear(&mut client, &instance, &lobby, &closing, &*on) {
                    tracing::warn!(
                        "lost the PostgreSQL connection that hears other instances: {e}"
                    );
                }
                drop(client);
                client = loop {
                    if closing.load(Ordering::Relaxed) {
                        return;
                    }
                    std::thread::sleep(wait);
                    match listening(&config, &lobby) {
                        Ok(c) => break c,
                        Err(e) => {
                            tracing::warn!("cannot listen to other instances yet: {e}");
                            wait = (wait * 2).min(RELISTEN_MAX);
                        }
                    }
                };
                wait = Duration::from_millis(100);
                on(Changed::Missed);
            }
        })
        .map_err(|e| StoreError::Failed(format!("cannot start the listener thread: {e}")))?;
    first_rx
        .recv()
        .map_err(|_| StoreError::Failed("the listener thread stopped".to_string()))?
}

fn listening(config: &Target, lobby: &str) -> StoreResult<Client> {
    let mut c = config.connect()?;
    c.batch_execute(&format!("LISTEN {CHANNEL}; LISTEN {lobby}"))?;
    Ok(c)
}

/// Passes on announcements as they come until the store closes (`Ok`) or the connection
/// fails.
fn hear(
    client: &mut Client,
    me: &str,
    lobby: &str,
    closing: &AtomicBool,
    on: &dyn Fn(Changed),
) -> StoreResult<()> {
    while !closing.load(Ordering::Relaxed) {
        {
            let mut notes = client.notifications();
            // Wakes at least twice a second to look at `closing`.
            let mut iter = notes.timeout_iter(Duration::from_millis(500));
            while let Some(note) = iter.next()? {
                if note.channel() == lobby {
                    // The lobby knows its own messages by the instance named in them.
                    on(Changed::Lobby(note.payload().to_string()));
                } else if let Some(games) = heard(note.payload(), me) {
                    on(Changed::Games(games));
                }
            }
        }
        if client.is_closed() {
            return Err(StoreError::Failed("the connection closed".to_string()));
        }
    }
    Ok(())
}

/// A test's schema, dropped (with its tables) when the store that uses it is.
pub(super) struct DropSchema {
    config: Target,
    pub(super) name: String,
}

impl Drop for DropSchema {
    fn drop(&mut self) {
        let (config, name) = (self.config.clone(), self.name.clone());
        let _ = std::thread::spawn(move || {
            if let Ok(mut c) = config.connect() {
                let _ = c.batch_execute(&format!("DROP SCHEMA {name} CASCADE"));
            }
        })
        .join();
    }
}

/// Makes a new schema with a random name (on a thread of its own: see the module comment).
fn create_schema(config: &Target) -> StoreResult<String> {
    let mut b = [0u8; 8];
    getrandom::fill(&mut b).map_err(|e| StoreError::Failed(format!("no randomness: {e}")))?;
    let name: String = std::iter::once("anywoli_test_".to_string())
        .chain(b.iter().map(|x| format!("{x:02x}")))
        .collect();
    let (config, made) = (config.clone(), name.clone());
    std::thread::spawn(move || -> StoreResult<()> {
        let mut c = config.connect()?;
        Ok(c.batch_execute(&format!("CREATE SCHEMA {made}"))?)
    })
    .join()
    .map_err(|_| StoreError::Failed("creating a schema panicked".to_string()))??;
    Ok(name)
}

/// Two stores on one new schema (tests of several instances), like two servers' on one
/// database; the schema goes with the first, so the second is to be dropped before it.
pub(super) fn open_scratch_pair(config: Target) -> StoreResult<(Store, Store)> {
    let name = create_schema(&config)?;
    let scratch = DropSchema {
        config: config.clone(),
        name: name.clone(),
    };
    let mut config = config;
    config.config.options(&format!("-c search_path={name}"));
    config.config.application_name(&name);
    let first = open(config.clone(), Some(scratch))?;
    Ok((first, open(config, None)?))
}

/// A store in a new schema of its own (tests), dropped with it.
pub(super) fn open_scratch(config: Target) -> StoreResult<Store> {
    let name = create_schema(&config)?;
    let scratch = DropSchema {
        config: config.clone(),
        name: name.clone(),
    };
    let mut config = config;
    config.config.options(&format!("-c search_path={name}"));
    // Names the store's connections, for a test that cuts them.
    config.config.application_name(&name);
    open(config, Some(scratch))
}

/// `url` with a new schema of its own as its search path (tests that start whole servers,
/// and restart them, on one database). The schema stays: the tests' database is throwaway.
pub(super) fn scratch_url(url: &str) -> StoreResult<String> {
    let config = Target::parse(url)?;
    let name = create_schema(&config)?;
    let sep = if url.contains('?') { '&' } else { '?' };
    Ok(format!("{url}{sep}options=-csearch_path%3D{name}"))
}

impl Sql for PgConn {
    fn query(&mut self, sql: &str, params: &[Val]) -> StoreResult<Vec<super::sql::Row>> {
        let st = self.client().prepare(sql)?;
        let values = super::sql::pg_params(params, st.params());
        let refs: Vec<&(dyn ToSql + Sync)> = values.iter().map(|b| &**b).collect();
        let rows = self.client().query(&st, &refs)?;
        super::sql::pg_rows(&rows)
    }

    fn execute(&mut self, sql: &str, params: &[Val]) -> StoreResult<u64> {
        let st = self.client().prepare(sql)?;
        let values = super::sql::pg_params(params, st.params());
        let refs: Vec<&(dyn ToSql + Sync)> = values.iter().map(|b| &**b).collect();
        Ok(self.client().execute(&st, &refs)?)
    }
}

/// A borrowed connection is one too (what `Conn::sql` hands out).
impl Sql for &mut PgConn {
    fn query(&mut self, sql: &str, params: &[Val]) -> StoreResult<Vec<super::sql::Row>> {
        (**self).query(sql, params)
    }

    fn execute(&mut self, sql: &str, params: &[Val]) -> StoreResult<u64> {
        (**self).execute(sql, params)
    }
}
