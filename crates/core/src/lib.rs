//! The rules of Anywoli, the 2×12 mancala of the Anuak: board, moves, sowing and notation.
//!
//! `docs/rules.md` is the specification; each of its sections lives in one module:
//! names of holes and sides in [`hole`] and [`side`] (a pair of values by side in
//! [`by_side`]), a move and its sowing in [`sowing`], the end of the game in [`sowing`] too (it
//! happens mid-sow), the variants in [`rules`], the position string in [`notation`], a game's
//! moves replayed in [`line`], game records in [`record`].
//!
//! No I/O and no dependencies beyond `core` and `alloc` (and `serde` with the `serde` feature,
//! for the pairs the server writes as JSON).
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;
#[cfg(test)]
extern crate std;

pub mod by_side;
pub mod hole;
pub mod line;
pub mod moves;
pub mod notation;
pub mod perft;
pub mod position;
pub mod record;
pub mod rules;
pub mod side;
pub mod sowing;
pub mod trace;
pub mod xorshift;
pub mod zobrist;

pub use by_side::BySide;
pub use hole::Hole;
pub use line::{IllegalMove, Line};
pub use moves::{Move, MoveSet, ParseMoveError};
pub use notation::{parse_position, Counted, Field, PositionError, PositionErrorKind};
pub use perft::{divide, perft};
pub use position::{
    Outcome, PlayError, Position, UnknownOutcome, QUIET_LIMIT, START_SEEDS, TOTAL_SEEDS,
};
pub use record::{Record, RecordError};
pub use rules::{lottery_draw, Rules, UnknownRules, VARIANTS};
pub use side::Side;
pub use sowing::{CaptureKind, EndReason};
pub use trace::{Event, Trace};
pub use xorshift::XorShift;
