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

use std::sync::OnceLock;

use anywoli_core::{parse_position, CaptureKind, Event, Hole, Move, Position, Rules, Side, Trace};

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
    pub position: Position,
    pub goal: Goal,
    pub solution: Vec<Move>,
}

/// One lesson: a stable name (the page's words are keyed by it) and its exercises, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lesson {
    pub id: &'static str,
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
    EndedElsewhere { ending: Ending, want: Hole },
    /// The move had `laps` laps, fewer than `want`.
    TooFewLaps {
        laps: u32,
        want: u32,
        ending: Ending,
    },
    /// No four was taken in the middle of the sowing; the move ended as `ending`.
    NoMidSowCapture { ending: Ending },
    /// The opponent took the four of `hole` in the middle of the learner's sowing.
    GaveFour { hole: Hole },
    /// The move captured nothing with its last seed; it ended as `ending`.
    NoLastSeedCapture { ending: Ending },
    /// The turn went to the opponent, which has seeds: no pass. `fed`: its row was empty
    /// before the move, which sowed seeds into it (so "it still has seeds" would be wrong).
    OpponentPlays { ending: Ending, fed: bool },
    /// The game goes on after the move (`WinNow`).
    GameGoesOn { ending: Ending },
    /// The game ended, but not with the learner ahead: the final stores.
    NotAhead { south: u8, north: u8 },
    /// The opponent's `reply` would capture the four of `hole`.
    OpponentCaptures { reply: Move, hole: Hole },
    /// After the learner's turn, the opponent's `reply` leaves the learner nothing to capture
    /// (`ForceCapture`).
    Parried { reply: Move },
    /// The learner's move after the opponent's answer captured nothing (`ForceCapture`).
    MissedCapture { ending: Ending },
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

/// How a traced move ended.
fn ending(events: &[Event]) -> Ending {
    let mut last = Ending::GameOver;
    for e in events {
        match *e {
            Event::Stop { hole } => last = Ending::Stopped(hole),
            Event::Capture {
                hole,
                kind: CaptureKind::LastSeed,
                ..
            } => last = Ending::Extra(hole),
            Event::GameOver { .. } => return Ending::GameOver,
            _ => {}
        }
    }
    last
}

