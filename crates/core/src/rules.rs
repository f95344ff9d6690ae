//! The named rules variants (docs/rules.md, "Variants").

use core::fmt;
use core::str::FromStr;

use crate::Side;

/// A rules variant. Every difference from the default game is one of these, never a silent one.
///
/// ```
/// use anywoli_core::Rules;
///
/// let r: Rules = "anywoli-it".parse().unwrap();
/// assert_eq!(r, Rules::It);
/// assert_eq!(r.to_string(), "anywoli-it");
/// assert_eq!(Rules::default(), Rules::Anywoli);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum Rules {
    /// The default: the last 4 seeds go to the taker of the penultimate four.
    #[default]
    Anywoli,
    /// The last 4 go to the player who made the game's first last-seed capture, if any.
    FirstFinal,
    /// The last 4 go to a player drawn from the game's seed (Pankhurst's lottery).
    Lottery {
        /// The game's seed, from which the player is drawn.
        seed: u64,
    },
    /// Italian Wikipedia: the end at 8 seeds in play, those 8 to the player who moved first,
    /// and no extra move after a last-seed capture.
    It,
}

/// One line per variant, for `anywoli rules` and for error messages.
pub const VARIANTS: [(&str, &str); 4] = [
    (
        "anywoli",
        "the default: the last 4 seeds go to the player who took the penultimate four",
    ),
    (
        "anywoli-first-final",
        "the last 4 go to the player who made the game's first last-seed capture (else as anywoli)",
    ),
    (
        "anywoli-lottery",
        "the last 4 go to a player drawn from the game's seed (Pankhurst's lottery)",
    ),
    (
        "anywoli-it",
        "Italian Wikipedia: the game ends at 8 seeds in play, those 8 go to South (who moved first); no extra move",
    ),
];

impl Rules {
    /// The variant's name in records and on the command line (`anywoli`, `anywoli-it`…).
    pub const fn name(self) -> &'static str {
        match self {
            Rules::Anywoli => "anywoli",
            Rules::FirstFinal => "anywoli-first-final",
            Rules::Lottery { .. } => "anywoli-lottery",
            Rules::It => "anywoli-it",
        }
    }

    /// Parses a variant name; `anywoli-lottery` takes `seed` as its game seed.
    pub fn from_name(name: &str, seed: u64) -> Result<Rules, UnknownRules> {
        match name {
            "anywoli" => Ok(Rules::Anywoli),
            "anywoli-first-final" => Ok(Rules::FirstFinal),
            "anywoli-lottery" => Ok(Rules::Lottery { seed }),
            "anywoli-it" => Ok(Rules::It),
            _ => Err(UnknownRules {
                name: name.chars().take(60).collect(),
            }),
        }
    }

    /// The game ends the moment this many seeds are left in play.
    #[inline]
    pub const fn end_threshold(self) -> u8 {
        match self {
            Rules::It => 8,
            _ => 4,
        }
    }

    /// Whether a last-seed capture gives the mover another move.
    #[inline]
    pub const fn extra_move(self) -> bool {
        !matches!(self, Rules::It)
    }

    /// The game seed of `anywoli-lottery`, if this is that variant.
    pub const fn seed(self) -> Option<u64> {
        match self {
            Rules::Lottery { seed } => Some(seed),
            _ => None,
        }
    }
}

/// The winner of the lottery of `anywoli-lottery` for a game seed: South when the top bit of
/// SplitMix64(seed) is 0. Fixed here so that a record replays the same on every program.
pub const fn lottery_draw(seed: u64) -> Side {
    if crate::zobrist::splitmix64(seed) >> 63 == 0 {
        Side::South
    } else {
        Side::North
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A rules name that is not one of [`VARIANTS`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownRules {
    name: alloc::string::String,
}

impl fmt::Display for UnknownRules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown rules '{}': expected one of ",
            self.name.escape_debug()
        )?;
        for (i, (name, _)) in VARIANTS.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(name)?;
        }
        Ok(())
    }
}

impl core::error::Error for UnknownRules {}

impl FromStr for Rules {
    type Err = UnknownRules;

    /// Parses a name; the lottery gets seed 0 (use [`Rules::from_name`] to give a seed).
    fn from_str(s: &str) -> Result<Rules, UnknownRules> {
        Rules::from_name(s, 0)
    }
}
