//! Search, evaluation and endgame databases for Anywoli (issue 3 onwards).

pub use anywoli_core as core;
