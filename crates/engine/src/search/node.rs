//! One search thread and its alpha-beta: the node (table, pruning, move ordering, the
//! principal variation) and the value of a child.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use anywoli_core::{Move, Position, Side};
use arrayvec::ArrayVec;

use crate::endgame::Tablebase;
use crate::eval::{self, Weights};
use crate::net::Quantized;
use crate::tt::{Bound, Entry, Table};

use super::team::{Busy, Claim, Team, DEFER_DEPTH};
use super::{gain, key, INF, MAX_PLY};

/// Reverse futility looks this many plies from the leaves, with this margin (centiseeds)
/// for each ply left: 2 seeds, half a four.
const FUTILITY_DEPTH: u32 = 3;
const FUTILITY_MARGIN: i32 = 200;

pub(super) struct Thread<'a> {
    tt: &'a Table,
    stop: &'a AtomicBool,
    pub(super) shared_nodes: &'a AtomicU64,
    pub(super) nodes: u64,
    pub(super) flushed: u64,
    deadline: Option<Instant>,
    node_limit: Option<u64>,
    weights: &'a Weights,
    /// The correction to the linear evaluation, if any (see [`Engine::net`]).
    pub(super) net: Option<&'a Quantized>,
    history: [i32; 24],
    pub(super) pv: Vec<[Option<Move>; MAX_PLY + 1]>,
    pub(super) pv_len: [usize; MAX_PLY + 1],
    pub(super) aborted: bool,
    /// Late move reductions and reverse futility (see [`Engine::selective`]).
    pub(super) selective: bool,
    /// Endgame databases, probed below the root (see [`Thread::probe`]).
    pub(super) tb: Option<&'a Tablebase>,
    /// The other threads of this search, when there are any.
    pub(super) team: Option<&'a Team>,
}

/// What the table says at a node ([`Thread::table_word`]).
enum TableWord {
    /// Its value settles the node.
    Cut(i32),
    /// The move to try first, if it has one.
    Move(Option<Move>),
}

/// A node being searched: its window and the best found so far.
struct Node {
    me: Side,
    depth: u32,
    alpha: i32,
    beta: i32,
    ply: usize,
    best: i32,
    best_move: Option<Move>,
    searched: usize,
}

/// A move's result as its mover sees it: the position it leads to and the seeds it gained.
#[derive(Clone, Copy)]
pub(super) struct Child<'p> {
    pub(super) mover: Side,
    pub(super) pos: &'p Position,
    pub(super) gain: i32,
}

impl<'p> Child<'p> {
    #[inline(always)]
    pub(super) fn new(mover: Side, pos: &'p Position, gain: i32) -> Child<'p> {
        Child { mover, pos, gain }
    }
}

impl<'a> Thread<'a> {
    pub(super) fn new(
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

    /// The alpha-beta value of `pos` within (`alpha`, `beta`). Its parts (`table_word`,
    /// `table_move`, `other_moves`, `close`) are `#[inline(always)]`: split out of one
    /// 184-line function, they search the same tree at the same speed (fixed-depth searches
    /// of 11 positions, release build: 1.62 s of CPU whole and 1.62 s split, medians of 5).
    fn negamax(&mut self, pos: &Position, depth: u32, alpha: i32, beta: i32, ply: usize) -> i32 {
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
        let tt_move = match self.table_word(pos, k, depth, alpha, beta, ply) {
            TableWord::Cut(v) => return v,
            TableWord::Move(mv) => mv,
        };

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
        let mut node = Node {
            me,
            depth,
            alpha,
            beta,
            ply,
            best: -INF,
            best_move: None,
            searched: 0,
        };
        // The table's move first, alone: when it cuts off, the other moves are never played.
        if let Some(mv) = tt_move.filter(|m| pos.moves().contains(*m)) {
            if self.table_move(pos, mv, &mut node).is_none() {
                return 0;
            }
        }
        if node.best < beta {
            if let Some(v) = self.other_moves(pos, &mut node) {
                return v;
            }
        }
        self.close(k, alpha, &node)
    }

    /// What the table says at a node: a value that settles it, or the move to try first.
    #[inline(always)]
    fn table_word(
        &mut self,
        pos: &Position,
        k: u64,
        depth: u32,
        alpha: i32,
        beta: i32,
        ply: usize,
    ) -> TableWord {
        let Some(e) = self.tt.probe(k) else {
            return TableWord::Move(None);
        };
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
                return TableWord::Cut(e.score);
            }
        }
        TableWord::Move(e.mv)
    }

