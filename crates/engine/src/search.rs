//! Iterative-deepening principal-variation search with a shared transposition table.
//!
//! Scores are centiseeds of *future* net gain for the side to move: what a move captures is
//! added as it happens, a finished game is worth nothing more, and the evaluation estimates
//! the rest. The stores so far stay outside the search, so the table can share positions that
//! differ only in them. A move that gives the same side the next move (an extra move, or the
//! opponent passing) adds the child's value instead of subtracting it: no sign flip.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anywoli_core::{Move, Position, Side};
use arrayvec::ArrayVec;

use crate::endgame::Tablebase;
use crate::eval::{self, Weights};
use crate::net::Quantized;
use crate::tt::{Bound, Entry, Table};

/// Deepest ply a search looks at.
pub const MAX_PLY: usize = 96;
const INF: i32 = 30_000;
/// Reverse futility looks this many plies from the leaves, with this margin (centiseeds)
/// for each ply left: 2 seeds, half a four.
const FUTILITY_DEPTH: u32 = 3;
const FUTILITY_MARGIN: i32 = 200;

/// When a search must stop. Unset limits do not limit; with none set the search goes to
/// [`MAX_PLY`] or until stopped.
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub movetime: Option<Duration>,
}

impl Limits {
    pub fn depth(d: u32) -> Limits {
        Limits {
            depth: Some(d),
            ..Limits::default()
        }
    }
    pub fn movetime(t: Duration) -> Limits {
        Limits {
            movetime: Some(t),
            ..Limits::default()
        }
    }
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
    pub depth: u32,
    /// Expected final store difference for the side to move, in centiseeds (stores included).
    pub score: i32,
    pub nodes: u64,
    pub time: Duration,
    pub pv: Vec<Move>,
}

impl Info {
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
    pub depth: u32,
    pub nodes: u64,
    pub time: Duration,
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
    pub score: i32,
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

/// Net centiseeds `me` captured between `before` and `after`.
#[inline]
fn gain(before: &Position, after: &Position, me: Side) -> i32 {
    let opp = me.opponent();
    let mine = after.store(me) as i32 - before.store(me) as i32;
    let theirs = after.store(opp) as i32 - before.store(opp) as i32;
    (mine - theirs) * 100
}

struct Thread<'a> {
    tt: &'a Table,
    stop: &'a AtomicBool,
    shared_nodes: &'a AtomicU64,
    nodes: u64,
    flushed: u64,
    deadline: Option<Instant>,
    node_limit: Option<u64>,
    weights: &'a Weights,
    /// The correction to the linear evaluation, if any (see [`Engine::net`]).
    net: Option<&'a Quantized>,
    history: [i32; 24],
    pv: Vec<[Option<Move>; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    aborted: bool,
    /// Late move reductions and reverse futility (see [`Engine::selective`]).
    selective: bool,
    /// Endgame databases, probed below the root (see [`Thread::probe`]).
    tb: Option<&'a Tablebase>,
    /// The other threads of this search, when there are any.
    team: Option<&'a Team>,
}

/// What the threads of one search share beside the table (lazy SMP).
struct Team {
    /// How many threads have begun each depth. A helper skips a depth that half the threads
    /// are already on: two threads on one depth mostly repeat each other's work, while a
    /// helper a depth ahead fills the table with what the main thread will ask next.
    started: [AtomicU32; MAX_PLY + 1],
    /// How many threads search.
    threads: u32,
    /// Set by the first thread to finish the last depth: the search has its answer, and the
    /// others stop.
    done: AtomicBool,
    /// Whether a helper's answer may be the search's: only when one line is asked for, as a
    /// helper searches one line.
    helpers_answer: bool,
    /// The positions some thread is searching now.
    busy: Busy,
}

/// Positions some thread of a search is searching now (simplified ABDADA): a thread that
/// meets a sibling another thread is on searches its other moves first and comes back to it
/// later, when the table most often holds its value. The threads then share out a node's
/// moves instead of repeating each other. A slot holds one key; a collision only loses a
/// hint, never a value.
struct Busy {
    slots: Box<[AtomicU64]>,
}

/// Slots of [`Busy`]: far more than two threads' stacks of searched positions.
const BUSY_SLOTS: usize = 1 << 14;
/// Children with less depth than this left are never deferred: their subtrees are cheaper
/// than the table traffic that shares them out.
const DEFER_DEPTH: u32 = 3;

impl Busy {
    fn new() -> Busy {
        Busy {
            slots: (0..BUSY_SLOTS).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    #[inline]
    fn slot(&self, key: u64) -> &AtomicU64 {
        &self.slots[(key >> 40) as usize & (BUSY_SLOTS - 1)]
    }

    /// What a thread does with `child` at a node it may share: put it off when another
    /// thread is on it and `may_defer` (never the first move searched), else search it,
    /// holding it busy until the mark is dropped. With no `busy` table, always search.
    #[inline]
    fn claim<'b>(busy: Option<&'b Busy>, child: &Position, may_defer: bool) -> Claim<'b> {
        let Some(busy) = busy else {
            return Claim::Search(None);
        };
        let key = key(child);
        let slot = busy.slot(key);
        if may_defer && slot.load(Relaxed) == key {
            return Claim::Later;
        }
        slot.store(key, Relaxed);
        Claim::Search(Some(Mark { busy, key }))
    }
}

/// [`Busy::claim`]'s answer.
enum Claim<'b> {
    Later,
    Search(Option<Mark<'b>>),
}

/// A position held busy while this thread searches it.
struct Mark<'b> {
    busy: &'b Busy,
    key: u64,
}

