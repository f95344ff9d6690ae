//! Positions labelled for training: what the side to move went on to win in the game, and
//! what a deeper search says it is worth (docs/tuning.md, "Round 5").
//!
//! The file is text, one position a line: the position string, a tab, the outcome (centiseeds
//! the side to move won from there), and, once labelled, a tab and the search value
//! (centiseeds still to be won, the stores left out). Any feature set can be fitted again from
//! it, as the positions themselves are kept.

use std::sync::atomic::AtomicBool;

use std::num::ParseIntError;

use anywoli_core::{Position, PositionError, Rules};
use thiserror::Error;

use crate::search::{Engine, Limits};

/// One position of a training file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Labelled {
    /// The position.
    pub pos: Position,
    /// Centiseeds the side to move won from here to the end of its game.
    pub outcome: i32,
    /// Centiseeds a deeper search says the side to move will win from here, if searched.
    pub value: Option<i32>,
}

impl Labelled {
    /// The training target: `(1 − lambda) × outcome + lambda × value` (the outcome alone
    /// when there is no value).
    pub fn target(&self, lambda: f64) -> f64 {
        match self.value {
            Some(v) => (1.0 - lambda) * self.outcome as f64 + lambda * v as f64,
            None => self.outcome as f64,
        }
    }
}

/// The training file of `rows`: one line each (see the module's documentation).
pub fn to_text(rows: &[Labelled]) -> String {
    let mut s = String::new();
    for r in rows {
        s.push_str(&format!("{}\t{}", r.pos, r.outcome));
        if let Some(v) = r.value {
            s.push_str(&format!("\t{v}"));
        }
        s.push('\n');
    }
    s
}

/// What is wrong with a line of a labelled-positions file (lines from 1).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum LabelsError {
    /// The first field is not a position string.
    #[error("line {line}: position: {source}")]
    Position {
        /// The line, from 1.
        line: usize,
        /// What is wrong with the position.
        source: PositionError,
    },
    /// The line has no tab and outcome after the position.
    #[error("line {line}: no outcome")]
    NoOutcome {
        /// The line, from 1.
        line: usize,
    },
    /// The outcome is not a whole number.
    #[error("line {line}: outcome: {source}")]
    Outcome {
        /// The line, from 1.
        line: usize,
        /// Why it is not.
        source: ParseIntError,
    },
    /// The search value is not a whole number.
    #[error("line {line}: value: {source}")]
    Value {
        /// The line, from 1.
        line: usize,
        /// Why it is not.
        source: ParseIntError,
    },
    /// The line has a fourth field.
    #[error("line {line}: more than three fields")]
    ExtraField {
        /// The line, from 1.
        line: usize,
    },
}

/// Reads [`to_text`]'s output; an error names the line and the field.
pub fn from_text(text: &str) -> Result<Vec<Labelled>, LabelsError> {
    let mut out = Vec::new();
    for (i, text) in text.lines().enumerate() {
        if text.trim().is_empty() {
            continue;
        }
        let line = i + 1;
        let mut fields = text.split('\t');
        let pos = fields.next().unwrap_or_default();
        let pos = anywoli_core::parse_position(pos, Rules::Anywoli)
            .map_err(|source| LabelsError::Position { line, source })?;
        let outcome = fields
            .next()
            .ok_or(LabelsError::NoOutcome { line })?
            .parse()
            .map_err(|source| LabelsError::Outcome { line, source })?;
        let value = match fields.next() {
            Some(v) => Some(
                v.parse()
                    .map_err(|source| LabelsError::Value { line, source })?,
            ),
            None => None,
        };
        if fields.next().is_some() {
            return Err(LabelsError::ExtraField { line });
        }
        out.push(Labelled {
            pos,
            outcome,
            value,
        });
    }
    Ok(out)
}

/// Searches each position to `depth` with `engine` and keeps its value. The table is kept
/// from one position to the next (neighbours in a file are neighbours in a game).
pub fn label(rows: &mut [Labelled], engine: &mut Engine, depth: u32) {
    let stop = AtomicBool::new(false);
    for r in rows {
        let Some(me) = r.pos.to_move() else {
            r.value = Some(0);
            continue;
        };
        let res = engine.search(&r.pos, &Limits::depth(depth), &stop, &mut |_| {});
        let stores = (r.pos.store(me) as i32 - r.pos.store(me.opponent()) as i32) * 100;
        r.value = Some(res.score - stores);
    }
}
