//! The position string of docs/rules.md ("Position strings"): parser, formatter and validity.

use alloc::format;
use alloc::string::String;
use core::fmt;

use crate::position::{QUIET_LIMIT, TOTAL_SEEDS};
use crate::{Hole, Position, Rules, Side};

/// The fields of a position string, to say which one is wrong.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Field {
    /// The string as a whole (field count, length, characters).
    Whole,
    SouthRow,
    NorthRow,
    ToMove,
    SouthStore,
    NorthStore,
    LastCapturer,
    FirstFinalCapturer,
    QuietPlies,
    Ply,
}

impl Field {
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
    pub field: Field,
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

/// Everything [`parse_position`] and [`Position::from_parts`] can refuse, with the numbers
/// involved. Texts quoted from the input are cut to 24 characters. [`PositionErrorKind::code`]
/// is a stable name for programs (the web API answers it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionErrorKind {
    /// The string is longer than [`MAX_LEN`] bytes.
    TooLong { len: usize },
    /// Not 8 space-separated fields.
    FieldCount { found: usize },
    /// The board has no `/` between the rows.
    NoSlash { board: String },
    /// A row has `found` comma-separated counts, not 12.
    RowLength { found: usize, row: String },
    /// A count (of a hole or a store) is not a whole number.
    CountNotANumber { what: Counted, text: String },
    /// A count is more than the 96 seeds of the game (`found` when it is a number at all
    /// within `u32`).
    CountTooLarge {
        what: Counted,
        text: String,
        found: Option<u32>,
    },
    /// `<to-move>` is not `s`, `n` or `x`.
    BadToMove { text: String },
    /// A capturer field is not `s`, `n` or `-`.
    BadSide { text: String },
    /// A counter (quiet plies, ply) is not a whole number.
    NotANumber { text: String },
    /// A counter does not fit in 32 bits.
    NumberTooLarge { text: String },
    /// The quiet plies are above the quiet rule's limit.
    QuietAboveLimit { quiet: u32 },
    /// Holes and stores do not hold 96 seeds.
    SeedTotal {
        total: u32,
        in_play: u32,
        south: u8,
        north: u8,
    },
    /// More quiet plies than plies played.
    QuietAbovePly { quiet: u16, ply: u32 },
    /// `x` (game over) with seeds still in the holes.
    OverWithSeeds { in_play: u32 },
    /// A game in progress whose seeds in play are not a multiple of 4.
    InPlayNotMultipleOf4 { in_play: u32 },
    /// A game in progress with no more seeds in play than the rules end the game at.
    TooFewInPlay {
        in_play: u32,
        threshold: u32,
        rules: Rules,
    },
    /// A game in progress whose quiet counter has reached the quiet rule's limit.
    QuietAtLimit { quiet: u16 },
    /// The side to move has no seeds in its row.
    NoSeedsToMove { side: Side },
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

fn error(field: Field, kind: PositionErrorKind) -> PositionError {
    PositionError::new(field, kind)
}

/// Longest position string accepted: far above any valid one, so that a huge input is refused
/// before any work is done on it.
pub const MAX_LEN: usize = 256;

/// A text quoted in a message: its first 24 characters, quoted and escaped.
fn shown(s: &str) -> String {
    let mut t: String = s.chars().take(24).collect();
    if s.chars().count() > 24 {
        t.push('…');
    }
    format!("'{}'", t.escape_debug())
}

/// The input text kept in an error: at most 25 characters (24 and a sign that it goes on), so
/// that an error stays small whatever the input.
fn kept(s: &str) -> String {
    let mut t: String = s.chars().take(24).collect();
    if s.chars().count() > 24 {
        t.push('…');
    }
    t
}

fn parse_count(text: &str, field: Field, what: Counted) -> Result<u8, PositionError> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(error(
            field,
            PositionErrorKind::CountNotANumber {
                what,
                text: kept(text),
            },
        ));
    }
    match text.parse::<u32>() {
        Ok(n) if n <= TOTAL_SEEDS as u32 => Ok(n as u8),
        parsed => Err(error(
            field,
            PositionErrorKind::CountTooLarge {
                what,
                text: kept(text),
                found: parsed.ok(),
            },
        )),
    }
}

fn parse_row(text: &str, field: Field, first: usize) -> Result<[u8; Hole::ROW], PositionError> {
    let mut row = [0u8; Hole::ROW];
    let mut n = 0;
    for (i, part) in text.split(',').enumerate() {
        if i >= Hole::ROW {
            return Err(error(
                field,
                PositionErrorKind::RowLength {
                    found: text.split(',').count(),
                    row: kept(text),
                },
            ));
        }
        row[i] = parse_count(
            part,
            field,
            Counted::Hole(Hole::new_wrapping((first + i) as u8)),
        )?;
        n = i + 1;
    }
    if n != Hole::ROW {
        return Err(error(
            field,
            PositionErrorKind::RowLength {
                found: n,
                row: kept(text),
            },
        ));
    }
    Ok(row)
}

fn parse_side_or_dash(text: &str, field: Field) -> Result<Option<Side>, PositionError> {
    match text {
        "s" => Ok(Some(Side::South)),
        "n" => Ok(Some(Side::North)),
        "-" => Ok(None),
        _ => Err(error(
            field,
            PositionErrorKind::BadSide { text: kept(text) },
        )),
    }
}