impl Drop for Mark<'_> {
    #[inline]
    fn drop(&mut self) {
        let _ = self
            .busy
            .slot(self.key)
            .compare_exchange(self.key, 0, Relaxed, Relaxed);
    }
}

/// A move's result as its mover sees it: the position it leads to and the seeds it gained.
#[derive(Clone, Copy)]
struct Child<'p> {
    mover: Side,
    pos: &'p Position,
    gain: i32,
}

impl Team {
    fn new(threads: usize, multipv: usize) -> Team {
        Team {
            started: std::array::from_fn(|_| AtomicU32::new(0)),
            threads: threads as u32,
            done: AtomicBool::new(false),
            helpers_answer: multipv == 1,
            busy: Busy::new(),
        }
    }

    /// The depth a helper begins next: `depth`, or the first after it that fewer than half
    /// the threads are on (never past `max_depth`).
    fn next_depth(&self, mut depth: u32, max_depth: u32) -> u32 {
        let crowd = self.threads.div_ceil(2);
        while depth < max_depth && self.started[depth as usize].load(Relaxed) >= crowd {
            depth += 1;
        }
        depth
    }
}

impl<'a> Thread<'a> {
    fn new(
        tt: &'a Table,
        stop: &'a AtomicBool,
        shared_nodes: &'a AtomicU64,
        deadline: Option<Instant>,
        node_limit: Option<u64>,
        weights: &'a Weights,
    ) -> Thread<'a> {
        Thread {
            tt,
            stop,
            shared_nodes,
            nodes: 0,
            flushed: 0,
            deadline,
            node_limit,
            weights,
            net: None,
            history: [0; 24],
            pv: vec![[None; MAX_PLY + 1]; MAX_PLY + 1],
            pv_len: [0; MAX_PLY + 1],
            aborted: false,
            selective: true,
            tb: None,
            team: None,
        }
    }

    /// The endgame databases' word on `pos`: its exact value in centiseeds when they prove
    /// it under the quiet counter, or a bound that already cuts this node off. `None` when
    /// they do not cover it, or their bound does not decide here: the search goes on.
    #[inline]
    fn probe(&self, pos: &Position, alpha: i32, beta: i32) -> Option<i32> {
        let tb = self.tb?;
        if pos.seeds_in_play() > tb.max_seeds() {
            return None;
        }
        let p = tb.probe(pos)?;
        if let Some(v) = p.value {
            return Some(v * 100);
        }
        match (p.lower, p.upper) {
            (Some(lo), _) if lo * 100 >= beta => Some(lo * 100),
            (_, Some(hi)) if hi * 100 <= alpha => Some(hi * 100),
            _ => None,
        }
    }

    #[inline]
    fn poll(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes & 255 == 0 {
            let total = self
                .shared_nodes
                .fetch_add(self.nodes - self.flushed, Relaxed)
                + (self.nodes - self.flushed);
            self.flushed = self.nodes;
            if self.stop.load(Relaxed)
                || self.team.is_some_and(|t| t.done.load(Relaxed))
                || self.deadline.is_some_and(|d| Instant::now() >= d)
                || self.node_limit.is_some_and(|n| total >= n)
            {
                self.aborted = true;
            }
        }
        self.aborted
    }

    fn negamax(
        &mut self,
        pos: &Position,
        depth: u32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        self.pv_len[ply] = ply;
        if self.poll() {
            return 0;
        }
        let Some(me) = pos.to_move() else {
            return 0;
        };
        if ply > 0 {
            if let Some(v) = self.probe(pos, alpha, beta) {
                return v;
            }
        }
        if depth == 0 || ply >= MAX_PLY {
            return eval::evaluate_net(pos, self.weights, self.net);
        }
        let k = key(pos);
        let mut tt_move = None;
        if let Some(e) = self.tt.probe(k) {
            tt_move = e.mv;
            if e.depth as u32 >= depth && ply > 0 {
                let ok = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => e.score >= beta,
                    Bound::Upper => e.score <= alpha,
                };
                if ok {
                    // In a principal-variation node the line below is the table's: follow
                    // it, or `info pv` stops here (often, with helper threads filling the
                    // table).
                    if e.bound == Bound::Exact && beta - alpha > 1 {
                        self.pv_from_table(pos, ply, e.depth as usize);
                    }
                    return e.score;
                }
            }
        }

        // Reverse futility: near the leaves, a null-window node whose evaluation beats beta
        // by a margin for each ply left is taken to fail high without a search. Such nodes
        // are mostly below a bad move of the other side's; pruning them cuts the nodes to a
        // depth 2.3-fold (docs/search.md, "Selectivity").
        if self.selective && beta - alpha == 1 && ply > 0 && depth <= FUTILITY_DEPTH {
            let e = eval::evaluate_net(pos, self.weights, self.net);
            if e - FUTILITY_MARGIN * depth as i32 >= beta {
                return e;
            }
        }
        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_move = None;
        let mut searched = 0usize;

        // The table's move first, alone: when it cuts off, the other moves are never played.
        if let Some(mv) = tt_move.filter(|m| pos.moves().contains(*m)) {
            let mut child = *pos;
            if child.play_unchecked(mv).is_ok() {
                let c = Child {
                    mover: me,
                    pos: &child,
                    gain: gain(pos, &child, me),
                };
                let v = self.child_value(c, depth - 1, alpha, beta, ply);
                if self.aborted {
                    return 0;
                }
                searched = 1;
                best = v;
                best_move = Some(mv);
                if v > alpha {
                    alpha = v;
                    self.update_pv(ply, mv);
                }
            }
        }

        if best < beta {
            // Play the other moves once: what each captures orders it, and the child is reused.
            // Unfilled slots are never written: an array of twelve copies of `pos` made at
            // every node cost more than a tenth of negamax's own time.
            let mut children = ArrayVec::<(Move, Position, i32, i32), 12>::new();
            for mv in pos.moves() {
                if Some(mv) == best_move {
                    continue;
                }
                // Played where it is kept: one copy of the position a child.
                children.push((mv, *pos, 0, 0));
                let Some(c) = children.last_mut() else { break };
                if c.1.play_unchecked(mv).is_err() {
                    children.pop();
                    continue;
                }
                if depth >= 2 {
                    self.tt.prefetch(key(&c.1));
                }
                let g = gain(pos, &c.1, me);
                c.2 = g;
                c.3 = g * 64 + self.history[mv.hole().index()];
            }
            let n = children.len();
            if n == 0 && searched == 0 {
                // Every move never ends (docs/rules.md, "A sowing that never ends"; none is
                // known): nothing more to win.
                return 0;
            }
            let children = &mut children[..n];
            children.sort_unstable_by_key(|c| std::cmp::Reverse(c.3));
            let busy = self.team.map(|t| &t.busy).filter(|_| depth > DEFER_DEPTH);
            // Moves another thread is on, searched after the others (see [`Busy`]).
            let mut later = ArrayVec::<u8, 12>::new();
            'moves: for pass in 0..2 {
                let todo: ArrayVec<u8, 12> = if pass == 0 {
                    (0..n as u8).collect()
                } else {
                    std::mem::take(&mut later)
                };
                for &i in &todo {
                    let (mv, ref child, g, _) = children[i as usize];
                    let mark = match Busy::claim(busy, child, pass == 0 && searched > 0) {
                        Claim::Later => {
                            later.push(i);
                            continue;
                        }
                        Claim::Search(mark) => mark,
                    };
                    let c = Child {
                        mover: me,
                        pos: child,
                        gain: g,
                    };
                    let v = self.sibling_value(c, depth, alpha, beta, ply, searched);
                    drop(mark);
                    if self.aborted {
                        return 0;
                    }
                    searched += 1;
                    if v > best {
                        best = v;
                        best_move = Some(mv);
                        if v > alpha {
                            alpha = v;
                            self.update_pv(ply, mv);
                            if v >= beta {
                                break 'moves;
                            }
                        }
                    }
                }
                if later.is_empty() {
                    break;
                }
            }
        }
        if best >= beta {
            if let Some(mv) = best_move {
                let h = &mut self.history[mv.hole().index()];
                *h = (*h + (depth * depth) as i32).min(1 << 20);
            }
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha0 {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt.store(
            k,
            Entry {
                score: best,
                depth: depth.min(255) as u8,
                bound,
                mv: best_move,
            },
        );
        best
    }

    /// The value of a child after the first (`searched` before it): a null window, and for a
    /// late quiet move one ply less, then the full search only when it beats alpha.
    #[inline]
    fn sibling_value(
        &mut self,
        c: Child,
        depth: u32,
        alpha: i32,
        beta: i32,
        ply: usize,
        searched: usize,
    ) -> i32 {
        if searched == 0 {
            return self.child_value(c, depth - 1, alpha, beta, ply);
        }
        // Late move reduction: a late move that captures nothing is first looked at one ply
        // shallower (two for the latest moves of a deep node), and searched fully only if it
        // then beats alpha.
        let reduce = self.selective && depth >= 3 && searched >= 3 && c.gain == 0;
        let mut v = alpha + 1;
        if reduce {
            let r = if depth >= 6 && searched >= 6 { 2 } else { 1 };
            v = self.child_value(c, depth - 1 - r, alpha, alpha + 1, ply);
        }
        if v > alpha && !self.aborted {
            v = self.child_value(c, depth - 1, alpha, alpha + 1, ply);
        }
        if v > alpha && v < beta && !self.aborted {
            self.child_value(c, depth - 1, alpha, beta, ply)
        } else {
            v
        }
    }

    /// Sets the principal variation at `ply` to the table's best moves from `pos`, at most
    /// `len` of them, each checked to be playable.
    fn pv_from_table(&mut self, pos: &Position, ply: usize, len: usize) {
        let mut p = *pos;
        let end = (ply + len).min(MAX_PLY);
        let mut j = ply;
        while j < end {
            let Some(mv) = self.tt.probe(key(&p)).and_then(|e| e.mv) else {
                break;
            };
            if !p.moves().contains(mv) || p.play_unchecked(mv).is_err() {
                break;
            }
            self.pv[ply][j] = Some(mv);
            j += 1;
            if p.is_over() {
                break;
            }
        }
        self.pv_len[ply] = j;
    }

    /// `mv` is the new best move at `ply`: the principal variation is it, then the child's.
    #[inline]
    fn update_pv(&mut self, ply: usize, mv: Move) {
        self.pv[ply][ply] = Some(mv);
        let next = self.pv_len[ply + 1].max(ply + 1);
        for j in ply + 1..next {
            self.pv[ply][j] = self.pv[ply + 1][j];
        }
        self.pv_len[ply] = next;
    }

    /// The value of `c` to its mover.
    #[inline]
    fn child_value(&mut self, c: Child, depth: u32, alpha: i32, beta: i32, ply: usize) -> i32 {
        let g = c.gain;
        match c.pos.to_move() {
            None => g,
            Some(s) if s == c.mover => g + self.negamax(c.pos, depth, alpha - g, beta - g, ply + 1),
            Some(_) => g - self.negamax(c.pos, depth, g - beta, g - alpha, ply + 1),
        }
    }
}

