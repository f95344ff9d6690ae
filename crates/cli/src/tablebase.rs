//! `anywoli tablebase`, `anywoli solve` and `anywoli puzzle`: the endgame databases, the exact
//! solver and the endgame puzzles (docs/tablebase.md).

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anywoli_core::{Move, Position, Rules, Side, XorShift, QUIET_LIMIT};
use anywoli_engine::arena::{elo, play_game};
use anywoli_engine::puzzles::{self, Judgement, Puzzle};
use anywoli_engine::solve::Solver;
use anywoli_engine::tablebase::{self, positions, unrank, Stage, Table, Tablebase, Verdict};
use anywoli_engine::{LevelPlayer, Player};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};

use crate::common::{parse_moves, play_all, CmdResult, Failure, Start};

#[derive(Subcommand)]
pub enum TablebaseCommand {
    /// Build the database of every position with N seeds in play and save it in DIR.
    Build {
        #[command(flatten)]
        place: Place,
        /// Threads to use.
        #[arg(long, default_value_t = 2, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=64))]
        threads: u16,
        /// Build the 12-seed database even when the system says too little memory is free.
        #[arg(long)]
        force: bool,
        /// Also write the compact file (`anywoli-N.awtbz`, what `tablebase compact` makes).
        #[arg(long)]
        compact: bool,
    },
    /// Write the compact file of a saved database (`anywoli-N.awtbz`: blocks compressed one by
    /// one, probed through a memory map; used instead of the `.awtb` file when present).
    Compact {
        #[command(flatten)]
        place: Place,
        /// Threads compressing.
        #[arg(long, default_value_t = 2, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=64))]
        threads: u16,
    },
    /// Check the compact file against the `.awtb` file entry by entry, and probe both at
    /// random positions.
    Compare {
        #[command(flatten)]
        place: Place,
        /// Random positions probed through each.
        #[arg(long, default_value_t = 1_000_000, value_name = "N")]
        samples: u64,
        /// Seed of the random positions.
        #[arg(long, default_value_t = 1, value_name = "N")]
        seed: u64,
    },
    /// Check a saved database entry by entry against the rules, and print its figures.
    Verify {
        #[command(flatten)]
        place: Place,
        #[arg(long, default_value_t = 2, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=64))]
        threads: u16,
    },
    /// Print a saved database's figures: wins, losses, unforced, forced-capture lengths.
    Stats {
        #[command(flatten)]
        place: Place,
    },
    /// Make the puzzle collection from the 8-seed database.
    Puzzles {
        /// The databases' folder (default $ANYWOLI_TABLEBASES, else ./tablebases).
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
        /// Puzzles of each of the 5 grades.
        #[arg(long, default_value_t = 24, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1000))]
        per_grade: u16,
        /// Seed of the order in which positions are tried.
        #[arg(long, default_value_t = 1, value_name = "N")]
        seed: u64,
        /// Write the collection here (default: print it).
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Play level 10 with the databases against level 10 without, from endgame positions.
    Match {
        /// The databases' folder.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
        /// Games; each start position is played twice, sides swapped.
        #[arg(long, default_value_t = 20, value_name = "N", value_parser = clap::value_parser!(u32).range(2..=100_000))]
        games: u32,
        /// Thinking time per move, in milliseconds.
        #[arg(long, default_value_t = 100, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=60_000))]
        movetime: u64,
        /// Seeds in play at the start of each game: 12, or 8 (then only positions whose
        /// forced capture is 30 to 100 plies away).
        #[arg(long, default_value = "12", value_name = "N", value_parser = ["8", "12"])]
        start_seeds: String,
        /// Seed of the start positions.
        #[arg(long, default_value_t = 1, value_name = "N")]
        seed: u64,
    },
}

/// Which database, where.
#[derive(Args, Clone)]
pub struct Place {
    /// Seeds in play (8; 12 is described in docs/tablebase.md).
    #[arg(long, default_value_t = 8, value_name = "N")]
    seeds: u8,
    /// The databases' folder (default $ANYWOLI_TABLEBASES, else ./tablebases).
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

impl Place {
    /// The `.awtb` file, or the compact one when only that is there.
    fn path(&self) -> Result<PathBuf, Failure> {
        check_seeds(self.seeds)?;
        Ok(table_path(self.dir.as_deref(), self.seeds))
    }

