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

use crate::tablebase::{
    positions, unmoves, unrank, Progress, Stage, TablebaseError, INVALID, LOSS_BIT, MAX_DTC, STUCK,
    UNFORCED,
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

/// The per-threshold entries, position-major (`status[idx * K + k]`), in the 8-seed table's
/// encoding: 0 neither, `d` won in `d`, `LOSS_BIT | d` lost in `d`, [`INVALID`], [`STUCK`].
pub struct Solved {
    pub thresholds: usize,
    pub status: Vec<u16>,
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

/// Runs the analysis on `threads` threads.
pub fn solve(game: &Game, threads: usize, progress: Progress) -> Result<Solved, TablebaseError> {
    let k = game.thresholds.len();
    let seeds = game.seeds;
    let n = positions(seeds) as usize;
    if n * k >= u32::MAX as usize {
        return Err(TablebaseError(
            "too many positions for 32-bit wave entries".into(),
        ));
    }
    let threads = threads.clamp(1, 64);
    let mut status = vec![UNFORCED; n * k];
    let mut degree = vec![0u8; n * k];

    // 1. Every position once, forward.
    let done = AtomicU64::new(0);
    let step = n.div_ceil(threads);
    std::thread::scope(|sc| {
        for (t, (st, dg)) in status
            .chunks_mut(step * k)
            .zip(degree.chunks_mut(step * k))
            .enumerate()
        {
            let done = &done;
            sc.spawn(move || {
                let lo = t * step;
                for j in 0..st.len() / k {
                    let idx = lo + j;
                    if idx & 0xffff == 0 {
                        let d = done.fetch_add(0x10000, Relaxed);
                        progress(Stage::Moves, d.min(n as u64), n as u64);
                    }
                    let holes = unrank(idx as u64, seeds);
                    let Some(pos) = position_south(&holes, seeds) else {
                        st[j * k..j * k + k].fill(INVALID);
                        continue;
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
                    for (i, &t) in game.thresholds.iter().enumerate() {
                        let e = &mut st[j * k + i];
                        if best.is_some_and(|b| b >= t) {
                            *e = 1;
                        } else if quiet + unknown == 0 {
                            *e = if any { LOSS_BIT | 1 } else { STUCK };
                        } else {
                            dg[j * k + i] = (quiet + unknown).min(255) as u8;
                        }
                    }
                }
            });
        }
    });
    progress(Stage::Moves, n as u64, n as u64);

    // 2. Waves, each undoing the moves into the positions the last one settled.
    let mut wave: Vec<u32> = (0..n * k)
        .filter(|&v| status[v] == 1 || status[v] == LOSS_BIT | 1)
        .map(|v| v as u32)
        .collect();
    let mut dist = 1u32;
    while !wave.is_empty() {
        progress(Stage::Retrograde, dist as u64, 0);
        if dist >= MAX_DTC {
            return Err(TablebaseError(format!(
                "a forced capture is longer than {MAX_DTC} plies: the entries cannot hold it"
            )));
        }
        let mut next = Vec::new();
        for chunk in wave.chunks(1 << 16) {
            // The predecessors of each settled position, found in parallel.
            let per = chunk.len().div_ceil(threads);
            let found: Vec<Vec<(u32, u64, bool)>> = std::thread::scope(|sc| {
                let hs: Vec<_> = chunk
                    .chunks(per.max(1))
                    .map(|part| {
                        sc.spawn(move || {
                            let mut out = Vec::new();
                            let mut b = Vec::new();
                            for &v in part {
                                let c = v as usize / k;
                                unmoves(&unrank(c as u64, seeds), seeds, &mut b);
                                out.extend(b.iter().map(|&(p, same)| (v, p, same)));
                            }
                            out
                        })
                    })
                    .collect();
                hs.into_iter()
                    .map(|h| h.join().expect("a retrograde thread panicked"))
                    .collect()
            });
            // Applied in order, on one thread.
            for (v, p, same) in found.into_iter().flatten() {
                let kc = v as usize % k;
                let child_wins = status[v as usize] & LOSS_BIT == 0;
                let kp = if same { kc } else { game.pair[kc] };
                let pv = p as usize * k + kp;
                if status[pv] != UNFORCED || degree[pv] == 0 {
                    continue;
                }
                if child_wins == same {
                    status[pv] = (dist + 1) as u16;
                    degree[pv] = 0;
                    next.push(pv as u32);
                } else {
                    degree[pv] -= 1;
                    if degree[pv] == 0 {
                        status[pv] = LOSS_BIT | (dist + 1) as u16;
                        next.push(pv as u32);
                    }
                }
            }
        }
        wave = next;
        dist += 1;
    }
    Ok(Solved {
        thresholds: k,
        status,
    })
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

/// Margins of the 12-seed game for the side to move, lowest first: the classes of an entry.
pub const MARGINS12: [i32; 4] = [-12, -4, 4, 12];
/// The 12-seed entry of a position that is not one (the side to move has no seeds): a lower
/// bound above the upper one, which no real entry has.
pub const INVALID12: u16 = 0xc000;

/// A 12-seed entry: the margin the side to move can force at least (`lower`) and at most
/// (`upper`, the opponent forcing no more), as indices of [`MARGINS12`], and the plies to the
/// capture that proves the further of the two (0 when neither bound is forced).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry12 {
    pub lower: u8,
    pub upper: u8,
    pub dtc: u16,
}

impl Entry12 {
    pub fn encode(self) -> u16 {
        (self.lower as u16) << 14 | (self.upper as u16) << 12 | self.dtc.min(0xfff)
    }

    /// `None` for [`INVALID12`].
    pub fn decode(e: u16) -> Option<Entry12> {
        let x = Entry12 {
            lower: (e >> 14) as u8,
            upper: (e >> 12 & 3) as u8,
            dtc: e & 0xfff,
        };
        (x.lower <= x.upper).then_some(x)
    }

    pub fn exact(self) -> Option<i32> {
        (self.lower == self.upper).then(|| MARGINS12[self.lower as usize])
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
    let k = solved.thresholds;
    let n = positions(12) as usize;
    let mut data = Vec::with_capacity(n);
    for idx in 0..n {
        let st = &solved.status[idx * k..idx * k + k];
        if st[0] == INVALID {
            data.push(INVALID12);
            continue;
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
        if dl.max(du) > 0xfff {
            return Err(TablebaseError(
                "a 12-seed distance is over 4095 plies: the entries cannot hold it".into(),
            ));
        }
        e.dtc = dl.max(du);
        data.push(e.encode());
    }
    drop(solved);
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

/// What [`cross_check12`] found.
#[derive(Clone, Debug, Default)]
pub struct CrossCheck {
    /// Random positions tried (no hole of 4, seeds for the side to move).
    pub tried: usize,
    /// Of those, the ones the table gives an exact value for and the solver proves.
    pub proven: usize,
    /// Positions where the two disagree, with the table's value and the solver's.
    pub disagreements: Vec<(Position, i32, i32)>,
}

/// Checks the 12-seed table against a method that never reads it: the exact solver
/// (`crate::solve`) with the 8-seed database only, on `samples` random positions (seeded, so a
/// run can be repeated), each within `nodes` nodes. Positions the solver cannot prove within
/// its limit are only counted as tried. `both` holds the 12- and 8-seed tables, `only8` the
/// 8-seed one.
pub fn cross_check12(
    both: &crate::tablebase::Tablebase,
    only8: &crate::tablebase::Tablebase,
    samples: usize,
    nodes: u64,
    seed: u64,
) -> CrossCheck {
    let n = positions(12);
    let mut x = seed | 1;
    let mut c = CrossCheck::default();
    while c.tried < samples {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let holes = unrank(x % n, 12);
        if holes.contains(&4) {
            continue;
        }
        let side = if x >> 63 == 0 {
            Side::South
        } else {
            Side::North
        };
        let Ok(p) = Position::from_parts(
            holes,
            [42, 42],
            Some(side),
            None,
            None,
            0,
            0,
            Rules::Anywoli,
        ) else {
            continue;
        };
        c.tried += 1;
        let Some(table) = both.probe(&p).and_then(|pr| pr.value) else {
            continue;
        };
        if let Ok(v) = crate::solve::Solver::new(Some(only8), nodes).value(&p) {
            c.proven += 1;
            if v != table {
                c.disagreements.push((p, table, v));
            }
        }
    }
    c
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
