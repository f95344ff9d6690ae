//! The browser tests of `browser.rs` (the page in headless Chromium: a game against the
//! computer to its end, a game between two browsers, records, puzzles, languages) with the
//! server's games in PostgreSQL: its `--db` is `ANYWOLI_TEST_POSTGRES` with a fresh schema as
//! its search path. It needs PostgreSQL as well
//! as Chromium (`serial.rs`); the SQLite run is `browser.rs`'s own.

/// The server's database: a fresh PostgreSQL schema. Shadows the
/// SQLite `fresh_db` that `browser.rs` glob-imports from `support`.
fn fresh_db(name: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(anywoli_server::Store::test_postgres_url(&format!(
        "browser test {name}"
    )))
}

include!("browser.rs");
