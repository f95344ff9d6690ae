//! The TV tests of `tv.rs` with the games in PostgreSQL: each test's `--db` is
//! `ANYWOLI_TEST_POSTGRES` with a fresh schema as its search path. Each test is `#[ignore]`d
//! for PostgreSQL (`it.rs` says how to run them).

fn fresh_db(name: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(anywoli_server::Store::test_postgres_url(&format!(
        "tv test {name}"
    )))
}

// The tests of the included file, each `#[ignore]`d for the PostgreSQL it needs.
macro_rules! store_test {
    ($($test:tt)*) => { crate::needs_postgres! { $($test)* } };
}

include!("tv.rs");