fn laps(events: &[Event]) -> u32 {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Lap { lap, .. } => Some(*lap),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

fn captures(events: &[Event], by: Side, kind: CaptureKind) -> Option<Hole> {
    events.iter().find_map(|e| match *e {
        Event::Capture {
            hole,
            by: b,
            kind: k,
        } if b == by && k == kind => Some(hole),
        _ => None,
    })
}

/// The opponent's first move from `p` that captures anything, and the hole.
fn opponent_capture(p: &Position) -> Option<(Move, Hole)> {
    p.moves().find_map(|mv| {
        let mut c = *p;
        let t = c.play_traced(mv).ok()?;
        t.events.iter().find_map(|e| match *e {
            Event::Capture { hole, by, .. } if by == t.mover => Some((mv, hole)),
            _ => None,
        })
    })
}

/// The learner's turn as [`Exercise::judge`] sees it after the newest move.
struct Turn {
    me: Side,
    /// How the newest move's sowing ended.
    end: Ending,
    /// The learner moves again.
    again: bool,
    /// The newest move is the learner's first.
    one_move: bool,
    /// The opponent's row was empty before the newest move.
    opponent_was_empty: bool,
    /// The position after the newest move.
    after: Position,
    /// The traces of the learner's earlier moves in this turn.
    before: Vec<Trace>,
    newest: Trace,
}

impl Turn {
    /// Single-move goals are judged on the first move alone: `None` reached it.
    fn first_only(&self, missed: Option<Why>) -> Step {
        match missed {
            _ if !self.one_move => Step::Invalid("this exercise is one move".into()),
            None => Step::Done,
            Some(why) => Step::Wrong(why),
        }
    }

    fn last_seed_captures(&self, n: u8) -> Step {
        if !matches!(self.end, Ending::Extra(_)) {
            return Step::Wrong(Why::NoLastSeedCapture { ending: self.end });
        }
        let made = self
            .before
            .iter()
            .chain(std::iter::once(&self.newest))
            .filter(|t| matches!(ending(&t.events), Ending::Extra(_)))
            .count();
        if made >= usize::from(n) {
            Step::Done
        } else {
            Step::Continue
        }
    }

    fn opponent_passes(&self) -> Step {
        let opponent = self.me.opponent();
        let passed = self
            .newest
            .events
            .iter()
            .any(|e| matches!(e, Event::Pass { side } if *side == opponent));
        if passed {
            Step::Done
        } else if self.again {
            Step::Continue
        } else {
            Step::Wrong(Why::OpponentPlays {
                ending: self.end,
                fed: self.opponent_was_empty,
            })
        }
    }

    fn win_now(&self) -> Step {
        let over = self
            .newest
            .events
            .iter()
            .any(|e| matches!(e, Event::GameOver { .. }));
        if !over {
            return self.first_only(Some(Why::GameGoesOn { ending: self.end }));
        }
        let p = &self.after;
        let (s, n) = (p.store(Side::South), p.store(Side::North));
        let ahead = if self.me == Side::South { s > n } else { n > s };
        self.first_only((!ahead).then_some(Why::NotAhead { south: s, north: n }))
    }

    fn no_capture_for_opponent(&self) -> Step {
        let ev = &self.newest.events;
        if let Some(hole) = captures(ev, self.me.opponent(), CaptureKind::MidSow) {
            return Step::Wrong(Why::GaveFour { hole });
        }
        if self.again {
            return Step::Continue;
        }
        match opponent_capture(&self.after) {
            Some((reply, hole)) => Step::Wrong(Why::OpponentCaptures { reply, hole }),
            None => Step::Done,
        }
    }
}

impl Exercise {
    /// The side that learns: the side to move in the position.
    pub fn side(&self) -> Side {
        self.position.to_move().unwrap_or(Side::South)
    }

    /// Judges the learner's moves so far (all theirs, the newest last).
    pub fn judge(&self, moves: &[Move]) -> Step {
        if self.goal == Goal::ForceCapture {
            return self.judge_force(moves);
        }
        let me = self.side();
        let Some((&newest, earlier)) = moves.split_last() else {
            return Step::Invalid("no move given".to_string());
        };
        let (mut p, before) = match self.replay(me, earlier) {
            Ok(r) => r,
            Err(step) => return step,
        };
        let opponent_was_empty = p.row_seeds(me.opponent()) == 0;
        let t = match p.play_traced(newest) {
            Ok(t) => t,
            Err(e) => return Step::Illegal(e.to_string()),
        };
        let turn = Turn {
            me,
            end: ending(&t.events),
            again: p.to_move() == Some(me),
            one_move: earlier.is_empty(),
            opponent_was_empty,
            after: p,
            before,
            newest: t,
        };
        self.verdict(&turn)
    }

    /// Plays the learner's moves before the newest, which must all leave the learner to move;
    /// the position then and their traces.
    fn replay(&self, me: Side, earlier: &[Move]) -> Result<(Position, Vec<Trace>), Step> {
        let mut p = self.position;
        let mut before = Vec::new();
        for &m in earlier {
            match p.play_traced(m) {
                Ok(t) => before.push(t),
                Err(e) => {
                    return Err(Step::Invalid(format!(
                        "an earlier move cannot be played: {e}"
                    )))
                }
            }
            if p.to_move() != Some(me) {
                return Err(Step::Invalid(
                    "the moves before the newest end the learner's turn".into(),
                ));
            }
        }
        if p.to_move() != Some(me) {
            return Err(Step::Invalid("it is not the learner's turn".into()));
        }
        Ok((p, before))
    }

    /// The goal's word on the learner's turn so far.
    fn verdict(&self, turn: &Turn) -> Step {
        let (me, end, ev) = (turn.me, turn.end, &turn.newest.events);
        match self.goal {
            Goal::EndIn(want) => turn.first_only(
                (end != Ending::Stopped(want)).then_some(Why::EndedElsewhere { ending: end, want }),
            ),
            Goal::Laps(want) => {
                let laps = laps(ev);
                turn.first_only((laps < want).then_some(Why::TooFewLaps {
                    laps,
                    want,
                    ending: end,
                }))
            }
            Goal::MidSowCapture => turn.first_only(
                captures(ev, me, CaptureKind::MidSow)
                    .is_none()
                    .then_some(Why::NoMidSowCapture { ending: end }),
            ),
            Goal::GiveNothing => turn.first_only(
                captures(ev, me.opponent(), CaptureKind::MidSow).map(|hole| Why::GaveFour { hole }),
            ),
            Goal::LastSeedCaptures(n) => turn.last_seed_captures(n),
            Goal::OpponentPasses => turn.opponent_passes(),
            Goal::WinNow => turn.win_now(),
            Goal::NoCaptureForOpponent => turn.no_capture_for_opponent(),
            Goal::ForceCapture => unreachable!("judged by judge_force"),
        }
    }

    /// `ForceCapture`: the line is the learner's turn, the opponent's defence (as
    /// [`Step::Reply`] gave it), then the learner's capture.
    fn judge_force(&self, moves: &[Move]) -> Step {
        let me = self.side();
        let Some((&newest, earlier)) = moves.split_last() else {
            return Step::Invalid("no move given".to_string());
        };
        let mut p = self.position;
        let mut answered = false;
        let mut defence: Vec<Move> = Vec::new();
        for &m in earlier {
            if p.to_move() == Some(me.opponent()) {
                if answered && defence.is_empty() {
                    return Step::Invalid("the opponent has had its turn".into());
                }
                if !answered {
                    answered = true;
                    defence = best_defence(&p, me).1;
                    defence.reverse();
                }
                if defence.pop() != Some(m) {
                    return Step::Invalid("the opponent's answer is not the one given".into());
                }
            } else if answered && !defence.is_empty() {
                return Step::Invalid("the opponent's answer is not complete".into());
            }
            if let Err(e) = p.play(m) {
                return Step::Invalid(format!("an earlier move cannot be played: {e}"));
            }
        }
        if p.to_move() != Some(me) {
            return Step::Invalid("it is not the learner's turn".into());
        }
        let t = match p.play_traced(newest) {
            Ok(t) => t,
            Err(e) => return Step::Illegal(e.to_string()),
        };
        let end = ending(&t.events);
        if captured(&t.events, me) {
            Step::Done
        } else if p.to_move() == Some(me) {
            Step::Continue
        } else if answered || p.is_over() {
            Step::Wrong(Why::MissedCapture { ending: end })
        } else if let Some(reply) = parry(&p, me) {
            Step::Wrong(Why::Parried { reply })
        } else {
            Step::Reply(best_defence(&p, me).1)
        }
    }
}

fn captured(events: &[Event], by: Side) -> bool {
    events
        .iter()
        .any(|e| matches!(e, Event::Capture { by: b, .. } if *b == by))
}

/// With `me` to move at `p`: can it capture anything in this turn's first move?
fn can_capture(p: &Position, me: Side) -> bool {
    p.to_move() == Some(me)
        && p.moves().any(|m| {
            let mut c = *p;
            c.play_traced(m).is_ok_and(|t| captured(&t.events, me))
        })
}

/// With `me`'s opponent to move at `p`: its first move of a turn (extra moves included) after
/// which `me` has nothing to capture, if there is one. `None` proves the capture forced: the
/// search is exhaustive over the opponent's turns, and the positions are small.
pub fn parry(p: &Position, me: Side) -> Option<Move> {
    let opp = me.opponent();
    if p.to_move() != Some(opp) {
        return None;
    }
    p.moves().find(|&m| {
        let mut c = *p;
        if c.play(m).is_err() {
            return false;
        }
        if c.to_move() == Some(opp) && !c.is_over() {
            parry(&c, me).is_some()
        } else {
            !can_capture(&c, me)
        }
    })
}

/// The opponent's whole turn at `p` that leaves `me` the fewest capturing moves (the first
/// such in move order), and that count.
fn best_defence(p: &Position, me: Side) -> (usize, Vec<Move>) {
    let opp = me.opponent();
    let mut best: Option<(usize, Vec<Move>)> = None;
    for m in p.moves() {
        let mut c = *p;
        if c.play(m).is_err() {
            continue;
        }
        let (n, mut line) = if c.to_move() == Some(opp) && !c.is_over() {
            best_defence(&c, me)
        } else {
            let n = c
                .moves()
                .filter(|&r| {
                    let mut d = c;
                    c.to_move() == Some(me)
                        && d.play_traced(r).is_ok_and(|t| captured(&t.events, me))
                })
                .count();
            (n, Vec::new())
        };
        line.insert(0, m);
        if best.as_ref().is_none_or(|(b, _)| n < *b) {
            best = Some((n, line));
        }
    }
    best.unwrap_or((0, Vec::new()))
}
