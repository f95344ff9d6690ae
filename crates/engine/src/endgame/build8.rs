//! The 8-seed database, built from the whole move graph held in memory and walked backwards
//! (docs/tablebase.md explains why a forward graph rather than a generator of unmoves).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::entry::{Entry, Verdict, INVALID, LOSS_BIT, MAX_DTC, STUCK, UNFORCED};
use super::error::EndgameError;
use super::index::positions;
use super::moves::{expand, Moves};
use super::table::Table;
use super::work::{parallel, Progress, Stage};

/// Builds the database of every position with `seeds` seeds in play (8 is the one built by
/// retrograde analysis here; see docs/tablebase.md for 12).
///
/// 1. Every move of every position is played once (`threads` at a time). A move that captures
///    decides at once; the others are edges of the move graph.
/// 2. The graph is turned round: each position gets the list of its predecessors.
/// 3. Retrograde: starting from the positions decided in one ply, each wave settles the
///    positions one ply further away. A position is won as soon as one move reaches a
///    position lost for the side that moves there (the first wave to find one gives the
///    shortest win); it is lost when its last undecided move turns out to lose (that wave
///    gives the longest resistance). Whatever is never settled is unforced.
pub fn build(seeds: u8, threads: usize, progress: Progress) -> Result<Table, EndgameError> {
    if seeds != 8 {
        return Err(EndgameError::Builder { seeds });
    }
    let n = positions(seeds);
    let parts = expand_all(seeds, threads, progress);
    progress(Stage::Moves, n, n);

    let mut entries: Vec<Entry> = Vec::with_capacity(n as usize);
    let mut degree: Vec<u8> = Vec::with_capacity(n as usize);
    for p in &parts {
        debug_assert_eq!(p.lo, entries.len() as u64);
        entries.extend_from_slice(&p.entries);
        degree.extend_from_slice(&p.degree);
    }
    let graph = link(parts, n, progress);
    retrograde(&mut entries, &mut degree, &graph, progress)?;
    Ok(Table::in_memory(seeds, entries))
}

/// One thread's share of the positions after stage 1: their entries as far as their own moves
/// decide them, the number of their quiet moves, and those moves' children (the top bit says
/// the same side moves again there).
struct Part {
    lo: u64,
    entries: Vec<Entry>,
    degree: Vec<u8>,
    edges: Vec<u32>,
}

/// 1. Moves: every position's moves played once, on `threads` threads.
fn expand_all(seeds: u8, threads: usize, progress: Progress) -> Vec<Part> {
    let n = positions(seeds);
    let done = AtomicU64::new(0);
    parallel(n, threads, |lo, hi| {
        let mut moves = Moves::default();
        let mut part = Part {
            lo,
            entries: Vec::with_capacity((hi - lo) as usize),
            degree: Vec::with_capacity((hi - lo) as usize),
            edges: Vec::new(),
        };
        for idx in lo..hi {
            let (e, deg) = match expand(idx, seeds, &mut moves) {
                None => (INVALID, 0),
                Some(()) if moves.mine > 0 => (1, 0),
                Some(()) if moves.quiet.is_empty() && moves.theirs > 0 => (LOSS_BIT | 1, 0),
                Some(()) if moves.quiet.is_empty() => (STUCK, 0),
                Some(()) => {
                    for &(c, same) in &moves.quiet {
                        part.edges.push(c | (same as u32) << 31);
                    }
                    (UNFORCED, moves.quiet.len() as u8)
                }
            };
            part.entries.push(e);
            part.degree.push(deg);
            if idx & 0xffff == 0 {
                let d = done.fetch_add(0x10000, Relaxed);
                progress(Stage::Moves, d.min(n), n);
            }
        }
        part
    })
}

/// The move graph turned round: the predecessors of child `c` are
/// `preds[start[c]..start[c + 1]]`, each a parent index with the top bit set when the same
/// side moves again in the child.
struct Predecessors {
    start: Vec<u32>,
    preds: Vec<u32>,
}

/// 2. Predecessors, as one array sorted by child (counting sort).
fn link(parts: Vec<Part>, n: u64, progress: Progress) -> Predecessors {
    let edges: usize = parts.iter().map(|p| p.edges.len()).sum();
    progress(Stage::Links, 0, 2);
    let mut start = vec![0u32; n as usize + 1];
    for p in &parts {
        for &e in &p.edges {
            start[(e & 0x7fff_ffff) as usize + 1] += 1;
        }
    }
    for i in 0..n as usize {
        start[i + 1] += start[i];
    }
    progress(Stage::Links, 1, 2);
    let mut fill = start.clone();
    let mut preds = vec![0u32; edges];
    for p in &parts {
        let mut k = 0;
        for (j, &deg) in p.degree.iter().enumerate() {
            let parent = (p.lo + j as u64) as u32;
            for &e in &p.edges[k..k + deg as usize] {
                let c = (e & 0x7fff_ffff) as usize;
                preds[fill[c] as usize] = parent | (e & 0x8000_0000);
                fill[c] += 1;
            }
            k += deg as usize;
        }
    }
    drop(fill);
    drop(parts);
    progress(Stage::Links, 2, 2);
    Predecessors { start, preds }
}

/// 3. Retrograde, one wave per ply of distance.
fn retrograde(
    entries: &mut [Entry],
    degree: &mut [u8],
    graph: &Predecessors,
    progress: Progress,
) -> Result<(), EndgameError> {
    let n = entries.len();
    let mut wave: Vec<u32> = (0..n as u32)
        .filter(
            |&i| matches!(Verdict::of(entries[i as usize]), Some((v, 1)) if v != Verdict::Unforced),
        )
        .collect();
    let mut dist = 1u32;
    while !wave.is_empty() {
        progress(Stage::Retrograde, dist as u64, 0);
        if dist >= MAX_DTC {
            return Err(EndgameError::Distance { max: MAX_DTC });
        }
        let mut next = Vec::new();
        for &c in &wave {
            let child_wins = entries[c as usize] & LOSS_BIT == 0;
            let (a, b) = (
                graph.start[c as usize] as usize,
                graph.start[c as usize + 1] as usize,
            );
            for &p in &graph.preds[a..b] {
                let parent = (p & 0x7fff_ffff) as usize;
                if entries[parent] != UNFORCED || degree[parent] == 0 {
                    continue;
                }
                let same = p & 0x8000_0000 != 0;
                // The child's verdict is its mover's; it is the parent's when the same side
                // moves again there (a pass), else the reverse.
                if child_wins == same {
                    entries[parent] = (dist + 1) as Entry;
                    degree[parent] = 0;
                    next.push(parent as u32);
                } else {
                    degree[parent] -= 1;
                    if degree[parent] == 0 {
                        entries[parent] = LOSS_BIT | (dist + 1) as Entry;
                        next.push(parent as u32);
                    }
                }
            }
        }
        wave = next;
        dist += 1;
    }
    Ok(())
}