    fn plain_path(&self) -> Result<PathBuf, Failure> {
        check_seeds(self.seeds)?;
        Ok(Tablebase::dir(self.dir.as_deref()).join(Table::file_name(self.seeds)))
    }

    fn compact_path(&self) -> Result<PathBuf, Failure> {
        check_seeds(self.seeds)?;
        Ok(Tablebase::dir(self.dir.as_deref()).join(Table::compact_file_name(self.seeds)))
    }
}

/// The file of a table to read whole: `anywoli-N.awtb`, or `anywoli-N.awtbz` when only that
/// one is there.
fn table_path(dir: Option<&Path>, seeds: u8) -> PathBuf {
    let dir = Tablebase::dir(dir);
    let plain = dir.join(Table::file_name(seeds));
    let compact = dir.join(Table::compact_file_name(seeds));
    if !plain.exists() && compact.exists() {
        compact
    } else {
        plain
    }
}

/// What `build --seeds 12` says before it starts: it is long.
pub const TWELVE: &str = "building the 12-seed database of anywoli from the 8-seed one: \
    834,451,800 positions; expect about 20 minutes on 2 cores, 3.5 GB of memory, a 1.7 GB \
    file (docs/tablebase.md)";

fn check_seeds(seeds: u8) -> Result<(), Failure> {
    match seeds {
        8 | 12 => Ok(()),
        n => Err(Failure::Says(format!(
            "no database of {n} seeds: the databases are of 8 and 12 seeds in play"
        ))),
    }
}

fn bar() -> ProgressBar {
    let pb = ProgressBar::new(1);
    pb.set_style(
        ProgressStyle::with_template(
            "{prefix:>10} [{elapsed_precise}] [{wide_bar}] {pos}/{len} ({eta} left)",
        )
        .expect("a valid template")
        .progress_chars("=> "),
    );
    pb
}

/// A progress callback drawing `pb` (waves of the retrograde stage have no known total).
fn progress(pb: &ProgressBar) -> impl Fn(Stage, u64, u64) + Sync + '_ {
    move |stage, done, total| {
        pb.set_prefix(stage.name());
        if total == 0 {
            pb.set_message(format!("wave {done}"));
            pb.set_length(done.max(1));
            pb.set_position(done);
        } else {
            pb.set_length(total);
            pb.set_position(done);
        }
    }
}

pub fn run(cmd: &TablebaseCommand) -> CmdResult {
    match cmd {
        TablebaseCommand::Build {
            place,
            threads,
            force,
            compact,
        } => build(place, *threads as usize, *force, *compact),
        TablebaseCommand::Compact { place, threads } => compact(place, *threads as usize),
        TablebaseCommand::Compare {
            place,
            samples,
            seed,
        } => compare(place, *samples, *seed),
        TablebaseCommand::Verify { place, threads } => verify(place, *threads as usize),
        TablebaseCommand::Stats { place } => {
            let path = place.path()?;
            let t = Table::load(&path).map_err(|e| Failure::Says(missing(&path, e)))?;
            if place.seeds == 12 {
                let s = anywoli_engine::retro::stats12(&t);
                return print_stats12(&mut std::io::stdout().lock(), &s, &t);
            }
            print_stats(&t.stats(), &t)
        }
        TablebaseCommand::Puzzles {
            dir,
            per_grade,
            seed,
            out,
        } => make_puzzles(dir.as_deref(), *per_grade as usize, *seed, out.as_deref()),
        TablebaseCommand::Match {
            dir,
            games,
            movetime,
            start_seeds,
            seed,
        } => match_db(
            dir.as_deref(),
            *games as usize,
            *movetime,
            start_seeds.parse().unwrap_or(12),
            *seed,
        ),
    }
}

/// The error of a missing database, with the command that builds it.
fn missing(path: &Path, e: String) -> String {
    if path.exists() {
        e
    } else {
        format!(
            "no database at {}: build it with `anywoli tablebase build --seeds 8` (about 10 s and 16 MB), or name its folder with --dir or ANYWOLI_TABLEBASES",
            path.display()
        )
    }
}

/// The 12-seed build's peak memory (docs/tablebase.md): one packed 32-bit word per position
/// for the three thresholds' states and move counts, turned into the table in place.
const MEMORY12: u64 = 3_600_000_000;

/// The memory the kernel says is available, when it says (Linux); `None` elsewhere.
fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

fn build(place: &Place, threads: usize, force: bool, write_compact: bool) -> CmdResult {
    let path = place.plain_path()?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| Failure::Says(format!("cannot create {}: {e}", dir.display())))?;
    }
    let t0 = Instant::now();
    let pb = bar();
    let table = if place.seeds == 12 {
        let tb8 = eight_only(place.dir.as_deref())?;
        // Running out of memory an hour in would lose the work; say so before starting.
        if let Some(free) = available_memory().filter(|&m| m < MEMORY12 && !force) {
            return Err(Failure::Says(format!(
                "the 12-seed build needs about {:.1} GB of memory and {:.1} GB is available: free some, or pass --force to try anyway",
                MEMORY12 as f64 / 1e9,
                free as f64 / 1e9
            )));
        }
        eprintln!("{TWELVE}");
        anywoli_engine::retro::build12(&tb8, threads, &progress(&pb))
    } else {
        tablebase::build(place.seeds, threads, &progress(&pb))
    }
    .map_err(|e| Failure::Says(e.to_string()))?;
    pb.finish_and_clear();
    let built = t0.elapsed();
    table.save(&path).map_err(Failure::Says)?;
    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "built {} in {:.1} s: {} positions, {:.1} MB",
        path.display(),
        built.as_secs_f64(),
        table.len(),
        size as f64 / 1e6
    )?;
    if write_compact {
        say_compacted(&mut out, &path, &table, &place.compact_path()?, threads)?;
    }
    if place.seeds == 12 {
        return print_stats12(&mut out, &anywoli_engine::retro::stats12(&table), &table);
    }
    print_stats_to(&mut out, &table.stats(), &table)
}

