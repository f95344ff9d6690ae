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

/// A position string that is malformed or describes an impossible position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionError {
    pub field: Field,
    pub message: String,
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

fn error(field: Field, message: String) -> PositionError {
    PositionError { field, message }
}

/// Longest position string accepted: far above any valid one, so that a huge input is refused
/// before any work is done on it.
const MAX_LEN: usize = 256;

fn shown(s: &str) -> String {
    let mut t: String = s.chars().take(24).collect();
    if s.chars().count() > 24 {
        t.push('…');
    }
    format!("'{}'", t.escape_debug())
}

fn parse_count(text: &str, field: Field, what: &str) -> Result<u8, PositionError> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(error(
            field,
            format!("{what} is {}, not a whole number", shown(text)),
        ));
    }
    match text.parse::<u32>() {
        Ok(n) if n <= TOTAL_SEEDS as u32 => Ok(n as u8),
        _ => Err(error(
            field,
            format!(
                "{what} is {}, more than the 96 seeds of the game",
                shown(text)
            ),
        )),
    }
}

fn parse_row(text: &str, field: Field, first: char) -> Result<[u8; Hole::ROW], PositionError> {
    let mut row = [0u8; Hole::ROW];
    let mut n = 0;
    for (i, part) in text.split(',').enumerate() {
        if i >= Hole::ROW {
            return Err(error(
                field,
                format!("has more than 12 holes: {}", shown(text)),
            ));
        }
        let letter = (first as u8 + i as u8) as char;
        row[i] = parse_count(part, field, &format!("hole {letter}"))?;
        n = i + 1;
    }
    if n != Hole::ROW {
        return Err(error(
            field,
            format!(
                "has {n} holes, not 12 comma-separated counts: {}",
                shown(text)
            ),
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
            format!("is {}, expected s, n or -", shown(text)),
        )),
    }
}

fn parse_number(text: &str, field: Field) -> Result<u32, PositionError> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(error(
            field,
            format!("is {}, not a whole number", shown(text)),
        ));
    }
    text.parse::<u32>()
        .map_err(|_| error(field, format!("is {}, too large", shown(text))))
}

/// Parses a position string under `rules` (validity depends on the rules' end threshold).
pub fn parse_position(text: &str, rules: Rules) -> Result<Position, PositionError> {
    if text.len() > MAX_LEN {
        return Err(error(
            Field::Whole,
            format!(
                "is {} bytes long; a position string is at most {MAX_LEN}",
                text.len()
            ),
        ));
    }
    let text = text.trim();
    let fields: alloc::vec::Vec<&str> = text.split(' ').collect();
    if fields.len() != 8 {
        return Err(error(
            Field::Whole,
            format!(
                "has {} space-separated fields, expected 8: <a..l>/<A..L> <to-move> <south-store> <north-store> <last-capturer> <first-final-capturer> <quiet-plies> <ply>",
                fields.len()
            ),
        ));
    }
    let Some((south, north)) = fields[0].split_once('/') else {
        return Err(error(
            Field::SouthRow,
            format!(
                "the board {} has no '/' between South's and North's rows",
                shown(fields[0])
            ),
        ));
    };
    let south = parse_row(south, Field::SouthRow, 'a')?;
    let north = parse_row(north, Field::NorthRow, 'A')?;
    let to_move = match fields[1] {
        "s" => Some(Side::South),
        "n" => Some(Side::North),
        "x" => None,
        other => {
            return Err(error(
                Field::ToMove,
                format!("is {}, expected s, n or x (game over)", shown(other)),
            ))
        }
    };
    let south_store = parse_count(fields[2], Field::SouthStore, "the store")?;
    let north_store = parse_count(fields[3], Field::NorthStore, "the store")?;
    let last = parse_side_or_dash(fields[4], Field::LastCapturer)?;
    let first_final = parse_side_or_dash(fields[5], Field::FirstFinalCapturer)?;
    let quiet = parse_number(fields[6], Field::QuietPlies)?;
    let ply = parse_number(fields[7], Field::Ply)?;
    if quiet > QUIET_LIMIT as u32 {
        return Err(error(
            Field::QuietPlies,
            format!("is {quiet}, above the quiet rule's {QUIET_LIMIT}"),
        ));
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
    let board: u32 = p.holes.iter().map(|&c| c as u32).sum();
    let total = board + p.stores[0] as u32 + p.stores[1] as u32;
    if total != TOTAL_SEEDS as u32 {
        return Err(error(
            Field::Whole,
            format!(
                "holes and stores hold {total} seeds ({board} in holes, {} and {} in the stores), not 96",
                p.stores[0], p.stores[1]
            ),
        ));
    }
    if p.quiet > QUIET_LIMIT {
        return Err(error(
            Field::QuietPlies,
            format!("is {}, above the quiet rule's {QUIET_LIMIT}", p.quiet),
        ));
    }
    if p.quiet as u32 > p.ply {
        return Err(error(
            Field::QuietPlies,
            format!("is {}, more than the {} plies played", p.quiet, p.ply),
        ));
    }
    let threshold = p.rules.end_threshold() as u32;
    match p.to_move {
        None => {
            if board != 0 {
                return Err(error(
                    Field::ToMove,
                    format!("is x (game over) but {board} seeds are still in the holes"),
                ));
            }
        }
        Some(side) => {
            if !board.is_multiple_of(4) {
                return Err(error(
                    Field::Whole,
                    format!("{board} seeds in play is not a multiple of 4"),
                ));
            }
            if board <= threshold {
                return Err(error(
                    Field::Whole,
                    format!(
                        "{board} seeds in play: under {} the game ends at {threshold}, so a game in progress has more",
                        p.rules
                    ),
                ));
            }
            if p.quiet >= QUIET_LIMIT {
                return Err(error(
                    Field::QuietPlies,
                    format!(
                        "is {}: the quiet rule ends the game at {QUIET_LIMIT}, so a game in progress is below it",
                        p.quiet
                    ),
                ));
            }
            if p.row_seeds(side) == 0 {
                return Err(error(
                    Field::ToMove,
                    format!("{side} is to move but has no seeds (a player with none passes)"),
                ));
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
