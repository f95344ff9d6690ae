//! `anywoli review RECORD`: every move of a recorded game judged by the engine, the marked
//! moves with the better one, and each player's accuracy (anywoli_engine::review).

use std::io::{Read, Write};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use anywoli_core::{Record, Side};
use anywoli_engine::review::{review, Mark, Review};
use anywoli_engine::{Engine, Limits};
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::analyse::seeds;
use crate::common::{CmdResult, Failure};

#[derive(Args)]
pub struct ReviewArgs {
    /// The game's record (docs/record-format.md); `-` reads it from standard input.
    record: PathBuf,
    /// Search each position this many plies deep (the same review on every machine).
    #[arg(long, value_name = "D", value_parser = clap::value_parser!(u32).range(1..=96), conflicts_with = "movetime")]
    depth: Option<u32>,
    /// Search each position for this many milliseconds (100 when neither is given).
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=600_000))]
    movetime: Option<u64>,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = 16, value_name = "MIB", value_parser = crate::common::usize_in(1, 4096))]
    hash: usize,
    /// Print the review as JSON (the web app's form) instead of text.
    #[arg(long)]
    json: bool,
}

/// Each position's search when the command names neither a depth nor a time.
pub const DEFAULT_MOVETIME_MS: u64 = 100;

pub fn run(args: &ReviewArgs) -> CmdResult {
    let text = if args.record.as_os_str() == "-" {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s)?;
        s
    } else {
        std::fs::read_to_string(&args.record).map_err(|error| Failure::Read {
            path: args.record.clone(),
            error,
        })?
    };
    let rec = Record::parse(&text).map_err(Failure::Record)?;
    let limits = match (args.depth, args.movetime) {
        (Some(d), _) => Limits::depth(d),
        (None, t) => Limits::movetime(Duration::from_millis(t.unwrap_or(DEFAULT_MOVETIME_MS))),
    };
    let mut engine = Engine::new(args.hash, 1);
    engine.set_tablebase(anywoli_engine::endgame::shared());
    let bar =
        ProgressBar::with_draw_target(Some(rec.moves.len() as u64), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(
            "reviewing [{elapsed_precise}] [{wide_bar}] {pos}/{len} moves",
        )
        .expect("a valid template")
        .progress_chars("=> "),
    );
    let began = Instant::now();
    let r = review(
        &mut engine,
        &rec.start,
        &rec.moves,
        &limits,
        &AtomicBool::new(false),
        &mut |done, _| bar.set_position(done as u64),
    )
    .map_err(Failure::Review)?;
    bar.finish_and_clear();
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(
            out,
            "{}",
            serde_json::to_string(&r).map_err(Failure::ReviewJson)?
        )?;
        return Ok(());
    }
    print(&mut out, &r, began.elapsed())?;
    Ok(())
}

fn print(out: &mut impl Write, r: &Review, took: Duration) -> std::io::Result<()> {
    writeln!(
        out,
        "ply  side   move  eval (South)  win % (South)  seeds lost  win % lost  mark        best"
    )?;
    for m in &r.moves {
        let (mark, best) = match m.mark {
            Some(mark) => (
                mark.name(),
                format!("{} ({} for {})", m.best, seeds(m.best_score), m.mover),
            ),
            None => ("", String::new()),
        };
        let row = format!(
            "{:>3}  {:<5}  {:>4}  {:>12}  {:>13.1}  {:>10}  {:>10.1}  {mark:<10}  {best}",
            m.ply,
            m.mover.to_string(),
            m.played.to_string(),
            seeds(r.evals[m.ply]),
            r.wins.get(m.ply).copied().unwrap_or(50.0),
            seeds(m.loss),
            m.win_loss,
        );
        writeln!(out, "{}", row.trim_end())?;
    }
    for side in [Side::South, Side::North] {
        let count = |k: Mark| {
            r.moves
                .iter()
                .filter(|m| m.mover == side && m.mark == Some(k))
                .count()
        };
        let accuracy = r.accuracy[side.index()].map_or("-".to_string(), |a| format!("{a:.1} %"));
        writeln!(
            out,
            "{side}: accuracy {accuracy}, {} inaccuracies, {} mistakes, {} blunders",
            count(Mark::Inaccuracy),
            count(Mark::Mistake),
            count(Mark::Blunder)
        )?;
    }
    writeln!(
        out,
        "reviewed {} moves in {:.1} s",
        r.moves.len(),
        took.as_secs_f64()
    )
}
