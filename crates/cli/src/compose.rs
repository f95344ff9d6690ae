//! `anywoli compose`: is a position a puzzle, and if not, why not — the web page's composer in
//! the terminal (anywoli_engine::compose), for people who set problems in bulk.

use std::io::Write;

use anywoli_core::{Move, Position, Side};
use anywoli_engine::compose::{compose_counting, ComposeLimits, Refusal, MAX_PLIES};
use anywoli_engine::puzzles::Puzzle;
use anywoli_engine::themes::{self, Theme};
use clap::Args;
use serde_json::json;

use crate::common::{parse_moves, play_all, CmdResult, Start};
use crate::tablebase::{open, ExactArgs};

#[derive(Args)]
#[command(mut_arg("nodes", |a| a.help("Nodes of exact search for the whole composition (the web app allows 2,000,000)")))]
pub struct ComposeArgs {
    #[command(flatten)]
    start: Start,
    #[command(flatten)]
    exact: ExactArgs,
    /// Print one JSON object: the web API's answer (docs/api.md, "Composing puzzles").
    #[arg(long)]
    json: bool,
    /// Moves to play before composing.
    #[arg(value_name = "MOVE")]
    moves: Vec<String>,
}

fn side_word(s: Side) -> &'static str {
    match s {
        Side::South => "South",
        Side::North => "North",
    }
}

pub fn run(args: &ComposeArgs) -> CmdResult {
    let pos = args.start.position()?;
    let moves = parse_moves(&args.moves)?;
    let pos = play_all(pos, &moves)?.pop().unwrap_or(pos);
    let tb = open(args.exact.tablebases.as_deref())?;
    let tb = (!tb.is_empty()).then_some(&tb);
    let limits = ComposeLimits {
        nodes: args.exact.nodes,
        max_plies: MAX_PLIES,
    };
    let (result, nodes) = compose_counting(&pos, tb, limits);
    let mut out = std::io::stdout().lock();
    match result {
        Ok(pz) => print_puzzle(&mut out, args.json, &pos, &pz, nodes),
        Err(r) => print_refusal(&mut out, args.json, &pos, &r, nodes),
    }
}

fn letters(m: &[Move]) -> Vec<String> {
    m.iter().map(|m| m.to_string()).collect()
}

/// A puzzle: its solution, grade and themes.
fn print_puzzle(
    out: &mut impl Write,
    json: bool,
    pos: &Position,
    pz: &Puzzle,
    nodes: u64,
) -> CmdResult {
    let names: Vec<&str> = themes::themes(&pz.position, &pz.line)
        .into_iter()
        .map(Theme::name)
        .collect();
    if json {
        let v = json!({
            "puzzle": true, "position": pos.to_string(), "side": side_word(pz.side()).to_lowercase(),
            "first_move": pz.line[0].to_string(), "line": letters(&pz.line), "plies": pz.plies,
            "solver_moves": pz.solver_moves().len(), "grade": pz.grade,
            "defences": pz.defences, "themes": names, "nodes": nodes,
        });
        writeln!(out, "{v}")?;
        return Ok(());
    }
    let side = side_word(pz.side());
    writeln!(out, "position {pos}")?;
    writeln!(
        out,
        "puzzle: {side} to play forces the win; the only winning first move is {}",
        pz.line[0]
    )?;
    writeln!(
        out,
        "solution: {} ({} plies, {} moves for {side})",
        letters(&pz.line).join(" "),
        pz.plies,
        pz.solver_moves().len()
    )?;
    writeln!(
        out,
        "grade: {} of 5 ({} defences for the opponent)",
        pz.grade, pz.defences
    )?;
    let names = if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    };
    writeln!(out, "themes: {names}")?;
    writeln!(out, "searched: {nodes} nodes")?;
    Ok(())
}

/// Not a puzzle, and why not.
fn print_refusal(
    out: &mut impl Write,
    json: bool,
    pos: &Position,
    r: &Refusal,
    nodes: u64,
) -> CmdResult {
    if json {
        let mut v = json!({"puzzle": false, "position": pos.to_string(),
                           "reason": r.name(), "message": r.to_string(), "nodes": nodes});
        match r {
            Refusal::NotAWin { value, margin } => {
                v["value"] = json!(value);
                v["margin"] = json!(margin);
            }
            Refusal::SeveralWinningFirstMoves { moves } => v["moves"] = json!(letters(moves)),
            Refusal::Dual { ply, moves } => {
                v["ply"] = json!(ply);
                v["moves"] = json!(letters(moves));
            }
            Refusal::TooLong { max } => v["max"] = json!(max),
            Refusal::GameOver | Refusal::Unproven { .. } => {}
        }
        writeln!(out, "{v}")?;
        return Ok(());
    }
    writeln!(out, "position {pos}")?;
    writeln!(out, "not a puzzle: {r}")?;
    writeln!(out, "searched: {nodes} nodes")?;
    Ok(())
}
