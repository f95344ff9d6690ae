//! The command line's integration tests, one module per command or subject, in one test
//! binary (as ripgrep keeps its `tests/tests.rs`): the cli and the server it links are linked
//! once, not twelve times. Tests that need nginx or PostgreSQL are `#[ignore = "needs …"]`;
//! `cargo test -- --include-ignored` runs them where those are (CI does).

mod support;

mod admin;
mod backup;
mod bot;
mod cli;
mod db_migrate;
#[cfg(feature = "mpi")]
mod distributed;
mod instances;
mod loadtest;
#[path = "match.rs"]
mod match_;
mod protocol;
mod proxy;
mod reset_password;
mod rules_doc;
mod serve;
mod tablebase;
mod tournament;
