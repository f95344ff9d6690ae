//! Search, evaluation and endgame databases for Anywoli.

#![deny(missing_docs)]

pub mod arena;
pub mod book;
pub mod compose;
pub mod endgame;
pub mod eval;
pub mod features;
pub mod lessons;
pub mod net;
pub mod perfection;
pub mod players;
pub mod protocol;
pub mod puzzles;
pub mod review;
pub mod search;
pub mod signals;
pub mod sprt;
pub mod themes;
pub mod timeman;
pub mod tt;
pub mod tune;
pub mod winprob;

pub use anywoli_core as core;
pub use players::{builtin, level_spec, Greedy, LevelPlayer, LevelSpec, Minimax, Player, LEVELS};
pub use search::{Engine, Info, Limits, Line, SearchResult, MAX_MULTIPV};
pub use timeman::ClockLeft;
