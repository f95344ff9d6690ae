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

mod errors;
mod listen;
mod migrations;
mod scratch;
pub(super) mod tls;
mod values;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use postgres::types::ToSql;
use postgres::{Client, Statement};

use errors::classify;
#[cfg(test)]
pub(super) use listen::heard;
pub(super) use listen::{listen, payloads};
use migrations::migrate;
pub(super) use scratch::{open_scratch, open_scratch_pair, scratch_url, DropSchema};
use tls::Target;

use super::games::GameChange;
use super::read::Readers;
use super::sql::{Dialect, Row, Sql, Val};
use super::writer::Writer;
use super::{Conn, Heard, Store, StoreError, StoreResult};

/// Read connections: each is a server process, and PostgreSQL's default allows 100 in all.
pub(super) const READERS: usize = 2;

/// The channel on which instances announce the games they changed.
const CHANNEL: &str = "anywoli_games";

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

/// Statements run with [`Sql`] are prepared once per connection, whatever their text.
impl Sql for PgConn {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    fn query(&mut self, sql: &str, params: &[Val]) -> StoreResult<Vec<Row>> {
        let st = self.statement(sql)?;
        let values = values::pg_params(params, st.params());
        let refs: Vec<&(dyn ToSql + Sync)> = values.iter().map(|b| &**b).collect();
        let rows = self.client().query(&st, &refs)?;
        values::pg_rows(&rows)
    }

    fn execute(&mut self, sql: &str, params: &[Val]) -> StoreResult<u64> {
        let st = self.statement(sql)?;
        let values = values::pg_params(params, st.params());
        let refs: Vec<&(dyn ToSql + Sync)> = values.iter().map(|b| &**b).collect();
        Ok(self.client().execute(&st, &refs)?)
    }
}