fn parse_number(text: &str, field: Field) -> Result<u32, PositionError> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(error(
            field,
            PositionErrorKind::NotANumber { text: kept(text) },
        ));
    }
    text.parse::<u32>().map_err(|_| {
        error(
            field,
            PositionErrorKind::NumberTooLarge { text: kept(text) },
        )
    })
}

/// Parses a position string under `rules` (validity depends on the rules' end threshold).
pub fn parse_position(text: &str, rules: Rules) -> Result<Position, PositionError> {
    use PositionErrorKind as K;
    if text.len() > MAX_LEN {
        return Err(error(Field::Whole, K::TooLong { len: text.len() }));
    }
    let text = text.trim();
    let fields: alloc::vec::Vec<&str> = text.split(' ').collect();
    if fields.len() != 8 {
        return Err(error(
            Field::Whole,
            K::FieldCount {
                found: fields.len(),
            },
        ));
    }
    let Some((south, north)) = fields[0].split_once('/') else {
        return Err(error(
            Field::SouthRow,
            K::NoSlash {
                board: kept(fields[0]),
            },
        ));
    };
    let south = parse_row(south, Field::SouthRow, 0)?;
    let north = parse_row(north, Field::NorthRow, Hole::ROW)?;
    let to_move = match fields[1] {
        "s" => Some(Side::South),
        "n" => Some(Side::North),
        "x" => None,
        other => return Err(error(Field::ToMove, K::BadToMove { text: kept(other) })),
    };
    let south_store = parse_count(fields[2], Field::SouthStore, Counted::Store)?;
    let north_store = parse_count(fields[3], Field::NorthStore, Counted::Store)?;
    let last = parse_side_or_dash(fields[4], Field::LastCapturer)?;
    let first_final = parse_side_or_dash(fields[5], Field::FirstFinalCapturer)?;
    let quiet = parse_number(fields[6], Field::QuietPlies)?;
    let ply = parse_number(fields[7], Field::Ply)?;
    if quiet > QUIET_LIMIT as u32 {
        return Err(error(Field::QuietPlies, K::QuietAboveLimit { quiet }));
    }
    let mut holes = [0u8; Hole::COUNT];
    holes[..12].copy_from_slice(&south);
    holes[12..].copy_from_slice(&north);
    Position::from_parts(
        holes,
        [south_store, north_store],
        to_move,
        last,
        first_final,
        quiet as u16,
        ply,
        rules,
    )
}

/// The validity rules of docs/rules.md ("Position strings"), shared by the parser and
/// [`Position::from_parts`].
pub(crate) fn validate(p: &Position) -> Result<(), PositionError> {
    use PositionErrorKind as K;
    let board: u32 = p.holes.iter().map(|&c| c as u32).sum();
    let total = board + p.stores[0] as u32 + p.stores[1] as u32;
    if total != TOTAL_SEEDS as u32 {
        return Err(error(
            Field::Whole,
            K::SeedTotal {
                total,
                in_play: board,
                south: p.stores[0],
                north: p.stores[1],
            },
        ));
    }
    if p.quiet > QUIET_LIMIT {
        return Err(error(
            Field::QuietPlies,
            K::QuietAboveLimit {
                quiet: p.quiet as u32,
            },
        ));
    }
    if p.quiet as u32 > p.ply {
        return Err(error(
            Field::QuietPlies,
            K::QuietAbovePly {
                quiet: p.quiet,
                ply: p.ply,
            },
        ));
    }
    let threshold = p.rules.end_threshold() as u32;
    match p.to_move {
        None => {
            if board != 0 {
                return Err(error(Field::ToMove, K::OverWithSeeds { in_play: board }));
            }
        }
        Some(side) => {
            if !board.is_multiple_of(4) {
                return Err(error(
                    Field::Whole,
                    K::InPlayNotMultipleOf4 { in_play: board },
                ));
            }
            if board <= threshold {
                return Err(error(
                    Field::Whole,
                    K::TooFewInPlay {
                        in_play: board,
                        threshold,
                        rules: p.rules,
                    },
                ));
            }
            if p.quiet >= QUIET_LIMIT {
                return Err(error(Field::QuietPlies, K::QuietAtLimit { quiet: p.quiet }));
            }
            if p.row_seeds(side) == 0 {
                return Err(error(Field::ToMove, K::NoSeedsToMove { side }));
            }
        }
    }
    Ok(())
}

impl core::str::FromStr for Position {
    type Err = PositionError;

    /// Parses a position string under the default rules.
    fn from_str(s: &str) -> Result<Position, PositionError> {
        parse_position(s, Rules::Anywoli)
    }
}

fn side_or_dash(s: Option<Side>) -> char {
    s.map_or('-', Side::char)
}

impl fmt::Display for Position {
    /// Formats the position string of docs/rules.md ("Position strings").
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, c) in self.holes.iter().enumerate() {
            if i == 12 {
                f.write_str("/")?;
            } else if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{c}")?;
        }
        write!(
            f,
            " {} {} {} {} {} {} {}",
            self.to_move.map_or('x', Side::char),
            self.stores[0],
            self.stores[1],
            side_or_dash(self.last_capturer),
            side_or_dash(self.first_final),
            self.quiet,
            self.ply
        )
    }
}
