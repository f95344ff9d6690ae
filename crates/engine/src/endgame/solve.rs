//! An exact solver: the value of a position under perfect play, proven, or an honest "cannot".
//!
//! The search is alpha-beta over the real game — stores, captures, extra moves, passes and the
//! quiet counter — to the end of every line, with a table of proven bounds keyed by everything
//! that decides the future (board, side to move, first-final capturer, quiet plies). The
//! endgame databases end a line as soon as they prove its value under the quiet counter, and
//! bound it otherwise. The game is finite (seeds only leave play, and the quiet counter only
//! rises between captures), so the search always ends; the node limit decides whether it ends
//! soon enough, and when it does not the answer says so, with the bounds it did prove.
//!
//! A plain depth-first search would follow its first line for up to 100 quiet plies before
//! looking at a second move, so the search deepens step by step instead: at depth `d` a line
//! not finished within `d` plies counts as the worst for the side to move at the root (giving
//! a proven lower bound on the root's value), and again as the best (a proven upper bound).
//! When the two bounds meet, the value is proven; a short forced capture is found at a small
//! depth, as a mate is in chess.

use std::collections::HashMap;
use std::time::Instant;

use anywoli_core::{Hole, Move, Position, Side};

use super::probe::{Probe, Tablebase};
use super::shared::layer8;

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
    /// Nodes searched.
    pub nodes: u64,
    /// What it did prove about the value in question (seeds still to be won by the side to
    /// move): at least `lower`, at most `upper`.
    pub lower: i32,
    /// See `lower`.
    pub upper: i32,
}

impl std::fmt::Display for Unproven {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cannot prove the result within the limit of {} nodes (proven so far: the side to move wins between {:+} and {:+} more seeds net)",
            self.nodes, self.lower, self.upper
        )
    }
}

impl std::error::Error for Unproven {}

/// How the search treats lines it has not finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Horizon {
    /// No horizon: every line is followed to the end (the exact search).
    None,
    /// Lines cut at the depth count as the worst outcome for this side.
    Pessimistic(Side),
}

/// The depth key of the exact search's bounds.
const EXACT: u16 = u16::MAX;
/// The deepest deepening step; past it the exact search takes over.
const MAX_DEEPENING: u16 = 400;

/// A proven result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// Seeds the side to move wins from here on, net, under perfect play.
    pub value: i32,
    /// The final store difference for the side to move: the stores now plus `value`.
    pub margin: i32,
    /// Every playable move with its proven value (as `value`, after playing it), best first.
    pub moves: Vec<(Move, i32)>,
    /// Moves whose value the node limit left unproven, with the bounds proven for them.
    pub unproven_moves: Vec<(Move, i32, i32)>,
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
///
/// # Examples
///
/// The first puzzle of the collection, by search alone (no database, not even the layer
/// [`Solver::new`] builds): South, to move with 8 seeds in
/// play and 44 in each store, forces the next capture, which takes all 8 (52-44).
///
/// ```
/// use anywoli_core::{parse_position, Rules};
/// use anywoli_engine::endgame::Solver;
///
/// let text = "0,0,0,0,0,0,0,0,0,1,0,3/0,0,2,0,2,0,0,0,0,0,0,0 s 44 44 - - 0 0";
/// let pos = parse_position(text, Rules::Anywoli).unwrap();
/// let mut solver = Solver::searching(None, 1_000_000);
/// assert_eq!(solver.value(&pos), Ok(8));
/// let s = solver.solve(&pos).unwrap();
/// assert_eq!((s.value, s.margin), (8, 8));
/// assert_eq!(s.line.first(), Some(&"j".parse().unwrap()));
/// // Played out, the line ends the game with South 8 seeds ahead.
/// let mut end = pos;
/// for &m in &s.line {
///     end.play(m).unwrap();
/// }
/// assert!(end.is_over());
/// assert_eq!(end.store(anywoli_core::Side::South), 52);
/// ```
pub struct Solver<'a> {
    tb: Option<&'a Tablebase>,
    /// Whether 8-seed positions are looked up in [`layer8`] when `tb` has no 8-seed table.
    own_layer: bool,
    /// Proven bounds: `(key, depth left or EXACT, side the horizon is pessimistic for)`.
    table: HashMap<BoundKey, (i8, i8)>,
    nodes: u64,
    limit: u64,
    /// Depth left is counted only below this (the exact search has none).
    horizon: Horizon,
    /// Bounds kept at most; the table is emptied when full (it only saves work).
    capacity: usize,
    /// A wall-clock cap: a safety net under the node limit, which alone decides answers on a
    /// machine that is not overloaded (so that they do not change with its load).
    deadline: Option<Instant>,
}

