//! The move trace: every event of one move, in order, so that a page can animate it and a
//! person can follow it.

use alloc::vec::Vec;
use core::fmt;

use crate::sowing::{self, Observer};
use crate::{CaptureKind, EndReason, Hole, Move, PlayError, Position, Side};

/// One event of a move.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Event {
    /// `seeds` taken up from `hole` to sow lap number `lap` (lap 1 starts the move; later laps
    /// are relays).
    Lap {
        /// The lap number, from 1.
        lap: u32,
        /// The hole taken up.
        hole: Hole,
        /// The seeds taken up.
        seeds: u8,
    },
    /// One seed dropped into `hole`, which then held `count` (before any capture).
    Sow {
        /// The hole sown into.
        hole: Hole,
        /// The seeds it held then.
        count: u8,
    },
    /// The four seeds of `hole` went to `by`'s store.
    Capture {
        /// The hole captured.
        hole: Hole,
        /// The side whose store took the seeds.
        by: Side,
        /// Why the hole was captured.
        kind: CaptureKind,
    },
    /// The last seed fell into an empty hole: the move ended there.
    Stop {
        /// The empty hole the last seed fell into.
        hole: Hole,
    },
    /// A last-seed capture: `side` moves again.
    ExtraMove {
        /// The side that moves again.
        side: Side,
    },
    /// `side` has no seeds in its row and passes.
    Pass {
        /// The side that passes.
        side: Side,
    },
    /// The game ended.
    GameOver {
        /// How it ended.
        reason: EndReason,
    },
}

/// The events of one move and the position it led to.
///
/// ```
/// use anywoli_core::{Event, Position, Rules, Side};
///
/// let start = Position::start(Rules::Anywoli);
/// let t = start.trace("a".parse().unwrap()).unwrap();
/// assert_eq!(t.mover, Side::South);
/// // A move starts by taking up the seeds of its hole.
/// assert!(matches!(t.events[0], Event::Lap { lap: 1, seeds: 4, .. }));
/// let mut p = start;
/// p.play(t.mv).unwrap();
/// assert_eq!(p, t.after);
/// ```
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Trace {
    /// The move played.
    pub mv: Move,
    /// The side that played it.
    pub mover: Side,
    /// What happened, in order.
    pub events: Vec<Event>,
    /// The position after the move.
    pub after: Position,
}

struct Recorder(Vec<Event>);

impl Observer for Recorder {
    fn lap(&mut self, from: Hole, seeds: u8, lap: u32) {
        self.0.push(Event::Lap {
            lap,
            hole: from,
            seeds,
        });
    }
    fn sow(&mut self, hole: Hole, count: u8) {
        self.0.push(Event::Sow { hole, count });
    }
    fn capture(&mut self, hole: Hole, by: Side, kind: CaptureKind) {
        self.0.push(Event::Capture { hole, by, kind });
    }
    fn stop(&mut self, hole: Hole) {
        self.0.push(Event::Stop { hole });
    }
    fn extra_move(&mut self, side: Side) {
        self.0.push(Event::ExtraMove { side });
    }
    fn pass(&mut self, side: Side) {
        self.0.push(Event::Pass { side });
    }
    fn game_over(&mut self, reason: EndReason) {
        self.0.push(Event::GameOver { reason });
    }
}

impl Position {
    /// Plays `mv` like [`Position::play`] and records its events. On error nothing changes.
    pub fn play_traced(&mut self, mv: Move) -> Result<Trace, PlayError> {
        self.check(mv)?;
        let mover = self.to_move.unwrap_or(Side::South);
        let before = *self;
        let mut rec = Recorder(Vec::new());
        match sowing::play(self, mv, &mut rec) {
            Ok(()) => Ok(Trace {
                mv,
                mover,
                events: rec.0,
                after: *self,
            }),
            Err(e) => {
                *self = before;
                Err(e)
            }
        }
    }

    /// The trace of `mv` from this position, leaving this position as it is.
    pub fn trace(&self, mv: Move) -> Result<Trace, PlayError> {
        let mut p = *self;
        p.play_traced(mv)
    }
}

/// What replaying a trace found wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayError {
    /// The number of the event at fault, from 0.
    pub index: usize,
    /// What is wrong with it.
    pub message: &'static str,
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "event {}: {}", self.index, self.message)
    }
}

impl core::error::Error for ReplayError {}

