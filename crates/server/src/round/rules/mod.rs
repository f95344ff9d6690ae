//! The rules a request to a game must pass: pure functions of the game as it stands (and the
//! time), each deciding the [`Change`](super::change::Change) to store or the [`Refusal`]
//! that says why not. The round's actor (super::actor) asks them, then stores and applies
//! what they decide; nothing here waits or does I/O, so each rule is tested on a game in memory.

mod berserk;
mod ending;
mod moves;
mod offers;
mod refusal;
mod rematch;
mod seats;
#[cfg(test)]
pub(crate) mod tests;

pub use berserk::berserk;
pub use ending::{abort, resign};
pub use moves::{held, hint, play, take_back, Played};
pub use offers::{answer, claim, offer, one_of_two, OfferStep};
pub use refusal::Refusal;
pub use rematch::rematch_of;
pub use seats::{join, own, publish};
