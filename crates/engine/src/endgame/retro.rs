//! Retrograde analysis with generated predecessors, by thresholds: what builds the 12-seed
//! database (docs/tablebase.md), where the move graph would not fit in memory.
//!
//! With 12 seeds in play the first capture gives its taker 4 and leaves an 8-seed ending,
//! which the 8-seed database decides; so a 12-seed position ends, for its side to move, at
//! +12, +4, −4 or −12 net (or goes on until the quiet rule). For each threshold `t` of −4, +4
//! and +12 the build answers "can the side to move force a capture that leaves it at least
//! `t`?" — won, lost (the opponent forces less), or neither — with the plies to that capture.
//! A move to the other side's turn turns "at least `t`" for the mover into "less than the next
//! margin above `−t`" for the other side, so the thresholds pair up (−4 with +12, +4 with
//! itself) and one set of waves settles them all.
//!
//! Every position is expanded once, forward (its captures decide thresholds at once, its
//! quiet moves are counted); then each wave undoes the moves into the positions it settled
//! ([`unmoves`]) instead of reading a stored graph.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use anywoli_core::{Position, Rules, Side};

use super::entry::{INVALID, LOSS_BIT, STUCK, UNFORCED};
use super::error::EndgameError;
use super::index::{position_of, positions, unrank};
use super::moves::unmoves;
use super::work::{Progress, Stage, MAX_THREADS};

/// What a retrograde analysis needs to know about the game.
pub struct Game<'a> {
    /// Seeds in play.
    pub seeds: u8,
    /// The thresholds, lowest first: "the side to move can force at least this".
    pub thresholds: Vec<i32>,
    /// For each threshold, the one it becomes for the other side after a move that passes
    /// the turn.
    pub pair: Vec<usize>,
    /// The margin (net seeds for the side to move of `before`, South) of a move that captures,
    /// or `None` when it is not known.
    pub terminal: &'a (dyn Fn(&Position, &Position) -> Option<i32> + Sync),
}

/// The per-threshold entries of every position, packed for memory: 10 bits a threshold in
/// one 32-bit word a position (so at most 3 thresholds), kept as two 16-bit halves so that
/// [`Solved::into_entries`] can turn the words into 16-bit entries in place. Each 10-bit field
/// is a 2-bit state and a byte: open (the byte counts the moves not yet known to lose), won or
/// lost (the byte is the distance), or special (the byte says not a position or stuck). A
/// distance is known only once settled and a move count only before, so one byte holds
/// either; 4 bytes a position instead of the 9 of separate state and counts.
pub struct Solved {
    /// Thresholds per position, 1 to 3.
    pub thresholds: usize,
    pub(super) cells: Vec<u16>,
}

pub(super) const OPEN: u32 = 0;
pub(super) const WON: u32 = 1;
pub(super) const LOST: u32 = 2;
const SPECIAL: u32 = 3;
/// The special fields' bytes.
const SPECIAL_INVALID: u32 = 0;
const SPECIAL_STUCK: u32 = 1;
/// The longest distance a field holds (the longest 12-seed proof is 237 plies).
pub const MAX_PACKED_DTC: u32 = 255;
/// Most thresholds a word holds.
pub const MAX_THRESHOLDS: usize = 3;

#[inline]
pub(super) fn field(w: u32, k: usize) -> (u32, u32) {
    let f = w >> (10 * k) & 0x3ff;
    (f >> 8, f & 0xff)
}

#[inline]
fn with_field(w: u32, k: usize, state: u32, byte: u32) -> u32 {
    let shift = 10 * k;
    w & !(0x3ff << shift) | (state << 8 | byte) << shift
}

/// Which of the `k` thresholds of word `w` were settled at `dist`: a mask, 0 when none.
#[inline]
pub(super) fn settled_at(w: u32, k: usize, dist: u32) -> u32 {
    (0..k)
        .filter(|&j| matches!(field(w, j), (WON | LOST, b) if b == dist))
        .fold(0, |m, j| m | 1 << j)
}

/// Which of the `k` thresholds of word `w` are won: a mask.
#[inline]
pub(super) fn won_mask(w: u32, k: usize) -> u32 {
    (0..k)
        .filter(|&j| field(w, j).0 == WON)
        .fold(0, |m, j| m | 1 << j)
}

/// A field in the 8-seed table's encoding.
fn old_encoding((state, byte): (u32, u32)) -> u16 {
    match state {
        OPEN => UNFORCED,
        WON => byte as u16,
        LOST => LOSS_BIT | byte as u16,
        _ if byte == SPECIAL_STUCK => STUCK,
        _ => INVALID,
    }
}

