//! The community puzzles' tests of `community.rs`, run against PostgreSQL: each test's store
//! lives in a fresh schema of the database `ANYWOLI_TEST_POSTGRES` names. Without the
//! variable they say SKIPPED and run against SQLite in memory (with `CI` set, they fail).

fn fresh_store() -> anywoli_server::Store {
    anywoli_server::Store::test_postgres("a community puzzles test")
        .unwrap_or_else(|| anywoli_server::Store::in_memory().unwrap())
}

include!("community.rs");
