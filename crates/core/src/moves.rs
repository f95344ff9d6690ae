//! Moves and sets of moves.

use core::fmt;
use core::str::FromStr;

use crate::{Hole, Side};

/// A move: the hole it starts from, written as that hole's letter.
///
/// ```
/// use anywoli_core::{Move, Side};
///
/// let m: Move = "C".parse().unwrap();
/// assert_eq!(m.side(), Side::North);
/// assert_eq!(m.hole().index(), 14);
/// assert_eq!(m.to_string(), "C");
/// assert!("z".parse::<Move>().is_err());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Move(Hole);

impl Move {
    /// The move that sows from `hole`.
    #[inline]
    pub const fn new(hole: Hole) -> Move {
        Move(hole)
    }

    /// The hole the move sows from.
    #[inline]
    pub const fn hole(self) -> Hole {
        self.0
    }

    /// The player this move belongs to (the owner of its hole).
    #[inline]
    pub const fn side(self) -> Side {
        self.0.owner()
    }

    /// The move's letter, its hole's: `a`..`l` for South, `A`..`L` for North.
    pub const fn letter(self) -> char {
        self.0.letter()
    }

    /// The move of a letter (`a`..`l`, `A`..`L`), or `None`.
    pub const fn from_letter(c: char) -> Option<Move> {
        match Hole::from_letter(c) {
            Some(h) => Some(Move(h)),
            None => None,
        }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// Why a move's text is not a move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseMoveError {
    text: alloc::string::String,
}

impl fmt::Display for ParseMoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "'{}' is not a move: a move is one hole letter, a..l for South or A..L for North",
            self.text.escape_debug()
        )
    }
}

impl core::error::Error for ParseMoveError {}

impl FromStr for Move {
    type Err = ParseMoveError;

    fn from_str(s: &str) -> Result<Move, ParseMoveError> {
        let mut chars = s.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => Move::from_letter(c),
            _ => None,
        }
        .ok_or_else(|| ParseMoveError {
            text: s.chars().take(40).collect(),
        })
    }
}

/// A set of moves as a bit mask over holes (bit `i` = hole `i`); iterating allocates nothing.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct MoveSet(u32);

impl MoveSet {
    /// No move.
    pub const EMPTY: MoveSet = MoveSet(0);

    /// The set of these bits (bit `i` = hole `i`); bits above hole 23 are dropped.
    #[inline]
    pub const fn from_bits(bits: u32) -> MoveSet {
        MoveSet(bits & 0x00ff_ffff)
    }

    /// The bit mask (bit `i` = hole `i`).
    #[inline]
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// How many moves the set holds.
    #[inline]
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set holds no move.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether `m` is in the set.
    #[inline]
    pub const fn contains(self, m: Move) -> bool {
        self.0 & (1 << m.hole().index()) != 0
    }

    /// Adds `m`.
    #[inline]
    pub fn insert(&mut self, m: Move) {
        self.0 |= 1 << m.hole().index();
    }

    /// Takes `m` out.
    #[inline]
    pub fn remove(&mut self, m: Move) {
        self.0 &= !(1 << m.hole().index());
    }

    /// The `n`-th move in hole order, if there are more than `n`.
    #[inline]
    pub fn nth(self, n: usize) -> Option<Move> {
        let mut bits = self.0;
        for _ in 0..n {
            bits &= bits.wrapping_sub(1);
        }
        if bits == 0 {
            None
        } else {
            Some(Move(Hole::new_wrapping(bits.trailing_zeros() as u8)))
        }
    }
}

impl Iterator for MoveSet {
    type Item = Move;

    #[inline]
    fn next(&mut self) -> Option<Move> {
        if self.0 == 0 {
            return None;
        }
        let i = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(Move(Hole::new_wrapping(i)))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        // `MoveSet::len`, not `ExactSizeIterator::len` (which calls `size_hint`): on `&self`
        // method resolution would pick the trait's and recurse forever.
        let n = MoveSet::len(*self);
        (n, Some(n))
    }
}

impl ExactSizeIterator for MoveSet {}
