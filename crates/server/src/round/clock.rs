//! Game clocks: the time control a game was made with, and what each side has left. The server
//! keeps the clocks; a move is timed on its arrival, less a bounded allowance for the network.
//!
//! - A side's time runs from the moment the move before was stored (when the server tells the
//!   player it is their turn) to the moment their move arrives, less the lag the page reports
//!   (its WebSocket round trip), at most [`LAG_CAP`]. So a clock never runs longer than the
//!   allowance while the player has not yet been told it is their move.
//! - The clocks start once each side has moved once (as on lichess): before that a game can be
//!   aborted, and a player who opens a game late loses nothing.
//! - Real time: `initial` for the game and `increment` added after each move (an extra move is
//!   a move of its own and earns its increment). Correspondence: each move has the same number
//!   of days, the clock set back to them after every move.
//! - A side whose time is up loses on time (`termination` `time`): the round looks at every
//!   command and at the deadline itself, and each server instance looks for deadlines that
//!   passed in games nobody there holds (as for engine claims).

use anywoli_core::{BySide, Side};

/// The most a move's time is reduced for the network: a slow connection gets this much back,
/// a lying client no more.
pub const LAG_CAP_MS: i64 = 500;

/// The initial times allowed for real-time games, in minutes: lichess's quarter minutes under
/// one, whole minutes up to three hours.
const MAX_MINUTES: i64 = 180;
const MAX_INCREMENT_S: i64 = 60;
const MAX_DAYS: i64 = 14;
const DAY_MS: i64 = 86_400_000;

/// How long players may think.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeControl {
    /// `initial_ms` for the game, `increment_ms` added after each move.
    RealTime { initial_ms: i64, increment_ms: i64 },
    /// `days` for each move.
    Correspondence { days: i64 },
}

impl TimeControl {
    /// The rating category of games played at this control.
    pub fn category(&self) -> crate::rating::Category {
        use crate::rating::Category;
        match *self {
            TimeControl::RealTime {
                initial_ms,
                increment_ms,
            } => Category::from_clock((initial_ms / 1000) as u32, (increment_ms / 1000) as u32),
            TimeControl::Correspondence { days } => Category::from_days_per_move(days as u32),
        }
    }

    /// `M+S` (minutes, and seconds added per move: `5+3`, `0.5+0`) or `Nd` (days per move:
    /// `3d`), as the API and the store write it.
    pub fn parse(s: &str) -> Result<TimeControl, BadTimeControl> {
        let bad = || BadTimeControl {
            given: s.to_string(),
        };
        if let Some(days) = s.strip_suffix('d') {
            let days: i64 = days.parse().map_err(|_| bad())?;
            if !(1..=MAX_DAYS).contains(&days) {
                return Err(bad());
            }
            return Ok(TimeControl::Correspondence { days });
        }
        let (m, inc) = s.split_once('+').ok_or_else(bad)?;
        let initial_ms = match m {
            "0" => 0,
            "0.25" => 15_000,
            "0.5" => 30_000,
            "0.75" => 45_000,
            _ => {
                let m: i64 = m.parse().map_err(|_| bad())?;
                if !(1..=MAX_MINUTES).contains(&m) {
                    return Err(bad());
                }
                m * 60_000
            }
        };
        let inc: i64 = inc.parse().map_err(|_| bad())?;
        if !(0..=MAX_INCREMENT_S).contains(&inc) || (initial_ms == 0 && inc == 0) {
            return Err(bad());
        }
        Ok(TimeControl::RealTime {
            initial_ms,
            increment_ms: inc * 1000,
        })
    }

    /// The form [`TimeControl::parse`] reads.
    pub fn name(&self) -> String {
        match *self {
            TimeControl::Correspondence { days } => format!("{days}d"),
            TimeControl::RealTime {
                initial_ms,
                increment_ms,
            } => {
                let m = match initial_ms {
                    15_000 => "0.25".to_string(),
                    30_000 => "0.5".to_string(),
                    45_000 => "0.75".to_string(),
                    ms => (ms / 60_000).to_string(),
                };
                format!("{m}+{}", increment_ms / 1000)
            }
        }
    }

