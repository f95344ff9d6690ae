//! The browser test of `browser_players.rs` (accounts, the lobby, a rated game to a flag,
//! challenges, offers, abort, claim, the profile) with the server's data in PostgreSQL: its
//! `--db` is `ANYWOLI_TEST_POSTGRES` with a fresh schema as its search path. Without the
//! variable the test says SKIPPED and passes (with `CI` set, it fails: CI must run it against
//! PostgreSQL); the SQLite run is `browser_players.rs`'s own.

/// The server's database: a fresh PostgreSQL schema, or `None` (SKIPPED). Shadows the
/// SQLite `fresh_db` that `browser_players.rs` glob-imports from `support`.
fn fresh_db(name: &str) -> Option<std::path::PathBuf> {
    anywoli_server::Store::test_postgres_url(&format!("browser players test {name}"))
        .map(std::path::PathBuf::from)
}

include!("browser_players.rs");
