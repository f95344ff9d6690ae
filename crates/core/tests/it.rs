//! The rules' integration tests, one module per subject, in one test binary (as
//! ripgrep keeps its `tests/tests.rs`): linked once, not 5 times.

mod by_side;
mod line;
mod outcome;
mod perft;
mod position_errors;
mod properties;
mod records;
mod rules;
