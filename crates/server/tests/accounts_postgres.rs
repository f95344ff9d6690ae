//! The account tests of `accounts.rs` against PostgreSQL: each test's store lives in a fresh
//! schema of the database `ANYWOLI_TEST_POSTGRES` names (dropped with the store; the test that
//! restarts its server gets a URL whose schema stays). Without the variable they say SKIPPED
//! and run against SQLite instead (with `CI` set, they fail: CI must run them against
//! PostgreSQL).

fn fresh_store() -> anywoli_server::Store {
    anywoli_server::Store::test_postgres("an accounts test")
        .unwrap_or_else(|| anywoli_server::Store::in_memory().unwrap())
}

fn fresh_db(name: &str) -> std::path::PathBuf {
    match anywoli_server::Store::test_postgres_url(&format!("accounts test {name}")) {
        Some(url) => std::path::PathBuf::from(url),
        None => sqlite_file(&format!("pg-{name}")),
    }
}

include!("accounts.rs");
