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
use std::sync::{Arc, Mutex};

use postgres::types::ToSql;
use postgres::{Client, Config, IsolationLevel, NoTls, Statement};

use super::read::{hints_or_default, Readers};
use super::writer::{Op, Writer};
use super::{Conn, GameRow, Store, StoreError, StoreResult, Summary};

/// Read connections: each is a server process, and PostgreSQL's default allows 100 in all.
pub(super) const READERS: usize = 2;

/// The key of the advisory lock that migrations hold ("anywoli" in ASCII).
const MIGRATION_LOCK: i64 = 0x0061_6e79_776f_6c69;

/// The migrations, in order: (version, SQL). Add to the end; never change one that shipped.
const MIGRATIONS: &[(i32, &str)] = &[(
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
)];

impl From<postgres::Error> for StoreError {
    fn from(e: postgres::Error) -> StoreError {
        // The error's own text is just "db error" when the server refused: say why.
        match e.as_db_error() {
            Some(db) => StoreError(format!("database: {db}")),
            None => StoreError(format!("database: {e}")),
        }
    }
}

/// A connection, with the statements it has prepared. A connection that was lost (the
/// database restarted, say) is made again at the next batch or read: the change or read that
/// met the loss fails, the ones after it work.
pub(super) struct PgConn {
    config: Config,
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
    fn connect(config: &Config, read_only: bool) -> StoreResult<PgConn> {
        let mut c = PgConn {
            config: config.clone(),
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
        let mut client = self
            .config
            .connect(NoTls)
            .map_err(|e| StoreError(format!("cannot connect to PostgreSQL: {e}")))?;
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
        self.run(
            "INSERT INTO games (id, created, updated, mode, rules, seed, start, south, north,
                south_secret, north_secret, status, result, termination, rematch, tags, hints,
                invite)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,
                $17, $18)",
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

    fn apply_pg(&mut self, op: &Op) -> Result<bool, postgres::Error> {
        const SET_STATUS: &str = "UPDATE games SET updated = $2, status = $3, result = $4,
            termination = $5 WHERE id = $1";
        match op {
            Op::CreateGame { row, moves } => self.insert_game(row, moves).map(|()| true),
            Op::AppendMove {
                id,
                ply,
                mv,
                at,
                status,
                result,
                termination,
            } => {
                // One statement, one round trip: the move fails (a ply already stored, a game
                // that does not exist) or both changes are made.
                self.run(
                    "WITH m AS (INSERT INTO moves (game, ply, mv, at) VALUES ($1, $6, $7, $2))
                     UPDATE games SET updated = $2, status = $3, result = $4, termination = $5
                     WHERE id = $1",
                    &[id, at, status, result, termination, ply, mv],
                )?;
                Ok(true)
            }
            Op::TruncateMoves { id, keep, at } => {
                self.run(
                    "DELETE FROM moves WHERE game = $1 AND ply > $2",
                    &[id, keep],
                )?;
                self.run(
                    "UPDATE games SET updated = $2, status = 'playing', result = '*',
                        termination = NULL WHERE id = $1",
                    &[id, at],
                )?;
                Ok(true)
            }
            Op::SetStatus {
                id,
                at,
                status,
                result,
                termination,
            } => {
                self.run(SET_STATUS, &[id, at, status, result, termination])?;
                Ok(true)
            }
            Op::ClaimSeat { id, seat, secret } => {
                let sql = if *seat == 0 {
                    "UPDATE games SET south_secret = $2 WHERE id = $1 AND south_secret IS NULL"
                } else {
                    "UPDATE games SET north_secret = $2 WHERE id = $1 AND north_secret IS NULL"
                };
                Ok(self.run(sql, &[id, secret])? == 1)
            }
            Op::CreateRematch { id, next } => {
                let linked = self.run(
                    "UPDATE games SET rematch = $2 WHERE id = $1 AND rematch IS NULL",
                    &[id, &next.id],
                )?;
                if linked != 1 {
                    return Ok(false);
                }
                self.insert_game(next, &[])?;
                Ok(true)
            }
            // A setting of the session, run between batches: the transactions after it are
            // read-only (or not), and a write in one fails.
            Op::SetReadOnly(on) => {
                self.read_only = *on;
                let sql = if *on {
                    "SET default_transaction_read_only = on"
                } else {
                    "SET default_transaction_read_only = off"
                };
                self.client().batch_execute(sql).map(|()| true)
            }
            #[cfg(test)]
            Op::Sql(sql) => self.client().batch_execute(sql).map(|()| true),
            #[cfg(test)]
            Op::Hold { .. } => unreachable!("writer::apply runs a Hold itself"),
        }
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
        Ok(self.apply_pg(op)?)
    }

    fn load(&mut self, id: &str) -> StoreResult<Option<(GameRow, Vec<String>)>> {
        self.reading(|c| c.load_once(id))
    }

    fn recent(&mut self, limit: usize) -> StoreResult<Vec<Summary>> {
        self.reading(|c| c.recent_once(limit))
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
                hints, invite
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

    fn recent_once(&mut self, limit: usize) -> StoreResult<Vec<Summary>> {
        // `COLLATE "C"`: ids in byte order, as SQLite sorts them.
        let st = self.statement(
            "SELECT g.id, g.created, g.updated, g.mode, g.rules, g.south, g.north, g.status,
                g.result, (SELECT COUNT(*) FROM moves m WHERE m.game = g.id)
             FROM games g WHERE NOT (g.mode = 'friend' AND g.status = 'playing')
             ORDER BY g.updated DESC, g.id COLLATE \"C\" LIMIT $1",
        )?;
        let limit = limit as i64;
        let rows = self.client().query(&st, &[&limit])?;
        let summaries = rows
            .iter()
            .map(|r| {
                Ok(Summary {
                    id: r.try_get(0)?,
                    created: r.try_get(1)?,
                    updated: r.try_get(2)?,
                    mode: r.try_get(3)?,
                    rules: r.try_get(4)?,
                    seats: [r.try_get(5)?, r.try_get(6)?],
                    status: r.try_get(7)?,
                    result: r.try_get(8)?,
                    moves: r.try_get(9)?,
                })
            })
            .collect::<Result<Vec<_>, postgres::Error>>()?;
        Ok(summaries)
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
        return Err(StoreError(format!(
            "the database's schema (version {v}) is newer than this anywoli knows (version {latest})"
        )));
    }
    for &(version, sql) in MIGRATIONS {
        if !done.contains(&version) {
            tx.batch_execute(sql)?;
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
pub(super) fn open(config: Config, scratch: Option<DropSchema>) -> StoreResult<Store> {
    std::thread::spawn(move || open_here(config, scratch))
        .join()
        .map_err(|_| StoreError("opening the PostgreSQL store panicked".to_string()))?
}

fn open_here(config: Config, scratch: Option<DropSchema>) -> StoreResult<Store> {
    let mut writer = PgConn::connect(&config, false)?;
    migrate(writer.client())?;
    let readers = (0..READERS)
        .map(|_| {
            // Read-only: a write sent to a reader by mistake fails instead of going around
            // the writer.
            let c = PgConn::connect(&config, true)?;
            Ok(Arc::new(Mutex::new(c)) as Arc<Mutex<dyn Conn>>)
        })
        .collect::<StoreResult<Vec<_>>>()?;
    Ok(Store {
        writer: Writer::start(Arc::new(Mutex::new(writer)))?,
        readers: Readers::new(readers),
        _scratch: scratch,
    })
}

/// A test's schema, dropped (with its tables) when the store that uses it is.
pub(super) struct DropSchema {
    config: Config,
    pub(super) name: String,
}

impl Drop for DropSchema {
    fn drop(&mut self) {
        let (config, name) = (self.config.clone(), self.name.clone());
        let _ = std::thread::spawn(move || {
            if let Ok(mut c) = config.connect(NoTls) {
                let _ = c.batch_execute(&format!("DROP SCHEMA {name} CASCADE"));
            }
        })
        .join();
    }
}

/// Makes a new schema with a random name (on a thread of its own: see the module comment).
fn create_schema(config: &Config) -> StoreResult<String> {
    let mut b = [0u8; 8];
    getrandom::fill(&mut b).map_err(|e| StoreError(format!("no randomness: {e}")))?;
    let name: String = std::iter::once("anywoli_test_".to_string())
        .chain(b.iter().map(|x| format!("{x:02x}")))
        .collect();
    let (config, made) = (config.clone(), name.clone());
    std::thread::spawn(move || -> StoreResult<()> {
        let mut c = config
            .connect(NoTls)
            .map_err(|e| StoreError(format!("cannot connect to PostgreSQL: {e}")))?;
        Ok(c.batch_execute(&format!("CREATE SCHEMA {made}"))?)
    })
    .join()
    .map_err(|_| StoreError("creating a schema panicked".to_string()))??;
    Ok(name)
}

/// A store in a new schema of its own (tests), dropped with it.
pub(super) fn open_scratch(config: Config) -> StoreResult<Store> {
    let name = create_schema(&config)?;
    let scratch = DropSchema {
        config: config.clone(),
        name: name.clone(),
    };
    let mut config = config;
    config.options(&format!("-c search_path={name}"));
    // Names the store's connections, for a test that cuts them.
    config.application_name(&name);
    open(config, Some(scratch))
}

/// `url` with a new schema of its own as its search path (tests that start whole servers,
/// and restart them, on one database). The schema stays: the tests' database is throwaway.
pub(super) fn scratch_url(url: &str) -> StoreResult<String> {
    let config = url
        .parse::<Config>()
        .map_err(|e| StoreError(format!("bad PostgreSQL URL: {e}")))?;
    let name = create_schema(&config)?;
    let sep = if url.contains('?') { '&' } else { '?' };
    Ok(format!("{url}{sep}options=-csearch_path%3D{name}"))
}
