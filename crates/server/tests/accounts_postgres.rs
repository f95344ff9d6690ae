//! The account tests of `accounts.rs` against PostgreSQL: each test's store lives in a fresh
//! schema of the database `ANYWOLI_TEST_POSTGRES` names (dropped with the store; the test that
//! restarts its server gets a URL whose schema stays). Each test is `#[ignore]`d
//! for PostgreSQL (`it.rs` says how to run them).

fn fresh_store() -> anywoli_server::Store {
    anywoli_server::Store::test_postgres("an accounts test")
}

fn fresh_db(name: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(anywoli_server::Store::test_postgres_url(&format!(
        "accounts test {name}"
    )))
}

// The tests of the included file, each `#[ignore]`d for the PostgreSQL it needs.
macro_rules! store_test {
    ($($test:tt)*) => { crate::needs_postgres! { $($test)* } };
}

include!("accounts.rs");