fn print_stats12(out: &mut impl Write, s: &anywoli_engine::retro::Stats12, t: &Table) -> CmdResult {
    let valid = s.positions - s.invalid;
    let pct = |n: u64| 100.0 * n as f64 / valid.max(1) as f64;
    writeln!(
        out,
        "positions: {} distributions of 12 seeds, {} with seeds for the side to move",
        s.positions, valid
    )?;
    for (i, m) in anywoli_engine::retro::MARGINS12.iter().enumerate() {
        writeln!(
            out,
            "the side to move forces exactly {m:+}: {} ({:.2}%)",
            s.exact[i],
            pct(s.exact[i])
        )?;
    }
    writeln!(
        out,
        "only bounds (neither side forces the margin; the quiet rule decides): {} ({:.2}%)",
        s.bounded,
        pct(s.bounded)
    )?;
    let longest = t
        .position_at(s.longest_at, Rules::Anywoli)
        .map_or_else(String::new, |p| format!(", e.g. {p}"));
    writeln!(
        out,
        "longest distance to the deciding capture: {} plies{longest}",
        s.longest
    )?;
    let over: u64 = s.by_dtc.iter().skip(QUIET_LIMIT as usize + 1).sum();
    writeln!(
        out,
        "proven margins whose capture is more than {} plies away: {over} ({:.2}%)",
        QUIET_LIMIT,
        pct(over)
    )?;
    writeln!(
        out,
        "without a hole of 4 (play never leaves 4 in a hole): {} proven margins, {} only bounds, the longest {} plies, {} longer than {}",
        s.playable, s.playable_bounded, s.longest_playable, s.playable_over_quiet_limit, QUIET_LIMIT
    )?;
    let mut cumulative = 0u64;
    let proven: u64 = s.exact.iter().sum();
    write!(out, "proven margins within N plies:")?;
    for (d, c) in s.by_dtc.iter().enumerate() {
        cumulative += c;
        if [1, 5, 10, 20, 40, 60, 80, 100, 150, 200].contains(&d) {
            write!(
                out,
                " {d}:{:.1}%",
                100.0 * cumulative as f64 / proven.max(1) as f64
            )?;
        }
    }
    writeln!(out)?;
    Ok(())
}

