//! Judging the learner's moves: each goal read from the moves' traces, and for
//! [`Goal::ForceCapture`] the small exhaustive search over the opponent's answers ([`parry`]).

use anywoli_core::{CaptureKind, Event, Hole, Move, Position, Side, Trace};

use super::{Ending, Exercise, Goal, Step, Why};

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
