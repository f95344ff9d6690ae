//! The test of `hangups.rs` (clients hanging up at any moment leave no game half-changed)
//! with the games in PostgreSQL: `--db` is `ANYWOLI_TEST_POSTGRES` with a fresh schema as its
//! search path. Its test is `#[ignore]`d for
//! PostgreSQL (`it.rs` says how to run it).

fn fresh_db(name: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(anywoli_server::Store::test_postgres_url(&format!(
        "hangups test {name}"
    )))
}

// The tests of the included file, each `#[ignore]`d for the PostgreSQL it needs.
macro_rules! store_test {
    ($($test:tt)*) => { crate::needs_postgres! { $($test)* } };
}

include!("hangups.rs");