/// Positions `verify --seeds 12` checks against the exact solver, and its node limit for each:
/// 400 take about 35 s and the solver proves 40-45% of them.
const CROSS_SAMPLES: usize = 400;
const CROSS_NODES: u64 = 300_000;

/// The 8-seed database alone, which the 12-seed one is built and checked from.
fn eight_only(dir: Option<&Path>) -> Result<Tablebase, Failure> {
    let p8 = table_path(dir, 8);
    if !p8.exists() {
        return Err(Failure::Says(format!(
            "the 12-seed database is built and checked from the 8-seed one, and there is none at {}: run `anywoli tablebase build --seeds 8` first",
            p8.display()
        )));
    }
    Ok(Tablebase::from_tables(vec![
        Table::load(&p8).map_err(Failure::Says)?
    ]))
}

fn verify(place: &Place, threads: usize) -> CmdResult {
    let path = place.path()?;
    let t0 = Instant::now();
    let table = Table::load(&path).map_err(|e| Failure::Says(missing(&path, e)))?;
    let pb = bar();
    if place.seeds == 12 {
        let tb8 = eight_only(place.dir.as_deref())?;
        let stats = anywoli_engine::retro::verify12(&table, &tb8, threads, &progress(&pb));
        pb.finish_and_clear();
        let stats = stats.map_err(|e| Failure::Says(e.to_string()))?;
        let mut out = std::io::stdout().lock();
        writeln!(
            out,
            "verified {}: every entry's bounds agree with the moves of its position ({:.1} s)",
            path.display(),
            t0.elapsed().as_secs_f64()
        )?;
        // Consistency alone does not rule out a wrong but self-consistent table; an
        // independent method on a sample does.
        let t1 = Instant::now();
        let p8 = table_path(place.dir.as_deref(), 8);
        let both = Tablebase::from_tables(vec![Table::load(&p8).map_err(Failure::Says)?, table]);
        let c =
            anywoli_engine::crosscheck::cross_check12(&both, &tb8, CROSS_SAMPLES, CROSS_NODES, 1);
        if let Some((p, table, solver)) = c.disagreements.first() {
            return Err(Failure::Says(format!(
                "the 12-seed database is wrong: it says {table:+} for {p}, the exact search proves {solver:+} ({} of {} checked positions disagree)",
                c.disagreements.len(),
                c.proven
            )));
        }
        writeln!(
            out,
            "cross-checked: {} random positions, {} of them proven by the exact search with the 8-seed database alone (at most {CROSS_NODES} nodes each), all agree ({:.1} s)",
            c.tried,
            c.proven,
            t1.elapsed().as_secs_f64()
        )?;
        let table = both.table(12).expect("held: it was just put there");
        return print_stats12(&mut out, &stats, table);
    }
    let stats = tablebase::verify(&table, threads, &progress(&pb));
    pb.finish_and_clear();
    let stats = stats.map_err(|e| Failure::Says(e.to_string()))?;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "verified {}: every entry agrees with the moves of its position ({:.1} s)",
        path.display(),
        t0.elapsed().as_secs_f64()
    )?;
    print_stats_to(&mut out, &stats, &table)
}

fn print_stats(s: &tablebase::Stats, t: &Table) -> CmdResult {
    print_stats_to(&mut std::io::stdout().lock(), s, t)
}

