//! Iterative-deepening principal-variation search with a shared transposition table.
//!
//! Scores are centiseeds of *future* net gain for the side to move: what a move captures is
//! added as it happens, a finished game is worth nothing more, and the evaluation estimates
//! the rest. The stores so far stay outside the search, so the table can share positions that
//! differ only in them. A move that gives the same side the next move (an extra move, or the
//! opponent passing) adds the child's value instead of subtracting it: no sign flip.
//!
//! This module owns the [`Engine`] facade and the search's answer types; `node` holds one
//! thread's alpha-beta, `iterate` the deepening at the root, `team` what the threads of
//! one search share.

mod iterate;
mod node;
mod team;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anywoli_core::{Move, Position, Side};

use crate::endgame::Tablebase;
use crate::eval::{self, Weights};
use crate::net::Quantized;
use crate::tt::Table;

use iterate::iterate;
use node::{Child, Thread};
use team::Team;

/// Deepest ply a search looks at.
pub const MAX_PLY: usize = 96;
const INF: i32 = 30_000;

/// When a search must stop. Unset limits do not limit; with none set the search goes to
/// [`MAX_PLY`] or until stopped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// The deepest iteration, in plies (1 to [`MAX_PLY`]).
    pub depth: Option<u32>,
    /// About this many nodes, all threads together (checked every 256 nodes a thread).
    pub nodes: Option<u64>,
    /// Time from the search's start.
    pub movetime: Option<Duration>,
}

impl Limits {
    /// To depth `d` only.
    pub fn depth(d: u32) -> Limits {
        Limits {
            depth: Some(d),
            ..Limits::default()
        }
    }
    /// For time `t` only.
    pub fn movetime(t: Duration) -> Limits {
        Limits {
            movetime: Some(t),
            ..Limits::default()
        }
    }
    /// For about `n` nodes only.
    pub fn nodes(n: u64) -> Limits {
        Limits {
            nodes: Some(n),
            ..Limits::default()
        }
    }
}

/// What one finished iteration found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Info {
    /// Which line this is, from 1 (the best), when the search reports several (multi-PV).
    pub multipv: usize,
    /// The depth completed, in plies.
    pub depth: u32,
    /// Expected final store difference for the side to move, in centiseeds (stores included).
    pub score: i32,
    /// Nodes searched so far, all threads together.
    pub nodes: u64,
    /// Time since the search started.
    pub time: Duration,
    /// The principal variation, from the root.
    pub pv: Vec<Move>,
}

impl Info {
    /// Nodes a second (0 before any time has passed).
    pub fn nps(&self) -> u64 {
        let s = self.time.as_secs_f64();
        if s > 0.0 {
            (self.nodes as f64 / s) as u64
        } else {
            0
        }
    }
}

/// The answer of a search.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// `None` only when the game is over (or no move can be played).
    pub best: Option<Move>,
    /// As [`Info::score`].
    pub score: i32,
    /// The last depth completed, in plies (0 when none was).
    pub depth: u32,
    /// Nodes searched, all threads together.
    pub nodes: u64,
    /// Time the search took.
    pub time: Duration,
    /// The principal variation, from `best`.
    pub pv: Vec<Move>,
    /// Every root move with its score at the last completed depth, best first.
    pub root_scores: Vec<(Move, i32)>,
    /// The best [`Engine::set_multipv`] root moves at the last completed depth, best first,
    /// each with its exact score and line (the first is `best`, `score` and `pv`).
    pub lines: Vec<Line>,
}

/// One of the best root moves, its exact score (as [`Info::score`]) and its line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// As [`Info::score`].
    pub score: i32,
    /// The line, from its root move.
    pub pv: Vec<Move>,
}

fn quiet_key(quiet: u16) -> u64 {
    // The quiet rule makes the plies since the last capture part of a position's value.
    (quiet as u64 + 1)
        .wrapping_mul(0x9e37_79b9_7f4a_7c15)
        .rotate_left(17)
}

#[inline]
fn key(pos: &Position) -> u64 {
    pos.hash() ^ quiet_key(pos.quiet_plies())
}

/// How far `me` leads in the stores, in centiseeds.
#[inline]
fn stores(pos: &Position, me: Side) -> i32 {
    (pos.store(me) as i32 - pos.store(me.opponent()) as i32) * 100
}

/// Net centiseeds `me` captured between `before` and `after`.
#[inline]
fn gain(before: &Position, after: &Position, me: Side) -> i32 {
    let opp = me.opponent();
    let mine = after.store(me) as i32 - before.store(me) as i32;
    let theirs = after.store(opp) as i32 - before.store(opp) as i32;
    (mine - theirs) * 100
}