impl Solved {
    #[inline]
    pub(super) fn word(&self, i: usize) -> u32 {
        self.cells[2 * i] as u32 | (self.cells[2 * i + 1] as u32) << 16
    }

    /// The analysis of `positions` positions before anything is known of them.
    pub(super) fn blank(thresholds: usize, positions: usize) -> Solved {
        Solved {
            thresholds,
            cells: vec![0u16; 2 * positions],
        }
    }

    #[inline]
    pub(super) fn set_word(&mut self, i: usize, w: u32) {
        self.cells[2 * i] = w as u16;
        self.cells[2 * i + 1] = (w >> 16) as u16;
    }

    /// Positions analysed: one per index, valid or not.
    pub fn positions(&self) -> usize {
        self.cells.len() / 2
    }

    /// The entry of position `idx` at threshold `k`, in the 8-seed table's encoding: 0
    /// neither, `d` won in `d`, `LOSS_BIT | d` lost in `d`, [`INVALID`], [`STUCK`].
    pub fn status(&self, idx: usize, k: usize) -> u16 {
        old_encoding(field(self.word(idx), k))
    }

    /// One 16-bit entry per position, made by `f` from the position's per-threshold entries
    /// (in [`Solved::status`]'s encoding), written over the packed words as they are read: the
    /// entry of position `i` goes where half of word `i / 2` was, which was read before, so the
    /// table needs no memory beside the words.
    pub fn into_entries(mut self, f: impl Fn(&[u16]) -> u16) -> Vec<u16> {
        let n = self.positions();
        let k = self.thresholds;
        for i in 0..n {
            let w = self.word(i);
            let mut st = [0u16; MAX_THRESHOLDS];
            for (j, s) in st[..k].iter_mut().enumerate() {
                *s = old_encoding(field(w, j));
            }
            self.cells[i] = f(&st[..k]);
        }
        self.cells.truncate(n);
        self.cells.shrink_to_fit();
        self.cells
    }
}

/// Longest list of positions a wave keeps for the next one; past it the next wave finds its
/// positions by scanning every word for its distance instead (the first waves settle tens of
/// millions of positions; a list of them would cost more memory than the words save).
pub(super) const WAVE_LIST: usize = 1 << 24;
/// Positions a thread generates the predecessors of between two rounds of applying them.
pub(super) const CHUNK: usize = 1 << 16;

/// Runs the analysis on `threads` threads.
pub fn solve(game: &Game, threads: usize, progress: Progress) -> Result<Solved, EndgameError> {
    let k = game.thresholds.len();
    if k == 0 || k > MAX_THRESHOLDS {
        return Err(EndgameError::Thresholds {
            count: k,
            max: MAX_THRESHOLDS,
        });
    }
    let n = positions(game.seeds) as usize;
    if n >= u32::MAX as usize {
        return Err(EndgameError::Positions);
    }
    let threads = threads.clamp(1, MAX_THREADS);
    let mut solved = Solved::blank(k, n);
    forward(&mut solved, game, threads, progress);

    // 2. Waves, each undoing the moves into the positions the last one settled.
    let mut listed: Option<Vec<u32>> = None;
    let mut dist = 1u32;
    loop {
        progress(Stage::Retrograde, dist as u64, 0);
        if dist >= MAX_PACKED_DTC {
            return Err(EndgameError::PackedDistance {
                max: MAX_PACKED_DTC,
            });
        }
        let (any, next) = wave(&mut solved, game, listed.take(), dist, threads);
        if !any {
            break;
        }
        listed = next;
        dist += 1;
    }
    Ok(solved)
}

/// 1. Every position once, forward.
fn forward(solved: &mut Solved, game: &Game, threads: usize, progress: Progress) {
    let seeds = game.seeds;
    let n = solved.positions();
    let done = AtomicU64::new(0);
    let step = n.div_ceil(threads);
    std::thread::scope(|sc| {
        for (t, cells) in solved.cells.chunks_mut(step * 2).enumerate() {
            let done = &done;
            sc.spawn(move || {
                let lo = t * step;
                for j in 0..cells.len() / 2 {
                    let idx = lo + j;
                    if idx & 0xffff == 0 {
                        let d = done.fetch_add(0x10000, Relaxed);
                        progress(Stage::Moves, d.min(n as u64), n as u64);
                    }
                    let w = expand_word(game, idx, seeds);
                    cells[2 * j] = w as u16;
                    cells[2 * j + 1] = (w >> 16) as u16;
                }
            });
        }
    });
    progress(Stage::Moves, n as u64, n as u64);
}

