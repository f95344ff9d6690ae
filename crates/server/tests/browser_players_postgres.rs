//! The browser test of `browser_players.rs` (accounts, the lobby, a rated game to a flag,
//! challenges, offers, abort, claim, the profile) with the server's data in PostgreSQL: its
//! `--db` is `ANYWOLI_TEST_POSTGRES` with a fresh schema as its search path. It needs
//! PostgreSQL as well as Chromium (`serial.rs`); the SQLite run is `browser_players.rs`'s own.

/// The server's database: a fresh PostgreSQL schema. Shadows the
/// SQLite `fresh_db` that `browser_players.rs` glob-imports from `support`.
fn fresh_db(name: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(anywoli_server::Store::test_postgres_url(&format!(
        "browser players test {name}"
    )))
}

include!("browser_players.rs");
