//! How long the engine thinks: a level's time budget for one move of a game (on a clock or
//! not), what a level's search is then limited to, and the protocol's time rules (`go level`'s
//! default movetime, the watchdog's grace after a timed search).

use std::time::Duration;

use crate::players::LevelSpec;
use crate::search::Limits;

/// The time `go level` gives level 10 (and, as a cap, level 9) unless `movetime` is given.
pub const DEFAULT_LEVEL_MOVETIME_MS: u64 = 1000;

/// The watchdog's grace after movetime: a tenth of it, within these bounds.
const GRACE_MIN: Duration = Duration::from_millis(2);
const GRACE_MAX: Duration = Duration::from_millis(20);

/// How late after `movetime` a timed search may answer before the watchdog answers for it.
pub fn grace(movetime: Duration) -> Duration {
    (movetime / 10).clamp(GRACE_MIN, GRACE_MAX)
}

/// What a game's clock leaves the side to move: its time left and its increment, in ms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockLeft {
    /// Time left on the clock, in ms.
    pub left_ms: i64,
    /// What each move adds to the clock, in ms.
    pub increment_ms: i64,
}

impl LevelSpec {
    /// The level's time budget for one move of a game: the one policy the site and every
    /// caller use, written out in docs/api.md ("Computer levels"). Level 10 searches for
    /// `movetime`; the others stop at their depth, which takes milliseconds (depth 11, level
    /// 9's: median 17 ms), so twice `movetime` only bounds a freak position. On a clock the
    /// engine never spends more than a thirtieth of what it has left plus three quarters of
    /// its increment (at least 20 ms), so that it cannot lose on time.
    pub fn budget(&self, movetime: Duration, clock: Option<ClockLeft>) -> Duration {
        let time = if self.depth.is_none() {
            movetime
        } else {
            movetime * 2
        };
        match clock {
            Some(c) => {
                let share = (c.left_ms / 30 + c.increment_ms * 3 / 4).max(20);
                time.min(Duration::from_millis(share as u64))
            }
            None => time,
        }
    }

    /// The search of a level that searches (one without noise), given the time the caller
    /// allows it; `None` for a level that picks among scored moves with noise.
    pub fn limits(&self, movetime: Duration) -> Option<Limits> {
        if self.noise != 0 {
            return None;
        }
        Some(Limits {
            depth: self.depth,
            movetime: Some(movetime),
            nodes: None,
        })
    }
}