/// A searcher: the table and settings that last from one search to the next.
pub struct Engine {
    tt: Table,
    threads: usize,
    /// The linear evaluation's weights ([`eval::TUNED`] by default).
    pub weights: Weights,
    /// The network that corrects the linear evaluation (the shipped one by default; `None`:
    /// the linear evaluation alone, as the tuning tool's comparisons use).
    pub net: Option<&'static Quantized>,
    /// The search's inexact parts, on by default: late move reductions, and reverse
    /// futility near the leaves. Off, a search is plain alpha-beta: its value at a depth is
    /// the exact minimax value (tests), and a move's score is its own (reviews).
    pub selective: bool,
    /// Endgame databases (none by default): probed in the search, and a root they prove is
    /// played from them directly.
    tablebase: Option<Arc<Tablebase>>,
    /// How many best root moves get an exact score and a line (1: only the best).
    multipv: usize,
    /// Only these root moves are searched (the protocol's `searchmoves`); `None`: all.
    root_moves: Option<Vec<Move>>,
}

/// Most lines a search reports: the most root moves a position has.
pub const MAX_MULTIPV: usize = 12;

impl Engine {
    /// An engine with a table of at most `hash_mib` MiB and `threads` search threads (1 to
    /// 64), the tuned evaluation, the shipped network and no endgame databases.
    ///
    /// # Examples
    ///
    /// Search the start position to depth 6 and get a move:
    ///
    /// ```
    /// use std::sync::atomic::AtomicBool;
    ///
    /// use anywoli_core::{Position, Rules};
    /// use anywoli_engine::{Engine, Limits};
    ///
    /// let engine = Engine::new(1, 1);
    /// let pos = Position::start(Rules::Anywoli);
    /// let stop = AtomicBool::new(false);
    /// let mut depths = Vec::new();
    /// let r = engine.search(&pos, &Limits::depth(6), &stop, &mut |info| depths.push(info.depth));
    /// let best = r.best.expect("the start has moves");
    /// assert!(pos.moves().contains(best));
    /// assert_eq!(r.depth, 6);
    /// assert_eq!(depths, [1, 2, 3, 4, 5, 6]);
    /// assert_eq!(r.pv.first(), Some(&best));
    /// assert_eq!(r.root_scores.len(), 12);
    /// ```
    pub fn new(hash_mib: usize, threads: usize) -> Engine {
        Engine {
            tt: Table::new(hash_mib),
            threads: threads.clamp(1, 64),
            weights: eval::TUNED,
            net: Some(crate::net::shipped()),
            selective: true,
            tablebase: None,
            multipv: 1,
            root_moves: None,
        }
    }

    /// Searches only `moves` at the root from now on (`None`: every legal move): to ask
    /// what one move is worth, as a review or a test does.
    pub fn set_root_moves(&mut self, moves: Option<Vec<Move>>) {
        self.root_moves = moves;
    }

    /// Searches the best `n` root moves exactly (1 to [`MAX_MULTIPV`]), each reported as a
    /// line of its own (`Info::multipv`), at the cost of full windows for those `n`.
    pub fn set_multipv(&mut self, n: usize) {
        self.multipv = n.clamp(1, MAX_MULTIPV);
    }

    /// Root moves searched exactly (see [`Engine::set_multipv`]).
    pub fn multipv(&self) -> usize {
        self.multipv
    }

    /// Uses these endgame databases from now on (`None`: none). Call [`Engine::clear`] too
    /// when changing them, as the table holds values found without them.
    pub fn set_tablebase(&mut self, tb: Option<Arc<Tablebase>>) {
        self.tablebase = tb;
    }

    /// The endgame databases in use, if any.
    pub fn tablebase(&self) -> Option<&Arc<Tablebase>> {
        self.tablebase.as_ref()
    }

    /// A new, empty table of at most `mib` MiB (the largest power of two that fits).
    pub fn set_hash(&mut self, mib: usize) {
        self.tt = Table::new(mib);
    }

    /// The table's size in MiB.
    pub fn hash_mib(&self) -> usize {
        self.tt.size_mib()
    }

    /// Searches with `n` threads from now on (1 to 64).
    pub fn set_threads(&mut self, n: usize) {
        self.threads = n.clamp(1, 64);
    }

    /// Search threads.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Forgets what earlier searches learnt (call between games or when the rules change).
    pub fn clear(&mut self) {
        self.tt.clear();
    }

    /// The exact score (as [`Info::score`]) of every playable move at `depth`, best first: what
    /// a level that chooses among moves needs. Costs more than [`Engine::search`], which only
    /// proves the best move best. When `stop` is set it returns at once with the moves scored
    /// so far (none if it was set before the first was done).
    pub fn score_moves(&self, pos: &Position, depth: u32, stop: &AtomicBool) -> Vec<(Move, i32)> {
        let Some(me) = pos.to_move() else {
            return Vec::new();
        };
        let shared = AtomicU64::new(0);
        let mut t = self.thread(stop, &shared, None, &Limits::default(), None);
        let stores = stores(pos, me);
        let depth = depth.clamp(1, MAX_PLY as u32);
        let mut out = Vec::new();
        for mv in pos.moves() {
            let mut child = *pos;
            if child.play_unchecked(mv).is_ok() {
                let c = Child {
                    mover: me,
                    pos: &child,
                    gain: gain(pos, &child, me),
                };
                let v = t.child_value(c, depth - 1, -INF, INF, 0);
                // A value found after the stop is unfinished: drop it.
                if stop.load(Relaxed) {
                    break;
                }
                out.push((mv, stores + v));
            }
        }
        out.sort_by_key(|o| std::cmp::Reverse(o.1));
        out
    }