fn print_stats_to(out: &mut impl Write, s: &tablebase::Stats, t: &Table) -> CmdResult {
    let valid = s.positions - s.invalid;
    let pct = |n: u64| 100.0 * n as f64 / valid.max(1) as f64;
    writeln!(
        out,
        "positions: {} distributions of {} seeds, {} with seeds for the side to move (South to move; North to move is the same turned round)",
        s.positions, s.seeds, valid
    )?;
    writeln!(
        out,
        "wins for the side to move: {} ({:.2}%)",
        s.wins,
        pct(s.wins)
    )?;
    writeln!(out, "losses: {} ({:.2}%)", s.losses, pct(s.losses))?;
    writeln!(
        out,
        "unforced (neither side can force a capture): {} ({:.2}%)",
        s.unforced,
        pct(s.unforced)
    )?;
    if s.stuck > 0 {
        writeln!(out, "no move ever ends: {}", s.stuck)?;
    }
    let longest = t
        .position_at(s.longest_at, Rules::Anywoli)
        .map_or_else(String::new, |p| format!(", e.g. {p}"));
    writeln!(out, "longest forced capture: {} plies{longest}", s.longest)?;
    writeln!(
        out,
        "forced captures longer than the quiet rule's {} plies: {} ({:.4}%)",
        QUIET_LIMIT,
        s.longer_than(QUIET_LIMIT as usize),
        pct(s.longer_than(QUIET_LIMIT as usize))
    )?;
    writeln!(
        out,
        "without a hole of 4 (play never leaves 4 in a hole): {} forced captures, the longest {} plies, {} longer than {}",
        s.playable, s.longest_playable, s.playable_over_quiet_limit, QUIET_LIMIT
    )?;
    let mut cumulative = 0u64;
    let forced = s.wins + s.losses;
    write!(out, "forced captures within N plies:")?;
    for (d, c) in s.by_dtc.iter().enumerate() {
        cumulative += c[0] + c[1];
        if [1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100].contains(&d) {
            write!(
                out,
                " {d}:{:.1}%",
                100.0 * cumulative as f64 / forced.max(1) as f64
            )?;
        }
    }
    writeln!(out)?;
    Ok(())
}

fn make_puzzles(dir: Option<&Path>, per_grade: usize, seed: u64, out: Option<&Path>) -> CmdResult {
    let tb = open(dir)?;
    if tb.table(8).is_none() {
        let path = Tablebase::dir(dir).join(Table::file_name(8));
        return Err(Failure::Says(missing(&path, String::new())));
    }
    let list = puzzles::generate(&tb, per_grade, seed);
    let text = puzzles::format_collection(&list);
    match out {
        Some(path) => {
            std::fs::write(path, &text)
                .map_err(|e| Failure::Says(format!("cannot write {}: {e}", path.display())))?;
            let mut grades = [0usize; 5];
            for p in &list {
                grades[p.grade as usize - 1] += 1;
            }
            println!(
                "{} puzzles written to {} (by grade 1..5: {:?})",
                list.len(),
                path.display(),
                grades
            );
        }
        None => print!("{text}"),
    }
    Ok(())
}

/// The databases of `dir` (see [`Tablebase::dir`]); none found is not an error.
pub fn open(dir: Option<&Path>) -> Result<Tablebase, Failure> {
    Tablebase::open(dir).map_err(Failure::Says)
}

