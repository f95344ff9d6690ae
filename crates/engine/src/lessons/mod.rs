//! The course for newcomers (issue 14): short lessons, one idea each, every exercise a small
//! prepared position with a goal the learner reaches by playing on the real board. This
//! module holds the positions and goals and judges the learner's moves with the rules engine
//! (every goal is read from the moves' traces); the page has the words, from [`Why`] and its
//! data, in each language.
//!
//! Most exercises are the learner's alone: a goal is reached within the learner's first move,
//! or, for the goals about extra moves and passes, within the moves the learner makes in a row
//! (each extra move, and each pass of the opponent, leaves the learner to move). The one goal
//! with an opponent, [`Goal::ForceCapture`], is proven by a small exhaustive search over the
//! opponent's every answer ([`parry`]), and the opponent then plays its best defence.

mod judge;

use std::sync::OnceLock;

use anywoli_core::{parse_position, Hole, Move, Position, Rules, Side};

pub use judge::parry;

/// What an exercise asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goal {
    /// The move ends with its last seed in `hole` (an empty hole, so the move stops there).
    EndIn(Hole),
    /// A move of at least this many laps (relay sowing).
    Laps(u32),
    /// A four captured in the middle of the learner's sowing, by the learner (its own row).
    MidSowCapture,
    /// A move in which the opponent takes nothing (no four mid-sow in its row).
    GiveNothing,
    /// This many last-seed captures in a row, each giving the next move.
    LastSeedCaptures(u8),
    /// The opponent left without seeds, so that it must pass.
    OpponentPasses,
    /// The game ends during the learner's move, with the learner ahead.
    WinNow,
    /// After the learner's turn the opponent has no move that captures anything (the turn may
    /// start with extra moves: tempo).
    NoCaptureForOpponent,
    /// A capture by the learner on its next turn, whatever the opponent answers: the learner's
    /// turn leaves threats the opponent cannot all parry.
    ForceCapture,
}

/// One exercise: its position, goal and the intended solution (the learner's moves, and for
/// [`Goal::ForceCapture`] the opponent's defence between them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exercise {
    /// The prepared position, the learner to move.
    pub position: Position,
    /// What the learner must reach.
    pub goal: Goal,
    /// A way to reach it, in order.
    pub solution: Vec<Move>,
}

/// One lesson: a stable name (the page's words are keyed by it) and its exercises, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lesson {
    /// The stable name.
    pub id: &'static str,
    /// The exercises, in order.
    pub exercises: Vec<Exercise>,
}

/// Where a move ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The last seed fell into the empty hole `hole`.
    Stopped(Hole),
    /// A last-seed capture in `hole`: the mover moves again.
    Extra(Hole),
    /// The game ended.
    GameOver,
}

/// Why a move did not reach the goal: what the page explains in one sentence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// The move ended elsewhere (`EndIn`).
    EndedElsewhere {
        /// Where it ended.
        ending: Ending,
        /// The hole it should have ended in.
        want: Hole,
    },
    /// The move had `laps` laps, fewer than `want`.
    TooFewLaps {
        /// Laps the move made.
        laps: u32,
        /// Laps the goal asks for.
        want: u32,
        /// Where it ended.
        ending: Ending,
    },
    /// No four was taken in the middle of the sowing; the move ended as `ending`.
    NoMidSowCapture {
        /// Where it ended.
        ending: Ending,
    },
    /// The opponent took the four of `hole` in the middle of the learner's sowing.
    GaveFour {
        /// The opponent's hole.
        hole: Hole,
    },
    /// The move captured nothing with its last seed; it ended as `ending`.
    NoLastSeedCapture {
        /// Where it ended.
        ending: Ending,
    },
    /// The turn went to the opponent, which has seeds: no pass. `fed`: its row was empty
    /// before the move, which sowed seeds into it (so "it still has seeds" would be wrong).
    OpponentPlays {
        /// Where the move ended.
        ending: Ending,
        /// Whether the opponent's row was empty before the move.
        fed: bool,
    },
    /// The game goes on after the move (`WinNow`).
    GameGoesOn {
        /// Where the move ended.
        ending: Ending,
    },
    /// The game ended, but not with the learner ahead: the final stores.
    NotAhead {
        /// South's final store.
        south: u8,
        /// North's final store.
        north: u8,
    },
    /// The opponent's `reply` would capture the four of `hole`.
    OpponentCaptures {
        /// The opponent's move.
        reply: Move,
        /// The hole of the four it takes.
        hole: Hole,
    },
    /// After the learner's turn, the opponent's `reply` leaves the learner nothing to capture
    /// (`ForceCapture`).
    Parried {
        /// The opponent's move.
        reply: Move,
    },
    /// The learner's move after the opponent's answer captured nothing (`ForceCapture`).
    MissedCapture {
        /// Where it ended.
        ending: Ending,
    },
}

/// The answer to the learner's moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// The goal is reached.
    Done,
    /// Right so far: the learner moves again (an extra move, or the opponent passed).
    Continue,
    /// Right so far: the opponent answers with these moves (its whole turn), then the learner
    /// moves. The next call gives the line with them.
    Reply(Vec<Move>),
    /// The newest move missed the goal: try again from the exercise's position.
    Wrong(Why),
    /// The rules forbid the newest move.
    Illegal(String),
    /// The moves before the newest do not lead to the learner's turn.
    Invalid(String),
}

