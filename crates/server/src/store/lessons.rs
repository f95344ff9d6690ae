//! Course progress kept for accounts (issue 14): the exercises an account has done, as
//! `lesson#n` (the page's own key; a browser without an account keeps the same keys in its
//! localStorage). Progress only grows: an exercise done stays done.

use super::sql::Sql;
use super::writer::Change;
use super::StoreResult;
use super::{Conn, Store};

/// The table, the same text in both backends.
pub(super) const LESSON_TABLES: &str = "
CREATE TABLE IF NOT EXISTS lesson_progress (
    account TEXT NOT NULL REFERENCES accounts (name),
    exercise TEXT NOT NULL,
    at BIGINT NOT NULL,
    PRIMARY KEY (account, exercise)
);
";

/// Exercises of the course an account has done (not a change of any game); answers whether
/// any was new.
struct LessonsDone {
    account: String,
    exercises: Vec<String>,
    at: i64,
}

impl Change for LessonsDone {
    type Out = bool;

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<bool> {
        Ok(record(c.sql(), &self.account, &self.exercises, self.at)? > 0)
    }
}

/// Course progress copied from another store (`anywoli db migrate`): how many rows it wrote.
struct ImportLessonProgress(Vec<(String, String, i64)>);

impl Change for ImportLessonProgress {
    type Out = u64;

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<u64> {
        import(c.sql(), &self.0)
    }
}

/// Marks `exercises` done for `account` at `at` (those done before keep their time): how
/// many were new.
fn record(db: &mut dyn Sql, account: &str, exercises: &[String], at: i64) -> StoreResult<u64> {
    let mut n = 0;
    for e in exercises {
        n += db.execute(
            "INSERT INTO lesson_progress (account, exercise, at) VALUES ($1, $2, $3)
             ON CONFLICT DO NOTHING",
            &[account.into(), e.into(), at.into()],
        )?;
    }
    Ok(n)
}

/// The exercises `account` has done, in the order it did them.
pub(super) fn done(db: &mut dyn Sql, account: &str) -> StoreResult<Vec<String>> {
    db.query(
        "SELECT exercise FROM lesson_progress WHERE account = $1 ORDER BY at, exercise",
        &[account.into()],
    )?
    .iter()
    .map(|r| r.text("exercise"))
    .collect()
}

/// Every account's progress, (account, exercise, at), for `anywoli db migrate`.
pub(super) fn dump(db: &mut dyn Sql) -> StoreResult<Vec<(String, String, i64)>> {
    db.query(
        "SELECT account, exercise, at FROM lesson_progress ORDER BY account, exercise",
        &[],
    )?
    .iter()
    .map(|r| Ok((r.text("account")?, r.text("exercise")?, r.int("at")?)))
    .collect()
}

/// Writes the rows of `rows` that are not there yet: how many.
fn import(db: &mut dyn Sql, rows: &[(String, String, i64)]) -> StoreResult<u64> {
    let mut n = 0;
    for (account, exercise, at) in rows {
        n += record(db, account, std::slice::from_ref(exercise), *at)?;
    }
    Ok(n)
}

/// Course progress.
impl Store {
    /// Marks exercises of the course done for an account (`lesson#n`); those done before
    /// keep their time. Whether any was new.
    pub fn lessons_done(&self, account: &str, exercises: Vec<String>) -> StoreResult<bool> {
        self.writer.call(LessonsDone {
            account: account.to_string(),
            exercises,
            at: crate::dates::now_ms(),
        })
    }

    /// The exercises an account has done, in the order it did them.
    pub fn lesson_progress(&self, account: &str) -> StoreResult<Vec<String>> {
        self.readers.sql(|db| done(db, account))
    }

    /// Every account's course progress (`anywoli db migrate`).
    pub fn lesson_progress_dump(&self) -> StoreResult<Vec<(String, String, i64)>> {
        self.readers.sql(dump)
    }

    /// Writes the rows of `rows` that are not there yet: how many.
    pub fn import_lesson_progress(&self, rows: Vec<(String, String, i64)>) -> StoreResult<u64> {
        self.writer.call(ImportLessonProgress(rows))
    }
}
