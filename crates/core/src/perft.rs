//! Perft: the number of move sequences of exactly `depth` plies, to check move generation and
//! sowing against other programs and against itself.

use crate::{Move, Position};

/// Move sequences of exactly `depth` plies from `pos`; a game that ends sooner is not counted,
/// a pass is not a ply, an extra move is.
///
/// ```
/// use anywoli_core::{divide, perft, Position, Rules};
///
/// let start = Position::start(Rules::Anywoli);
/// assert_eq!(perft(&start, 1), 12);
/// let by_move = divide(&start, 2);
/// assert_eq!(by_move.iter().map(|(_, n)| n).sum::<u64>(), perft(&start, 2));
/// ```
pub fn perft(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut n = 0;
    for mv in pos.moves() {
        let mut p = *pos;
        if p.play_unchecked(mv).is_ok() {
            n += if depth == 1 { 1 } else { perft(&p, depth - 1) };
        }
    }
    n
}

/// Perft split by first move, in hole order; moves whose sowing never ends are left out.
pub fn divide(pos: &Position, depth: u32) -> alloc::vec::Vec<(Move, u64)> {
    let mut out = alloc::vec::Vec::new();
    if depth == 0 {
        return out;
    }
    for mv in pos.moves() {
        let mut p = *pos;
        if p.play_unchecked(mv).is_ok() {
            out.push((mv, perft(&p, depth - 1)));
        }
    }
    out
}
