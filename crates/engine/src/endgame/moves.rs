//! The moves of a position as the builders and checkers see them: forward (`expand`: what
//! each move does, by index) and backward ([`unmoves`]: the positions a quiet move came from).

use anywoli_core::{Rules, Side};

use super::index::{position_of, rank, turned, unrank, HOLES};

/// The moves of one position, sorted: captures the mover makes, captures the opponent makes,
/// and the positions reached without a capture (their index, and whether the same side is to
/// move there: the opponent had no seeds and passed).
#[derive(Default)]
pub(crate) struct Moves {
    pub mine: u32,
    pub theirs: u32,
    pub never_end: u32,
    pub quiet: Vec<(u32, bool)>,
}

/// Plays every move of the position of index `idx` (South to move) and sorts what happens.
/// `None` when it is not a position.
pub(crate) fn expand(idx: u64, seeds: u8, out: &mut Moves) -> Option<()> {
    out.mine = 0;
    out.theirs = 0;
    out.never_end = 0;
    out.quiet.clear();
    let holes = unrank(idx, seeds);
    let pos = position_of(&holes, seeds, Rules::Anywoli, None)?;
    for mv in pos.moves() {
        let mut child = pos;
        if child.play_unchecked(mv).is_err() {
            out.never_end += 1;
            continue;
        }
        if child.seeds_in_play() < seeds {
            // With 8 in play the first capture ends the game; its taker is the last capturer.
            if child.last_capturer() == Some(Side::South) {
                out.mine += 1;
            } else {
                out.theirs += 1;
            }
            continue;
        }
        let same = child.to_move() == Some(Side::South);
        let ci = if same {
            rank(child.holes(), seeds)
        } else {
            rank(&turned(child.holes()), seeds)
        };
        out.quiet.push((ci as u32, same));
    }
    Some(())
}

/// The predecessors of a position with South to move, reached by a move without a capture:
/// the ranks of the positions before it (South to move, the board turned round when North
/// made the move) and whether the same side moves again (South moved, and North has no seeds
/// and passes). One entry per move, so two moves from one position to this one give two.
///
/// The first step towards the 12-seed database (docs/tablebase.md): a retrograde build that
/// generates predecessors instead of storing the move graph. A move is undone lap by lap from
/// its end: the last lap ended in a hole that was empty (it holds 1 now); each lap of `L` seeds
/// began in the hole `L` before its last one, which it emptied (it holds 0 now), and passed
/// holes that hold 1 or more and not 4 (a fourth seed would have been captured); that hole held
/// `L` when the lap began, which the previous lap made by dropping its last seed there (so `L` is
/// at least 2 and not 4), unless this was the first lap — then the hole is the mover's.
pub fn unmoves(holes: &[u8; HOLES], seeds: u8, out: &mut Vec<(u64, bool)>) {
    out.clear();
    // North moved, into South's turn.
    let before = turned(holes);
    undo_move(&before, seeds, &mut |b| out.push((rank(b, seeds), false)));
    // South moved and North, with no seeds, passed.
    if holes[12..].iter().all(|&c| c == 0) {
        undo_move(holes, seeds, &mut |b| out.push((rank(b, seeds), true)));
    }
}

/// Every board from which South's move (a hole of `0..12`) ends without a capture on `after`.
fn undo_move(after: &[u8; HOLES], seeds: u8, emit: &mut dyn FnMut(&[u8; HOLES])) {
    let mut path: Vec<([u8; HOLES], usize)> = Vec::new();
    for e in 0..HOLES {
        if after[e] == 1 {
            undo_lap(after, e, seeds, &mut path, emit);
        }
    }
}

/// Undoes the lap that ended in hole `e` of board `x` (the board right after that lap), and the
/// laps before it. `path` holds the states already undone on this line: meeting one again is a
/// cycle, which no move that ends can contain.
fn undo_lap(
    x: &[u8; HOLES],
    e: usize,
    seeds: u8,
    path: &mut Vec<([u8; HOLES], usize)>,
    emit: &mut dyn FnMut(&[u8; HOLES]),
) {
    if path.iter().any(|(b, h)| *h == e && b == x) || path.len() > 4096 {
        return;
    }
    path.push((*x, e));
    for len in 1..=(seeds as usize).min(HOLES - 1) {
        let s = (e + HOLES - len) % HOLES;
        if x[s] == 0 {
            // The lap began in `s` with `len` seeds.
            let mut y = *x;
            y[e] -= 1;
            for k in 1..len {
                y[(s + k) % HOLES] -= 1;
            }
            y[s] = len as u8;
            if s < 12 {
                emit(&y);
            }
            if len >= 2 && len != 4 {
                undo_lap(&y, s, seeds, path, emit);
            }
            // A longer lap would pass this empty hole: impossible.
            break;
        }
        if x[s] == 4 {
            break;
        }
    }
    path.pop();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endgame::index::positions;

    /// The unmove generator against the moves: on a sample of 8-seed positions, every quiet
    /// move of a parent is among its child's unmoves, and every unmove of a child is a move of
    /// that parent, as many times.
    #[test]
    fn unmoves_are_the_moves_turned_round() {
        let n = positions(8);
        let mut moves = Moves::default();
        let mut back = Vec::new();
        let mut checked = 0;
        for idx in (0..n).step_by(37) {
            if expand(idx, 8, &mut moves).is_none() {
                continue;
            }
            for &(c, same) in &moves.quiet {
                unmoves(&unrank(c as u64, 8), 8, &mut back);
                assert!(
                    back.contains(&(idx, same)),
                    "{idx} -> {c} ({same}) is not among the unmoves of {c}"
                );
                checked += 1;
            }
        }
        assert!(checked > 500_000, "{checked}");
        let mut checked = 0;
        for c in (0..n).step_by(41) {
            let holes = unrank(c, 8);
            if holes[..12].iter().all(|&k| k == 0) {
                continue;
            }
            unmoves(&holes, 8, &mut back);
            for &(p, same) in &back {
                expand(p, 8, &mut moves).expect("an unmove gives a position");
                let forward = moves
                    .quiet
                    .iter()
                    .filter(|&&q| q == (c as u32, same))
                    .count();
                let backward = back.iter().filter(|&&b| b == (p, same)).count();
                assert_eq!(forward, backward, "{p} -> {c} ({same})");
                checked += 1;
            }
        }
        assert!(checked > 500_000, "{checked}");
    }
}