/// One wave: undoes the moves into the positions settled at `dist` (those of `listed`, or
/// when the last wave kept no list, those found by scanning every word). Returns whether there
/// was any, and the list of positions this wave settled (`None` when too long to keep).
fn wave(
    solved: &mut Solved,
    game: &Game,
    listed: Option<Vec<u32>>,
    dist: u32,
    threads: usize,
) -> (bool, Option<Vec<u32>>) {
    let k = game.thresholds.len();
    let n = solved.positions();
    let settled_now = |w: u32| settled_at(w, k, dist);
    let mut next: Option<Vec<u32>> = Some(Vec::new());
    let mut any = false;
    match listed {
        Some(mut list) => {
            list.sort_unstable();
            list.dedup();
            for chunk in list.chunks(CHUNK) {
                any |= !chunk.is_empty();
                let cands = Cands::List(chunk);
                apply(solved, game, cands, dist, threads, &mut next, &settled_now);
            }
        }
        None => {
            // The positions settled at `dist` are found by scanning every word, a range at a
            // time, each thread its part of the range.
            let mut lo = 0;
            while lo < n {
                let hi = (lo + CHUNK * threads).min(n);
                let cands = Cands::Range(lo, hi);
                any |= apply(solved, game, cands, dist, threads, &mut next, &settled_now);
                lo = hi;
            }
        }
    }
    (any, next)
}

/// The packed word of position `idx` after its forward expansion: captures decide thresholds
/// at once, quiet moves (and captures of unknown margin) are counted.
pub(super) fn expand_word(game: &Game, idx: usize, seeds: u8) -> u32 {
    let k = game.thresholds.len();
    let holes = unrank(idx as u64, seeds);
    let Some(pos) = position_of(&holes, seeds, Rules::Anywoli, None) else {
        return (0..k).fold(0, |w, j| with_field(w, j, SPECIAL, SPECIAL_INVALID));
    };
    let mut quiet = 0u32;
    let mut unknown = 0u32;
    let mut any = false;
    let mut best: Option<i32> = None;
    for mv in pos.moves() {
        let mut child = pos;
        if child.play_unchecked(mv).is_err() {
            continue;
        }
        any = true;
        if child.seeds_in_play() < seeds {
            match (game.terminal)(&pos, &child) {
                Some(m) => best = Some(best.map_or(m, |b| b.max(m))),
                None => unknown += 1,
            }
        } else {
            quiet += 1;
        }
    }
    let mut w = 0;
    for (j, &t) in game.thresholds.iter().enumerate() {
        w = if best.is_some_and(|b| b >= t) {
            with_field(w, j, WON, 1)
        } else if quiet + unknown == 0 {
            if any {
                with_field(w, j, LOST, 1)
            } else {
                with_field(w, j, SPECIAL, SPECIAL_STUCK)
            }
        } else {
            // At most 12 moves: the count fits the byte.
            with_field(w, j, OPEN, (quiet + unknown).min(255))
        };
    }
    w
}

/// The positions a round of a wave undoes the moves into.
#[derive(Clone, Copy)]
enum Cands<'a> {
    /// These (the last wave's list).
    List(&'a [u32]),
    /// Those of `lo..hi` settled in this wave.
    Range(usize, usize),
}

/// One predecessor found in a round: its index, whether the move into the candidate kept the
/// turn, which of the candidate's thresholds the wave settled, and which of those it won.
type Undone = (u32, bool, u8, u8);

/// One round of a wave: every thread generates the predecessors of its share of the
/// candidates (positions with thresholds settled at `dist`), sorted by which thread's share
/// of the words they fall in; then every thread applies those of its own share. A position is
/// undone once for all the thresholds the wave settled in it. What a round changes does not
/// depend on the order its predecessors are applied in (a count reaches zero only when no
/// move wins), so the threads give the one-thread result. Returns whether there was any
/// candidate.
fn apply(
    solved: &mut Solved,
    game: &Game,
    cands: Cands,
    dist: u32,
    threads: usize,
    next: &mut Option<Vec<u32>>,
    settled_now: &(dyn Fn(u32) -> u32 + Sync),
) -> bool {
    let n = solved.positions();
    let share = n.div_ceil(threads).max(1);
    let parts: Vec<Cands> = match cands {
        Cands::List([]) => return false,
        Cands::List(list) => list
            .chunks(list.len().div_ceil(threads))
            .map(Cands::List)
            .collect(),
        Cands::Range(lo, hi) => {
            let per = (hi - lo).div_ceil(threads).max(1);
            (lo..hi)
                .step_by(per)
                .map(|a| Cands::Range(a, (a + per).min(hi)))
                .collect()
        }
    };
    let (any, found) = predecessors(solved, game, &parts, share, threads, settled_now);
    let newly = settle(solved, game, &found, share, dist);
    for p in newly.into_iter().flatten() {
        match next {
            Some(list) if list.len() < WAVE_LIST => list.push(p),
            _ => *next = None,
        }
    }
    any
}

