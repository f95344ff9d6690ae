//! `anywoli tablebase`, `anywoli solve` and `anywoli puzzle`: the endgame databases, the exact
//! solver and the endgame puzzles (docs/tablebase.md). One file per subcommand; [`place`] says
//! where the databases are, [`progress`] draws a long job's bar.

use std::path::PathBuf;

use anywoli_engine::endgame::{Table, MAX_THREADS};
use clap::Subcommand;

use crate::common::CmdResult;

mod build;
mod compare;
mod distributed;
mod matchdb;
#[cfg(feature = "mpi")]
mod mpi;
mod place;
mod progress;
mod puzzle;
mod puzzles;
mod solve;
mod stats;
mod verify;

pub use place::{from_env, open, Place};
pub use puzzle::{puzzle, PuzzleArgs};
pub use solve::{solve, ExactArgs, SolveArgs};

#[derive(Subcommand)]
pub enum TablebaseCommand {
    /// Build the database of every position with N seeds in play and save it in DIR.
    Build {
        #[command(flatten)]
        place: Place,
        /// Threads to use.
        #[arg(long, default_value_t = 2, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=MAX_THREADS as i64))]
        threads: u16,
        /// Build even when the system says too little memory is free (the 12-seed database; with
        /// --distributed, any layer whose slices the node's ranks cannot hold).
        #[arg(long)]
        force: bool,
        /// Also write the compact file (`anywoli-N.awtbz`, what `tablebase compact` makes).
        #[arg(long)]
        compact: bool,
        /// Build on the ranks of an MPI job, each holding one slice of the positions
        /// (`mpirun -np N anywoli tablebase build --seeds S --distributed`; needs a binary built
        /// with the `mpi` feature; one thread a rank: docs/tablebase-distributed.md).
        #[arg(long, conflicts_with = "compact")]
        distributed: bool,
        /// With --distributed: keep each rank's state here at the start of a wave, and resume
        /// from it when a build of the same seeds and ranks was stopped.
        #[arg(long, value_name = "DIR", requires = "distributed")]
        checkpoint: Option<PathBuf>,
        /// With --checkpoint: least seconds between two checkpoints (0: every wave; the end
        /// of the forward pass always is one).
        #[arg(
            long,
            default_value_t = 600,
            value_name = "SECS",
            requires = "checkpoint"
        )]
        checkpoint_every: u64,
    },
    /// Write the compact file of a saved database (`anywoli-N.awtbz`: blocks compressed one by
    /// one, probed through a memory map; used instead of the `.awtb` file when present).
    Compact {
        #[command(flatten)]
        place: Place,
        /// Threads compressing.
        #[arg(long, default_value_t = 2, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=MAX_THREADS as i64))]
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
        #[arg(long, default_value_t = 2, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=MAX_THREADS as i64))]
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

pub fn run(cmd: &TablebaseCommand) -> CmdResult {
    match cmd {
        TablebaseCommand::Build {
            place,
            distributed: true,
            checkpoint,
            checkpoint_every,
            force,
            ..
        } => distributed::build(
            place,
            &distributed::Flags {
                checkpoint: checkpoint.clone(),
                checkpoint_every: std::time::Duration::from_secs(*checkpoint_every),
                force: *force,
            },
        ),
        TablebaseCommand::Build {
            place,
            threads,
            force,
            compact,
            ..
        } => build::build(place, *threads as usize, *force, *compact),
        TablebaseCommand::Compact { place, threads } => build::compact(place, *threads as usize),
        TablebaseCommand::Compare {
            place,
            samples,
            seed,
        } => compare::compare(place, *samples, *seed),
        TablebaseCommand::Verify { place, threads } => verify::verify(place, *threads as usize),
        TablebaseCommand::Stats { place } => {
            let path = place.path()?;
            place::whole_only(place.seeds, "stats")?;
            let t = Table::load(&path).map_err(|e| place::missing(&path, e))?;
            let mut out = std::io::stdout().lock();
            if place.seeds == 12 {
                let s = anywoli_engine::endgame::stats12(&t);
                return stats::print_stats12(&mut out, &s, &t);
            }
            stats::print_stats(&mut out, &t.stats(), &t)
        }
        TablebaseCommand::Puzzles {
            dir,
            per_grade,
            seed,
            out,
        } => puzzles::make_puzzles(dir.as_deref(), *per_grade as usize, *seed, out.as_deref()),
        TablebaseCommand::Match {
            dir,
            games,
            movetime,
            start_seeds,
            seed,
        } => matchdb::match_db(
            dir.as_deref(),
            *games as usize,
            *movetime,
            start_seeds.parse().unwrap_or(12),
            *seed,
        ),
    }
}
