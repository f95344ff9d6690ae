//! The browser tests of `browser_fair.rs` (fair play and correct words, as a player sees them
//! in a real browser) with the server's games in PostgreSQL: its `--db` is
//! `ANYWOLI_TEST_POSTGRES` with a fresh schema as its search path. It needs
//! PostgreSQL as well as Chromium (`serial.rs`); the SQLite run is `browser_fair.rs`'s own.

/// The server's database: a fresh PostgreSQL schema. Shadows the
/// SQLite `fresh_db` that `browser_fair.rs` glob-imports from `support`.
fn fresh_db(name: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(anywoli_server::Store::test_postgres_url(&format!(
        "browser fair test {name}"
    )))
}

include!("browser_fair.rs");
