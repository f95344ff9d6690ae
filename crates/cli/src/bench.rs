//! `anywoli bench`: random-playout, perft and search speed on one thread, as medians of several
//! runs.

use std::hint::black_box;
use std::io::Write;
use std::time::{Duration, Instant};

use std::sync::atomic::AtomicBool;

use anywoli_core::{perft, Position, Rules};
use anywoli_engine::{Engine, Limits};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use clap::Args;

use crate::common::{usize_in, CmdResult};
use crate::error::BenchError;

/// Plays random games from the start, again and again, for `time`; returns (plies, games).
pub fn playouts(time: Duration, seed: u64) -> (u64, u64, Duration) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let start = Position::start(Rules::Anywoli);
    let mut pos = start;
    let (mut plies, mut games) = (0u64, 0u64);
    let t0 = Instant::now();
    loop {
        // Check the clock every 4096 plies only: reading it costs more than a ply.
        for _ in 0..4096 {
            let moves = pos.moves();
            let mv = moves
                .nth(rng.random_range(0..moves.len()))
                .unwrap_or_else(|| {
                    unreachable!("a game in progress always has a move for the side to move")
                });
            if pos.play_unchecked(mv).is_ok() {
                plies += 1;
            }
            if pos.is_over() {
                games += 1;
                pos = start;
            }
        }
        let el = t0.elapsed();
        if el >= time {
            black_box(&pos);
            return (plies, games, el);
        }
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

#[derive(Args)]
/// What `anywoli bench` takes.
pub struct BenchArgs {
    /// Seconds for each measured run.
    #[arg(long, default_value_t = 1.0)]
    pub seconds: f64,
    /// Runs of each measurement; the median is reported.
    #[arg(long, default_value_t = 5)]
    pub runs: u32,
    /// Perft depth from the start position.
    #[arg(long, default_value_t = 6)]
    pub perft_depth: u32,
    /// Search depth timed from the start position.
    #[arg(long, default_value_t = 11)]
    pub search_depth: u32,
    /// Also compare N search threads with one: time to --search-depth from eight fixed
    /// positions, and nodes per second (does lazy SMP pay on this machine?).
    #[arg(long, value_name = "N", value_parser = usize_in(2, 64))]
    pub threads: Option<usize>,
    /// Distance to perfection instead (docs/strength.md): the levels choose moves in fixed
    /// endgame positions without databases, and the 8- and 12-seed databases of --tablebases
    /// judge them.
    #[arg(long)]
    pub perfect: bool,
    /// The databases' folder for --perfect (default $ANYWOLI_TABLEBASES, else ./tablebases).
    #[arg(long, value_name = "DIR")]
    pub tablebases: Option<std::path::PathBuf>,
    /// Levels --perfect measures: a list and ranges, e.g. 1-10 or 8,10.
    #[arg(long, default_value = "1-10", value_name = "LIST")]
    pub levels: String,
    /// Move times --perfect gives each level, in milliseconds.
    #[arg(
        long,
        default_value = "10,100,1000",
        value_delimiter = ',',
        value_name = "MS,…"
    )]
    pub movetimes: Vec<u64>,
    /// Positions --perfect judges at once.
    #[arg(long, default_value_t = 2, value_name = "J", value_parser = usize_in(1, 64))]
    pub jobs: usize,
    /// Judge an engine protocol program (told each level with `setoption name Level`)
    /// instead of the built-in levels, e.g. "target/baseline/anywoli engine".
    #[arg(long, value_name = "COMMAND")]
    pub engine: Option<String>,
    /// Only the first N positions of each set.
    #[arg(long, value_name = "N", value_parser = usize_in(1, 100_000))]
    pub positions: Option<usize>,
    /// Make the two sets again from FILE's self-play positions (written to --out, default
    /// crates/engine/perfect) instead of measuring; rebuild to use them.
    #[arg(long, value_name = "FILE")]
    pub make_sets_from: Option<std::path::PathBuf>,
    /// Where --make-sets-from writes.
    #[arg(long, value_name = "DIR")]
    pub out: Option<std::path::PathBuf>,
}

/// `1-10`, `8,10`, `1-3,10`: levels from 1 to 10.
fn parse_levels(s: &str) -> Result<Vec<u8>, crate::common::Failure> {
    let bad = || {
        crate::common::Failure::Says(format!(
            "--levels '{s}': expected levels 1 to 10 as a list and ranges, e.g. 1-10 or 8,10"
        ))
    };
    let mut out = Vec::new();
    for part in s.split(',') {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        let (a, b): (u8, u8) = (
            a.trim().parse().map_err(|_| bad())?,
            b.trim().parse().map_err(|_| bad())?,
        );
        if !(1..=10).contains(&a) || !(1..=10).contains(&b) || a > b {
            return Err(bad());
        }
        out.extend(a..=b);
    }
    Ok(out)
}

