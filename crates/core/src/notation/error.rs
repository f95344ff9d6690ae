//! What a position string can be wrong with: the field at fault and the problem, with its
//! numbers, and the English message for each.

use alloc::format;
use alloc::string::String;
use core::fmt;

use super::MAX_LEN;
use crate::position::QUIET_LIMIT;
use crate::{Hole, Rules, Side};

/// The fields of a position string, to say which one is wrong.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Field {
    /// The string as a whole (field count, length, characters).
    Whole,
    /// South's row, holes `a`..`l`.
    SouthRow,
    /// North's row, holes `A`..`L`.
    NorthRow,
    /// The side to move (`s`, `n`, or `x` when the game is over).
    ToMove,
    /// South's store.
    SouthStore,
    /// North's store.
    NorthStore,
    /// The side that made the last capture.
    LastCapturer,
    /// The side that made the game's first last-seed capture (`firstfinal` rules).
    FirstFinalCapturer,
    /// Plies since the last capture (the quiet rule).
    QuietPlies,
    /// Plies played since the start of the game.
    Ply,
}

impl Field {
    /// The field as messages name it ("South's row (a..l)").
    pub const fn name(self) -> &'static str {
        match self {
            Field::Whole => "position",
            Field::SouthRow => "South's row (a..l)",
            Field::NorthRow => "North's row (A..L)",
            Field::ToMove => "to-move",
            Field::SouthStore => "south-store",
            Field::NorthStore => "north-store",
            Field::LastCapturer => "last-capturer",
            Field::FirstFinalCapturer => "first-final-capturer",
            Field::QuietPlies => "quiet-plies",
            Field::Ply => "ply",
        }
    }
}

/// A position string that is malformed or describes an impossible position: the field at
/// fault, what is wrong with it as a [`PositionErrorKind`] (with the numbers, so that a page can
/// say it in any language), and the same in English.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionError {
    /// The field at fault.
    pub field: Field,
    /// What is wrong with it.
    pub kind: PositionErrorKind,
    /// The English words for `kind` (what [`fmt::Display`] of the kind writes).
    pub message: String,
}

impl PositionError {
    /// An error of `kind` in `field`, with its English message.
    pub fn new(field: Field, kind: PositionErrorKind) -> PositionError {
        let message = alloc::string::ToString::to_string(&kind);
        PositionError {
            field,
            kind,
            message,
        }
    }
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.field {
            Field::Whole => write!(f, "bad position: {}", self.message),
            field => write!(f, "bad position, field {}: {}", field.name(), self.message),
        }
    }
}

impl core::error::Error for PositionError {}

/// What the text of a count stands for, in the messages of [`PositionErrorKind`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Counted {
    /// The seeds of a hole.
    Hole(Hole),
    /// The seeds of a store (the field says which).
    Store,
}

impl fmt::Display for Counted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Counted::Hole(h) => write!(f, "hole {h}"),
            Counted::Store => f.write_str("the store"),
        }
    }
}

/// Everything [`parse_position`](super::parse_position) and
/// [`Position::from_parts`](crate::Position::from_parts) can refuse, with the numbers
/// involved. Texts quoted from the input are cut to 24 characters. [`PositionErrorKind::code`]
/// is a stable name for programs (the web API answers it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionErrorKind {
    /// The string is longer than [`MAX_LEN`] bytes.
    TooLong {
        /// The string's length in bytes.
        len: usize,
    },
    /// Not 8 space-separated fields.
    FieldCount {
        /// The fields there are.
        found: usize,
    },
    /// The board has no `/` between the rows.
    NoSlash {
        /// The board field.
        board: String,
    },
    /// A row has `found` comma-separated counts, not 12.
    RowLength {
        /// The counts in the row.
        found: usize,
        /// The row.
        row: String,
    },
    /// A count (of a hole or a store) is not a whole number.
    CountNotANumber {
        /// Whose count it is.
        what: Counted,
        /// The count's text.
        text: String,
    },
    /// A count is more than the 96 seeds of the game (`found` when it is a number at all
    /// within `u32`).
    CountTooLarge {
        /// Whose count it is.
        what: Counted,
        /// The count's text.
        text: String,
        /// The count, when it is a number within `u32`.
        found: Option<u32>,
    },
    /// `<to-move>` is not `s`, `n` or `x`.
    BadToMove {
        /// The field's text.
        text: String,
    },
    /// A capturer field is not `s`, `n` or `-`.
    BadSide {
        /// The field's text.
        text: String,
    },
    /// A counter (quiet plies, ply) is not a whole number.
    NotANumber {
        /// The counter's text.
        text: String,
    },
    /// A counter does not fit in 32 bits.
    NumberTooLarge {
        /// The counter's text.
        text: String,
    },
    /// The quiet plies are above the quiet rule's limit.
    QuietAboveLimit {
        /// The quiet plies given.
        quiet: u32,
    },
    /// Holes and stores do not hold 96 seeds.
    SeedTotal {
        /// Seeds in holes and stores together.
        total: u32,
        /// Seeds in the holes.
        in_play: u32,
        /// Seeds in South's store.
        south: u8,
        /// Seeds in North's store.
        north: u8,
    },
    /// More quiet plies than plies played.
    QuietAbovePly {
        /// The quiet plies given.
        quiet: u16,
        /// The plies played given.
        ply: u32,
    },
    /// `x` (game over) with seeds still in the holes.
    OverWithSeeds {
        /// Seeds in the holes.
        in_play: u32,
    },
    /// A game in progress whose seeds in play are not a multiple of 4.
    InPlayNotMultipleOf4 {
        /// Seeds in the holes.
        in_play: u32,
    },
    /// A game in progress with no more seeds in play than the rules end the game at.
    TooFewInPlay {
        /// Seeds in the holes.
        in_play: u32,
        /// The seeds in play at which these rules end the game.
        threshold: u32,
        /// The rules the position was read under.
        rules: Rules,
    },
    /// A game in progress whose quiet counter has reached the quiet rule's limit.
    QuietAtLimit {
        /// The quiet plies given.
        quiet: u16,
    },
    /// The side to move has no seeds in its row.
    NoSeedsToMove {
        /// The side to move.
        side: Side,
    },
}

