//! The clock tests of `clocks.rs` with the server's games in PostgreSQL (a fresh schema of
//! `ANYWOLI_TEST_POSTGRES`). Without the variable the test says SKIPPED and passes (with `CI`
//! set, it fails); the SQLite run is `clocks.rs`'s own.

/// The server's database: a fresh PostgreSQL schema, or `None` (SKIPPED). Shadows the SQLite
/// `fresh_db` that `clocks.rs` glob-imports from `support`.
fn fresh_db(name: &str) -> Option<std::path::PathBuf> {
    anywoli_server::Store::test_postgres_url(&format!("clock test {name}"))
        .map(std::path::PathBuf::from)
}

include!("clocks.rs");
