//! The browser tests of `browser.rs` (the page in headless Chromium: a game against the
//! computer to its end, a game between two browsers, records, puzzles, languages) with the
//! server's games in PostgreSQL: its `--db` is `ANYWOLI_TEST_POSTGRES` with a fresh schema as
//! its search path. Without the variable the test says SKIPPED and passes (with `CI` set, it
//! fails: CI must run it against PostgreSQL); the SQLite run is `browser.rs`'s own.

/// The server's database: a fresh PostgreSQL schema, or `None` (SKIPPED). Shadows the
/// SQLite `fresh_db` that `browser.rs` glob-imports from `support`.
fn fresh_db(name: &str) -> Option<std::path::PathBuf> {
    anywoli_server::Store::test_postgres_url(&format!("browser test {name}"))
        .map(std::path::PathBuf::from)
}

include!("browser.rs");
