//! Every entry of a database checked against the moves of its position: the full proof for
//! the 8-seed table ([`verify`]), a necessary condition for the 12-seed one ([`verify12`]).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use anywoli_core::{Rules, Side};

use super::build12::capture_margin;
use super::entry::{Entry, Verdict, INVALID, LOSS_BIT, STUCK, UNFORCED};
use super::entry12::{Entry12, INVALID12, MARGINS12};
use super::error::EndgameError;
use super::index::{position_of, positions, turned, unrank};
use super::moves::{expand, Moves};
use super::probe::Tablebase;
use super::stats::{stats12, Stats, Stats12};
use super::table::Table;
use super::work::{parallel, Progress, Stage};

/// Checks every entry of a table against the moves of its position: a win in `d` must have a
/// move to a loss in `d - 1` for the side then to move (or a capture when `d` is 1) and none
/// shorter; a loss in `d` must have every move lose, the longest in `d`; an unforced position
/// must have no winning move and a move to an unforced one. A table that passes is right:
/// by induction on the distance, every win and loss it states is a forced capture of that
/// length, and every forced capture is stated.
pub fn verify(table: &Table, threads: usize, progress: Progress) -> Result<Stats, EndgameError> {
    let seeds = table.seeds();
    let n = positions(seeds);
    if table.len() as u64 != n {
        return Err(EndgameError::Size);
    }
    let done = AtomicU64::new(0);
    let errors = parallel(n, threads, |lo, hi| {
        let mut moves = Moves::default();
        for idx in lo..hi {
            if idx & 0xffff == 0 {
                let d = done.fetch_add(0x10000, Relaxed);
                progress(Stage::Verify, d.min(n), n);
            }
            if !check8(table, idx, &mut moves) {
                return Err(idx);
            }
        }
        Ok(())
    });
    for r in errors {
        if let Err(idx) = r {
            let pos = position_of(&unrank(idx, seeds), seeds, Rules::Anywoli, None)
                .map_or_else(|| format!("{:?}", unrank(idx, seeds)), |p| p.to_string());
            return Err(EndgameError::Disagrees {
                index: idx,
                position: pos,
            });
        }
    }
    progress(Stage::Verify, n, n);
    Ok(table.stats())
}

/// Whether the entry of `idx` is the one its moves give (`moves` is scratch).
fn check8(table: &Table, idx: u64, moves: &mut Moves) -> bool {
    let e = table.entry_at(idx);
    let Some(()) = expand(idx, table.seeds(), moves) else {
        return e == INVALID;
    };
    // What each move gives the mover: Some(Win/Loss, plies to the capture) or None.
    let mut best_win = if moves.mine > 0 { Some(1u32) } else { None };
    let mut all_lose = moves.mine == 0;
    let mut longest_loss = if moves.theirs > 0 { 1u32 } else { 0 };
    let mut any = moves.mine + moves.theirs > 0;
    for &(c, same) in &moves.quiet {
        any = true;
        let ce = table.entry_at(c as u64);
        match Verdict::of(ce) {
            None => return false,
            Some((Verdict::Unforced, _)) => all_lose = false,
            Some((v, d)) => {
                let good = (v == Verdict::Win) == same;
                let d = d as u32 + 1;
                if good {
                    all_lose = false;
                    best_win = Some(best_win.map_or(d, |b| b.min(d)));
                } else {
                    longest_loss = longest_loss.max(d);
                }
            }
        }
    }
    let want = if !any {
        STUCK
    } else if let Some(d) = best_win {
        d as Entry
    } else if all_lose {
        LOSS_BIT | longest_loss as Entry
    } else {
        UNFORCED
    };
    e == want
}

/// Checks a 12-seed table against the moves of every position: its lower bound must be the
/// best lower bound among its moves, and its upper bound the best upper bound (a capture gives
/// its margin, exactly when the 8-seed database proves the ending; a quiet move the next
/// position's bounds, turned to the mover). This is a necessary condition — a table that fails
/// is wrong — not the full proof the 8-seed verifier gives (the entries keep one distance, not
/// one per bound).
pub fn verify12(
    t12: &Table,
    tb8: &Tablebase,
    threads: usize,
    progress: Progress,
) -> Result<Stats12, EndgameError> {
    let n = positions(12);
    if t12.len() as u64 != n || t12.seeds() != 12 {
        return Err(EndgameError::NotTwelve);
    }
    let done = AtomicU64::new(0);
    let bad = parallel(n, threads, |lo, hi| {
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
    });
    if let Some(idx) = bad.into_iter().flatten().next() {
        return Err(EndgameError::Disagrees12 { index: idx });
    }
    progress(Stage::Verify, n, n);
    Ok(stats12(t12))
}

fn check12(t12: &Table, tb8: &Tablebase, idx: u64) -> bool {
    let e = t12.entry_at(idx);
    let Some(pos) = position_of(&unrank(idx, 12), 12, Rules::Anywoli, None) else {
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
            match capture_margin(tb8, &pos, &c).and_then(class) {
                Some(x) => (x, x),
                None => (0, 3),
            }
        } else {
            let same = c.to_move() == Some(Side::South);
            let holes = if same { *c.holes() } else { turned(c.holes()) };
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
