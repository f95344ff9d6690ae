//! Glicko-2, as in Mark Glickman's "Example of the Glicko-2 system" (2013), Steps 1–8, with the
//! new volatility found by the Illinois algorithm (Step 5).
//!
//! Ratings are on the Glicko scale at the API (1500 ± deviation) and on the Glicko-2 scale
//! (μ, φ) inside. As on lichess, a game is a rating period of its own for both players
//! ([`after_game`]), so a rating changes the moment a game ends, and the time a player has not
//! played is accounted for separately by [`age`], with a period of [`PERIOD`].
//!
//! # Bounds, and what happens to bad input
//!
//! Nothing here panics or loops without end, and every rating returned is finite:
//!
//! - A rating given in is first brought within bounds: a NaN rating is taken as 1500, a NaN
//!   deviation as [`MAX_DEVIATION`], a NaN volatility as [`DEFAULT_VOLATILITY`]; the rating is
//!   clamped to [[`MIN_RATING`], [`MAX_RATING`]], the deviation to [0, [`MAX_DEVIATION`]] and
//!   the volatility to [[`MIN_VOLATILITY`], [`MAX_VOLATILITY`]]. A deviation below
//!   [`MIN_DEVIATION`] is accepted as given (the paper's example has an opponent at 30):
//!   the minimum bounds what this module returns.
//! - A score is clamped to [0, 1] (so ±∞ is a win or a loss); a NaN score is a result nobody
//!   knows, and the rating period it is in changes nothing: the players' ratings come back as
//!   they were (brought within bounds).
//! - τ is clamped to [[`MIN_TAU`], [`MAX_TAU`]], and a NaN τ is [`TAU`].
//! - Ratings returned have a deviation within [[`MIN_DEVIATION`], [`MAX_DEVIATION`]], a rating
//!   within [[`MIN_RATING`], [`MAX_RATING`]] and a volatility within [[`MIN_VOLATILITY`],
//!   [`MAX_VOLATILITY`]].

mod period;
mod rating;
#[cfg(test)]
mod tests;

pub use period::{after_game, age, periods, rate};
pub use rating::{
    Rating, DEFAULT_VOLATILITY, DRAW, LOSS, MAX_DEVIATION, MAX_RATING, MAX_TAU, MAX_VOLATILITY,
    MIN_DEVIATION, MIN_RATING, MIN_TAU, MIN_VOLATILITY, PERIOD, PROVISIONAL_DEVIATION, SCALE, TAU,
    WIN,
};
