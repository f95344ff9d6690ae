//! `anywoli analyse`: the best move of a position, its score in seeds and the line expected.

use std::io::Write;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anywoli_core::{Move, Position, Side};
use anywoli_engine::{Engine, Info, Limits, SearchResult};
use clap::Args;

use crate::common::{parse_moves, play_all, usize_in, CmdResult, Failure, Start};

/// Centiseeds as seeds with a sign and two decimals: `+2.50`, `-0.25`, `+0.00`.
pub fn seeds(centiseeds: i32) -> String {
    let sign = if centiseeds < 0 { '-' } else { '+' };
    let a = centiseeds.unsigned_abs();
    format!("{sign}{}.{:02}", a / 100, a % 100)
}

pub fn line(pv: &[Move]) -> String {
    pv.iter()
        .map(|m| m.letter().to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

#[derive(Args)]
/// What `anywoli analyse` takes.
pub struct AnalyseArgs {
    #[command(flatten)]
    pub start: Start,
    /// Think this long, in milliseconds (1000 when neither --movetime nor --depth is given).
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=86_400_000))]
    pub movetime: Option<u64>,
    /// Search this many plies deep (1 to 96).
    #[arg(long, value_name = "D", value_parser = clap::value_parser!(u32).range(1..=96))]
    pub depth: Option<u32>,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = 16, value_name = "MIB", value_parser = usize_in(1, 4096))]
    pub hash: usize,
    /// Search threads (default: 2 on a machine with two cores or more, else 1; 1 gives the
    /// same output every run).
    #[arg(long, value_name = "N", value_parser = usize_in(1, 64))]
    pub threads: Option<usize>,
    /// Report the best N moves, each with its exact score and line (1 to 12).
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = usize_in(1, 12))]
    pub multipv: usize,
    /// Moves to play before searching.
    #[arg(value_name = "MOVE")]
    pub moves: Vec<String>,
}

/// What `analyse` uses when neither `--movetime` nor `--depth` is given.
pub const DEFAULT_MOVETIME_MS: u64 = 1000;

pub fn run(args: &AnalyseArgs) -> CmdResult {
    let pos = args.start.position()?;
    let moves = parse_moves(&args.moves)?;
    let pos = play_all(pos, &moves)?.pop().unwrap_or(pos);
    let mut out = std::io::stdout().lock();
    writeln!(out, "position {pos}")?;
    let Some(me) = pos.to_move() else {
        let result = match pos.outcome() {
            Some(o) => format!("{o}"),
            None => "over".to_string(),
        };
        writeln!(
            out,
            "best move: none, the game is over ({result}, {}-{})",
            pos.store(Side::South),
            pos.store(Side::North)
        )?;
        return Ok(());
    };
    let limits = Limits {
        depth: args.depth,
        nodes: None,
        movetime: match (args.movetime, args.depth) {
            (None, None) => Some(Duration::from_millis(DEFAULT_MOVETIME_MS)),
            (t, _) => t.map(Duration::from_millis),
        },
    };
    // Whoever analyses waits for a depth, which two threads reach 1.75x as fast; in play the
    // second thread is worth +5 ± 21 Elo at 100 ms, so only analysis takes it by default
    // (docs/strength.md, "Threads").
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(2)));
    let mut engine = Engine::new(args.hash, threads);
    engine.set_tablebase(anywoli_engine::endgame::shared());
    engine.set_multipv(args.multipv);
    let r = search_printing(&mut out, &engine, &pos, &limits, args.multipv > 1)?;
    print_result(&mut out, &r, me, args.multipv > 1)
}

/// Searches, printing a line per depth (and per line with `multi`) as the search reports it;
/// an output that fails stops the search.
fn search_printing(
    out: &mut impl Write,
    engine: &Engine,
    pos: &Position,
    limits: &Limits,
    multi: bool,
) -> Result<SearchResult, Failure> {
    let stop = AtomicBool::new(false);
    let mut failed: Option<std::io::Error> = None;
    let mut on_info = |i: &Info| {
        if failed.is_some() {
            return;
        }
        let which = if multi {
            format!("  line {}", i.multipv)
        } else {
            String::new()
        };
        let r = writeln!(
            out,
            "depth {:>2}{which}  score {:>7}  nodes {:>10}  nps {:>9}  time {:>6} ms  pv {}",
            i.depth,
            seeds(i.score),
            i.nodes,
            i.nps(),
            i.time.as_millis(),
            line(&i.pv)
        )
        .and_then(|()| out.flush());
        if let Err(e) = r {
            failed = Some(e);
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    };
    let r = engine.search(pos, limits, &stop, &mut on_info);
    match failed {
        Some(e) => Err(e.into()),
        None => Ok(r),
    }
}

/// The best move, its score for `me` (the side to move), its line and, with `multi`, the
/// best lines.
fn print_result(out: &mut impl Write, r: &SearchResult, me: Side, multi: bool) -> CmdResult {
    let Some(best) = r.best else {
        writeln!(out, "best move: none, no move of {me} can be played")?;
        return Ok(());
    };
    writeln!(out, "best move: {best}")?;
    writeln!(
        out,
        "score: {} seeds for {me}, the side to move (expected final store difference, {me} minus {})",
        seeds(r.score),
        me.opponent()
    )?;
    writeln!(out, "line: {}", line(&r.pv))?;
    if multi {
        writeln!(out, "best {} moves:", r.lines.len())?;
        for (k, l) in r.lines.iter().enumerate() {
            writeln!(out, "{:>2}. {:>7}  {}", k + 1, seeds(l.score), line(&l.pv))?;
        }
    }
    writeln!(
        out,
        "searched: depth {}, {} nodes, {} ms",
        r.depth,
        r.nodes,
        r.time.as_millis()
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn seeds_are_signed_with_two_decimals() {
        assert_eq!(super::seeds(250), "+2.50");
        assert_eq!(super::seeds(-25), "-0.25");
        assert_eq!(super::seeds(0), "+0.00");
        assert_eq!(super::seeds(-9600), "-96.00");
    }
}
