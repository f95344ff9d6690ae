//! The waits test of `waits.rs` with the server's store in PostgreSQL (a fresh schema of
//! `ANYWOLI_TEST_POSTGRES`). Its test is `#[ignore]`d for PostgreSQL; the SQLite run is
//! `waits.rs`'s own.

/// The server's database: a fresh PostgreSQL schema. Shadows the SQLite `fresh_db` that
/// `waits.rs` glob-imports from `support`.
fn fresh_db(name: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(anywoli_server::Store::test_postgres_url(&format!(
        "waits test {name}"
    )))
}

// The tests of the included file, each `#[ignore]`d for the PostgreSQL it needs.
macro_rules! store_test {
    ($($test:tt)*) => { crate::needs_postgres! { $($test)* } };
}

include!("waits.rs");