/// Random positions with `seeds` in play, stores level, quiet counter 0, South to move. With 8
/// seeds, only those where South forces the capture in 30 to 100 plies: long enough that a
/// search without the database cannot see it (a random 8-seed position is mostly decided in
/// a few plies, and both players find those).
fn endgame_starts(tb: &Tablebase, seeds: u8, n: usize, seed: u64) -> Vec<Position> {
    let mut rng = XorShift::new(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut out = Vec::new();
    let rest = 96 - seeds;
    while out.len() < n {
        let holes = unrank(rng.below(positions(seeds)), seeds);
        // No hole of 4 (it cannot arise in play after the start) and seeds on both sides.
        if holes.contains(&4)
            || holes[..12].iter().all(|&c| c == 0)
            || holes[12..].iter().all(|&c| c == 0)
        {
            continue;
        }
        if let Ok(p) = Position::from_parts(
            holes,
            [rest / 2, rest / 2],
            Some(Side::South),
            None,
            None,
            0,
            0,
            Rules::Anywoli,
        ) {
            if seeds == 8
                && !tb
                    .probe(&p)
                    .is_some_and(|pr| pr.verdict == Verdict::Win && (30..=100).contains(&pr.dtc))
            {
                continue;
            }
            out.push(p);
        }
    }
    out
}

fn match_db(dir: Option<&Path>, games: usize, movetime: u64, seeds: u8, seed: u64) -> CmdResult {
    let tb = Arc::new(open(dir)?);
    if tb.table(8).is_none() {
        let path = Tablebase::dir(dir).join(Table::file_name(8));
        return Err(Failure::Says(missing(&path, String::new())));
    }
    let starts = endgame_starts(&tb, seeds, games.div_ceil(2), seed);
    let mut with = LevelPlayer::new(10, seed, 16, 1).expect("level 10 exists");
    with.engine_mut().set_tablebase(Some(tb));
    let mut without = LevelPlayer::new(10, seed + 1, 16, 1).expect("level 10 exists");
    without.engine_mut().set_tablebase(None);
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "match: level 10 with the databases vs level 10 without, {games} games from {} random {seeds}-seed positions (each with both sides), movetime {movetime} ms",
        starts.len()
    )?;
    let mut results = Vec::new();
    let t = Duration::from_millis(movetime);
    for (i, start) in starts.iter().enumerate() {
        for swap in [false, true] {
            if results.len() >= games {
                break;
            }
            let players: [&mut dyn Player; 2] = if swap {
                [&mut without, &mut with]
            } else {
                [&mut with, &mut without]
            };
            let g = play_game(players, *start, t);
            let south = g.south_score();
            let score = if swap { 1.0 - south } else { south };
            results.push(score);
            writeln!(
                out,
                "game {}: start {} with-db plays {}: {}-{} after {} plies, with-db scores {score}",
                results.len(),
                i + 1,
                if swap { "North" } else { "South" },
                g.end.store(Side::South),
                g.end.store(Side::North),
                g.moves.len()
            )?;
        }
    }
    let e = elo(&results);
    let wins = results.iter().filter(|&&r| r == 1.0).count();
    let draws = results.iter().filter(|&&r| r == 0.5).count();
    writeln!(
        out,
        "score: with databases {} - {} without ({} games: +{wins} ={draws} -{})",
        e.score,
        e.games as f64 - e.score,
        e.games,
        e.games - wins - draws
    )?;
    writeln!(
        out,
        "elo: with - without = {:+.0} +/- {:.0} (95%)",
        e.elo, e.error
    )?;
    Ok(())
}

