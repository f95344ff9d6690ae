//! The position string of docs/rules.md ("Position strings"): parser, formatter and validity.

use alloc::string::String;
use core::fmt;

use crate::position::{QUIET_LIMIT, TOTAL_SEEDS};
use crate::{Hole, Position, Rules, Side};

mod error;
pub use error::{Counted, Field, PositionError, PositionErrorKind};

fn error(field: Field, kind: PositionErrorKind) -> PositionError {
    PositionError::new(field, kind)
}

/// Longest position string accepted: far above any valid one, so that a huge input is refused
/// before any work is done on it.
pub const MAX_LEN: usize = 256;

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
///
/// ```
/// use anywoli_core::{parse_position, Field, Position, Rules};
///
/// let text = Position::start(Rules::Anywoli).to_string();
/// let p = parse_position(&text, Rules::Anywoli).unwrap();
/// assert_eq!(p, Position::start(Rules::Anywoli));
/// let err = parse_position("4,4/4,4 s", Rules::Anywoli).unwrap_err();
/// assert_eq!(err.field, Field::Whole);
/// ```
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
