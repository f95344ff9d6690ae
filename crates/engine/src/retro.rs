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
//! ([`crate::tablebase::unmoves`]) instead of reading a stored graph.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use anywoli_core::{Position, Rules, Side, QUIET_LIMIT};

pub use crate::tablebase::entry12::{Entry12, INVALID12, MARGINS12};
use crate::tablebase::{
    positions, unmoves, unrank, Progress, Stage, TablebaseError, INVALID, LOSS_BIT, STUCK, UNFORCED,
};

/// What a retrograde analysis needs to know about the game.
pub struct Game<'a> {
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
    pub thresholds: usize,
    cells: Vec<u16>,
}

const OPEN: u32 = 0;
const WON: u32 = 1;
const LOST: u32 = 2;
const SPECIAL: u32 = 3;
/// The special fields' bytes.
const SPECIAL_INVALID: u32 = 0;
const SPECIAL_STUCK: u32 = 1;
/// The longest distance a field holds (the longest 12-seed proof is 237 plies).
pub const MAX_PACKED_DTC: u32 = 255;
/// Most thresholds a word holds.
pub const MAX_THRESHOLDS: usize = 3;

#[inline]
fn field(w: u32, k: usize) -> (u32, u32) {
    let f = w >> (10 * k) & 0x3ff;
    (f >> 8, f & 0xff)
}

