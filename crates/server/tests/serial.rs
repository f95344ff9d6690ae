//! The server's tests that must not all run at once, in one test binary: the page in headless
//! Chromium (each test drives several browsers: [`support::BROWSERS_AT_ONCE`] tests at a
//! time, each holding [`support::browser_slot`]) and the clocks' tests, which move the
//! server's time forward for the whole process (`anywoli_server::dates::shift_for_tests`) and
//! so run alone ([`support::whole_process`]), as do the players' browser tests, whose games run
//! on clocks.
//!
//! The browser tests are `#[ignore = "needs chromium and chromedriver"]` (and nginx, or
//! PostgreSQL, where they need them): `cargo test -- --include-ignored` runs them, as CI does.

/// As in `it.rs`: a test on every store, defined again by the `*_postgres` modules.
macro_rules! store_test {
    ($($test:tt)*) => { $($test)* };
}

mod support;

mod browser;
mod browser_analysis;
mod browser_bots;
mod browser_chat;
mod browser_fair;
mod browser_hosting;
mod browser_instances;
mod browser_learn;
mod browser_marks;
mod browser_moderation;
mod browser_players;
mod browser_prefs;
mod browser_proxy;
mod browser_tournaments;
mod browser_tv;
mod browser_waits;
mod clocks;
mod clocks_postgres;
mod waits;
mod waits_postgres;
