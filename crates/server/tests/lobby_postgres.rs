//! The tests of `lobby.rs` (seeks, challenges and the games they start, on a real port) with
//! the accounts, games and ratings in PostgreSQL: each test's `--db` is
//! `ANYWOLI_TEST_POSTGRES` with a fresh schema as its search path. Without the variable they
//! say SKIPPED and use SQLite files instead (with `CI` set, they fail: CI must run them
//! against PostgreSQL).

fn fresh_db(name: &str) -> std::path::PathBuf {
    match anywoli_server::Store::test_postgres_url(&format!("lobby test {name}")) {
        Some(url) => std::path::PathBuf::from(url),
        None => {
            let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
                .join(format!("lobby-pg-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            dir.join("games.sqlite")
        }
    }
}

include!("lobby.rs");