/// `anywoli solve`.
#[derive(Args)]
pub struct SolveArgs {
    #[command(flatten)]
    start: Start,
    /// The databases' folder (default $ANYWOLI_TABLEBASES, else ./tablebases; none is fine).
    #[arg(long, value_name = "DIR")]
    tablebases: Option<PathBuf>,
    /// Give up after this many nodes of exact search per question.
    #[arg(long, default_value_t = 20_000_000, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=10_000_000_000))]
    nodes: u64,
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
    let tb = open(args.tablebases.as_deref())?;
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
            "databases: none found in {} (exact search only; `anywoli tablebase build` makes the 8-seed one)",
            Tablebase::dir(args.tablebases.as_deref()).display()
        )?;
    }
    if let Some(p) = tb.probe(&pos).filter(|_| pos.seeds_in_play() == 12) {
        // The 12-seed table gives bounds on the margin of the 12 seeds left.
        let left = QUIET_LIMIT - pos.quiet_plies();
        let what = match (p.value, p.lower, p.upper) {
            (Some(v), _, _) => format!("{me} forces a margin of {v:+} on the 12 seeds left"),
            (None, lo, hi) if p.in_time => format!(
                "{me} forces a margin of at least {} and at most {} on the 12 seeds left (the quiet rule may decide between)",
                lo.map_or("-12".to_string(), |x| format!("{x:+}")),
                hi.map_or("+12".to_string(), |x| format!("{x:+}"))
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
    } else if let Some(p) = tb.probe(&pos) {
        let who = match p.verdict {
            Verdict::Win => format!("{me} forces the next capture in {} plies", p.dtc),
            Verdict::Loss => format!(
                "{} forces the next capture in {} plies",
                me.opponent(),
                p.dtc
            ),
            Verdict::Unforced => "neither side can force a capture".to_string(),
        };
        let left = QUIET_LIMIT - pos.quiet_plies();
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
    }
    let t0 = Instant::now();
    let mut solver = Solver::new(Some(&tb), args.nodes);
    match solver.solve(&pos) {
        Err(e) => {
            writeln!(
                out,
                "result: not proven — {e} ({:.1} s); raise --nodes, or solve a position nearer the end",
                t0.elapsed().as_secs_f64()
            )?;
        }
        Ok(s) => {
            let (south, north) = match me {
                Side::South => (s.margin, -s.margin),
                Side::North => (-s.margin, s.margin),
            };
            let total = pos.store(Side::South) as i32
                + pos.store(Side::North) as i32
                + pos.seeds_in_play() as i32;
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
            let winning = s.winning_moves(&pos);
            let list = |ms: &[Move]| {
                ms.iter()
                    .map(|m| m.to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            };
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
                    .map(|(m, l, u)| {
                        format!("{m} between {} and {}", seeds_signed(*l), seeds_signed(*u))
                    })
                    .collect();
                writeln!(out, "not proven within the node limit: {}", each.join(", "))?;
            }
            writeln!(out, "line: {}", list(&s.line))?;
            writeln!(
                out,
                "searched: {} nodes, {:.2} s",
                s.nodes,
                t0.elapsed().as_secs_f64()
            )?;
        }
    }
    Ok(())
}

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
                let ms: Vec<String> = pz.line.iter().map(|m| m.to_string()).collect();
                writeln!(out, "solution: {}", ms.join(" "))?;
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
                let ms: Vec<String> = pz.line.iter().map(|m| m.to_string()).collect();
                writeln!(
                    out,
                    "{mv} lets North force the capture. The only winning move was {expected}; the solution: {}",
                    ms.join(" ")
                )?;
                return Ok(());
            }
            Judgement::Right { replies } | Judgement::Solved { replies } => {
                pos.play(mv).map_err(Failure::from)?;
                played.push(mv);
                for r in &replies {
                    pos.play(*r).map_err(Failure::from)?;
                    played.push(*r);
                }
                if pos.is_over() {
                    if !replies.is_empty() {
                        let rs: Vec<String> = replies.iter().map(|m| m.to_string()).collect();
                        writeln!(out, "North plays {}", rs.join(" "))?;
                    }
                    writeln!(
                        out,
                        "Solved: South takes the last seeds and wins {}-{} in {} plies.",
                        pos.store(Side::South),
                        pos.store(Side::North),
                        played.len()
                    )?;
                    return Ok(());
                }
                if replies.is_empty() {
                    writeln!(
                        out,
                        "Right. North has no seeds and passes: South plays again."
                    )?;
                } else {
                    let rs: Vec<String> = replies.iter().map(|m| m.to_string()).collect();
                    writeln!(out, "Right. North defends with {}.", rs.join(" "))?;
                }
                write!(out, "{}", crate::board::draw(&pos, played.last().copied()))?;
            }
        }
    }
}

/// Writes the compact file of `table` (read from `from`) and says what it took.
fn say_compacted(
    out: &mut impl Write,
    from: &Path,
    table: &Table,
    to: &Path,
    threads: usize,
) -> CmdResult {
    let t0 = Instant::now();
    let size = table.save_compact(to, threads).map_err(Failure::Says)?;
    let plain = 2 * table.len() as u64 + 32;
    writeln!(
        out,
        "compacted {} into {} in {:.1} s: {:.1} MB, {:.2} bits an entry, {:.1}% of the .awtb size",
        from.display(),
        to.display(),
        t0.elapsed().as_secs_f64(),
        size as f64 / 1e6,
        8.0 * size as f64 / table.len() as f64,
        100.0 * size as f64 / plain as f64
    )?;
    Ok(())
}

