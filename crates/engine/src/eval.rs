//! Static evaluation: the seeds the side to move can expect to win from here on, in centiseeds.
//!
//! The search scores a position by the seeds still to be won (stores already won are outside
//! it), so the evaluation estimates future net gain, never the stores. It is linear in a few
//! features of what decides Anywoli; the weights are fitted by `anywoli tune` (see
//! docs/tuning.md) and kept in [`TUNED`].

use anywoli_core::{Hole, Position, Side, QUIET_LIMIT};

/// Number of features.
pub const FEATURES: usize = 10;

/// Names, in the order of the weight vector.
pub const FEATURE_NAMES: [&str; FEATURES] = [
    "row_seeds",     // seeds in my row minus theirs
    "threes",        // my holes at 3 minus theirs: mid-sow fours go to the owner
    "empties",       // my empty holes minus theirs
    "twos",          // my holes at 2 minus theirs
    "big_holes",     // my holes with 12+ seeds minus theirs: long relays, reach
    "my_threats",    // my holes whose first lap ends on a 3: a last-seed capture for me now
    "their_threats", // the same for the opponent on their next turn
    "quiet_split",   // row seeds difference scaled by how near the quiet rule's end is
    "tempo",         // 1: being the side to move
    "endgame_tempo", // 1 when 12 or fewer seeds are in play: the last fours decide the last seeds
];

/// Weights in centiseeds per unit of each feature.
pub type Weights = [i32; FEATURES];

/// A guess made before any tuning, kept to show what tuning bought (docs/tuning.md).
pub const UNTUNED: Weights = [10, 50, -20, 0, 50, 100, -100, 0, 0, 0];

/// Fitted by `anywoli tune` on self-play data (docs/tuning.md).
pub const TUNED: Weights = UNTUNED;

/// The features of `pos` from the side to move's point of view.
#[inline]
pub fn features(pos: &Position) -> [i32; FEATURES] {
    let Some(me) = pos.to_move() else {
        return [0; FEATURES];
    };
    let h = pos.holes();
    let mut f = [0i32; FEATURES];
    let mut threats = [0i32; 2];
    for i in 0..Hole::COUNT {
        let c = h[i] as i32;
        let sign = if (i < 12) == (me == Side::South) {
            1
        } else {
            -1
        };
        f[0] += sign * c;
        f[1] += sign * (c == 3) as i32;
        f[2] += sign * (c == 0) as i32;
        f[3] += sign * (c == 2) as i32;
        f[4] += sign * (c >= 12) as i32;
        if c > 0 && c < 24 {
            // The first lap of a move from hole i ends on hole i + c: a capture if it holds 3.
            let target = (i + c as usize) % Hole::COUNT;
            if h[target] == 3 {
                threats[(sign < 0) as usize] += 1;
            }
        }
    }
    f[5] = threats[0];
    f[6] = threats[1];
    let quiet = pos.quiet_plies() as i32;
    let near = (quiet - (QUIET_LIMIT as i32 - 20)).max(0);
    f[7] = f[0] * near / 20;
    f[8] = 1;
    f[9] = (pos.seeds_in_play() <= 12) as i32;
    f
}

#[inline]
pub fn evaluate_with(pos: &Position, w: &Weights) -> i32 {
    let f = features(pos);
    let mut s = 0;
    for i in 0..FEATURES {
        s += f[i] * w[i];
    }
    // Never claim more than what is left in play.
    let cap = pos.seeds_in_play() as i32 * 100;
    s.clamp(-cap, cap)
}

#[inline]
pub fn evaluate(pos: &Position) -> i32 {
    evaluate_with(pos, &TUNED)
}