impl BenchArgs {
    /// What clap's parsers do not check.
    fn check(&self) -> Result<(), BenchError> {
        let seconds = self.seconds;
        if !(seconds.is_finite() && seconds > 0.0 && seconds <= 600.0) {
            return Err(BenchError::Seconds(seconds));
        }
        if self.runs == 0 || self.runs > 1000 {
            return Err(BenchError::Runs(self.runs));
        }
        if !(1..=30).contains(&self.search_depth) {
            return Err(BenchError::SearchDepth(self.search_depth));
        }
        if self.perft_depth > 9 {
            return Err(BenchError::PerftDepth(self.perft_depth));
        }
        Ok(())
    }
}

pub fn run(args: &BenchArgs) -> CmdResult {
    if args.perfect {
        if let Some(&ms) = args
            .movetimes
            .iter()
            .find(|&&ms| !(1..=600_000).contains(&ms))
        {
            return Err(crate::common::Failure::Says(format!(
                "--movetimes: {ms} is not a time from 1 to 600000 ms"
            )));
        }
        let engine = match &args.engine {
            Some(c) => Some(
                crate::matches::split_command(c)
                    .map_err(|e| crate::common::Failure::Says(format!("--engine: {e}")))?,
            ),
            None => None,
        };
        return crate::perfect::run(&crate::perfect::PerfectArgs {
            tablebases: args.tablebases.as_deref(),
            levels: parse_levels(&args.levels)?,
            movetimes: args.movetimes.clone(),
            jobs: args.jobs,
            engine,
            positions: args.positions,
            make_sets_from: args.make_sets_from.as_deref(),
            out: args.out.clone(),
        });
    }
    args.check()?;
    let (runs, depth, search_depth) = (args.runs, args.perft_depth, args.search_depth);
    let time = Duration::from_secs_f64(args.seconds);
    let mut out = std::io::stdout().lock();
    bench_playouts(&mut out, time, runs)?;
    let start = Position::start(Rules::Anywoli);
    let mut rates = Vec::new();
    let mut nodes = 0;
    for _ in 0..runs {
        let t0 = Instant::now();
        nodes = perft(black_box(&start), depth);
        rates.push(nodes as f64 / t0.elapsed().as_secs_f64());
    }
    writeln!(
        out,
        "perft {depth}: {nodes} leaves, {:.2} M leaves/s median of {runs} runs",
        median(rates) / 1e6
    )?;
    out.flush()?;
    bench_search(&mut out, &start, time, runs, search_depth)?;
    if let Some(n) = args.threads {
        out.flush()?;
        smp(&mut out, time, runs, search_depth, n)?;
    }
    Ok(())
}

/// Random playouts: plies per second, the median of `runs`.
fn bench_playouts(out: &mut impl Write, time: Duration, runs: u32) -> CmdResult {
    let mut rates = Vec::new();
    let mut total_plies = 0;
    let mut total_games = 0;
    for r in 0..runs {
        let (plies, games, el) = playouts(time, 0x5eed + r as u64);
        rates.push(plies as f64 / el.as_secs_f64());
        total_plies += plies;
        total_games += games;
    }
    writeln!(
        out,
        "playouts: {:.2} M plies/s median of {runs} runs ({total_games} games, {:.0} plies per game)",
        median(rates) / 1e6,
        total_plies as f64 / total_games.max(1) as f64
    )?;
    out.flush()?;
    Ok(())
}

/// The search: nodes per second on one thread, and the time to reach a fixed depth from the
/// start with a fresh table.
fn bench_search(
    out: &mut impl Write,
    start: &Position,
    time: Duration,
    runs: u32,
    search_depth: u32,
) -> CmdResult {
    let stop = AtomicBool::new(false);
    let mut nps = Vec::new();
    let mut to_depth = Vec::new();
    for _ in 0..runs {
        let engine = Engine::new(64, 1);
        let r = engine.search(start, &Limits::movetime(time), &stop, &mut |_| {});
        nps.push(r.nodes as f64 / r.time.as_secs_f64());
        let engine = Engine::new(64, 1);
        let r = engine.search(start, &Limits::depth(search_depth), &stop, &mut |_| {});
        to_depth.push(r.time.as_secs_f64() * 1000.0);
    }
    writeln!(
        out,
        "search: {:.2} M nodes/s, depth {search_depth} from the start in {:.0} ms, medians of {runs} runs (one thread)",
        median(nps) / 1e6,
        median(to_depth)
    )?;
    Ok(())
}

