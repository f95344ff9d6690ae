//! Plain SQL over either backend, for the parts of the store whose queries are the same text
//! in SQLite and PostgreSQL (accounts, ratings, lists): written once, with `$1`, `$2`…
//! parameters (SQLite reads them as `?1`, `?2`…) and values of a few plain types.

use std::sync::Arc;

use super::{StoreError, StoreResult};

/// A parameter or a column's value.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Val {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    Bool(bool),
}

impl Val {
    fn text(&self) -> StoreResult<String> {
        match self {
            Val::Text(s) => Ok(s.clone()),
            v => Err(bad(v, "text")),
        }
    }

    fn int(&self) -> StoreResult<i64> {
        match self {
            Val::Int(i) => Ok(*i),
            v => Err(bad(v, "integer")),
        }
    }

    fn real(&self) -> StoreResult<f64> {
        match self {
            Val::Real(r) => Ok(*r),
            Val::Int(i) => Ok(*i as f64),
            v => Err(bad(v, "number")),
        }
    }

    /// SQLite keeps booleans as 0 and 1.
    fn bool(&self) -> StoreResult<bool> {
        match self {
            Val::Bool(b) => Ok(*b),
            Val::Int(i) => Ok(*i != 0),
            v => Err(bad(v, "boolean")),
        }
    }

    /// `None` for NULL, else what `get` makes of the value.
    fn opt<T>(&self, get: impl Fn(&Val) -> StoreResult<T>) -> StoreResult<Option<T>> {
        match self {
            Val::Null => Ok(None),
            v => get(v).map(Some),
        }
    }
}

fn bad(v: &Val, want: &str) -> StoreError {
    StoreError::Failed(format!("database: expected a {want}, found {v:?}"))
}

/// One row of a query's answer, its values found by their columns' names (a query names
/// every column it reads, with `AS` where an expression has no name of its own).
pub(super) struct Row {
    pub(super) names: Arc<[String]>,
    pub(super) vals: Vec<Val>,
}

impl Row {
    fn get(&self, name: &str) -> StoreResult<&Val> {
        self.names
            .iter()
            .position(|n| n == name)
            .map(|i| &self.vals[i])
            .ok_or_else(|| StoreError::Failed(format!("database: no column {name}")))
    }

    pub(super) fn text(&self, name: &str) -> StoreResult<String> {
        self.get(name)?.text()
    }

    pub(super) fn opt_text(&self, name: &str) -> StoreResult<Option<String>> {
        self.get(name)?.opt(Val::text)
    }

    pub(super) fn int(&self, name: &str) -> StoreResult<i64> {
        self.get(name)?.int()
    }

    pub(super) fn opt_int(&self, name: &str) -> StoreResult<Option<i64>> {
        self.get(name)?.opt(Val::int)
    }

    pub(super) fn real(&self, name: &str) -> StoreResult<f64> {
        self.get(name)?.real()
    }

    pub(super) fn bool(&self, name: &str) -> StoreResult<bool> {
        self.get(name)?.bool()
    }

    pub(super) fn opt_bool(&self, name: &str) -> StoreResult<Option<bool>> {
        self.get(name)?.opt(Val::bool)
    }
}

/// A type made from a row by its columns' names.
pub(super) trait FromRow: Sized {
    fn from_row(r: &Row) -> StoreResult<Self>;
}

impl dyn Sql + '_ {
    /// The rows of a query, each made into a `T`.
    pub(super) fn rows<T: FromRow>(&mut self, sql: &str, params: &[Val]) -> StoreResult<Vec<T>> {
        self.query(sql, params)?.iter().map(T::from_row).collect()
    }

    /// The first row of a query, made into a `T`, if there is one.
    pub(super) fn row<T: FromRow>(&mut self, sql: &str, params: &[Val]) -> StoreResult<Option<T>> {
        self.query(sql, params)?
            .first()
            .map(T::from_row)
            .transpose()
    }

    /// The integer column `name` of a query's one row (a count).
    pub(super) fn count(&mut self, sql: &str, params: &[Val], name: &str) -> StoreResult<i64> {
        match self.query(sql, params)?.first() {
            Some(r) => r.int(name),
            None => Err(StoreError::Failed(format!("database: no {name}"))),
        }
    }
}

impl From<&str> for Val {
    fn from(s: &str) -> Val {
        Val::Text(s.to_string())
    }
}
impl From<String> for Val {
    fn from(s: String) -> Val {
        Val::Text(s)
    }
}
impl From<&String> for Val {
    fn from(s: &String) -> Val {
        Val::Text(s.clone())
    }
}
impl From<i64> for Val {
    fn from(i: i64) -> Val {
        Val::Int(i)
    }
}
impl From<f64> for Val {
    fn from(r: f64) -> Val {
        Val::Real(r)
    }
}
impl From<bool> for Val {
    fn from(b: bool) -> Val {
        Val::Bool(b)
    }
}
impl<T: Into<Val>> From<Option<T>> for Val {
    fn from(o: Option<T>) -> Val {
        o.map_or(Val::Null, Into::into)
    }
}

/// Which backend a connection speaks to, for the few words their SQL spells differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Dialect {
    Sqlite,
    Postgres,
}

impl Dialect {
    /// What makes a text column compare in byte order: SQLite's default, PostgreSQL's
    /// `COLLATE "C"`.
    pub(super) fn byte_order(self) -> &'static str {
        match self {
            Dialect::Sqlite => "",
            Dialect::Postgres => "COLLATE \"C\"",
        }
    }

    /// What locks the rows a read finds until the transaction ends: PostgreSQL's, where
    /// another instance may be changing them; SQLite's writer is alone.
    pub(super) fn for_update(self) -> &'static str {
        match self {
            Dialect::Sqlite => "",
            Dialect::Postgres => " FOR UPDATE",
        }
    }
}

/// Statements over one connection, inside whatever transaction it has open.
pub(super) trait Sql {
    fn dialect(&self) -> Dialect;
    fn query(&mut self, sql: &str, params: &[Val]) -> StoreResult<Vec<Row>>;
    /// How many rows the statement changed.
    fn execute(&mut self, sql: &str, params: &[Val]) -> StoreResult<u64>;
}