/// The first half of a round: the predecessors of each part's candidates, generated on a
/// thread a part, each thread's list sorted by whose `share` of the words they fall in.
/// Returns whether there was any candidate, and the lists.
fn predecessors(
    words: &Solved,
    game: &Game,
    parts: &[Cands],
    share: usize,
    threads: usize,
    settled_now: &(dyn Fn(u32) -> u32 + Sync),
) -> (bool, Vec<Vec<Vec<Undone>>>) {
    let seeds = game.seeds;
    let found: Vec<(bool, Vec<Vec<Undone>>)> = std::thread::scope(|sc| {
        let hs: Vec<_> = parts
            .iter()
            .map(|&part| {
                sc.spawn(move || {
                    let mut out: Vec<Vec<Undone>> = vec![Vec::new(); threads];
                    let mut b = Vec::new();
                    let mut any = false;
                    let mut undo = |c: usize| {
                        let cw = words.word(c);
                        // Fields settled in this wave stay as they are: the mask is the same
                        // when the predecessors are applied.
                        let mask = settled_now(cw);
                        if mask == 0 {
                            return;
                        }
                        any = true;
                        let wins = won_mask(cw, game.thresholds.len());
                        unmoves(&unrank(c as u64, seeds), seeds, &mut b);
                        for &(p, same) in &b {
                            out[p as usize / share].push((p as u32, same, mask as u8, wins as u8));
                        }
                    };
                    match part {
                        Cands::List(list) => list.iter().for_each(|&c| undo(c as usize)),
                        Cands::Range(lo, hi) => (lo..hi).for_each(&mut undo),
                    }
                    (any, out)
                })
            })
            .collect();
        hs.into_iter()
            .map(|h| h.join().expect("a retrograde thread panicked"))
            .collect()
    });
    let any = found.iter().any(|f| f.0);
    (any, found.into_iter().map(|f| f.1).collect())
}

/// The second half of a round: each thread applies the predecessors that fall in its share of
/// the words. Returns the positions that got settled, by thread.
fn settle(
    solved: &mut Solved,
    game: &Game,
    found: &[Vec<Vec<Undone>>],
    share: usize,
    dist: u32,
) -> Vec<Vec<u32>> {
    std::thread::scope(|sc| {
        let hs: Vec<_> = solved
            .cells
            .chunks_mut(2 * share)
            .enumerate()
            .map(|(t, cells)| {
                sc.spawn(move || {
                    let base = t * share;
                    let mut newly = Vec::new();
                    for &(p, same, mask, wins) in found.iter().flat_map(|f| &f[t]) {
                        let i = p as usize - base;
                        let before = cells[2 * i] as u32 | (cells[2 * i + 1] as u32) << 16;
                        let (pw, won_or_lost) = undone(game, before, same, mask, wins, dist);
                        if pw != before {
                            cells[2 * i] = pw as u16;
                            cells[2 * i + 1] = (pw >> 16) as u16;
                        }
                        if won_or_lost {
                            newly.push(p);
                        }
                    }
                    newly
                })
            })
            .collect();
        hs.into_iter()
            .map(|h| h.join().expect("a retrograde thread panicked"))
            .collect()
    })
}

/// Predecessor word `pw` after one of its moves, into a position whose thresholds `mask`
/// were settled at `dist` (`wins`: those won), and whether that settled any of its own.
#[inline]
pub(super) fn undone(
    game: &Game,
    mut pw: u32,
    same: bool,
    mask: u8,
    wins: u8,
    dist: u32,
) -> (u32, bool) {
    let mut newly = false;
    for kc in (0..game.thresholds.len()).filter(|&j| mask >> j & 1 != 0) {
        let child_wins = wins >> kc & 1 != 0;
        let kp = if same { kc } else { game.pair[kc] };
        let (state, byte) = field(pw, kp);
        if state != OPEN {
            continue;
        }
        if child_wins == same {
            pw = with_field(pw, kp, WON, dist + 1);
            newly = true;
        } else if byte <= 1 {
            pw = with_field(pw, kp, LOST, dist + 1);
            newly = true;
        } else {
            pw = with_field(pw, kp, OPEN, byte - 1);
        }
    }
    (pw, newly)
}

/// The 8-seed game as a one-threshold analysis (for checking this builder against the move
/// graph builder): the capturer wins.
pub fn eight() -> Game<'static> {
    Game {
        seeds: 8,
        thresholds: vec![8],
        pair: vec![0],
        terminal: &|before, after| {
            let s = after.store(Side::South) as i32 - before.store(Side::South) as i32;
            let n = after.store(Side::North) as i32 - before.store(Side::North) as i32;
            Some(s - n)
        },
    }
}
