//! A player's sides so far: the rules every format keeps about who plays South.

use std::fmt;
use std::str::FromStr;

use anywoli_core::Side;
use serde::{Deserialize, Serialize};

/// The sides a player played, in order, one per round: `S`, `N`, or `-` for a round without a
/// game (a bye, a withdrawal, a pause). Rounds without a game do not count for the side rules.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Sides(Vec<Option<Side>>);

/// A sides string with something other than `S`, `N` and `-` in it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("sides \"{sides}\": only S, N and - (a round without a game)")]
pub struct SidesError {
    /// The string given.
    pub sides: String,
}

impl FromStr for Sides {
    type Err = SidesError;

    fn from_str(s: &str) -> Result<Self, SidesError> {
        s.chars()
            .map(|c| match c {
                'S' => Ok(Some(Side::South)),
                'N' => Ok(Some(Side::North)),
                '-' => Ok(None),
                _ => Err(SidesError { sides: s.into() }),
            })
            .collect::<Result<_, _>>()
            .map(Sides)
    }
}

impl TryFrom<String> for Sides {
    type Error = SidesError;

    fn try_from(s: String) -> Result<Self, SidesError> {
        s.parse()
    }
}

impl From<Sides> for String {
    fn from(s: Sides) -> String {
        s.to_string()
    }
}

impl fmt::Display for Sides {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for s in &self.0 {
            f.write_str(match s {
                Some(Side::South) => "S",
                Some(Side::North) => "N",
                None => "-",
            })?;
        }
        Ok(())
    }
}

impl Sides {
    /// The sides of the games played, rounds without one left out.
    pub fn played(&self) -> impl DoubleEndedIterator<Item = Side> + '_ {
        self.0.iter().flatten().copied()
    }

    /// Games played as South, then as North.
    pub fn counts(&self) -> (usize, usize) {
        let south = self.played().filter(|&s| s == Side::South).count();
        (south, self.played().count() - south)
    }

    /// One more round: `side`, or `None` for a round without a game.
    pub fn push(&mut self, side: Option<Side>) {
        self.0.push(side);
    }

    /// Whether the last two games were both on `side`: a third would break the rule that
    /// nobody plays the same side three times in a row.
    pub fn twice_in_a_row(&self, side: Side) -> bool {
        let mut last = self.played().rev();
        last.next() == Some(side) && last.next() == Some(side)
    }

    /// Whether playing `side` next keeps both side rules: not three times in a row, and South
    /// and North games at most `max_gap` apart afterwards.
    pub fn may_play(&self, side: Side, max_gap: usize) -> bool {
        let (south, north) = self.counts();
        let (south, north) = match side {
            Side::South => (south + 1, north),
            Side::North => (south, north + 1),
        };
        !self.twice_in_a_row(side) && south.abs_diff(north) <= max_gap
    }

    /// The side this player is due: the one played less, or on equal counts the one not played
    /// last; none before a first game.
    pub fn due(&self) -> Option<Side> {
        let (south, north) = self.counts();
        if south != north {
            return Some(if south < north {
                Side::South
            } else {
                Side::North
            });
        }
        self.played().next_back().map(Side::opponent)
    }
}
