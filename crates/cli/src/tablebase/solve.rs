//! `anywoli solve`: the exact value of a position, what the databases say of it, every move's
//! value and a line of perfect play.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anywoli_core::{Move, Position, Side, QUIET_LIMIT};
use anywoli_engine::endgame::{Solution, Solver, Tablebase, Verdict};
use clap::Args;

use super::place::{folder, open};
use crate::common::{parse_moves, play_all, CmdResult, Start};

/// The databases and the node budget of an exact search (`solve`, `compose`).
#[derive(Args)]
pub struct ExactArgs {
    /// The databases' folder (default $ANYWOLI_TABLEBASES, else ./tablebases; none is fine).
    #[arg(long, value_name = "DIR")]
    pub tablebases: Option<PathBuf>,
    /// Give up after this many nodes of exact search per question.
    #[arg(long, default_value_t = 20_000_000, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=10_000_000_000))]
    pub nodes: u64,
}

/// `anywoli solve`.
#[derive(Args)]
pub struct SolveArgs {
    #[command(flatten)]
    start: Start,
    #[command(flatten)]
    exact: ExactArgs,
    /// Moves to play before solving.
    #[arg(value_name = "MOVE")]
    moves: Vec<String>,
}

fn seeds_signed(n: i32) -> String {
    format!("{n:+}")
}

pub fn solve(args: &SolveArgs) -> CmdResult {
    let pos = args.start.position()?;
    let moves = parse_moves(&args.moves)?;
    let pos = play_all(pos, &moves)?.pop().unwrap_or(pos);
    let tb = open(args.exact.tablebases.as_deref())?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "position {pos}")?;
    let Some(me) = pos.to_move() else {
        writeln!(
            out,
            "result: the game is over, {}-{}",
            pos.store(Side::South),
            pos.store(Side::North)
        )?;
        return Ok(());
    };
    if tb.is_empty() {
        writeln!(
            out,
            "databases: none found in {} (exact search; 8-seed positions from the solver's own layer, built in memory in about 3 s; `anywoli tablebase build` saves it)",
            folder(args.exact.tablebases.as_deref()).display()
        )?;
    }
    say_database(&mut out, &tb, &pos, me)?;
    let t0 = Instant::now();
    let mut solver = Solver::new(Some(&tb), args.exact.nodes);
    match solver.solve(&pos) {
        Err(e) => {
            writeln!(
                out,
                "result: not proven — {e} ({:.1} s); raise --nodes, or solve a position nearer the end",
                t0.elapsed().as_secs_f64()
            )?;
        }
        Ok(s) => say_solution(&mut out, &s, &pos, me, t0)?,
    }
    Ok(())
}

/// What the databases say about `pos` (`me` to move), when they cover it.
fn say_database(out: &mut impl Write, tb: &Tablebase, pos: &Position, me: Side) -> CmdResult {
    let Some(p) = tb.probe(pos) else {
        return Ok(());
    };
    let left = QUIET_LIMIT - pos.quiet_plies();
    let n = pos.seeds_in_play();
    if n >= 12 {
        // The tables of 12 seeds and more give bounds on the margin of the seeds left.
        let what = match (p.value, p.lower, p.upper) {
            (Some(v), _, _) => format!("{me} forces a margin of {v:+} on the {n} seeds left"),
            (None, lo, hi) if p.in_time => format!(
                "{me} forces a margin of at least {} and at most {} on the {n} seeds left (the quiet rule may decide between)",
                lo.map_or(format!("-{n}"), |x| format!("{x:+}")),
                hi.map_or(format!("+{n}"), |x| format!("{x:+}"))
            ),
            _ => format!(
                "its proof needs {} plies and the quiet rule leaves {left}: the exact search decides",
                p.dtc
            ),
        };
        let when = if p.in_time && p.dtc > 0 {
            format!(", the deciding capture within {} plies", p.dtc)
        } else {
            String::new()
        };
        writeln!(out, "database: {what}{when}")?;
        return Ok(());
    }
    let who = match p.verdict {
        Verdict::Win => format!("{me} forces the next capture in {} plies", p.dtc),
        Verdict::Loss => format!(
            "{} forces the next capture in {} plies",
            me.opponent(),
            p.dtc
        ),
        Verdict::Unforced => "neither side can force a capture".to_string(),
    };
    let when = if p.verdict == Verdict::Unforced {
        String::new()
    } else if p.in_time {
        format!(", within the {left} plies the quiet rule leaves")
    } else {
        format!(
            ", but the quiet rule ends the game in {left} plies: the capture does not count and the exact search decides"
        )
    };
    writeln!(out, "database: {who}{when}")?;
    Ok(())
}

/// Moves as `anywoli` writes them, by spaces.
fn list(ms: &[Move]) -> String {
    ms.iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The proven result `s` of `pos` (`me` to move), its moves and its line.
fn say_solution(
    out: &mut impl Write,
    s: &Solution,
    pos: &Position,
    me: Side,
    t0: Instant,
) -> CmdResult {
    let (south, north) = match me {
        Side::South => (s.margin, -s.margin),
        Side::North => (-s.margin, s.margin),
    };
    let total =
        pos.store(Side::South) as i32 + pos.store(Side::North) as i32 + pos.seeds_in_play() as i32;
    let fs = (total + south) / 2;
    let fnn = (total + north) / 2;
    let verdict = match s.margin.cmp(&0) {
        std::cmp::Ordering::Greater => format!("{me} wins"),
        std::cmp::Ordering::Less => format!("{} wins", me.opponent()),
        std::cmp::Ordering::Equal => "draw".to_string(),
    };
    writeln!(
        out,
        "result: {verdict} {fs}-{fnn} (South-North), proven: {me} to move wins {} more seeds net under perfect play",
        seeds_signed(s.value)
    )?;
    let winning = s.winning_moves(pos);
    let unsure = if s.unproven_moves.is_empty() {
        ""
    } else {
        " (of the moves proven; see below)"
    };
    writeln!(
        out,
        "winning moves: {}{unsure}",
        if winning.is_empty() {
            "none".to_string()
        } else {
            list(&winning)
        }
    )?;
    let best: Vec<Move> = s
        .moves
        .iter()
        .filter(|m| m.1 == s.value)
        .map(|m| m.0)
        .collect();
    writeln!(out, "best moves: {}", list(&best))?;
    say_moves(out, s)?;
    writeln!(out, "line: {}", list(&s.line))?;
    writeln!(
        out,
        "searched: {} nodes, {:.2} s",
        s.nodes,
        t0.elapsed().as_secs_f64()
    )?;
    Ok(())
}

/// Every move's proven value, then those the node limit left unproven with their bounds.
fn say_moves(out: &mut impl Write, s: &Solution) -> CmdResult {
    let each: Vec<String> = s
        .moves
        .iter()
        .map(|(m, v)| format!("{m} {}", seeds_signed(*v)))
        .collect();
    writeln!(
        out,
        "every move (seeds won from here, net): {}",
        each.join(", ")
    )?;
    if !s.unproven_moves.is_empty() {
        let each: Vec<String> = s
            .unproven_moves
            .iter()
            .map(|(m, l, u)| format!("{m} between {} and {}", seeds_signed(*l), seeds_signed(*u)))
            .collect();
        writeln!(out, "not proven within the node limit: {}", each.join(", "))?;
    }
    Ok(())
}
