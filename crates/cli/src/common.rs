//! What every command shares: where it starts ([`Start`]), why it stops ([`Failure`], from
//! `error`), and the moves of its arguments read and played. The commands import these from here, not from
//! the binary's root.

use anywoli_core::{parse_position, Move, Position, Rules};
use clap::Args;

pub use crate::error::{CmdResult, Failure};

/// Where a command starts: rules, lottery seed and position.
#[derive(Args, Clone)]
pub struct Start {
    /// Rules variant (see `anywoli rules`).
    #[arg(long, default_value = "anywoli", value_name = "NAME")]
    pub rules: String,
    /// The game seed of anywoli-lottery (it draws who takes the last seeds).
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub seed: u64,
    /// Start from this position string instead of the start position.
    #[arg(long, value_name = "POS", allow_hyphen_values = true)]
    pub position: Option<String>,
}

impl Start {
    pub fn position(&self) -> Result<Position, Failure> {
        let rules = Rules::from_name(&self.rules, self.seed)?;
        match &self.position {
            None => Ok(Position::start(rules)),
            Some(text) => Ok(parse_position(text, rules)?),
        }
    }
}

/// Splits the move arguments into moves, naming the first bad one by its number.
pub fn parse_moves(args: &[String]) -> Result<Vec<Move>, Failure> {
    let mut out = Vec::new();
    for tok in args.iter().flat_map(|a| a.split_whitespace()) {
        let mv: Move = tok.parse().map_err(|error| Failure::MoveArgument {
            number: out.len() + 1,
            error,
        })?;
        out.push(mv);
    }
    Ok(out)
}

/// Plays `moves` from `pos`, returning every position after a move; the first illegal move is
/// named by its number.
pub fn play_all(mut pos: Position, moves: &[Move]) -> Result<Vec<Position>, Failure> {
    let mut out = Vec::with_capacity(moves.len());
    for (i, &mv) in moves.iter().enumerate() {
        pos.play(mv).map_err(|error| Failure::IllegalMove {
            number: i + 1,
            error,
        })?;
        out.push(pos);
    }
    Ok(out)
}

/// A clap parser for a whole number from `min` to `max`.
pub fn usize_in(min: u64, max: u64) -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::<usize>::new().range(min..=max)
}
