//! The engine's integration tests, one module per subject, in one test binary (as
//! ripgrep keeps its `tests/tests.rs`): linked once, not 10 times.

mod arena;
mod book;
mod compose;
mod distributed;
mod eval;
mod lessons;
mod multipv;
mod net;
mod perfection;
mod review;
mod search;
mod signals;
mod sixteen;
mod tablebase;
mod tt;
