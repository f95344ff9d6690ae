//! The chat, block and mute tests of `chat.rs` against PostgreSQL: each test's store lives in
//! a fresh schema of the database `ANYWOLI_TEST_POSTGRES` names. Each test is `#[ignore]`d
//! for PostgreSQL (`it.rs` says how to run them).

fn fresh_store() -> anywoli_server::Store {
    anywoli_server::Store::test_postgres("a chat test")
}

// The tests of the included file, each `#[ignore]`d for the PostgreSQL it needs.
macro_rules! store_test {
    ($($test:tt)*) => { crate::needs_postgres! { $($test)* } };
}

// Those that need PostgreSQL on either side run once, from the SQLite module.
macro_rules! postgres_test {
    ($($test:tt)*) => {};
}

include!("chat.rs");