#[inline]
fn with_field(w: u32, k: usize, state: u32, byte: u32) -> u32 {
    let shift = 10 * k;
    w & !(0x3ff << shift) | (state << 8 | byte) << shift
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
    fn word(&self, i: usize) -> u32 {
        self.cells[2 * i] as u32 | (self.cells[2 * i + 1] as u32) << 16
    }

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

fn position_south(holes: &[u8; 24], seeds: u8) -> Option<Position> {
    let rest = 96 - seeds;
    Position::from_parts(
        *holes,
        [rest / 2, rest - rest / 2],
        Some(Side::South),
        None,
        None,
        0,
        0,
        Rules::Anywoli,
    )
    .ok()
}

/// Longest list of positions a wave keeps for the next one; past it the next wave finds its
/// positions by scanning every word for its distance instead (the first waves settle tens of
/// millions of positions; a list of them would cost more memory than the words save).
const WAVE_LIST: usize = 1 << 24;
/// Positions a thread generates the predecessors of between two rounds of applying them.
const CHUNK: usize = 1 << 16;

/// Runs the analysis on `threads` threads.
pub fn solve(game: &Game, threads: usize, progress: Progress) -> Result<Solved, TablebaseError> {
    let k = game.thresholds.len();
    if k == 0 || k > MAX_THRESHOLDS {
        return Err(TablebaseError(format!(
            "{k} thresholds: the packed entries hold 1 to {MAX_THRESHOLDS}"
        )));
    }
    let seeds = game.seeds;
    let n = positions(seeds) as usize;
    if n >= u32::MAX as usize {
        return Err(TablebaseError(
            "too many positions for 32-bit wave entries".into(),
        ));
    }
    let threads = threads.clamp(1, 64);
    let mut solved = Solved {
        thresholds: k,
        cells: vec![0u16; 2 * n],
    };

    // 1. Every position once, forward.
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

    // 2. Waves, each undoing the moves into the positions the last one settled.
    let mut listed: Option<Vec<u32>> = None;
    let mut dist = 1u32;
    loop {
        progress(Stage::Retrograde, dist as u64, 0);
        if dist >= MAX_PACKED_DTC {
            return Err(TablebaseError(format!(
                "a forced capture is longer than {MAX_PACKED_DTC} plies: the packed entries cannot hold it"
            )));
        }
        // Which thresholds of a position this wave settled: a mask, 0 when none.
        let settled_now = |w: u32| -> u32 {
            (0..k)
                .filter(|&j| matches!(field(w, j), (WON | LOST, b) if b == dist))
                .fold(0, |m, j| m | 1 << j)
        };
        let mut next: Option<Vec<u32>> = Some(Vec::new());
        let mut any = false;
        match listed.take() {
            Some(mut list) => {
                list.sort_unstable();
                list.dedup();
                for chunk in list.chunks(CHUNK) {
                    any |= !chunk.is_empty();
                    apply(
                        &mut solved,
                        game,
                        Cands::List(chunk),
                        dist,
                        threads,
                        &mut next,
                        &settled_now,
                    );
                }
            }
            None => {
                // The positions settled at `dist` are found by scanning every word, a range
                // at a time, each thread its part of the range.
                let mut lo = 0;
                while lo < n {
                    let hi = (lo + CHUNK * threads).min(n);
                    any |= apply(
                        &mut solved,
                        game,
                        Cands::Range(lo, hi),
                        dist,
                        threads,
                        &mut next,
                        &settled_now,
                    );
                    lo = hi;
                }
            }
        }
        if !any {
            break;
        }
        listed = next;
        dist += 1;
    }
    Ok(solved)
}

/// The packed word of position `idx` after its forward expansion: captures decide thresholds
/// at once, quiet moves (and captures of unknown margin) are counted.
fn expand_word(game: &Game, idx: usize, seeds: u8) -> u32 {
    let k = game.thresholds.len();
    let holes = unrank(idx as u64, seeds);
    let Some(pos) = position_south(&holes, seeds) else {
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
    let seeds = game.seeds;
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
    let words = &*solved;
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
                        let wins = (0..game.thresholds.len())
                            .filter(|&j| field(cw, j).0 == WON)
                            .fold(0, |m, j| m | 1 << j);
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
    let found: Vec<Vec<Vec<Undone>>> = found.into_iter().map(|f| f.1).collect();
    let newly: Vec<Vec<u32>> = std::thread::scope(|sc| {
        let hs: Vec<_> = solved
            .cells
            .chunks_mut(2 * share)
            .enumerate()
            .map(|(t, cells)| {
                let found = &found;
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
    });
    for p in newly.into_iter().flatten() {
        match next {
            Some(list) if list.len() < WAVE_LIST => list.push(p),
            _ => *next = None,
        }
    }
    any
}

/// Predecessor word `pw` after one of its moves, into a position whose thresholds `mask`
/// were settled at `dist` (`wins`: those won), and whether that settled any of its own.
#[inline]
fn undone(game: &Game, mut pw: u32, same: bool, mask: u8, wins: u8, dist: u32) -> (u32, bool) {
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

/// Builds the 12-seed database of `anywoli` from the 8-seed one: for each position, the
/// margin of the remaining 12 seeds the side to move can force at least and at most, and the
/// plies to the capture (into the 8-seed ending) that decides it. A capture into an 8-seed
/// ending whose own forced capture is more than 100 plies away (the quiet rule would come
/// first) counts as unknown, so what the table proves holds under the quiet rule as long as
/// its distance fits the plies left.
pub fn build12(
    tb8: &crate::tablebase::Tablebase,
    threads: usize,
    progress: Progress,
) -> Result<crate::tablebase::Table, TablebaseError> {
    if tb8.table(8).is_none() {
        return Err(TablebaseError(
            "the 12-seed database is built from the 8-seed one: build that first".into(),
        ));
    }
    let terminal = |before: &Position, after: &Position| -> Option<i32> {
        let g = (after.store(Side::South) as i32 - before.store(Side::South) as i32)
            - (after.store(Side::North) as i32 - before.store(Side::North) as i32);
        match after.to_move() {
            None => Some(g),
            Some(s) => {
                let v = tb8.probe(after)?.value?;
                Some(g + if s == Side::South { v } else { -v })
            }
        }
    };
    let game = Game {
        seeds: 12,
        thresholds: vec![-4, 4, 12],
        pair: vec![2, 1, 0],
        terminal: &terminal,
    };
    let solved = solve(&game, threads, progress)?;
    let data = solved.into_entries(|st| {
        if st[0] == INVALID {
            return INVALID12;
        }
        // Won at threshold i: at least MARGINS12[i + 1]; lost: at most MARGINS12[i].
        let mut e = Entry12 {
            lower: 0,
            upper: 3,
            dtc: 0,
        };
        let (mut dl, mut du) = (0u16, 0u16);
        for (i, &s) in st.iter().enumerate() {
            if s == UNFORCED || s == STUCK {
                continue;
            }
            let d = s & !LOSS_BIT;
            if s & LOSS_BIT == 0 {
                if i as u8 + 1 > e.lower {
                    e.lower = i as u8 + 1;
                    dl = d;
                }
            } else if (i as u8) < e.upper {
                e.upper = i as u8;
                du = d;
            }
        }
        e.dtc = dl.max(du);
        e.encode()
    });
    crate::tablebase::Table::from_entries(12, data).map_err(TablebaseError)
}

/// What the 12-seed database holds, counted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats12 {
    pub positions: u64,
    pub invalid: u64,
    /// Positions whose margin is proven, by margin (−12, −4, +4, +12).
    pub exact: [u64; 4],
    /// Positions with only bounds (the quiet rule may decide).
    pub bounded: u64,
    /// Proven positions by distance to the deciding capture.
    pub by_dtc: Vec<u64>,
    pub longest: u32,
    pub longest_at: u64,
    /// The same for positions without a hole of 4 (what play can reach but for holes
    /// untouched since the start): proven, only bounds, the longest distance, and how many
    /// proven margins need more plies than the quiet rule's 100.
    pub playable: u64,
    pub playable_bounded: u64,
    pub longest_playable: u32,
    pub playable_over_quiet_limit: u64,
}

pub fn stats12(t: &crate::tablebase::Table) -> Stats12 {
    let mut s = Stats12 {
        positions: t.len() as u64,
        ..Stats12::default()
    };
    for i in 0..t.len() as u64 {
        match Entry12::decode(t.entry_at(i)) {
            None => s.invalid += 1,
            Some(e) => match e.exact() {
                Some(_) => {
                    s.exact[e.lower as usize] += 1;
                    let d = e.dtc as usize;
                    if s.by_dtc.len() <= d {
                        s.by_dtc.resize(d + 1, 0);
                    }
                    s.by_dtc[d] += 1;
                    if d as u32 > s.longest {
                        s.longest = d as u32;
                        s.longest_at = i;
                    }
                    // Play never leaves 4 seeds in a hole (the fourth is captured at once).
                    if !unrank(i, 12).contains(&4) {
                        s.playable += 1;
                        s.longest_playable = s.longest_playable.max(d as u32);
                        if d > QUIET_LIMIT as usize {
                            s.playable_over_quiet_limit += 1;
                        }
                    }
                }
                None => {
                    s.bounded += 1;
                    if !unrank(i, 12).contains(&4) {
                        s.playable_bounded += 1;
                    }
                }
            },
        }
    }
    s
}

/// Checks a 12-seed table against the moves of every position: its lower bound must be the
/// best lower bound among its moves, and its upper bound the best upper bound (a capture gives
/// its margin, exactly when the 8-seed database proves the ending; a quiet move the next
/// position's bounds, turned to the mover). This is a necessary condition — a table that fails
/// is wrong — not the full proof the 8-seed verifier gives (the entries keep one distance, not
/// one per bound).
pub fn verify12(
    t12: &crate::tablebase::Table,
    tb8: &crate::tablebase::Tablebase,
    threads: usize,
    progress: Progress,
) -> Result<Stats12, TablebaseError> {
    let n = positions(12);
    if t12.len() as u64 != n || t12.seeds() != 12 {
        return Err(TablebaseError("not a 12-seed table".into()));
    }
    let done = AtomicU64::new(0);
    let step = n.div_ceil(threads.clamp(1, 64) as u64);
    let bad: Vec<Option<u64>> = std::thread::scope(|sc| {
        let hs: Vec<_> = (0..threads.clamp(1, 64) as u64)
            .map(|th| {
                let done = &done;
                sc.spawn(move || {
                    let (lo, hi) = ((th * step).min(n), ((th + 1) * step).min(n));
                    for idx in lo..hi {
                        if idx & 0xffff == 0 {
                            let d = done.fetch_add(0x10000, Relaxed);
                            progress(Stage::Verify, d.min(n), n);
                        }
                        if !check12(t12, tb8, idx) {
                            return Some(idx);
                        }
                    }
                    None
                })
            })
            .collect();
        hs.into_iter()
            .map(|h| h.join().expect("a verify thread panicked"))
            .collect()
    });
    if let Some(idx) = bad.into_iter().flatten().next() {
        return Err(TablebaseError(format!(
            "12-seed entry {idx} disagrees with its moves: the database is wrong"
        )));
    }
    progress(Stage::Verify, n, n);
    Ok(stats12(t12))
}

fn check12(t12: &crate::tablebase::Table, tb8: &crate::tablebase::Tablebase, idx: u64) -> bool {
    let e = t12.entry_at(idx);
    let Some(pos) = position_south(&unrank(idx, 12), 12) else {
        return e == INVALID12;
    };
    let Some(entry) = Entry12::decode(e) else {
        return false;
    };
    let class = |m: i32| MARGINS12.iter().position(|&x| x == m);
    let (mut lo, mut hi) = (None::<usize>, None::<usize>);
    for mv in pos.moves() {
        let mut c = pos;
        if c.play_unchecked(mv).is_err() {
            continue;
        }
        let (l, h) = if c.seeds_in_play() < 12 {
            let g = (c.store(Side::South) as i32 - pos.store(Side::South) as i32)
                - (c.store(Side::North) as i32 - pos.store(Side::North) as i32);
            let m = match c.to_move() {
                None => Some(g),
                Some(s) => tb8
                    .probe(&c)
                    .and_then(|p| p.value)
                    .map(|v| g + if s == Side::South { v } else { -v }),
            };
            match m.and_then(class) {
                Some(x) => (x, x),
                None => (0, 3),
            }
        } else {
            let same = c.to_move() == Some(Side::South);
            let holes = if same {
                *c.holes()
            } else {
                crate::tablebase::turned(c.holes())
            };
            let Some(ce) = Entry12::decode(t12.entry_south(&holes)) else {
                return false;
            };
            if same {
                (ce.lower as usize, ce.upper as usize)
            } else {
                (3 - ce.upper as usize, 3 - ce.lower as usize)
            }
        };
        lo = Some(lo.map_or(l, |x: usize| x.max(l)));
        hi = Some(hi.map_or(h, |x: usize| x.max(h)));
    }
    match (lo, hi) {
        (Some(l), Some(h)) => l == entry.lower as usize && h == entry.upper as usize,
        _ => entry.lower == 0 && entry.upper == 3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_of_12_round_trip() {
        for lower in 0..4u8 {
            for upper in lower..4u8 {
                for dtc in [0u16, 1, 99, 4095] {
                    let e = Entry12 { lower, upper, dtc };
                    assert_eq!(Entry12::decode(e.encode()), Some(e));
                }
            }
        }
        assert_eq!(Entry12::decode(INVALID12), None);
        let e = Entry12 {
            lower: 2,
            upper: 2,
            dtc: 7,
        };
        assert_eq!(e.exact(), Some(4));
    }
}
