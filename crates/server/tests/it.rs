//! The server's integration tests, one module per subject, in one test binary (as ripgrep
//! keeps its `tests/tests.rs`): the server and its dependencies are linked once, not thirty
//! times. The tests that drive Chromium or move the server's clock are the `serial` binary's.
//!
//! A module `x_postgres` runs module `x`'s tests again on PostgreSQL: it defines its own
//! `fresh_store`/`fresh_db` and `store_test!` (which marks each test `#[ignore = "needs
//! PostgreSQL: ANYWOLI_TEST_POSTGRES"]`) and includes `x.rs`. Run them with
//! `cargo test -- --include-ignored` where `ANYWOLI_TEST_POSTGRES` names a database.

/// A test that runs on every store: as written (SQLite) here; `*_postgres` modules define it
/// again.
macro_rules! store_test {
    ($($test:tt)*) => { $($test)* };
}

/// A test that needs PostgreSQL whichever module includes it: `#[ignore]`d for it, and run
/// once (the `*_postgres` modules define it as nothing).
macro_rules! postgres_test {
    ($($test:tt)*) => { crate::needs_postgres! { $($test)* } };
}

mod logs;
mod oneshot;
mod support;

mod accounts;
mod accounts_postgres;
mod analysis;
mod api;
mod api_postgres;
mod blocks;
mod blocks_postgres;
mod bots;
mod bots_lobby;
mod bots_lobby_postgres;
mod bots_postgres;
mod bots_support;
mod chat;
mod chat_postgres;
mod community;
mod community_postgres;
mod exports;
mod exports_postgres;
mod follows;
mod follows_postgres;
mod hangups;
mod hangups_postgres;
mod instances;
mod lessons;
mod limits;
mod live;
mod live_postgres;
mod lobby;
mod lobby_postgres;
mod marks;
mod marks_postgres;
mod metrics;
mod moderation;
mod moderation_api;
mod moderation_api_postgres;
mod moderation_postgres;
mod page;
mod position;
mod puzzles;
mod signals;
mod signals_postgres;
mod tournaments;
mod tournaments_postgres;
mod tv;
mod tv_postgres;
mod words;