impl<'a> Solver<'a> {
    /// A solver that gives up after `limit` nodes per question. Where `tb` has no 8-seed
    /// table, the solver builds its own the first time it meets an 8-seed position
    /// ([`layer8`]: about 3 s, once per process).
    pub fn new(tb: Option<&'a Tablebase>, limit: u64) -> Solver<'a> {
        Solver {
            own_layer: true,
            ..Solver::searching(tb, limit)
        }
    }

    /// A solver that only searches beyond the databases of `tb`, never building the 8-seed
    /// layer itself (for measuring the search, and for checking a database against it).
    pub fn searching(tb: Option<&'a Tablebase>, limit: u64) -> Solver<'a> {
        Solver {
            own_layer: false,
            tb,
            table: HashMap::new(),
            nodes: 0,
            limit,
            capacity: 4 << 20,
            horizon: Horizon::None,
            deadline: None,
        }
    }

    /// Gives up on any question still unanswered at `deadline` (none by default).
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }

    /// Changes the node limit of the questions asked from now on.
    pub fn set_limit(&mut self, limit: u64) {
        self.limit = limit;
    }

    /// Nodes the last question searched (past the limit by one when it ran out).
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The value of `pos` alone (seeds still to be won by the side to move, net).
    pub fn value(&mut self, pos: &Position) -> Result<i32, Unproven> {
        self.nodes = 0;
        self.deepening(pos)
    }

    /// Proves the value of `pos` by deepening bounds (see the module documentation), and
    /// finally by exact search if the bounds have not met by the deepest step.
    fn deepening(&mut self, pos: &Position) -> Result<i32, Unproven> {
        let Some(me) = pos.to_move() else {
            return Ok(0);
        };
        let b = pos.seeds_in_play() as i32;
        let (mut lower, mut upper) = (-b, b);
        let mut depth = 2u16;
        loop {
            if depth > MAX_DEEPENING {
                self.horizon = Horizon::None;
                return self.search(pos, -b - 1, b + 1, 0).map_err(|e| Unproven {
                    lower,
                    upper,
                    ..e
                });
            }
            for (worst_for, is_lower) in [(me, true), (me.opponent(), false)] {
                if lower == upper {
                    break;
                }
                self.horizon = Horizon::Pessimistic(worst_for);
                // The step's bound, searched with a window that only asks for improvement.
                let r = self.search(pos, lower - 1, upper + 1, depth);
                let v = r.map_err(|e| Unproven { lower, upper, ..e })?;
                if is_lower {
                    lower = lower.max(v);
                } else {
                    upper = upper.min(v);
                }
            }
            if lower >= upper {
                self.horizon = Horizon::None;
                return Ok(lower);
            }
            depth += 2;
        }
    }

    /// Proves the value of `pos`, then of each of its moves (those the node limit leaves
    /// unproven are listed with their proven bounds), and a line of perfect play.
    pub fn solve(&mut self, pos: &Position) -> Result<Solution, Unproven> {
        self.solve_with(pos, true)
    }

    /// [`Solver::solve`] without the line (which stays empty): the value and every move's
    /// value, for a caller that chooses its own line a move at a time (the puzzle composer).
    pub fn solve_moves(&mut self, pos: &Position) -> Result<Solution, Unproven> {
        self.solve_with(pos, false)
    }

    fn solve_with(&mut self, pos: &Position, with_line: bool) -> Result<Solution, Unproven> {
        self.nodes = 0;
        let Some(me) = pos.to_move() else {
            return Ok(Solution {
                value: 0,
                margin: 0,
                moves: Vec::new(),
                unproven_moves: Vec::new(),
                line: Vec::new(),
                nodes: 0,
            });
        };
        let value = self.deepening(pos)?;
        // The line before the other moves: it is worth more than their values when the node
        // limit cannot pay for both.
        let line = if with_line {
            self.line(pos)
        } else {
            Vec::new()
        };
        let mut moves = Vec::new();
        let mut unproven_moves = Vec::new();
        for mv in pos.moves() {
            let mut child = *pos;
            if child.play_unchecked(mv).is_err() {
                continue;
            }
            match self.child_exact(pos, &child, me) {
                Ok(v) => moves.push((mv, v)),
                Err(e) => unproven_moves.push((mv, e.lower, e.upper)),
            }
        }
        moves.sort_by_key(|m| std::cmp::Reverse(m.1));
        Ok(Solution {
            value,
            margin: stores_diff(pos) + value,
            moves,
            unproven_moves,
            line,
            nodes: self.nodes,
        })
    }

    /// The fewest plies within which `winner` can force the proven value of `pos`, as "mate in
    /// N" counts: the length of the longest defence against the fastest way to that value
    /// (the puzzle composer picks the defence that holds out longest). Each step is a search
    /// whose unfinished lines count as the worst for `winner`; a position the databases prove
    /// counts as decided where it is met (at the root, the databases' own distance). At most
    /// `max` (returned when not reached by then).
    pub fn distance(&mut self, pos: &Position, winner: Side, max: u16) -> Result<u16, Unproven> {
        self.nodes = 0;
        let Some(me) = pos.to_move() else {
            return Ok(0);
        };
        if let Some(p) = self.probe(pos) {
            if p.value.is_some() {
                return Ok(p.dtc.min(max));
            }
        }
        let v = self.deepening(pos)?;
        let b = pos.seeds_in_play() as i32;
        for d in 1..=max {
            self.horizon = Horizon::Pessimistic(winner);
            let r = self.search(pos, -b - 1, b + 1, d);
            self.horizon = Horizon::None;
            let r = r?;
            // Lines cut at the horizon count as the worst for `winner`: the bound meets the
            // value once `winner` forces it within `d` plies.
            if (me == winner && r >= v) || (me != winner && r <= v) {
                return Ok(d);
            }
        }
        Ok(max)
    }

    /// The exact value to `me` of moving into `child`; when unproven, the bounds are turned
    /// to `me`'s point of view too.
    fn child_exact(&mut self, pos: &Position, child: &Position, me: Side) -> Result<i32, Unproven> {
        let g = gain(pos, child, me);
        match child.to_move() {
            None => Ok(g),
            Some(s) => match self.deepening(child) {
                Ok(v) if s == me => Ok(g + v),
                Ok(v) => Ok(g - v),
                Err(e) if s == me => Err(Unproven {
                    lower: g + e.lower,
                    upper: g + e.upper,
                    ..e
                }),
                Err(e) => Err(Unproven {
                    lower: g - e.upper,
                    upper: g - e.lower,
                    ..e
                }),
            },
        }
    }

    /// A line of perfect play from `pos`: the databases' fastest proven line where they prove
    /// the position, else any move that keeps the proven value; it stops early if the node
    /// limit runs out.
    fn line(&mut self, pos: &Position) -> Vec<Move> {
        let mut line = Vec::new();
        let mut p = *pos;
        while let Some(me) = p.to_move() {
            if line.len() >= 400 {
                break;
            }
            let from_tb = self
                .tables(&p)
                .and_then(|tb| tb.best_moves(&p))
                .and_then(|b| b.first().map(|m| m.0));
            let mv = match from_tb {
                Some(m) => m,
                None => {
                    let Ok(v) = self.deepening(&p) else { break };
                    let mut found = None;
                    for mv in p.moves() {
                        let mut c = p;
                        if c.play_unchecked(mv).is_ok()
                            && self.child_exact(&p, &c, me).is_ok_and(|cv| cv == v)
                        {
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
        line
    }

    /// The databases that speak for `pos`: `tb`, or the solver's own 8-seed layer.
    fn tables(&self, pos: &Position) -> Option<&'a Tablebase> {
        match self.tb {
            Some(tb) if pos.seeds_in_play() != 8 || tb.table(8).is_some() => Some(tb),
            _ if self.own_layer && pos.seeds_in_play() == 8 => Some(layer8()),
            other => other,
        }
    }

    fn probe(&self, pos: &Position) -> Option<Probe> {
        self.tables(pos).and_then(|tb| tb.probe(pos))
    }

    /// Fail-soft alpha-beta: the value (under the current horizon) when it lies inside
    /// `(alpha, beta)`, else a bound on the same side of the window. `depth` is the plies left
    /// before the horizon; under [`Horizon::None`] it is not used.
    fn search(
        &mut self,
        pos: &Position,
        mut alpha: i32,
        mut beta: i32,
        depth: u16,
    ) -> Result<i32, Unproven> {
        let Some(me) = pos.to_move() else {
            return Ok(0);
        };
        let (key, lo, hi) = match self.known(pos, me, depth)? {
            Known::Value(v) => return Ok(v),
            Known::Bounds { key, lo, hi } => (key, lo, hi),
        };
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

        let children = children(pos, me);
        let mut best = i32::MIN;
        let d = depth.saturating_sub(1);
        for (g, child) in &children {
            let v = match child.to_move() {
                None => *g,
                Some(s) if s == me => *g + self.search(child, alpha - g, beta - g, d)?,
                Some(_) => *g - self.search(child, g - beta, g - alpha, d)?,
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
            // Every move never ends (docs/rules.md, "A sowing that never ends"; none is known):
            // nothing more is won.
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

    /// What is known of `pos` (`me` to move) before its moves are searched: counts the node
    /// (and gives up past the limit), then asks the databases, the horizon and the table of
    /// proven bounds.
    #[inline]
    fn known(&mut self, pos: &Position, me: Side, depth: u16) -> Result<Known, Unproven> {
        self.nodes += 1;
        let late =
            self.nodes.is_multiple_of(16_384) && self.deadline.is_some_and(|d| Instant::now() >= d);
        if self.nodes > self.limit || late {
            return Err(Unproven {
                nodes: self.limit,
                lower: -(pos.seeds_in_play() as i32),
                upper: pos.seeds_in_play() as i32,
            });
        }
        let bound = pos.seeds_in_play() as i32;
        let (mut lo, mut hi) = (-bound, bound);
        if let Some(p) = self.probe(pos) {
            if let Some(v) = p.value {
                return Ok(Known::Value(v));
            }
            lo = lo.max(p.lower.unwrap_or(lo));
            hi = hi.min(p.upper.unwrap_or(hi));
        }
        let (depth_key, worst_for) = match self.horizon {
            Horizon::None => (EXACT, None),
            Horizon::Pessimistic(side) => {
                if depth == 0 {
                    // The horizon: an unfinished line counts as the worst for `side`.
                    return Ok(Known::Value(if side == me { lo } else { hi }));
                }
                (depth, Some(side))
            }
        };
        let key = (Key::of(pos), depth_key, worst_for);
        if let Some(&(l, h)) = self.table.get(&key) {
            lo = lo.max(l as i32);
            hi = hi.min(h as i32);
        }
        Ok(Known::Bounds { key, lo, hi })
    }
}

/// The key of the table of proven bounds: the position, the depth left (or [`EXACT`]) and the
/// side the horizon is pessimistic for.
type BoundKey = (Key, u16, Option<Side>);

/// What [`Solver::known`] found before the search of a position's moves.
enum Known {
    /// Its value under the current horizon: no search needed.
    Value(i32),
    /// Bounds on it, and its key in the table of proven bounds.
    Bounds { key: BoundKey, lo: i32, hi: i32 },
}

/// The positions `pos`'s moves reach, with what each move wins for `me` (`me` to move),
/// captures first: they end lines soonest and carry the values.
#[inline]
fn children(pos: &Position, me: Side) -> Vec<(i32, Position)> {
    let mut children: Vec<(i32, Position)> = Vec::with_capacity(12);
    for mv in pos.moves() {
        let mut child = *pos;
        if child.play_unchecked(mv).is_ok() {
            children.push((gain(pos, &child, me), child));
        }
    }
    children.sort_by_key(|c| std::cmp::Reverse(c.0));
    children
}
