//! An exact solver: the value of a position under perfect play, proven, or an honest "cannot".
//!
//! The search is alpha-beta over the real game — stores, captures, extra moves, passes and the
//! quiet counter — to the end of every line, with a table of proven bounds keyed by everything
//! that decides the future (board, side to move, first-final capturer, quiet plies). The
//! endgame databases end a line as soon as they prove its value under the quiet counter, and
//! bound it otherwise. The game is finite (seeds only leave play, and the quiet counter only
//! rises between captures), so the search always ends; the node limit decides whether it ends
//! soon enough, and when it does not the answer says so.

use std::collections::HashMap;

use anywoli_core::{Hole, Move, Position, Side};

use crate::tablebase::Tablebase;

/// Everything the value of the rest of a game depends on (the stores do not: values are the
/// seeds still to be won).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Key {
    holes: [u8; Hole::COUNT],
    to_move: Option<Side>,
    first_final: Option<Side>,
    quiet: u16,
}

impl Key {
    fn of(p: &Position) -> Key {
        Key {
            holes: *p.holes(),
            to_move: p.to_move(),
            first_final: p.first_final_capturer(),
            quiet: p.quiet_plies(),
        }
    }
}

/// The solver ran out of its node budget before proving the value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unproven {
    pub nodes: u64,
}

impl std::fmt::Display for Unproven {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cannot prove the result within the limit of {} nodes",
            self.nodes
        )
    }
}

impl std::error::Error for Unproven {}

/// A proven result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// Seeds the side to move wins from here on, net, under perfect play.
    pub value: i32,
    /// The final store difference for the side to move: the stores now plus `value`.
    pub margin: i32,
    /// Every playable move with its proven value (as `value`, after playing it), best first.
    pub moves: Vec<(Move, i32)>,
    /// A line of perfect play to the end of the game (a proven win is played the fastest
    /// way the databases know).
    pub line: Vec<Move>,
    /// Nodes searched.
    pub nodes: u64,
}

impl Solution {
    /// The moves that win the game for the side to move (final margin above 0).
    pub fn winning_moves(&self, pos: &Position) -> Vec<Move> {
        let stores = stores_diff(pos);
        self.moves
            .iter()
            .filter(|m| stores + m.1 > 0)
            .map(|m| m.0)
            .collect()
    }
}

fn stores_diff(pos: &Position) -> i32 {
    match pos.to_move() {
        Some(me) => pos.store(me) as i32 - pos.store(me.opponent()) as i32,
        None => 0,
    }
}

/// Net seeds `me` won from `before` to `after`.
fn gain(before: &Position, after: &Position, me: Side) -> i32 {
    let o = me.opponent();
    (after.store(me) as i32 - before.store(me) as i32)
        - (after.store(o) as i32 - before.store(o) as i32)
}

/// The exact solver. Keep one for several questions about positions of the same rules: its
/// table of proven bounds carries over.
pub struct Solver<'a> {
    tb: Option<&'a Tablebase>,
    table: HashMap<Key, (i8, i8)>,
    nodes: u64,
    limit: u64,
    /// Bounds kept at most; the table is emptied when full (it only saves work).
    capacity: usize,
}