    /// What each side has before its first move.
    fn start_ms(&self) -> i64 {
        match *self {
            TimeControl::RealTime { initial_ms, .. } => initial_ms,
            TimeControl::Correspondence { days } => days * DAY_MS,
        }
    }
}

/// A time control that is not one of the forms [`TimeControl::parse`] reads.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "clock {given:?} is neither MINUTES+SECONDS (1+0, 3+2, 5+3, 10+5, 15+10; minutes 0.25, \
     0.5, 0.75 or 1 to {MAX_MINUTES}, seconds 0 to {MAX_INCREMENT_S}) nor DAYSd (1d to {MAX_DAYS}d)"
)]
pub struct BadTimeControl {
    pub given: String,
}

/// A game's clocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    pub control: TimeControl,
    /// Milliseconds each side had when its time last stopped (South, North).
    pub left: BySide<i64>,
    /// Since when the side to move is using its time; `None` while the clocks do not run
    /// (before each side has moved once, and once the game is over).
    pub since: Option<i64>,
    /// Sides that berserked in an arena (half their time, no increment).
    pub no_increment: BySide<bool>,
}

impl Clock {
    pub fn new(control: TimeControl) -> Clock {
        let t = control.start_ms();
        Clock {
            control,
            left: BySide::both(t),
            since: None,
            no_increment: BySide::both(false),
        }
    }

    /// `side` berserks before its first move: half its time, and no increment from now on.
    pub fn berserked(&self, side: Side) -> Clock {
        let mut c = *self;
        c.left[side] = self.control.start_ms() / 2;
        c.no_increment[side] = true;
        c
    }

    /// The time `side` has used of its move by `now`, the network's allowance `lag_ms` taken
    /// off (at most [`LAG_CAP_MS`]).
    fn used(&self, now: i64, lag_ms: i64) -> i64 {
        match self.since {
            Some(since) => (now - since - lag_ms.clamp(0, LAG_CAP_MS)).max(0),
            None => 0,
        }
    }

    /// What `side` has left at `now` if it is the side whose time runs (without any
    /// allowance: what the players see).
    pub fn left_at(&self, side: Side, to_move: Option<Side>, now: i64) -> i64 {
        let left = self.left[side];
        if to_move == Some(side) {
            (left - self.used(now, 0)).max(0)
        } else {
            left
        }
    }

    /// Whether `mover`, to move since `since`, is out of time for a move arriving at `now`
    /// with `lag_ms` of network.
    pub fn flagged(&self, mover: Side, now: i64, lag_ms: i64) -> bool {
        self.since.is_some() && self.used(now, lag_ms) >= self.left[mover]
    }

    /// When the side to move runs out of time even with the whole allowance: past this, its
    /// flag has fallen whatever its lag.
    pub fn deadline(&self, to_move: Option<Side>) -> Option<i64> {
        Some(self.since? + self.left[to_move?] + LAG_CAP_MS)
    }

    /// The clocks after `mover` moved at `now` (network `lag_ms`), `both_moved` telling whether
    /// each side has now moved once (the clocks then run, from `now`, for the side to move),
    /// and `over` whether the game ended with it.
    pub fn after_move(
        &self,
        mover: Side,
        now: i64,
        lag_ms: i64,
        both_moved: bool,
        over: bool,
    ) -> Clock {
        let mut c = *self;
        match self.control {
            TimeControl::RealTime { increment_ms, .. } => {
                c.left[mover] = (c.left[mover] - self.used(now, lag_ms)).max(0);
                if self.since.is_some() && !self.no_increment[mover] {
                    c.left[mover] += increment_ms;
                }
            }
            TimeControl::Correspondence { .. } => c.left[mover] = self.control.start_ms(),
        }
        c.since = (both_moved && !over).then_some(now);
        c
    }

    /// The clocks stopped at `now` (the game ended other than by a move): the side to move is
    /// charged what it used.
    pub fn stopped(&self, to_move: Option<Side>, now: i64) -> Clock {
        let mut c = *self;
        if let Some(side) = to_move {
            c.left[side] = self.left_at(side, to_move, now);
        }
        c.since = None;
        c
    }

