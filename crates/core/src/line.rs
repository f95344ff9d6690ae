//! A line of play: a start position and the moves played from it, replayed. A game's
//! positions, the position before any of its moves, which sides have moved and how far a
//! take-back goes back are all read from its line.

use core::fmt;

use crate::{BySide, Move, PlayError, Position, Side};

/// A start position and the moves played from it, in order.
///
/// Its moves are normally legal (they were checked when played, or [`Line::end`] checked
/// them); the lenient readings ([`Line::positions`], [`Line::after`], …) stop at the first one
/// that is not, as if the line ended there.
///
/// ```
/// use anywoli_core::{BySide, Line, Position, Rules, Side};
///
/// let start = Position::start(Rules::Anywoli);
/// let moves = ["e", "F", "a"].map(|m| m.parse().unwrap());
/// let line = Line::new(start, &moves);
/// assert_eq!(line.positions().count(), 4);
/// assert_eq!(line.before(1), Some(start));
/// assert_eq!(line.after(3), line.end().unwrap());
/// assert_eq!(line.sides_moved(), BySide::both(true));
/// // Taking back North's last move keeps the first move only; South's, the first two.
/// assert_eq!(line.take_back_to(&[Side::North]), Some(1));
/// assert_eq!(line.take_back_to(&[Side::South]), Some(2));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Line<'a> {
    /// The position before the first move.
    pub start: Position,
    /// The moves played from `start`.
    pub moves: &'a [Move],
}

/// A move of a line that cannot be played where it stands.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct IllegalMove {
    /// Which move, counting from 1.
    pub n: usize,
    /// Why it cannot be played.
    pub error: PlayError,
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "move {} is illegal: {}", self.n, self.error)
    }
}

impl core::error::Error for IllegalMove {}

impl<'a> Line<'a> {
    /// The line of `moves` played from `start`.
    pub const fn new(start: Position, moves: &'a [Move]) -> Line<'a> {
        Line { start, moves }
    }

    /// The position after every move, checking each one: the first that cannot be played is
    /// the error.
    pub fn end(self) -> Result<Position, IllegalMove> {
        let mut p = self.start;
        for (i, &mv) in self.moves.iter().enumerate() {
            p.play(mv)
                .map_err(|error| IllegalMove { n: i + 1, error })?;
        }
        Ok(p)
    }

    /// The start, then the position after each move.
    pub fn positions(self) -> Positions<'a> {
        Positions {
            next: Some(self.start),
            moves: self.moves.iter(),
        }
    }

    /// The position after the first `n` moves (all of them if there are fewer).
    pub fn after(self, n: usize) -> Position {
        self.positions()
            .take(n.saturating_add(1))
            .last()
            .unwrap_or(self.start)
    }

    /// The position before move `n` (counting from 1), if there is such a move.
    pub fn before(self, n: usize) -> Option<Position> {
        (1..=self.moves.len())
            .contains(&n)
            .then(|| self.after(n - 1))
    }

    /// Whether each side has played a move of the line.
    pub fn sides_moved(self) -> BySide<bool> {
        let mut moved = BySide::both(false);
        for (p, _) in self.positions().zip(self.moves) {
            if let Some(side) = p.to_move() {
                moved[side] = true;
            }
        }
        moved
    }

    /// The take-back rule: how many moves to keep to take back the last move played by any of
    /// `sides`, with every move after it; `None` if none of them has moved. Two sides undo
    /// the last move of either: a player holding both seats, or one whose opponent is the
    /// computer (whose replies go too).
    pub fn take_back_to(self, sides: &[Side]) -> Option<usize> {
        self.positions()
            .zip(self.moves)
            .enumerate()
            .filter(|(_, (p, _))| p.to_move().is_some_and(|s| sides.contains(&s)))
            .map(|(k, _)| k)
            .last()
    }
}

/// The positions of a [`Line`]: its start, then the position after each move, up to the
/// first move that cannot be played.
#[derive(Clone, Debug)]
pub struct Positions<'a> {
    next: Option<Position>,
    moves: core::slice::Iter<'a, Move>,
}

impl Iterator for Positions<'_> {
    type Item = Position;

    fn next(&mut self) -> Option<Position> {
        let p = self.next.take()?;
        if let Some(&mv) = self.moves.next() {
            let mut after = p;
            if after.play(mv).is_ok() {
                self.next = Some(after);
            }
        }
        Some(p)
    }
}
