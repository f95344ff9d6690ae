//! Anywoli's tournaments without I/O: who plays whom, and on which side.
//!
//! Three formats (docs/tournaments.md): a [`swiss`] round pairs everyone at once by the FIDE
//! Dutch system's priorities, an [`arena`] wave pairs whoever waits now, a [`robin`] (round
//! robin) lays out every round from the start with Berger tables. Each player's record of
//! sides is a [`Sides`]; the pairings are minimum-cost perfect matchings ([`matching`]), never
//! a greedy pass. `anywoli tournament pair` reads and prints these types as JSON, and the
//! server calls the same functions.
//!
//! ```
//! use anywoli_tournament::swiss::{pair, Player, Round};
//!
//! let player = |id: &str, score: f64, rating: i32| Player {
//!     id: id.into(),
//!     score,
//!     rating,
//!     sides: "S".parse().unwrap(),
//!     opponents: vec![],
//!     byes: 0,
//! };
//! let round = Round {
//!     round: 2,
//!     players: vec![player("ana", 1.0, 1600), player("ben", 1.0, 1500), player("cai", 0.0, 1400)],
//!     forbidden: vec![],
//! };
//! let pairing = pair(&round).unwrap();
//! // The lowest-ranked player without a bye sits out; the other two, on equal scores, meet.
//! assert_eq!(pairing.bye.as_deref(), Some("cai"));
//! assert_eq!(pairing.pairs.len(), 1);
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod arena;
mod error;
pub mod matching;
pub mod robin;
mod sides;
pub mod standings;
pub mod swiss;

pub use anywoli_core::Side;
pub use error::PairError;
pub use sides::{Sides, SidesError};
