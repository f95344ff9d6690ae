//! The tests of `bots_lobby.rs` (house bots, seeks held open) with the store in PostgreSQL:
//! each test's store lives in a fresh schema of the database `ANYWOLI_TEST_POSTGRES` names.
//! Each test is `#[ignore]`d for PostgreSQL (`it.rs` says how to run them).

fn fresh_store() -> anywoli_server::Store {
    anywoli_server::Store::test_postgres("a bots_lobby test")
}

// The tests of the included file, each `#[ignore]`d for the PostgreSQL it needs.
macro_rules! store_test {
    ($($test:tt)*) => { crate::needs_postgres! { $($test)* } };
}

// Those that need PostgreSQL on either side run once, from the SQLite module.
#[allow(unused_macros)]
macro_rules! postgres_test {
    ($($test:tt)*) => {};
}

include!("bots_lobby.rs");
