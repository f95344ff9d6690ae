//! The two players.

use core::fmt;

/// A player: South owns holes `a`..`l` (0..11) and moves first, North owns `A`..`L` (12..23).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Side {
    /// Owns holes `a`..`l` and moves first.
    South = 0,
    /// Owns holes `A`..`L`.
    North = 1,
}

impl Side {
    /// Both sides, South first.
    pub const ALL: [Side; 2] = [Side::South, Side::North];

    /// The other side.
    #[inline]
    pub const fn opponent(self) -> Side {
        match self {
            Side::South => Side::North,
            Side::North => Side::South,
        }
    }

    /// 0 for South, 1 for North, to index per-side arrays.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The letter used in position strings: `s` or `n`.
    pub const fn char(self) -> char {
        match self {
            Side::South => 's',
            Side::North => 'n',
        }
    }

    /// The side of a position-string letter (`s` or `n`), or `None`.
    pub fn from_char(c: char) -> Option<Side> {
        match c {
            's' => Some(Side::South),
            'n' => Some(Side::North),
            _ => None,
        }
    }

    /// The side's name: `South` or `North`.
    pub const fn name(self) -> &'static str {
        match self {
            Side::South => "South",
            Side::North => "North",
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
