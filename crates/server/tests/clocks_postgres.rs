//! The clock tests of `clocks.rs` with the server's games in PostgreSQL (a fresh schema of
//! `ANYWOLI_TEST_POSTGRES`). Its test is `#[ignore]`d for PostgreSQL;
//! the SQLite run is `clocks.rs`'s own.

/// The server's database: a fresh PostgreSQL schema. Shadows the SQLite
/// `fresh_db` that `clocks.rs` glob-imports from `support`.
fn fresh_db(name: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(anywoli_server::Store::test_postgres_url(&format!(
        "clock test {name}"
    )))
}

// The tests of the included file, each `#[ignore]`d for the PostgreSQL it needs.
macro_rules! store_test {
    ($($test:tt)*) => { crate::needs_postgres! { $($test)* } };
}

include!("clocks.rs");