impl PositionErrorKind {
    /// A stable snake_case name for programs.
    pub const fn code(&self) -> &'static str {
        use PositionErrorKind::*;
        match self {
            TooLong { .. } => "too_long",
            FieldCount { .. } => "field_count",
            NoSlash { .. } => "no_slash",
            RowLength { .. } => "row_length",
            CountNotANumber { .. } | NotANumber { .. } => "not_a_number",
            CountTooLarge { .. } => "count_too_large",
            BadToMove { .. } => "bad_to_move",
            BadSide { .. } => "bad_side",
            NumberTooLarge { .. } => "number_too_large",
            QuietAboveLimit { .. } => "quiet_above_limit",
            SeedTotal { .. } => "seed_total",
            QuietAbovePly { .. } => "quiet_above_ply",
            OverWithSeeds { .. } => "over_with_seeds",
            InPlayNotMultipleOf4 { .. } => "in_play_not_multiple_of_4",
            TooFewInPlay { .. } => "too_few_in_play",
            QuietAtLimit { .. } => "quiet_at_limit",
            NoSeedsToMove { .. } => "no_seeds_to_move",
        }
    }
}

impl fmt::Display for PositionErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use PositionErrorKind::*;
        match self {
            TooLong { len } => write!(
                f,
                "is {len} bytes long; a position string is at most {MAX_LEN}"
            ),
            FieldCount { found } => write!(
                f,
                "has {found} space-separated fields, expected 8: <a..l>/<A..L> <to-move> <south-store> <north-store> <last-capturer> <first-final-capturer> <quiet-plies> <ply>"
            ),
            NoSlash { board } => write!(
                f,
                "the board {} has no '/' between South's and North's rows",
                shown(board)
            ),
            RowLength { found, row } if *found > Hole::ROW => {
                write!(f, "has more than 12 holes: {}", shown(row))
            }
            RowLength { found, row } => write!(
                f,
                "has {found} holes, not 12 comma-separated counts: {}",
                shown(row)
            ),
            CountNotANumber { what, text } => {
                write!(f, "{what} is {}, not a whole number", shown(text))
            }
            CountTooLarge { what, text, .. } => write!(
                f,
                "{what} is {}, more than the 96 seeds of the game",
                shown(text)
            ),
            BadToMove { text } => {
                write!(f, "is {}, expected s, n or x (game over)", shown(text))
            }
            BadSide { text } => write!(f, "is {}, expected s, n or -", shown(text)),
            NotANumber { text } => write!(f, "is {}, not a whole number", shown(text)),
            NumberTooLarge { text } => write!(f, "is {}, too large", shown(text)),
            QuietAboveLimit { quiet } => {
                write!(f, "is {quiet}, above the quiet rule's {QUIET_LIMIT}")
            }
            SeedTotal {
                total,
                in_play,
                south,
                north,
            } => write!(
                f,
                "holes and stores hold {total} seeds ({in_play} in holes, {south} and {north} in the stores), not 96"
            ),
            QuietAbovePly { quiet, ply } => {
                write!(f, "is {quiet}, more than the {ply} plies played")
            }
            OverWithSeeds { in_play } => write!(
                f,
                "is x (game over) but {in_play} seeds are still in the holes"
            ),
            InPlayNotMultipleOf4 { in_play } => {
                write!(f, "{in_play} seeds in play is not a multiple of 4")
            }
            TooFewInPlay {
                in_play,
                threshold,
                rules,
            } => write!(
                f,
                "{in_play} seeds in play: under {rules} the game ends at {threshold}, so a game in progress has more"
            ),
            QuietAtLimit { quiet } => write!(
                f,
                "is {quiet}: the quiet rule ends the game at {QUIET_LIMIT}, so a game in progress is below it"
            ),
            NoSeedsToMove { side } => write!(
                f,
                "{side} is to move but has no seeds (a player with none passes)"
            ),
        }
    }
}

/// A text quoted in a message: its first 24 characters, quoted and escaped.
fn shown(s: &str) -> String {
    let mut t: String = s.chars().take(24).collect();
    if s.chars().count() > 24 {
        t.push('…');
    }
    format!("'{}'", t.escape_debug())
}
