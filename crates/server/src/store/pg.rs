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
use postgres::{Client, Statement};

use super::pg_errors::classify;
use super::pg_tls::Target;

use super::games::GameChange;
use super::read::Readers;
use super::sql::{Dialect, Row, Sql, Val};
use super::writer::Writer;
use super::{Changed, Conn, Heard, Store, StoreError, StoreResult};

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
    statements: HashMap<String, Statement>,
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

    fn statement(&mut self, sql: &str) -> Result<Statement, postgres::Error> {
        if let Some(s) = self.statements.get(sql) {
            return Ok(s.clone());
        }
        let s = self.client().prepare(sql)?;
        self.statements.insert(sql.to_string(), s.clone());
        Ok(s)
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

    fn sql(&mut self) -> &mut dyn Sql {
        self
    }

    /// One statement, one round trip: the game row moves to its next revision only if it is
    /// still at the expected one, and the rest follows from it.
    fn change(&mut self, change: &GameChange, params: &[Val]) -> StoreResult<u64> {
        let n = self
            .query(change.postgres, params)?
            .first()
            .map(|r| r.int("n"))
            .transpose()?
            .unwrap_or(0);
        Ok(n as u64)
    }

    fn begin_snapshot(&mut self) -> StoreResult<()> {
        Ok(self
            .client()
            .batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")?)
    }

    fn reading(
        &mut self,
        read: &mut dyn FnMut(&mut dyn Conn) -> StoreResult<()>,
    ) -> StoreResult<()> {
        self.reopen_if_lost()?;
        match read(self) {
            Err(_) if self.lost() => {
                self.reopen_if_lost()?;
                read(self)
            }
            r => r,
        }
    }

    /// A setting of the session, run between batches: the transactions after it are
    /// read-only (or not), and a write in one fails.
    fn set_read_only(&mut self, on: bool) -> StoreResult<()> {
        self.read_only = on;
        let sql = if on {
            "SET default_transaction_read_only = on"
        } else {
            "SET default_transaction_read_only = off"
        };
        Ok(self.client().batch_execute(sql)?)
    }

    fn notify(&mut self, channel: &str, payload: &str) -> StoreResult<()> {
        self.execute(
            "SELECT pg_notify($1, $2)",
            &[channel.into(), payload.into()],
        )?;
        Ok(())
    }

    fn announce(&mut self, changes: &[Heard]) -> StoreResult<()> {
        if changes.is_empty() {
            return Ok(());
        }
        let lines: Vec<String> = changes.iter().map(Heard::line).collect();
        for payload in payloads(&self.instance, &lines) {
            self.notify(CHANNEL, &payload)?;
        }
        Ok(())
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

/// Statements run with [`Sql`] are prepared once per connection, whatever their text.
impl Sql for PgConn {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    fn query(&mut self, sql: &str, params: &[Val]) -> StoreResult<Vec<Row>> {
        let st = self.statement(sql)?;
        let values = super::sql::pg_params(params, st.params());
        let refs: Vec<&(dyn ToSql + Sync)> = values.iter().map(|b| &**b).collect();
        let rows = self.client().query(&st, &refs)?;
        super::sql::pg_rows(&rows)
    }

    fn execute(&mut self, sql: &str, params: &[Val]) -> StoreResult<u64> {
        let st = self.statement(sql)?;
        let values = super::sql::pg_params(params, st.params());
        let refs: Vec<&(dyn ToSql + Sync)> = values.iter().map(|b| &**b).collect();
        Ok(self.client().execute(&st, &refs)?)
    }
}