/// A searcher: the table and settings that last from one search to the next.
pub struct Engine {
    tt: Table,
    threads: usize,
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

    pub fn multipv(&self) -> usize {
        self.multipv
    }

    /// Uses these endgame databases from now on (`None`: none). Call [`Engine::clear`] too
    /// when changing them, as the table holds values found without them.
    pub fn set_tablebase(&mut self, tb: Option<Arc<Tablebase>>) {
        self.tablebase = tb;
    }

    pub fn tablebase(&self) -> Option<&Arc<Tablebase>> {
        self.tablebase.as_ref()
    }

    pub fn set_hash(&mut self, mib: usize) {
        self.tt = Table::new(mib);
    }

    pub fn hash_mib(&self) -> usize {
        self.tt.size_mib()
    }

    pub fn set_threads(&mut self, n: usize) {
        self.threads = n.clamp(1, 64);
    }

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
        let mut t = Thread::new(&self.tt, stop, &shared, None, None, &self.weights);
        t.selective = self.selective;
        t.net = self.net;
        t.tb = self.tablebase.as_deref();
        let stores = (pos.store(me) as i32 - pos.store(me.opponent()) as i32) * 100;
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
        let make = |stop| {
            let mut t = Thread::new(
                &self.tt,
                stop,
                &shared_nodes,
                deadline,
                limits.nodes,
                &self.weights,
            );
            t.selective = self.selective;
            t.net = self.net;
            t.tb = self.tablebase.as_deref();
            t.team = (self.threads > 1).then_some(&team);
            t
        };
        let only = self.root_moves.as_deref();
        std::thread::scope(|scope| {
            let helpers: Vec<_> = (1..self.threads)
                .map(|_| {
                    let mut t = make(&helpers_stop);
                    let pos = *pos;
                    scope.spawn(move || {
                        iterate(&mut t, &pos, max_depth, (1, only), true, start, &mut |_| {})
                    })
                })
                .collect();
            let mut main = make(stop);
            let mut r = iterate(
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
            // A helper that finished a deeper iteration than the main thread has the better
            // answer (only one line is asked for, so its single line is the whole answer).
            if let Some(h) = deeper {
                r = h;
                for (k, line) in r.lines.iter().enumerate() {
                    on_info(&Info {
                        multipv: k + 1,
                        depth: r.depth,
                        score: line.score,
                        nodes,
                        time: r.time,
                        pv: line.pv.clone(),
                    });
                }
            }
            SearchResult { nodes, ..r }
        })
    }
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
        let stores = (pos.store(me) as i32 - pos.store(me.opponent()) as i32) * 100;
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

/// Iterative deepening from the root; `(multipv, only)`: how many best moves get exact
/// scores, and which root moves are searched (`None`: all). A `helper` skips the depths its
/// team crowds ([`Team::next_depth`]).
fn iterate(
    t: &mut Thread<'_>,
    pos: &Position,
    max_depth: u32,
    (multipv, only): (usize, Option<&[Move]>),
    helper: bool,
    start: Instant,
    on_info: &mut dyn FnMut(&Info),
) -> SearchResult {
    let mut result = SearchResult {
        best: None,
        score: 0,
        depth: 0,
        nodes: 0,
        time: Duration::ZERO,
        pv: Vec::new(),
        root_scores: Vec::new(),
        lines: Vec::new(),
    };
    let Some(me) = pos.to_move() else {
        return result;
    };
    let stores = (pos.store(me) as i32 - pos.store(me.opponent()) as i32) * 100;
    // Each root move: the move, the position after it, what it gains at once, its value at
    // the last depth (exact for the best `multipv`, a bound below for the others) and its
    // line when exact.
    let mut root: Vec<(Move, Position, i32, i32, Vec<Move>)> = Vec::new();
    for mv in pos.moves() {
        if only.is_some_and(|o| !o.contains(&mv)) {
            continue;
        }
        let mut child = *pos;
        if child.play_unchecked(mv).is_ok() {
            root.push((mv, child, gain(pos, &child, me), 0, Vec::new()));
        }
    }
    if root.is_empty() {
        return result;
    }
    let multipv = multipv.clamp(1, root.len());
    // Something to answer with even if stopped at once: the best immediate capture.
    root.sort_by_key(|r| std::cmp::Reverse(r.2));
    result.best = Some(root[0].0);
    result.pv = vec![root[0].0];
    result.score = stores + root[0].2;

    let mut depth = 0;
    while depth < max_depth {
        depth += 1;
        if let Some(team) = t.team {
            if helper {
                depth = team.next_depth(depth, max_depth);
            }
            team.started[depth as usize].fetch_add(1, Relaxed);
        }
        // The exact values found at this depth, best first, at most `multipv`: a move must
        // beat the last of them (once there are `multipv`) to be searched exactly. With one
        // line this is the usual principal variation search.
        let mut exact: Vec<i32> = Vec::with_capacity(multipv + 1);
        let mut best_i = None;
        let busy = t.team.map(|t| &t.busy).filter(|_| depth > DEFER_DEPTH);
        // Root moves another thread is on, searched after the others (see [`Busy`]).
        let mut later = Vec::new();
        let mut todo: Vec<usize> = (0..root.len()).collect();
        let mut searched = 0;
        let mut first_pass = true;
        while !todo.is_empty() {
            for &i in &todo {
                let (_, child, g, _, _) = root[i];
                let mark = match Busy::claim(busy, &child, first_pass && searched > 0) {
                    Claim::Later => {
                        later.push(i);
                        continue;
                    }
                    Claim::Search(mark) => mark,
                };
                let c = Child {
                    mover: me,
                    pos: &child,
                    gain: g,
                };
                let floor = (exact.len() == multipv).then(|| exact[multipv - 1]);
                let v = match floor {
                    None => t.child_value(c, depth - 1, -INF, INF, 0),
                    Some(f) => {
                        let v = t.child_value(c, depth - 1, f, f + 1, 0);
                        if v > f && !t.aborted {
                            t.child_value(c, depth - 1, f, INF, 0)
                        } else {
                            v
                        }
                    }
                };
                drop(mark);
                if t.aborted {
                    break;
                }
                searched += 1;
                if floor.is_some_and(|f| v <= f) {
                    root[i].3 = floor.unwrap_or(-INF) - 1 - i as i32;
                    continue;
                }
                root[i].3 = v;
                let next = t.pv_len[1].max(1);
                let line: Vec<Move> = std::iter::once(root[i].0)
                    .chain((1..next).map_while(|j| t.pv[1][j]))
                    .collect();
                root[i].4 = line;
                let at = exact.partition_point(|&e| e >= v);
                exact.insert(at, v);
                exact.truncate(multipv);
                if at == 0 {
                    best_i = Some(i);
                }
            }
            if t.aborted {
                break;
            }
            todo = std::mem::take(&mut later);
            first_pass = false;
        }
        // A move fully searched in an unfinished iteration beat the previous best at this
        // depth (the previous best is searched first), so it may be used. Not when several
        // lines are asked for: the answer is then the last finished depth's lines, and its
        // best move must be their first (a move searched with a full window to fill the
        // lines can beat the previous best's value at the new depth without being proven
        // best: the others are not all searched yet).
        if let Some(i) = best_i.filter(|_| multipv == 1 || !t.aborted) {
            result.best = Some(root[i].0);
            result.score = stores + root[i].3;
            result.pv = root[i].4.clone();
        }
        if t.aborted {
            break;
        }
        result.depth = depth;
        if depth == max_depth {
            if let Some(team) = t.team.filter(|team| !helper || team.helpers_answer) {
                team.done.store(true, Relaxed);
            }
        }
        root.sort_by_key(|r| std::cmp::Reverse(r.3));
        result.root_scores = root.iter().map(|r| (r.0, stores + r.3)).collect();
        result.lines = root[..multipv]
            .iter()
            .map(|r| Line {
                score: stores + r.3,
                pv: r.4.clone(),
            })
            .collect();
        result.time = start.elapsed();
        result.nodes = t.shared_nodes.load(Relaxed) + (t.nodes - t.flushed);
        for (k, line) in result.lines.iter().enumerate() {
            on_info(&Info {
                multipv: k + 1,
                depth,
                score: line.score,
                nodes: result.nodes,
                time: result.time,
                pv: line.pv.clone(),
            });
        }
        // A finished game seen to the end in every line needs no deeper look.
        if depth as usize >= MAX_PLY {
            break;
        }
    }
    result.time = start.elapsed();
    result
}
