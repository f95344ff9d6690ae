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
//! itself) and one set of waves settles them all. The 16- and 20-seed layers are the same
//! analysis with four and five thresholds (built on a cluster, [`super::dist`]); their fields
//! are packed wider ([`super::packed`]).
//!
//! Every position is expanded once, forward (its captures decide thresholds at once, its
//! quiet moves are counted); then each wave undoes the moves into the positions it settled
//! ([`unmoves`]) instead of reading a stored graph.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use anywoli_core::{Position, Rules, Side};

use super::error::EndgameError;
use super::index::{position_of, positions, unrank};
use super::moves::unmoves;
pub use super::packed::{Packing, Solved, Word, MAX_THRESHOLDS};
use super::packed::{LOST, OPEN, SPECIAL, SPECIAL_INVALID, SPECIAL_STUCK, WON};
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

impl Game<'_> {
    /// How the game's fields are packed.
    pub fn packing(&self) -> Packing {
        Packing::of(self.thresholds.len())
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
        if dist >= game.packing().max_dtc() {
            return Err(EndgameError::PackedDistance {
                max: game.packing().max_dtc(),
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
    let pack = game.packing();
    std::thread::scope(|sc| {
        for (t, cells) in solved.cells.chunks_mut(step * pack.cells).enumerate() {
            let done = &done;
            sc.spawn(move || {
                let lo = t * step;
                for j in 0..cells.len() / pack.cells {
                    let idx = lo + j;
                    if idx & 0xffff == 0 {
                        let d = done.fetch_add(0x10000, Relaxed);
                        progress(Stage::Moves, d.min(n as u64), n as u64);
                    }
                    pack.write(cells, j, expand_word(game, idx, seeds));
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
    let n = solved.positions();
    let pack = game.packing();
    let settled_now = |w: Word| pack.settled_at(w, dist);
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
pub(super) fn expand_word(game: &Game, idx: usize, seeds: u8) -> Word {
    let pack = game.packing();
    let k = pack.k;
    let holes = unrank(idx as u64, seeds);
    let Some(pos) = position_of(&holes, seeds, Rules::Anywoli, None) else {
        return (0..k).fold(0, |w, j| pack.with_field(w, j, SPECIAL, SPECIAL_INVALID));
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
            pack.with_field(w, j, WON, 1)
        } else if quiet + unknown == 0 {
            if any {
                pack.with_field(w, j, LOST, 1)
            } else {
                pack.with_field(w, j, SPECIAL, SPECIAL_STUCK)
            }
        } else {
            // At most 12 moves: the count fits the byte.
            pack.with_field(w, j, OPEN, (quiet + unknown).min(255))
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
    settled_now: &(dyn Fn(Word) -> u32 + Sync),
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
    settled_now: &(dyn Fn(Word) -> u32 + Sync),
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
                        let wins = words.pack.won_mask(cw);
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
    let pack = solved.pack;
    std::thread::scope(|sc| {
        let hs: Vec<_> = solved
            .cells
            .chunks_mut(pack.cells * share)
            .enumerate()
            .map(|(t, cells)| {
                sc.spawn(move || {
                    let base = t * share;
                    let mut newly = Vec::new();
                    for &(p, same, mask, wins) in found.iter().flat_map(|f| &f[t]) {
                        let i = p as usize - base;
                        let before = pack.read(cells, i);
                        let (pw, won_or_lost) = undone(game, before, same, mask, wins, dist);
                        if pw != before {
                            pack.write(cells, i, pw);
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
    mut pw: Word,
    same: bool,
    mask: u8,
    wins: u8,
    dist: u32,
) -> (Word, bool) {
    let pack = game.packing();
    let mut newly = false;
    for kc in (0..game.thresholds.len()).filter(|&j| mask >> j & 1 != 0) {
        let child_wins = wins >> kc & 1 != 0;
        let kp = if same { kc } else { game.pair[kc] };
        let (state, byte) = pack.field(pw, kp);
        if state != OPEN {
            continue;
        }
        if child_wins == same {
            pw = pack.with_field(pw, kp, WON, dist + 1);
            newly = true;
        } else if byte <= 1 {
            pw = pack.with_field(pw, kp, LOST, dist + 1);
            newly = true;
        } else {
            pw = pack.with_field(pw, kp, OPEN, byte - 1);
        }
    }
    (pw, newly)
}

/// The 8-seed game as a one-threshold analysis (for checking this builder against the move
/// graph builder): the capturer wins.
pub fn eight() -> Game<'static> {
    eight_as(1)
}

/// The 8-seed game asked `k` times over ("the side to move can force at least +8", as `k`
/// thresholds, each field the same): the wide packings of the 16- and 20-seed layers (4 and 5
/// thresholds), checked on a layer one machine builds.
pub fn eight_as(k: usize) -> Game<'static> {
    Game {
        seeds: 8,
        thresholds: vec![8; k],
        pair: (0..k).rev().collect(),
        terminal: &|before, after| {
            let s = after.store(Side::South) as i32 - before.store(Side::South) as i32;
            let n = after.store(Side::North) as i32 - before.store(Side::North) as i32;
            Some(s - n)
        },
    }
}
