//! Fair-play signals (issue 38): what a player's recent rated games say about how they play,
//! for a moderator to look at. Signals, not verdicts: nothing here decides anything, and each
//! figure is kept apart so that a moderator sees why a player ranks where it does.
//!
//! Each game comes with its engine review ([`crate::review::review`]) and the facts the site
//! knows of it; [`signals`] folds a player's games into one [`Signals`], and
//! [`Signals::engine_likeness`] orders players by how close their moves are to the engine's.

use anywoli_core::Side;
use serde::Serialize;

use crate::review::Review;

/// Fewer of the player's moves than this (over all its games) make the move figures too noisy
/// to rank on: [`Signals::engine_likeness`] is then `None`.
pub const MIN_MOVES: usize = 40;

/// Centiseeds in a seed: reviews score in centiseeds, signals speak in seeds.
const CENTISEEDS: f64 = 100.0;

/// One of the player's games, as the signals need it.
#[derive(Clone, Copy, Debug)]
pub struct GameFacts<'a> {
    /// The game's review, every move judged.
    pub review: &'a Review,
    /// The player's side in it.
    pub side: Side,
    /// How long the player took for each of its moves, in milliseconds, in order; empty if
    /// the site did not record times.
    pub move_ms: &'a [i64],
    /// The player's score: 1 a win, ½ a draw, 0 a loss.
    pub score: f64,
    /// The player left the game (the opponent claimed it) or let its clock run out while it
    /// stood lost (the engine's view of the last position: at least [`LOST_SEEDS`] down).
    pub left_lost: bool,
    /// Who the opponent was: an account's name, or the address group the site puts accounts
    /// that share an address in, so that wins against "the same person" count together.
    pub opponent: &'a str,
}

/// Seeds down (by the engine's view) from which a game counts as lost when its player leaves.
pub const LOST_SEEDS: i32 = 8;

/// What a player's games say, each figure on its own.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Signals {
    /// Games looked at.
    pub games: usize,
    /// The player's moves in them.
    pub moves: usize,
    /// Share of the player's moves that were the engine's first choice (0 to 1).
    pub first_choice: f64,
    /// Seeds thrown away per move on average, by the review's judgement.
    pub mean_loss: f64,
    /// How even the player's move times are: their standard deviation over their mean (0 for
    /// a metronome; people are usually well above 0.5); `None` without times.
    pub time_spread: Option<f64>,
    /// Share of the games that the player left (or let run out) while losing.
    pub left_lost: f64,
    /// Share of the player's wins taken from its most beaten opponent (0 without wins):
    /// near 1 for an account fed wins by one other.
    pub wins_from_one: f64,
}

/// Folds a player's games into its signals.
pub fn signals(games: &[GameFacts]) -> Signals {
    let mut s = Signals {
        games: games.len(),
        ..Signals::default()
    };
    let (mut first, mut loss) = (0usize, 0i64);
    let mut times: Vec<f64> = Vec::new();
    let mut wins: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut left = 0usize;
    for g in games {
        for m in g.review.moves.iter().filter(|m| m.mover == g.side) {
            s.moves += 1;
            first += usize::from(m.played == m.best);
            loss += i64::from(m.loss);
        }
        times.extend(g.move_ms.iter().map(|&t| t.max(0) as f64));
        left += usize::from(g.left_lost);
        if g.score == 1.0 {
            *wins.entry(g.opponent).or_default() += 1;
        }
    }
    if s.moves > 0 {
        s.first_choice = first as f64 / s.moves as f64;
        s.mean_loss = loss as f64 / s.moves as f64 / CENTISEEDS;
    }
    s.time_spread = spread(&times);
    if !games.is_empty() {
        s.left_lost = left as f64 / games.len() as f64;
    }
    let won: usize = wins.values().sum();
    if won > 0 {
        s.wins_from_one = *wins.values().max().unwrap_or(&0) as f64 / won as f64;
    }
    s
}

/// Standard deviation over mean of `xs`; `None` for fewer than two or a zero mean.
fn spread(xs: &[f64]) -> Option<f64> {
    if xs.len() < 2 {
        return None;
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    if mean <= 0.0 {
        return None;
    }
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    Some(var.sqrt() / mean)
}

impl Signals {
    /// How close the player's moves are to the engine's, for ordering players (higher is
    /// closer): the share of first choices less the seeds lost per move, each seed counting as
    /// a tenth. `None` below [`MIN_MOVES`] moves.
    pub fn engine_likeness(&self) -> Option<f64> {
        (self.moves >= MIN_MOVES).then(|| self.first_choice - self.mean_loss / 10.0)
    }
}

/// Whether a review says the player stood lost at the end (for [`GameFacts::left_lost`]).
pub fn stood_lost(review: &Review, side: Side) -> bool {
    let last = review.evals.last().copied().unwrap_or(0);
    let mine = match side {
        Side::South => last,
        Side::North => -last,
    };
    mine <= -LOST_SEEDS * CENTISEEDS as i32
}
