//! The API tests of `api.rs`, run against PostgreSQL: each test's store lives in a fresh
//! schema of the database `ANYWOLI_TEST_POSTGRES` names (dropped with the store). Without
//! the variable they say SKIPPED and run against SQLite in memory instead (with `CI` set,
//! they fail: CI must run them against PostgreSQL).

fn fresh_store() -> anywoli_server::Store {
    anywoli_server::Store::test_postgres("an API test")
        .unwrap_or_else(|| anywoli_server::Store::in_memory().unwrap())
}

include!("api.rs");