fn compact(place: &Place, threads: usize) -> CmdResult {
    let path = place.plain_path()?;
    let table = Table::load(&path).map_err(|e| Failure::Says(missing(&path, e)))?;
    say_compacted(
        &mut std::io::stdout().lock(),
        &path,
        &table,
        &place.compact_path()?,
        threads,
    )
}

/// Every entry of the compact file against the `.awtb` file, then `samples` random positions
/// probed through each (either side to move, quiet counts 0, 50 and 99, each rule the table
/// answers for), timing the probes.
fn compare(place: &Place, samples: u64, seed: u64) -> CmdResult {
    let (pp, cp) = (place.plain_path()?, place.compact_path()?);
    let t0 = Instant::now();
    let plain = Table::load(&pp).map_err(|e| Failure::Says(missing(&pp, e)))?;
    let c = Table::open_compact(&cp).map_err(|e| Failure::Says(missing(&cp, e)))?;
    let n = plain.len() as u64;
    if c.len() as u64 != n || c.seeds() != plain.seeds() {
        return Err(Failure::Says(format!(
            "{} and {} are not the same table",
            cp.display(),
            pp.display()
        )));
    }
    for i in 0..n {
        let e = c
            .try_entry_at(i)
            .map_err(|e| Failure::Says(e.to_string()))?;
        if e != plain.entry_at(i) {
            return Err(Failure::Says(format!(
                "{} disagrees with {} at entry {i}: {e:#06x} instead of {:#06x}",
                cp.display(),
                pp.display(),
                plain.entry_at(i)
            )));
        }
    }
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "compared {} with {}: all {n} entries agree ({:.1} s)",
        cp.display(),
        pp.display(),
        t0.elapsed().as_secs_f64()
    )?;
    let seeds = plain.seeds();
    let tb_plain = Tablebase::from_tables(vec![plain]);
    let tb_compact = Tablebase::from_tables(vec![c]);
    let rules: &[(Rules, Option<Side>)] = if seeds == 12 {
        &[(Rules::Anywoli, None)]
    } else {
        &[
            (Rules::Anywoli, None),
            (Rules::FirstFinal, Some(Side::South)),
            (Rules::FirstFinal, Some(Side::North)),
            (Rules::Lottery { seed: 1 }, None),
        ]
    };
    let mut rng = XorShift::new(seed | 1);
    let mut ps = Vec::with_capacity(samples.min(1 << 24) as usize);
    while (ps.len() as u64) < samples {
        let x = rng.next();
        let holes = unrank(x % n, seeds);
        let side = if x >> 63 == 0 {
            Side::South
        } else {
            Side::North
        };
        let quiet = [0u16, 50, 99][(x >> 40) as usize % 3];
        let (r, ff) = rules[(x >> 50) as usize % rules.len()];
        let rest = 96 - seeds;
        if let Ok(p) = Position::from_parts(
            holes,
            [rest / 2, rest - rest / 2],
            Some(side),
            None,
            ff,
            quiet,
            quiet as u32,
            r,
        ) {
            ps.push(p);
        }
    }
    let time = |tb: &Tablebase| {
        let t = Instant::now();
        let answers: Vec<_> = ps.iter().map(|p| tb.probe(p)).collect();
        (answers, t.elapsed())
    };
    let (a, ta) = time(&tb_plain);
    let (b, tb) = time(&tb_compact);
    if let Some(i) = (0..ps.len()).find(|&i| a[i] != b[i]) {
        return Err(Failure::Says(format!(
            "the compact file probes {} differently: {:?} instead of {:?}",
            ps[i], b[i], a[i]
        )));
    }
    writeln!(
        out,
        "probed {} random positions through each, all agree: {:.0} ns a probe from the compact file, {:.0} ns from the table in memory (random positions: nearly every compact probe decompresses a block)",
        ps.len(),
        tb.as_nanos() as f64 / ps.len() as f64,
        ta.as_nanos() as f64 / ps.len() as f64
    )?;
    Ok(())
}