    /// The clocks set running again from `now` (after a take-back).
    pub fn restarted(&self, running: bool, now: i64) -> Clock {
        Clock {
            since: running.then_some(now),
            ..*self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Side = Side::South;
    const N: Side = Side::North;

    #[test]
    fn time_controls_read_and_write_the_same() {
        for s in [
            "1+0", "3+2", "5+3", "10+5", "15+10", "0.25+0", "0.5+1", "0+1", "180+60", "1d", "3d",
            "7d",
        ] {
            assert_eq!(TimeControl::parse(s).unwrap().name(), s);
        }
        for s in [
            "", "5", "0+0", "181+0", "5+61", "5+-1", "0.3+0", "0d", "15d", "x+1", "5+3+1", "d",
        ] {
            let e = TimeControl::parse(s).unwrap_err().to_string();
            assert!(e.contains("MINUTES+SECONDS"), "{s}: {e}");
        }
    }

    #[test]
    fn a_move_is_charged_from_its_turn_to_its_arrival_less_the_lag_allowance() {
        let c = Clock::new(TimeControl::parse("1+2").unwrap());
        // The first moves of each side are free and start the clocks.
        let c = c.after_move(S, 1_000, 0, false, false);
        assert_eq!((c.left, c.since), (BySide::new(60_000, 60_000), None));
        let c = c.after_move(N, 9_000, 0, true, false);
        assert_eq!(
            (c.left, c.since),
            (BySide::new(60_000, 60_000), Some(9_000))
        );
        // South thinks 10 s, with 200 ms of network: charged 9.8 s, then 2 s back.
        let c = c.after_move(S, 19_000, 200, true, false);
        assert_eq!(
            (c.left, c.since),
            (BySide::new(52_200, 60_000), Some(19_000))
        );
        // A client claiming 5 s of lag gets the cap.
        let c = c.after_move(N, 29_000, 5_000, true, false);
        assert_eq!(c.left[N], 60_000 - 9_500 + 2_000);
        assert_eq!(c.left_at(S, Some(S), 30_000), 51_200);
        assert_eq!(c.left_at(N, Some(S), 30_000), c.left[N]);
    }

    #[test]
    fn the_flag_falls_when_the_time_is_used_up_allowance_included() {
        let c = Clock {
            control: TimeControl::parse("1+0").unwrap(),
            left: BySide::new(1_000, 60_000),
            since: Some(10_000),
            no_increment: BySide::both(false),
        };
        assert!(!c.flagged(S, 10_999, 0));
        assert!(c.flagged(S, 11_000, 0));
        assert!(
            !c.flagged(S, 11_400, 500),
            "the allowance saves a slow move"
        );
        assert!(c.flagged(S, 11_500, 5_000), "but no more than the cap");
        assert_eq!(c.deadline(Some(S)), Some(11_500));
        assert_eq!(c.deadline(None), None);
        let stopped = c.stopped(Some(S), 10_400);
        assert_eq!((stopped.left[S], stopped.since), (600, None));
    }

    #[test]
    fn correspondence_gives_each_move_its_days() {
        let c = Clock::new(TimeControl::parse("3d").unwrap());
        let c = c
            .after_move(S, 0, 0, false, false)
            .after_move(N, 1_000, 0, true, false);
        let c = c.after_move(S, 2 * DAY_MS, 0, true, false);
        assert_eq!(c.left, BySide::both(3 * DAY_MS));
        assert_eq!(
            c.deadline(Some(N)),
            Some(2 * DAY_MS + 3 * DAY_MS + LAG_CAP_MS)
        );
    }

    #[test]
    fn a_finished_game_stops_the_clocks() {
        let c = Clock::new(TimeControl::parse("5+3").unwrap())
            .after_move(S, 0, 0, false, false)
            .after_move(N, 100, 0, true, false)
            .after_move(S, 1_100, 0, true, true);
        assert_eq!(c.since, None);
        assert_eq!(c.left[S], 300_000 - 1_000 + 3_000);
    }
}
