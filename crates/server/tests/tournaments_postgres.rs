//! The tournament tests of `tournaments.rs` against PostgreSQL: each test's store lives in a
//! fresh schema of the database `ANYWOLI_TEST_POSTGRES` names. Each test is `#[ignore]`d for
//! PostgreSQL (`it.rs` says how to run them).

fn fresh_store() -> anywoli_server::Store {
    anywoli_server::Store::test_postgres("a tournament test")
}

// The tests of the included file, each `#[ignore]`d for the PostgreSQL it needs.
macro_rules! store_test {
    ($($test:tt)*) => { crate::needs_postgres! { $($test)* } };
}

include!("tournaments.rs");
