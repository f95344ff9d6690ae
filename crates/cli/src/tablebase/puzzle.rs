//! `anywoli puzzle`: an endgame puzzle of the collection played on the terminal.

use std::io::{BufRead, Write};

use anywoli_core::{Move, Position, Side};
use anywoli_engine::puzzles::{self, Judgement, Puzzle};
use clap::Args;

use crate::common::{CmdResult, Failure};

/// `anywoli puzzle`.
#[derive(Args)]
pub struct PuzzleArgs {
    /// The puzzle with this number (default: the puzzle of the day).
    #[arg(long, value_name = "N")]
    id: Option<u32>,
    /// The puzzle of this date, YYYY-MM-DD.
    #[arg(long, value_name = "DATE")]
    date: Option<String>,
    /// List the collection instead of playing.
    #[arg(long)]
    list: bool,
}

fn today() -> i64 {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    (secs / 86_400) as i64
}

pub fn puzzle(args: &PuzzleArgs) -> CmdResult {
    let mut out = std::io::stdout().lock();
    if args.list {
        for p in puzzles::all() {
            writeln!(
                out,
                "{:>4}  grade {}  {:>3} plies  {:>3} defences  {}",
                p.id, p.grade, p.plies, p.defences, p.position
            )?;
        }
        return Ok(());
    }
    let pz: &Puzzle = match (args.id, &args.date) {
        (Some(id), _) => puzzles::by_id(id).ok_or_else(|| {
            Failure::Says(format!(
                "no puzzle {id}: the collection has 1 to {}",
                puzzles::all().len()
            ))
        })?,
        (None, Some(d)) => puzzles::daily(
            puzzles::day_of(d)
                .ok_or_else(|| Failure::Says(format!("bad date '{d}': expected YYYY-MM-DD")))?,
        ),
        (None, None) => puzzles::daily(today()),
    };
    writeln!(
        out,
        "Puzzle {} (grade {} of 5): South to play and force the win. Whoever makes the next capture takes all 8 seeds; North defends as well as it can. Type South's moves (a..l), or 'solution' or 'quit'.",
        pz.id, pz.grade
    )?;
    play(&mut out, pz)
}

/// The moves of a puzzle's solution, by spaces.
fn solution(pz: &Puzzle) -> String {
    let ms: Vec<String> = pz.line.iter().map(|m| m.to_string()).collect();
    ms.join(" ")
}

/// South's moves read from stdin, each judged and answered, until the puzzle is solved,
/// failed or left.
fn play(out: &mut impl Write, pz: &Puzzle) -> CmdResult {
    let mut pos = pz.position;
    let mut played: Vec<Move> = Vec::new();
    write!(out, "{}", crate::board::draw(&pos, None))?;
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    loop {
        write!(out, "South to play: ")?;
        out.flush()?;
        let Some(line) = lines.next() else {
            writeln!(out)?;
            return Ok(());
        };
        let line = line.map_err(|e| Failure::Says(format!("cannot read the input: {e}")))?;
        let cmd = line.trim();
        match cmd {
            "" => continue,
            "quit" | "q" => return Ok(()),
            "solution" => {
                writeln!(out, "solution: {}", solution(pz))?;
                return Ok(());
            }
            _ => {}
        }
        let mv: Move = match cmd.parse() {
            Ok(m) => m,
            Err(e) => {
                writeln!(out, "error: {e}")?;
                continue;
            }
        };
        let mut attempt = played.clone();
        attempt.push(mv);
        match pz.judge(&attempt) {
            Judgement::Illegal(e) | Judgement::Invalid(e) => {
                writeln!(out, "error: {e}")?;
            }
            Judgement::Wrong { expected } => {
                writeln!(
                    out,
                    "{mv} lets North force the capture. The only winning move was {expected}; the solution: {}",
                    solution(pz)
                )?;
                return Ok(());
            }
            Judgement::Right { replies } | Judgement::Solved { replies } => {
                if right(out, &mut pos, &mut played, mv, &replies)? {
                    return Ok(());
                }
            }
        }
    }
}

/// Plays South's right move `mv` and North's `replies` and says so; whether that ended the
/// game (the puzzle is solved).
fn right(
    out: &mut impl Write,
    pos: &mut Position,
    played: &mut Vec<Move>,
    mv: Move,
    replies: &[Move],
) -> Result<bool, Failure> {
    pos.play(mv).map_err(Failure::from)?;
    played.push(mv);
    for r in replies {
        pos.play(*r).map_err(Failure::from)?;
        played.push(*r);
    }
    let rs: Vec<String> = replies.iter().map(|m| m.to_string()).collect();
    if pos.is_over() {
        if !replies.is_empty() {
            writeln!(out, "North plays {}", rs.join(" "))?;
        }
        writeln!(
            out,
            "Solved: South takes the last seeds and wins {}-{} in {} plies.",
            pos.store(Side::South),
            pos.store(Side::North),
            played.len()
        )?;
        return Ok(true);
    }
    if replies.is_empty() {
        writeln!(
            out,
            "Right. North has no seeds and passes: South plays again."
        )?;
    } else {
        writeln!(out, "Right. North defends with {}.", rs.join(" "))?;
    }
    write!(out, "{}", crate::board::draw(pos, played.last().copied()))?;
    Ok(false)
}