/// The board and stores as a viewer sees them while a trace is replayed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Board {
    /// The seeds of each hole, by hole number.
    pub holes: [u8; Hole::COUNT],
    /// The seeds of each store, South's first.
    pub stores: [u8; 2],
    /// The seeds taken up and not yet sown.
    pub hand: u8,
    /// The side to move, or `None` once the game is over.
    pub to_move: Option<Side>,
}

impl Board {
    /// The board of a position, with nothing in hand.
    pub fn of(p: &Position) -> Board {
        Board {
            holes: p.holes,
            stores: p.stores,
            hand: 0,
            to_move: p.to_move,
        }
    }
}

/// Replays `events` on `board` the way a viewer would, checking each against the board: an
/// independent reading of the trace, used to test that traces tell the truth.
pub fn replay(board: &mut Board, mover: Side, events: &[Event]) -> Result<(), ReplayError> {
    for (index, ev) in events.iter().enumerate() {
        step(board, mover, *ev).map_err(|message| ReplayError { index, message })?;
    }
    if board.hand != 0 {
        return Err(ReplayError {
            index: events.len(),
            message: "the trace ends with seeds in hand",
        });
    }
    Ok(())
}

/// One event of [`replay`] on `board`, or what is wrong with it.
fn step(board: &mut Board, mover: Side, ev: Event) -> Result<(), &'static str> {
    match ev {
        Event::Lap { hole, seeds, .. } => {
            if board.hand != 0 {
                return Err("a lap starts with seeds still in hand");
            }
            if board.holes[hole.index()] != seeds {
                return Err("lap takes a different number of seeds than the hole holds");
            }
            board.holes[hole.index()] = 0;
            board.hand = seeds;
        }
        Event::Sow { hole, count } => {
            if board.hand == 0 {
                return Err("a seed is sown from an empty hand");
            }
            board.hand -= 1;
            board.holes[hole.index()] += 1;
            if board.holes[hole.index()] != count {
                return Err("sown hole does not hold the count the trace says");
            }
        }
        Event::Capture { hole, by, kind } => capture(board, mover, hole, by, kind)?,
        Event::Stop { hole } => {
            if board.hand != 0 || board.holes[hole.index()] != 1 {
                return Err("the move stops but not on a last seed in an empty hole");
            }
            board.to_move = Some(mover.opponent());
        }
        Event::ExtraMove { side } => {
            if side != mover {
                return Err("an extra move for the player who did not move");
            }
            board.to_move = Some(side);
        }
        Event::Pass { side } => {
            if board.to_move != Some(side) {
                return Err("a pass by the player who is not to move");
            }
            board.to_move = Some(side.opponent());
        }
        Event::GameOver { reason } => game_over(board, reason)?,
    }
    Ok(())
}

/// A [`Event::Capture`] of [`replay`].
fn capture(
    board: &mut Board,
    mover: Side,
    hole: Hole,
    by: Side,
    kind: CaptureKind,
) -> Result<(), &'static str> {
    if board.holes[hole.index()] != 4 {
        return Err("a capture of a hole that does not hold 4");
    }
    let expected = match kind {
        CaptureKind::MidSow => hole.owner(),
        CaptureKind::LastSeed => mover,
    };
    if by != expected {
        return Err("a capture taken by the wrong player");
    }
    if (kind == CaptureKind::LastSeed) != (board.hand == 0) {
        return Err("capture kind does not match the seeds in hand");
    }
    board.holes[hole.index()] = 0;
    board.stores[by.index()] += 4;
    if kind == CaptureKind::LastSeed {
        // The move ends; an ExtraMove event follows when the rules give one.
        board.to_move = Some(mover.opponent());
    }
    Ok(())
}

/// A [`Event::GameOver`] of [`replay`]: the seeds left go where `reason` says.
fn game_over(board: &mut Board, reason: EndReason) -> Result<(), &'static str> {
    match reason {
        EndReason::LastSeeds { to, seeds } => {
            let left: u8 = board.holes.iter().sum::<u8>() + board.hand;
            if left != seeds {
                return Err("the last seeds are not the seeds left in play");
            }
            board.stores[to.index()] += seeds;
        }
        EndReason::Quiet { south, north } => {
            let s: u8 = board.holes[..12].iter().sum();
            let n: u8 = board.holes[12..].iter().sum();
            if (s, n) != (south, north) {
                return Err("the quiet split is not the seeds in each row");
            }
            board.stores[0] += s;
            board.stores[1] += n;
        }
    }
    board.holes = [0; Hole::COUNT];
    board.hand = 0;
    board.to_move = None;
    Ok(())
}
