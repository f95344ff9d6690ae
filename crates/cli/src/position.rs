//! The commands on a position and its moves that fit in a few lines: `apply`, `rules`,
//! `perft` and `show`.

use std::io::Write;

use anywoli_core::VARIANTS;
use clap::Args;

use crate::board;
use crate::common::{parse_moves, play_all, CmdResult, Start};

#[derive(Args)]
/// What `anywoli apply` takes.
pub struct ApplyArgs {
    #[command(flatten)]
    pub start: Start,
    /// Move letters (a..l South, A..L North); one argument may hold several, space-separated.
    #[arg(value_name = "MOVE")]
    pub moves: Vec<String>,
}

pub fn apply(args: &ApplyArgs) -> CmdResult {
    let pos = args.start.position()?;
    let moves = parse_moves(&args.moves)?;
    // Every move is checked before anything is printed, so a failed call prints nothing.
    let after = play_all(pos, &moves)?;
    let mut out = std::io::stdout().lock();
    for p in after {
        writeln!(out, "{p}")?;
    }
    Ok(())
}

/// `anywoli rules`: the variants, one a line.
pub fn rules() -> CmdResult {
    let mut out = std::io::stdout().lock();
    for (name, what) in VARIANTS {
        writeln!(out, "{name:<20} {what}")?;
    }
    Ok(())
}

#[derive(Args)]
/// What `anywoli perft` takes.
pub struct PerftArgs {
    #[command(flatten)]
    pub start: Start,
    /// Print the count for each first move too.
    #[arg(long)]
    pub divide: bool,
    pub depth: u32,
}

pub fn perft(args: &PerftArgs) -> CmdResult {
    let (divide, depth) = (args.divide, args.depth);
    let pos = args.start.position()?;
    let mut out = std::io::stdout().lock();
    if divide {
        let mut total = 0;
        for (mv, n) in anywoli_core::divide(&pos, depth) {
            writeln!(out, "{mv} {n}")?;
            total += n;
        }
        writeln!(out, "total {total}")?;
    } else {
        writeln!(out, "{}", anywoli_core::perft(&pos, depth))?;
    }
    Ok(())
}

#[derive(Args)]
/// What `anywoli show` takes.
pub struct ShowArgs {
    #[command(flatten)]
    pub start: Start,
    #[arg(value_name = "MOVE")]
    pub moves: Vec<String>,
}

pub fn show(args: &ShowArgs) -> CmdResult {
    let pos = args.start.position()?;
    let moves = parse_moves(&args.moves)?;
    let last = play_all(pos, &moves)?.pop().unwrap_or(pos);
    print!("{}", board::draw(&last, moves.last().copied()));
    Ok(())
}
