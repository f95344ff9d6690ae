//! Holes, their numbering and their letters (docs/rules.md, "Numbering and letters").

use core::fmt;

use crate::Side;

/// One of the 24 holes, numbered 0..23 in sowing (counterclockwise) order.
///
/// South's row is 0..11 (`a`..`l`), North's row is 12..23 (`A`..`L`); hole `i` faces `23 - i`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Hole(u8);

impl Hole {
    /// Holes on the board, both rows.
    pub const COUNT: usize = 24;
    /// Holes in one row.
    pub const ROW: usize = 12;

    /// The hole with this number, if it is below 24.
    #[inline]
    pub const fn new(index: u8) -> Option<Hole> {
        if (index as usize) < Hole::COUNT {
            Some(Hole(index))
        } else {
            None
        }
    }

    /// The hole with this number modulo 24, so that no input can index out of bounds.
    #[inline]
    pub const fn new_wrapping(index: u8) -> Hole {
        Hole(index % 24)
    }

    /// The hole's number, 0..24 (`a` is 0, `A` is 12).
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The player whose row the hole is in.
    #[inline]
    pub const fn owner(self) -> Side {
        if self.0 < 12 {
            Side::South
        } else {
            Side::North
        }
    }

    /// The next hole in sowing order.
    #[inline]
    pub const fn next(self) -> Hole {
        Hole(if self.0 == 23 { 0 } else { self.0 + 1 })
    }

    /// The hole across the board.
    #[inline]
    pub const fn facing(self) -> Hole {
        Hole(23 - self.0)
    }

    /// The hole's letter: `a`..`l` for South, `A`..`L` for North.
    pub const fn letter(self) -> char {
        if self.0 < 12 {
            (b'a' + self.0) as char
        } else {
            (b'A' + self.0 - 12) as char
        }
    }

    /// The hole of a letter (`a`..`l`, `A`..`L`), or `None`.
    pub const fn from_letter(c: char) -> Option<Hole> {
        match c {
            'a'..='l' => Some(Hole(c as u8 - b'a')),
            'A'..='L' => Some(Hole(c as u8 - b'A' + 12)),
            _ => None,
        }
    }

    /// The holes of one side's row, in sowing order.
    pub fn row(side: Side) -> impl DoubleEndedIterator<Item = Hole> + ExactSizeIterator + Clone {
        let start = (side.index() * Hole::ROW) as u8;
        (start..start + Hole::ROW as u8).map(Hole)
    }

    /// All 24 holes, South's row then North's.
    pub fn all() -> impl DoubleEndedIterator<Item = Hole> + ExactSizeIterator + Clone {
        (0..Hole::COUNT as u8).map(Hole)
    }
}

impl fmt::Display for Hole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}
