//! The 12-seed database of `anywoli`, built by retrograde analysis with generated
//! predecessors ([`super::retro`]) from the 8-seed one, which decides what each first capture
//! leads to.

use anywoli_core::{Position, Side};

use super::entry::{INVALID, LOSS_BIT, STUCK, UNFORCED};
use super::entry12::{Entry12, INVALID12};
use super::error::EndgameError;
use super::probe::Tablebase;
use super::retro::{solve, Game};
use super::table::Table;
use super::work::Progress;

/// The margin for South, the side to move of `before`, of a move into `after` that captured:
/// the net seeds the move took, plus what the 8-seed database proves for the rest when the game
/// goes on. `None` when the database does not prove it.
pub(crate) fn capture_margin(tb8: &Tablebase, before: &Position, after: &Position) -> Option<i32> {
    let g = (after.store(Side::South) as i32 - before.store(Side::South) as i32)
        - (after.store(Side::North) as i32 - before.store(Side::North) as i32);
    match after.to_move() {
        None => Some(g),
        Some(s) => {
            let v = tb8.probe(after)?.value?;
            Some(g + if s == Side::South { v } else { -v })
        }
    }
}

/// Builds the 12-seed database of `anywoli` from the 8-seed one: for each position, the
/// margin of the remaining 12 seeds the side to move can force at least and at most, and the
/// plies to the capture (into the 8-seed ending) that decides it. A capture into an 8-seed
/// ending whose own forced capture is more than 100 plies away (the quiet rule would come
/// first) counts as unknown, so what the table proves holds under the quiet rule as long as
/// its distance fits the plies left.
pub fn build12(tb8: &Tablebase, threads: usize, progress: Progress) -> Result<Table, EndgameError> {
    let solved = with_game12(tb8, |game| solve(game, threads, progress))??;
    let data = solved.into_entries(entry12_of);
    Table::from_entries(12, data)
}

/// Runs `f` with the 12-seed game of `anywoli` as a threshold analysis: the side to move can
/// force at least −4, +4, +12, each capture's margin decided by the 8-seed database `tb8`.
pub(crate) fn with_game12<R>(
    tb8: &Tablebase,
    f: impl FnOnce(&Game) -> R,
) -> Result<R, EndgameError> {
    if tb8.table(8).is_none() {
        return Err(EndgameError::NoEight);
    }
    let terminal = |before: &Position, after: &Position| capture_margin(tb8, before, after);
    Ok(f(&Game {
        seeds: 12,
        thresholds: vec![-4, 4, 12],
        pair: vec![2, 1, 0],
        terminal: &terminal,
    }))
}

/// The 12-seed entry of a position from its entries at the thresholds −4, +4 and +12 (in the
/// 8-seed encoding): won at threshold `i`, at least `MARGINS12[i + 1]`; lost, at most
/// `MARGINS12[i]`.
pub(crate) fn entry12_of(st: &[u16]) -> u16 {
    if st[0] == INVALID {
        return INVALID12;
    }
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
}