/// Fixed positions for the thread comparison: the start, then every 12th ply of one seeded
/// game whose moves are drawn among the best three of a depth-2 search, so that the positions
/// look like play (a uniformly random game is lopsided within a few plies).
pub fn smp_positions() -> Vec<Position> {
    let mut rng = SmallRng::seed_from_u64(0x5eed_0001);
    let mut pos = Position::start(Rules::Anywoli);
    let mut out = vec![pos];
    let stop = AtomicBool::new(false);
    let engine = Engine::new(1, 1);
    for ply in 1..=84 {
        if pos.is_over() {
            break;
        }
        let mut scored = engine.score_moves(&pos, 2, &stop);
        scored.sort_by_key(|&(_, s)| std::cmp::Reverse(s));
        let pick = rng.random_range(0..scored.len().min(3));
        let _ = pos.play_unchecked(scored[pick].0);
        if ply % 12 == 0 && !pos.is_over() {
            out.push(pos);
        }
    }
    out
}

/// Shortest one-thread search worth timing against `n` threads: shorter ones time starting
/// threads more than searching (the bench's later positions, with few seeds, finish depth 12
/// in 1–3 ms).
const WORTH_TIMING: Duration = Duration::from_millis(150);

/// Time to depth and nodes per second with one thread and with `n`, as medians of `runs`
/// runs per position with a fresh table each run. Each position is timed at the first depth
/// from `depth` up whose one-thread search takes [`WORTH_TIMING`] (one calibration run).
fn smp(out: &mut impl Write, time: Duration, runs: u32, depth: u32, n: usize) -> CmdResult {
    let stop = AtomicBool::new(false);
    let positions = smp_positions();
    writeln!(
        out,
        "threads: time to depth (ms), medians of {runs} runs, 64 MiB table, {} positions, each at the first depth from {depth} that one thread needs {} ms for",
        positions.len(),
        WORTH_TIMING.as_millis()
    )?;
    writeln!(out, "position  depth   1 thread  {n} threads  ratio")?;
    let mut ratios = Vec::new();
    let (mut sum1, mut sum_n) = (0.0, 0.0);
    // One engine per thread count, its table cleared before each run: clearing writes every
    // page, so the runs time the search and not the kernel handing out a fresh table's pages
    // (which a table's first search pays, and pays more with more threads touching it).
    let mut engines = [Engine::new(64, 1), Engine::new(64, n)];
    for (i, pos) in positions.iter().enumerate() {
        let mut d = depth;
        while d < 30 {
            engines[0].clear();
            let r = engines[0].search(pos, &Limits::depth(d), &stop, &mut |_| {});
            if r.time >= WORTH_TIMING {
                break;
            }
            d += 1;
        }
        let mut ms = [Vec::new(), Vec::new()];
        for _ in 0..runs {
            for (k, engine) in engines.iter_mut().enumerate() {
                engine.clear();
                let r = engine.search(pos, &Limits::depth(d), &stop, &mut |_| {});
                ms[k].push(r.time.as_secs_f64() * 1000.0);
            }
        }
        let [one, many] = ms.map(median);
        sum1 += one;
        sum_n += many;
        ratios.push(one / many.max(1e-3));
        writeln!(
            out,
            "{:>8} {d:>6} {one:>10.1} {many:>10.1} {:>6.2}",
            i * 12,
            one / many.max(1e-3)
        )?;
        out.flush()?;
    }
    writeln!(
        out,
        "time to depth: {n} threads {:.2}x as fast as 1 (median of the positions' ratios; sums {sum1:.0} ms / {sum_n:.0} ms)",
        median(ratios)
    )?;
    let mut nps = [Vec::new(), Vec::new()];
    for _ in 0..runs {
        for (k, engine) in engines.iter_mut().enumerate() {
            engine.clear();
            let r = engine.search(&positions[0], &Limits::movetime(time), &stop, &mut |_| {});
            nps[k].push(r.nodes as f64 / r.time.as_secs_f64());
        }
    }
    let [one, many] = nps.map(median);
    writeln!(
        out,
        "nodes/s from the start: 1 thread {:.2} M, {n} threads {:.2} M (all threads), {:.2}x",
        one / 1e6,
        many / 1e6,
        many / one
    )?;
    Ok(())
}
