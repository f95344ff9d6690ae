//! The test of `hangups.rs` (clients hanging up at any moment leave no game half-changed)
//! with the games in PostgreSQL: `--db` is `ANYWOLI_TEST_POSTGRES` with a fresh schema as its
//! search path. Without the variable it says SKIPPED and uses a SQLite file instead (with
//! `CI` set, it fails: CI must run it against PostgreSQL).

fn fresh_db(name: &str) -> std::path::PathBuf {
    match anywoli_server::Store::test_postgres_url(&format!("hangups test {name}")) {
        Some(url) => std::path::PathBuf::from(url),
        None => {
            let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
                .join(format!("hangups-pg-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            dir.join("games.sqlite")
        }
    }
}

include!("hangups.rs");
