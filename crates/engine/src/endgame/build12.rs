//! The 12-seed database of `anywoli`, built by retrograde analysis with generated
//! predecessors ([`super::retro`]) from the 8-seed one, which decides what each first capture
//! leads to; and the games of the 16- and 20-seed layers, built the same way from the layer
//! below, on a cluster ([`super::dist`]).

use anywoli_core::{Position, Side};

use super::bounds;
use super::error::EndgameError;
use super::probe::Tablebase;
use super::retro::{solve, Game};
use super::table::Table;
use super::work::Progress;

/// The margin for South, the side to move of `before`, of a move into `after` that captured:
/// the net seeds the move took, plus what the database of the layer below proves for the rest
/// when the game goes on. `None` when the database does not prove it.
pub(crate) fn capture_margin(tb: &Tablebase, before: &Position, after: &Position) -> Option<i32> {
    let g = (after.store(Side::South) as i32 - before.store(Side::South) as i32)
        - (after.store(Side::North) as i32 - before.store(Side::North) as i32);
    match after.to_move() {
        None => Some(g),
        Some(s) => {
            let v = tb.probe(after)?.value?;
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
    with_game(tb8, 12, f)
}

/// Runs `f` with the `seeds`-seed game (12, 16 or 20) of `anywoli` as a threshold analysis:
/// the thresholds are the layer's margins but the lowest ("the side to move can force at
/// least this"), each capture's margin decided by the database of the layer below in `tb`.
/// A move that passes the turn turns "at least `t`" into "less than the next margin above
/// `−t`" for the other side: the thresholds pair up from the two ends.
pub(crate) fn with_game<R>(
    tb: &Tablebase,
    seeds: u8,
    f: impl FnOnce(&Game) -> R,
) -> Result<R, EndgameError> {
    let margins = bounds::margins(seeds).ok_or(EndgameError::Layer {
        seeds,
        why: "captures take seeds by fours, so the layers are 8, 12, 16 and 20 seeds",
    })?;
    let lower = seeds - 4;
    if tb.table(lower).is_none() {
        return Err(if seeds == 12 {
            EndgameError::NoEight
        } else {
            EndgameError::NoLower { seeds, lower }
        });
    }
    let (thresholds, pair) = thresholds_of(margins);
    let terminal = |before: &Position, after: &Position| capture_margin(tb, before, after);
    Ok(f(&Game {
        seeds,
        thresholds,
        pair,
        terminal: &terminal,
    }))
}

/// The thresholds of a layer of these margins (all but the lowest: "at least this"), and for
/// each the one it becomes for the other side after a move that passes the turn. Margins are
/// symmetric about 0, so "at least `t`" for the mover is "at most `−t`" for the other side,
/// which fails "at least the next margin above `−t`": the thresholds pair from the two ends.
fn thresholds_of(margins: &[i32]) -> (Vec<i32>, Vec<usize>) {
    let thresholds = margins[1..].to_vec();
    let pair = (0..thresholds.len()).rev().collect();
    (thresholds, pair)
}

/// The 12-seed entry of a position from its entries at the thresholds −4, +4 and +12 (in the
/// 8-seed encoding): won at threshold `i`, at least `MARGINS12[i + 1]`; lost, at most
/// `MARGINS12[i]`.
pub(crate) fn entry12_of(st: &[u16]) -> u16 {
    bounds::entry_of(12, st)
}

/// The 16-seed entry of a position from its entries at the thresholds −8, 0, +8 and +16.
pub(crate) fn entry16_of(st: &[u16]) -> u16 {
    bounds::entry_of(16, st)
}

/// The 20-seed entry of a position from its entries at the thresholds −12, −4, +4, +12, +20.
pub(crate) fn entry20_of(st: &[u16]) -> u16 {
    bounds::entry_of(20, st)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each threshold's pair is the next margin above its negation, for every margin layer;
    /// the 12-seed one's is the pairing it was built with before the layers were generalised.
    #[test]
    fn thresholds_pair_with_the_next_margin_above_their_negation() {
        for seeds in [12u8, 16, 20] {
            let margins = bounds::margins(seeds).unwrap();
            let (t, pair) = thresholds_of(margins);
            assert_eq!(t.len(), margins.len() - 1);
            for (i, &p) in pair.iter().enumerate() {
                let next = *margins.iter().find(|&&m| m > -t[i]).unwrap();
                assert_eq!(t[p], next, "{seeds} seeds, threshold {}", t[i]);
            }
        }
        assert_eq!(
            thresholds_of(&bounds::MARGINS16),
            (vec![-8, 0, 8, 16], vec![3, 2, 1, 0])
        );
        let (t12, p12) = thresholds_of(bounds::margins(12).unwrap());
        assert_eq!((t12, p12), (vec![-4, 4, 12], vec![2, 1, 0]));
    }
}