impl<'a> Solver<'a> {
    /// A solver that gives up after `limit` nodes per question.
    pub fn new(tb: Option<&'a Tablebase>, limit: u64) -> Solver<'a> {
        Solver {
            tb,
            table: HashMap::new(),
            nodes: 0,
            limit,
            capacity: 4 << 20,
        }
    }

    /// The value of `pos` alone (seeds still to be won by the side to move, net).
    pub fn value(&mut self, pos: &Position) -> Result<i32, Unproven> {
        self.nodes = 0;
        let bound = pos.seeds_in_play() as i32;
        self.search(pos, -bound - 1, bound + 1)
    }

    /// Proves the value of `pos` and of each of its moves, and a line of perfect play.
    pub fn solve(&mut self, pos: &Position) -> Result<Solution, Unproven> {
        self.nodes = 0;
        let Some(me) = pos.to_move() else {
            return Ok(Solution {
                value: 0,
                margin: 0,
                moves: Vec::new(),
                line: Vec::new(),
                nodes: 0,
            });
        };
        let mut moves = Vec::new();
        for mv in pos.moves() {
            let mut child = *pos;
            if child.play_unchecked(mv).is_err() {
                continue;
            }
            let v = self.child_exact(pos, &child, me)?;
            moves.push((mv, v));
        }
        moves.sort_by_key(|m| std::cmp::Reverse(m.1));
        let value = moves.first().map_or(0, |m| m.1);
        let line = self.line(pos)?;
        Ok(Solution {
            value,
            margin: stores_diff(pos) + value,
            moves,
            line,
            nodes: self.nodes,
        })
    }

    /// The exact value to `me` of moving into `child`.
    fn child_exact(&mut self, pos: &Position, child: &Position, me: Side) -> Result<i32, Unproven> {
        let g = gain(pos, child, me);
        Ok(match child.to_move() {
            None => g,
            Some(s) => {
                let b = child.seeds_in_play() as i32;
                let v = self.search(child, -b - 1, b + 1)?;
                if s == me {
                    g + v
                } else {
                    g - v
                }
            }
        })
    }

    /// A line of perfect play from `pos`: the databases' fastest proven line where they prove
    /// the position, else any move that keeps the proven value.
    fn line(&mut self, pos: &Position) -> Result<Vec<Move>, Unproven> {
        let mut line = Vec::new();
        let mut p = *pos;
        while let Some(me) = p.to_move() {
            if line.len() >= 400 {
                break;
            }
            let from_tb = self
                .tb
                .and_then(|tb| tb.best_moves(&p))
                .and_then(|b| b.first().map(|m| m.0));
            let mv = match from_tb {
                Some(m) => m,
                None => {
                    let b = p.seeds_in_play() as i32;
                    let v = self.search(&p, -b - 1, b + 1)?;
                    let mut found = None;
                    for mv in p.moves() {
                        let mut c = p;
                        if c.play_unchecked(mv).is_ok() && self.child_exact(&p, &c, me)? == v {
                            found = Some(mv);
                            break;
                        }
                    }
                    match found {
                        Some(m) => m,
                        None => break,
                    }
                }
            };
            if p.play_unchecked(mv).is_err() {
                break;
            }
            line.push(mv);
        }
        Ok(line)
    }

    /// Fail-soft alpha-beta: the exact value when it lies inside `(alpha, beta)`, else a bound
    /// on the same side of the window.
    fn search(&mut self, pos: &Position, mut alpha: i32, mut beta: i32) -> Result<i32, Unproven> {
        let Some(me) = pos.to_move() else {
            return Ok(0);
        };
        self.nodes += 1;
        if self.nodes > self.limit {
            return Err(Unproven { nodes: self.limit });
        }
        let bound = pos.seeds_in_play() as i32;
        let (mut lo, mut hi) = (-bound, bound);
        if let Some(p) = self.tb.and_then(|tb| tb.probe(pos)) {
            if let Some(v) = p.value {
                return Ok(v);
            }
            lo = lo.max(p.lower.unwrap_or(lo));
            hi = hi.min(p.upper.unwrap_or(hi));
        }
        let key = Key::of(pos);
        if let Some(&(l, h)) = self.table.get(&key) {
            lo = lo.max(l as i32);
            hi = hi.min(h as i32);
        }
        if lo >= hi {
            return Ok(lo);
        }
        if lo >= beta {
            return Ok(lo);
        }
        if hi <= alpha {
            return Ok(hi);
        }
        alpha = alpha.max(lo - 1);
        beta = beta.min(hi + 1);
        let alpha0 = alpha;

        // Captures first: they end lines soonest and carry the values.
        let mut children: Vec<(i32, Position)> = Vec::with_capacity(12);
        for mv in pos.moves() {
            let mut child = *pos;
            if child.play_unchecked(mv).is_ok() {
                children.push((gain(pos, &child, me), child));
            }
        }
        children.sort_by_key(|c| std::cmp::Reverse(c.0));
        let mut best = i32::MIN;
        for (g, child) in &children {
            let v = match child.to_move() {
                None => *g,
                Some(s) if s == me => *g + self.search(child, alpha - g, beta - g)?,
                Some(_) => *g - self.search(child, g - beta, g - alpha)?,
            };
            if v > best {
                best = v;
                if v > alpha {
                    alpha = v;
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        if children.is_empty() {
            // Every move never ends (RULES.md rule 4; none is known): nothing more is won.
            best = 0;
        }
        let (l, h) = if best >= beta {
            (best, hi)
        } else if best > alpha0 {
            (best, best)
        } else {
            (lo, best)
        };
        if self.table.len() >= self.capacity {
            self.table.clear();
        }
        self.table
            .insert(key, (l.clamp(-127, 127) as i8, h.clamp(-127, 127) as i8));
        Ok(best)
    }
}