/// The course, in order. The positions are checked by this module's tests and by
/// `tests/lessons.rs`, which plays every solution and every wrong first move.
pub fn all() -> &'static [Lesson] {
    static COURSE: OnceLock<Vec<Lesson>> = OnceLock::new();
    COURSE.get_or_init(|| {
        COURSE_TEXT
            .iter()
            .map(|&(id, exercises)| Lesson {
                id,
                exercises: exercises
                    .iter()
                    .map(|&(pos, goal, solution)| Exercise {
                        position: parse_position(pos, Rules::Anywoli)
                            .unwrap_or_else(|e| panic!("lesson {id}: {pos}: {e}")),
                        goal,
                        solution: solution
                            .split_whitespace()
                            .map(|m| m.parse().expect("a lesson's move"))
                            .collect(),
                    })
                    .collect(),
            })
            .collect()
    })
}

/// The lesson named `id`.
pub fn by_id(id: &str) -> Option<&'static Lesson> {
    all().iter().find(|l| l.id == id)
}

const fn hole(i: u8) -> Hole {
    match Hole::new(i) {
        Some(h) => h,
        None => panic!("a hole is 0..23"),
    }
}

type ExerciseText = (&'static str, Goal, &'static str);

/// The lessons' positions, goals and solutions (South learns: the page may turn the board).
const COURSE_TEXT: &[(&str, &[ExerciseText])] = &[
    (
        // Sowing counterclockwise, one seed a hole, from the learner's own row.
        "sowing",
        &[
            (
                "3,0,0,0,0,0,0,0,0,0,0,1/0,0,0,0,0,0,0,0,0,0,0,4 s 44 44 - - 0 0",
                Goal::EndIn(hole(3)),
                "a",
            ),
            (
                "3,0,0,0,0,0,0,0,0,0,0,1/0,0,0,0,0,0,0,0,0,0,0,4 s 44 44 - - 0 0",
                Goal::EndIn(hole(12)),
                "l",
            ),
        ],
    ),
    (
        // The last seed in a hole that holds seeds lifts them all: a relay, lap after lap.
        "relay",
        &[(
            "0,0,2,0,1,0,2,0,0,0,0,0/0,3,0,0,0,0,0,0,0,0,0,0 s 44 44 - - 0 0",
            Goal::Laps(3),
            "c",
        )],
    ),
    (
        // A hole reaching four in the middle of a sowing goes to its owner.
        "midsow",
        &[
            (
                "2,3,0,0,0,0,0,0,0,0,0,0/0,0,3,0,0,0,0,4,0,0,0,0 s 42 42 - - 0 0",
                Goal::MidSowCapture,
                "a",
            ),
            (
                "0,0,0,0,0,0,0,0,1,0,3,0/3,0,0,0,0,1,0,0,4,0,0,0 s 42 42 - - 0 0",
                Goal::GiveNothing,
                "i",
            ),
        ],
    ),
    (
        // The last seed making four: the mover takes them, wherever, and moves again.
        "lastseed",
        &[
            (
                "1,3,0,0,0,0,0,1,0,0,0,0/0,0,0,2,0,0,1,0,0,3,1,0 s 42 42 - - 0 0",
                Goal::LastSeedCaptures(1),
                "a",
            ),
            (
                "1,3,1,3,0,0,0,0,0,0,0,0/0,0,0,0,0,0,1,3,0,1,3,0 s 40 40 - - 0 0",
                Goal::LastSeedCaptures(2),
                "a c",
            ),
        ],
    ),
    (
        // A player with an empty row passes.
        "pass",
        &[(
            "0,0,1,0,0,2,0,0,4,0,2,0/3,0,0,0,0,0,0,0,0,0,0,0 s 42 42 - - 0 0",
            Goal::OpponentPasses,
            "k c",
        )],
    ),
    (
        // Four seeds left: the game ends, and they go to the taker of the four before them.
        "end",
        &[(
            "1,3,0,0,0,0,0,0,0,0,0,0/0,0,0,0,1,3,0,0,0,0,0,0 s 44 44 - - 0 0",
            Goal::WinNow,
            "a",
        )],
    ),
    (
        // 100 plies without a capture: each player takes the seeds of their own row.
        "quiet",
        &[(
            "1,0,0,4,0,0,0,0,0,0,0,3/0,0,0,4,0,0,0,0,0,0,0,0 s 42 42 - - 99 99",
            Goal::WinNow,
            "a",
        )],
    ),
    (
        // First strategy: leave the opponent no three for its last seed.
        "threes",
        &[(
            "3,0,0,0,0,1,0,0,0,0,0,0/0,0,0,0,0,0,3,0,0,0,0,1 s 44 44 - - 0 0",
            Goal::NoCaptureForOpponent,
            "a",
        )],
    ),
    (
        // Counting: a hole of n seeds ends its sowing n holes on.
        "count",
        &[(
            "0,3,0,0,1,0,0,9,0,0,0,0/0,0,0,0,3,0,0,0,0,0,0,0 s 40 40 - - 0 0",
            Goal::LastSeedCaptures(1),
            "h",
        )],
    ),
    (
        // Tempo: the extra move of a capture is a free move, to mend the board before the
        // opponent's turn.
        "tempo",
        &[(
            "0,0,0,0,0,0,0,3,7,0,3,0/0,0,3,0,0,0,0,0,0,0,0,0 s 40 40 - - 0 0",
            Goal::NoCaptureForOpponent,
            "h j",
        )],
    ),
    (
        // A threat can be parried; two cannot. The solution's line has the opponent's
        // defence in it (North's C).
        "force",
        &[(
            "0,0,0,0,0,2,0,0,3,0,4,0/0,0,2,0,0,0,0,0,0,0,1,0 s 42 42 - - 0 0",
            Goal::ForceCapture,
            "f C h",
        )],
    ),
];

impl Exercise {
    /// The side that learns: the side to move in the position.
    pub fn side(&self) -> Side {
        self.position.to_move().unwrap_or(Side::South)
    }
}
