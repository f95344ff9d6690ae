//! Distance to perfection: the endgame databases as the judge of a player's moves.
//!
//! Elo against ourselves says whether the engine improves, not how far it is from perfect
//! play. In positions the databases prove, every move has an exact value, so a player's
//! choice can be scored absolutely: whether it is one of the best moves, and how many seeds
//! it gives away against them. Two fixed sets of positions tell players apart (uniform
//! 8-seed positions do not: level 10 errs in well under 1% of them):
//!
//! - [`long_eights`]: 8-seed positions the side to move wins by a capture it can force only
//!   60 plies or more away (44 seeds in each store, so the capture decides the game);
//! - [`reachable_twelves`]: 12-seed positions met in real play (self-play games of the
//!   engine), one a game, with a single best move and the proven margin forced 50 plies away
//!   or more.
//!
//! docs/strength.md, "Distance to perfection", has the sets, the method and the figures.

use anywoli_core::{parse_position, Move, Position, PositionError, Rules, Side};

use crate::endgame::{positions, unrank, Tablebase, Verdict};

/// The committed set of long 8-seed wins (`anywoli bench --perfect --make-sets-from`), one
/// position a line, `#` starting a comment.
pub const LONG8: &str = include_str!("../perfect/long8.txt");
/// The committed set of 12-seed positions from self-play games.
pub const REACH12: &str = include_str!("../perfect/reach12.txt");

/// The positions of a set's text.
pub fn read_set(text: &str) -> Result<Vec<Position>, PositionError> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| parse_position(l, Rules::Anywoli))
        .collect()
}

/// Every move of `pos` with its exact value (net seeds the mover wins from `pos` on under
/// perfect play), by the databases; `None` when they do not prove every move.
pub fn move_values(tb: &Tablebase, pos: &Position) -> Option<Vec<(Move, i32)>> {
    let me = pos.to_move()?;
    let mut out = Vec::new();
    for mv in pos.moves() {
        let mut child = *pos;
        child.play_unchecked(mv).ok()?;
        let gain = (child.store(me) as i32 - pos.store(me) as i32)
            - (child.store(me.opponent()) as i32 - pos.store(me.opponent()) as i32);
        let v = match child.to_move() {
            None => gain,
            Some(s) => {
                let cv = tb.probe(&child)?.value?;
                gain + if s == me { cv } else { -cv }
            }
        };
        out.push((mv, v));
    }
    (!out.is_empty()).then_some(out)
}

/// How one chosen move compares with perfect play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    /// The move is not one of the best.
    pub error: bool,
    /// Seeds it gives away against the best (0 for a best move).
    pub lost: i32,
    /// It turns a won position (final margin above 0) into one that is not won.
    pub throws_win: bool,
}

/// Judges `chosen` among `values` (from [`move_values`]); `stores` is the mover's store lead.
pub fn judge(values: &[(Move, i32)], chosen: Move, stores: i32) -> Option<Choice> {
    let best = values.iter().map(|v| v.1).max()?;
    let got = values.iter().find(|v| v.0 == chosen)?.1;
    Some(Choice {
        error: got < best,
        lost: best - got,
        throws_win: stores + best > 0 && stores + got <= 0,
    })
}

/// The position of `holes` with `side` to move, 44 seeds in each store (8 in play) and the
/// quiet counter at 0, if it is valid.
fn eight_seed_position(holes: &[u8; 24], side: Side) -> Option<Position> {
    let row = |r: &[u8]| {
        r.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let s = format!(
        "{}/{} {} 44 44 - - 0 0",
        row(&holes[..12]),
        row(&holes[12..]),
        if side == Side::South { "s" } else { "n" }
    );
    parse_position(&s, Rules::Anywoli).ok()
}

/// `count` 8-seed positions, South to move, that South wins by a capture forced `min_dtc`
/// plies away or more (within the quiet rule's 100), taken at a fixed stride through the
/// database's index so that the set is the same on every run.
pub fn long_eights(tb: &Tablebase, count: usize, min_dtc: u16) -> Vec<Position> {
    let n = positions(8);
    // A stride prime to n walks the whole index once, spread over it.
    let stride = 1_000_003u64;
    let mut out = Vec::new();
    let mut idx = 12_345 % n;
    for _ in 0..n {
        idx = (idx + stride) % n;
        let holes = unrank(idx, 8);
        let Some(pos) = eight_seed_position(&holes, Side::South) else {
            continue;
        };
        let Some(p) = tb.probe(&pos) else { continue };
        if p.verdict == Verdict::Win && p.dtc >= min_dtc && p.in_time {
            // Only positions where a move can go wrong tell anything.
            let Some(values) = move_values(tb, &pos) else {
                continue;
            };
            if values.iter().any(|v| v.1 < 8) {
                out.push(pos);
                if out.len() == count {
                    break;
                }
            }
        }
    }
    out
}

/// Up to `count` 12-seed positions of `anywoli`, at most one from each game of `games`
/// (positions met in play, in their order): the first whose moves the databases value
/// exactly, with a single best move, and whose proven margin is forced `min_dtc` plies away or more
/// (a short forced capture is found by any search and tells nothing).
pub fn reachable_twelves(
    tb: &Tablebase,
    games: impl IntoIterator<Item = Vec<Position>>,
    count: usize,
    min_dtc: u16,
) -> Vec<Position> {
    let mut out = Vec::new();
    for game in games {
        let pick = game.into_iter().find(|pos| {
            if pos.seeds_in_play() != 12 || pos.rules() != Rules::Anywoli || pos.is_over() {
                return false;
            }
            if tb
                .probe(pos)
                .is_none_or(|p| p.dtc < min_dtc || p.value.is_none())
            {
                return false;
            }
            let Some(values) = move_values(tb, pos) else {
                return false;
            };
            // One best move, so that choosing is the question.
            let best = values.iter().map(|v| v.1).max().unwrap_or(0);
            values.iter().filter(|v| v.1 == best).count() == 1 && values.len() >= 2
        });
        if let Some(p) = pick {
            out.push(p);
            if out.len() == count {
                break;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_is_judged_against_the_best() {
        let m = |s: &str| s.parse::<Move>().unwrap();
        let values = [(m("a"), 8), (m("b"), -8), (m("c"), 8), (m("d"), 2)];
        assert_eq!(
            judge(&values, m("a"), 0),
            Some(Choice {
                error: false,
                lost: 0,
                throws_win: false
            })
        );
        assert_eq!(
            judge(&values, m("b"), 0),
            Some(Choice {
                error: true,
                lost: 16,
                throws_win: true
            })
        );
        // Still a win with a smaller margin: an error, not a thrown win.
        assert_eq!(
            judge(&values, m("d"), 0),
            Some(Choice {
                error: true,
                lost: 6,
                throws_win: false
            })
        );
        assert_eq!(judge(&values, m("e"), 0), None);
    }
}