    /// Searches `pos` within `limits` or until `stop` is set; `on_info` hears every completed
    /// depth. Extra threads (lazy SMP) share the table and make the main thread's cutoffs come
    /// sooner; only the main thread's answer is used.
    pub fn search(
        &self,
        pos: &Position,
        limits: &Limits,
        stop: &AtomicBool,
        on_info: &mut dyn FnMut(&Info),
    ) -> SearchResult {
        let start = Instant::now();
        if let Some(r) = self.tablebase_root(pos, start, on_info) {
            return r;
        }
        self.tt.new_search();
        let deadline = limits.movetime.map(|t| start + t);
        let shared_nodes = AtomicU64::new(0);
        let helpers_stop = AtomicBool::new(false);
        let max_depth = limits
            .depth
            .unwrap_or(MAX_PLY as u32)
            .clamp(1, MAX_PLY as u32);
        let team = Team::new(self.threads, self.multipv);
        let team_ref = (self.threads > 1).then_some(&team);
        let only = self.root_moves.as_deref();
        std::thread::scope(|scope| {
            let helpers: Vec<_> = (1..self.threads)
                .map(|_| {
                    let mut t =
                        self.thread(&helpers_stop, &shared_nodes, deadline, limits, team_ref);
                    let pos = *pos;
                    scope.spawn(move || {
                        iterate(&mut t, &pos, max_depth, (1, only), true, start, &mut |_| {})
                    })
                })
                .collect();
            let mut main = self.thread(stop, &shared_nodes, deadline, limits, team_ref);
            let r = iterate(
                &mut main,
                pos,
                max_depth,
                (self.multipv, only),
                false,
                start,
                on_info,
            );
            helpers_stop.store(true, Relaxed);
            let deeper: Option<SearchResult> = helpers
                .into_iter()
                .filter_map(|h| h.join().ok())
                .filter(|h| team.helpers_answer && h.depth > r.depth)
                .max_by_key(|h| h.depth);
            let nodes = shared_nodes.load(Relaxed) + (main.nodes - main.flushed);
            SearchResult {
                nodes,
                ..answer(r, deeper, nodes, on_info)
            }
        })
    }

    /// A search thread on this engine's table and settings.
    fn thread<'a>(
        &'a self,
        stop: &'a AtomicBool,
        shared_nodes: &'a AtomicU64,
        deadline: Option<Instant>,
        limits: &Limits,
        team: Option<&'a Team>,
    ) -> Thread<'a> {
        let mut t = Thread::new(
            &self.tt,
            stop,
            shared_nodes,
            deadline,
            limits.nodes,
            &self.weights,
        );
        t.selective = self.selective;
        t.net = self.net;
        t.tb = self.tablebase.as_deref();
        t.team = team;
        t
    }
}

/// The main thread's answer `r`, or a helper's that finished a deeper iteration: it has the
/// better answer (only one line is asked for, so its single line is the whole answer), and its
/// lines are reported.
fn answer(
    r: SearchResult,
    deeper: Option<SearchResult>,
    nodes: u64,
    on_info: &mut dyn FnMut(&Info),
) -> SearchResult {
    let Some(h) = deeper else {
        return r;
    };
    for (k, line) in h.lines.iter().enumerate() {
        on_info(&Info {
            multipv: k + 1,
            depth: h.depth,
            score: line.score,
            nodes,
            time: h.time,
            pv: line.pv.clone(),
        });
    }
    h
}

impl Engine {
    /// A root the databases prove needs no search: the move that keeps the proven value, the
    /// fastest win or the slowest loss, so a won ending is always brought home (each ply of
    /// the winner's line shortens the distance to the capture by one, and the quiet plies
    /// left shrink by one: the capture stays in time).
    fn tablebase_root(
        &self,
        pos: &Position,
        start: Instant,
        on_info: &mut dyn FnMut(&Info),
    ) -> Option<SearchResult> {
        let tb = self.tablebase.as_deref()?;
        let me = pos.to_move()?;
        let best = tb.best_moves(pos)?;
        let &(mv, value, _) = best.first()?;
        let stores = stores(pos, me);
        let score = stores + value * 100;
        let time = start.elapsed();
        // Every move's value is proven: the lines are the best moves, each its own line.
        let lines: Vec<Line> = best
            .iter()
            .take(self.multipv)
            .map(|b| Line {
                score: stores + b.1 * 100,
                pv: vec![b.0],
            })
            .collect();
        for (i, l) in lines.iter().enumerate() {
            on_info(&Info {
                multipv: i + 1,
                depth: 1,
                score: l.score,
                nodes: 1,
                time,
                pv: l.pv.clone(),
            });
        }
        Some(SearchResult {
            best: Some(mv),
            score,
            depth: 1,
            nodes: 1,
            time,
            pv: vec![mv],
            root_scores: best.iter().map(|b| (b.0, stores + b.1 * 100)).collect(),
            lines,
        })
    }
}
