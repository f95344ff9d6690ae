//! SQLite's side of the store's connections: [`Sql`] (statements both backends share, their
//! `$1` parameters read as `?1`) and [`Conn`] (transactions, the head of a game's change,
//! snapshots, read-only mode) for `rusqlite::Connection`.

use std::sync::Arc;

use rusqlite::Connection;

use super::games::GameChange;
use super::sql::{Dialect, Row, Sql, Val};
use super::{Conn, StoreResult};

/// `$1` → `?1`: the same numbered parameters in SQLite's spelling.
fn sqlite_text(sql: &str) -> String {
    sql.replace('$', "?")
}

impl Sql for Connection {
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    fn query(&mut self, sql: &str, params: &[Val]) -> StoreResult<Vec<Row>> {
        let mut st = self.prepare_cached(&sqlite_text(sql))?;
        let names: Arc<[String]> = st.column_names().map(str::to_string).collect();
        let mut rows = st.query(rusqlite::params_from_iter(params.iter()))?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            let mut vals = Vec::with_capacity(names.len());
            for i in 0..names.len() {
                use rusqlite::types::ValueRef;
                vals.push(match r.get_ref(i)? {
                    ValueRef::Null => Val::Null,
                    ValueRef::Integer(i) => Val::Int(i),
                    ValueRef::Real(f) => Val::Real(f),
                    ValueRef::Text(t) | ValueRef::Blob(t) => {
                        Val::Text(String::from_utf8_lossy(t).into_owned())
                    }
                });
            }
            out.push(Row {
                names: names.clone(),
                vals,
            });
        }
        Ok(out)
    }

    fn execute(&mut self, sql: &str, params: &[Val]) -> StoreResult<u64> {
        let mut st = self.prepare_cached(&sqlite_text(sql))?;
        Ok(st.execute(rusqlite::params_from_iter(params.iter()))? as u64)
    }
}

impl rusqlite::ToSql for Val {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, Value};
        Ok(ToSqlOutput::Owned(match self {
            Val::Null => Value::Null,
            Val::Int(i) => Value::Integer(*i),
            Val::Real(r) => Value::Real(*r),
            Val::Text(s) => Value::Text(s.clone()),
            Val::Bool(b) => Value::Integer(i64::from(*b)),
        }))
    }
}

/// The writer's statements and the readers' snapshots; one process uses the file, so there is
/// nobody to tell of a change.
impl Conn for Connection {
    fn begin(&mut self) -> StoreResult<()> {
        Ok(self.execute_batch("BEGIN IMMEDIATE")?)
    }

    fn exec(&mut self, sql: &str) -> StoreResult<()> {
        Ok(self.execute_batch(sql)?)
    }

    fn in_transaction(&self) -> bool {
        !self.is_autocommit()
    }

    fn sql(&mut self) -> &mut dyn Sql {
        self
    }

    /// The `UPDATE`, then the statement that follows it if the game changed: each binds as
    /// many of `params` as it numbers.
    fn change(&mut self, change: &GameChange, params: &[Val]) -> StoreResult<u64> {
        let (update, then) = change.sqlite;
        let n = execute_prefix(self, update, params)?;
        if let (1, Some(then)) = (n, then) {
            execute_prefix(self, then, params)?;
        }
        Ok(n)
    }

    fn begin_snapshot(&mut self) -> StoreResult<()> {
        // A read that panicked may have left its snapshot open.
        if !self.is_autocommit() {
            self.execute_batch("ROLLBACK")?;
        }
        Ok(self.execute_batch("BEGIN")?)
    }

    fn reading(
        &mut self,
        read: &mut dyn FnMut(&mut dyn Conn) -> StoreResult<()>,
    ) -> StoreResult<()> {
        read(self)
    }

    fn set_read_only(&mut self, on: bool) -> StoreResult<()> {
        Ok(self.pragma_update(None, "query_only", on)?)
    }
}

/// Runs `sql` with the first of `params`, as many as it numbers.
fn execute_prefix(c: &Connection, sql: &str, params: &[Val]) -> StoreResult<u64> {
    let mut st = c.prepare_cached(&sqlite_text(sql))?;
    let n = st.parameter_count().min(params.len());
    Ok(st.execute(rusqlite::params_from_iter(&params[..n]))? as u64)
}