    /// Searches the table's move `mv` first; `None` when the search was stopped.
    #[inline(always)]
    fn table_move(&mut self, pos: &Position, mv: Move, node: &mut Node) -> Option<()> {
        let mut child = *pos;
        if child.play_unchecked(mv).is_ok() {
            let c = Child {
                mover: node.me,
                pos: &child,
                gain: gain(pos, &child, node.me),
            };
            let v = self.child_value(c, node.depth - 1, node.alpha, node.beta, node.ply);
            if self.aborted {
                return None;
            }
            node.searched = 1;
            node.best = v;
            node.best_move = Some(mv);
            if v > node.alpha {
                node.alpha = v;
                self.update_pv(node.ply, mv);
            }
        }
        Some(())
    }

    /// Searches the moves after the table's, best captures first, putting off those another
    /// thread is on; `Some(value)` when the node must return it at once (stopped, or no move
    /// ever ends).
    #[inline(always)]
    fn other_moves(&mut self, pos: &Position, node: &mut Node) -> Option<i32> {
        let (me, depth, ply) = (node.me, node.depth, node.ply);
        // Play the other moves once: what each captures orders it, and the child is reused.
        // Unfilled slots are never written: an array of twelve copies of `pos` made at
        // every node cost more than a tenth of negamax's own time.
        let mut children = ArrayVec::<(Move, Position, i32, i32), 12>::new();
        for mv in pos.moves() {
            if Some(mv) == node.best_move {
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
        if n == 0 && node.searched == 0 {
            // Every move never ends (docs/rules.md, "A sowing that never ends"; none is
            // known): nothing more to win.
            return Some(0);
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
                let Claim::Search(mark) = Busy::claim(busy, child, pass == 0 && node.searched > 0)
                else {
                    later.push(i);
                    continue;
                };
                let v = self.sibling_value(Child::new(me, child, g), node);
                drop(mark);
                if self.aborted {
                    return Some(0);
                }
                node.searched += 1;
                if v > node.best {
                    node.best = v;
                    node.best_move = Some(mv);
                    if v > node.alpha {
                        node.alpha = v;
                        self.update_pv(ply, mv);
                        if v >= node.beta {
                            break 'moves;
                        }
                    }
                }
            }
            if later.is_empty() {
                break;
            }
        }
        None
    }

    /// Ends a searched node (`alpha0`: its alpha on entry): a cutoff's move earns history, and
    /// the value goes into the table with its bound.
    #[inline(always)]
    fn close(&mut self, k: u64, alpha0: i32, node: &Node) -> i32 {
        let (best, depth, beta) = (node.best, node.depth, node.beta);
        if best >= beta {
            if let Some(mv) = node.best_move {
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
                mv: node.best_move,
            },
        );
        best
    }

    /// The value at `node` of a child after the first (`node.searched` before it): a null
    /// window, and for a late quiet move one ply less, then the full search only when it beats
    /// alpha.
    #[inline]
    fn sibling_value(&mut self, c: Child, node: &Node) -> i32 {
        let (depth, alpha, beta, ply) = (node.depth, node.alpha, node.beta, node.ply);
        let searched = node.searched;
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
    pub(super) fn child_value(
        &mut self,
        c: Child,
        depth: u32,
        alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        let g = c.gain;
        match c.pos.to_move() {
            None => g,
            Some(s) if s == c.mover => g + self.negamax(c.pos, depth, alpha - g, beta - g, ply + 1),
            Some(_) => g - self.negamax(c.pos, depth, g - beta, g - alpha, ply + 1),
        }
    }
}
