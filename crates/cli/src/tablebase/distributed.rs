//! `anywoli tablebase build --distributed`: the retrograde build spread over the ranks of an
//! MPI job (`mpirun -np N anywoli tablebase build --seeds S --distributed`), each rank holding
//! one slice of the positions (docs/tablebase-distributed.md). Rank 0 reports and writes the
//! file; every rank says its own failure.

use std::cell::Cell;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anywoli_engine::endgame::dist::{self, Comm, Event, Options};
use anywoli_engine::endgame::{positions, EndgameError, Tablebase};

use super::place::{below, Place};
use crate::common::{CmdResult, Failure};

/// What `--distributed` says when this binary has no MPI and was started as several ranks.
#[cfg(not(feature = "mpi"))]
const NO_MPI: &str = "this anywoli was built without MPI, and mpirun started it as several \
    ranks: build it with `cargo build --release -p anywoli-cli --features mpi` (needs Open MPI \
    and libclang: docs/tablebase-distributed.md)";

/// The flags of a distributed build.
pub struct Flags {
    pub checkpoint: Option<PathBuf>,
    pub checkpoint_every: Duration,
    pub force: bool,
}

/// A rank's memory beside its slice's words: the fixed part measured on 8 seeds (28.6 MB,
/// docs/tablebase-distributed.md "Cost model"), with room for the round buffers.
const FIXED: u64 = 64_000_000;

/// Ranks of this job on this node, as the launcher says (Open MPI, MPICH's Hydra, Slurm); 1
/// when none says.
fn ranks_here() -> u64 {
    [
        "OMPI_COMM_WORLD_LOCAL_SIZE",
        "MPI_LOCALNRANKS",
        "SLURM_NTASKS_PER_NODE",
    ]
    .iter()
    .find_map(|v| std::env::var(v).ok()?.parse().ok())
    .unwrap_or(1)
}

/// Whether this node's ranks can hold their slices: running out of memory hours in would lose
/// the work (the 16-seed layer needs 226 GB of words in all), so a node that has too little
/// says so before the forward pass, unless `--force`.
fn memory_fits(seeds: u8, ranks: usize, force: bool) -> Result<(), Failure> {
    let slice = positions(seeds).div_ceil(ranks as u64) * dist::word_bytes(seeds) as u64;
    let here = ranks_here();
    let need = here * (slice + FIXED);
    match super::build::available_memory() {
        Some(free) if need > free && !force => Err(Failure::Says(format!(
            "the {seeds}-seed layer on {ranks} ranks needs {:.1} GB a rank ({here} on this node: {:.1} GB) and {:.1} GB is available: use more ranks or nodes (docs/tablebase-distributed.md, \"Cost model\"), or pass --force to try anyway",
            (slice + FIXED) as f64 / 1e9,
            need as f64 / 1e9,
            free as f64 / 1e9
        ))),
        _ => Ok(()),
    }
}

/// Ranks of the MPI job that started this process, as the launcher says (Open MPI, or the
/// PMI of Slurm and MPICH); 1 when none did.
#[cfg(not(feature = "mpi"))]
fn launched_ranks() -> u64 {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE"]
        .iter()
        .find_map(|v| std::env::var(v).ok()?.parse().ok())
        .unwrap_or(1)
}

/// Without MPI, `--distributed` is the same build on one rank: still resumable from its
/// checkpoints. Started by mpirun as several ranks, it refuses (each would build it all).
pub fn build(place: &Place, flags: &Flags) -> CmdResult {
    #[cfg(not(feature = "mpi"))]
    {
        if launched_ranks() > 1 {
            return Err(Failure::Says(NO_MPI.to_string()));
        }
        let comm = dist::Local::group(1).pop().expect("one rank");
        run(&comm, place, flags)
    }
    #[cfg(feature = "mpi")]
    {
        let comm = super::mpi::Mpi::init()
            .ok_or_else(|| Failure::Says("MPI could not be initialised".to_string()))?;
        let r = run(&comm, place, flags);
        if let Err(e) = &r {
            if comm.rank() != 0 {
                // Rank 0's failure is printed by main; the others say theirs with their rank.
                eprintln!("anywoli (rank {}): {e}", comm.rank());
                std::process::exit(2);
            }
        }
        r
    }
}

/// The build on the ranks of `comm`.
pub fn run(comm: &dyn Comm, place: &Place, flags: &Flags) -> CmdResult {
    let me = comm.rank();
    dist::supported(place.seeds)?;
    let least = dist::least_ranks(place.seeds);
    if comm.ranks() < least {
        return Err(EndgameError::Slice {
            seeds: place.seeds,
            ranks: comm.ranks(),
            least,
        }
        .into());
    }
    // Every rank checks its node; one that cannot hold its slice stops them all.
    let r = memory_fits(place.seeds, comm.ranks(), flags.force);
    let failed = comm.max(r.is_err() as u64) != 0;
    match r {
        Err(e) => return Err(e),
        Ok(()) if failed => return Err(EndgameError::RankFailed { rank: 0 }.into()),
        Ok(()) => {}
    }
    let path = place.plain_path()?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| Failure::Says(format!("cannot create {}: {e}", dir.display())))?;
    }
    // Every rank opens the database of the layer below itself (a cluster's ranks may not share
    // a disk; from 12 seeds up it is mapped, so a node's ranks share its pages); a rank that
    // cannot makes them all stop.
    let below: Option<Tablebase> = if place.seeds >= 12 {
        let r = below(place.dir.as_deref(), place.seeds);
        let failed = comm.max(r.is_err() as u64) != 0;
        match r {
            Err(e) => return Err(e),
            Ok(_) if failed => return Err(EndgameError::RankFailed { rank: 0 }.into()),
            Ok(tb) => Some(tb),
        }
    } else {
        None
    };
    let opts = Options {
        checkpoint: flags.checkpoint.clone(),
        checkpoint_every: flags.checkpoint_every,
        stop_at: None,
    };
    if me == 0 {
        eprintln!(
            "building the {}-seed database of anywoli on {} ranks: {} positions, {:.1} MB of packed words a rank",
            place.seeds,
            comm.ranks(),
            positions(place.seeds),
            dist::word_bytes(place.seeds) as f64 * positions(place.seeds) as f64
                / comm.ranks() as f64
                / 1e6
        );
    }
    let t0 = Instant::now();
    // A progress line, and a checkpoint line, at most every second each: the 12-seed build
    // runs 238 waves, most short, and `--checkpoint-every 0` saves every one.
    let (progress, saved) = (Cell::new(None::<Instant>), Cell::new(None::<Instant>));
    let say = |e: &Event| {
        let last = match e {
            Event::Wave { .. } | Event::Moves { .. } => &progress,
            Event::Checkpoint { .. } => &saved,
            Event::Resumed { .. } => return say(e),
        };
        if last
            .get()
            .is_some_and(|t| t.elapsed() < Duration::from_secs(1))
        {
            return;
        }
        last.set(Some(Instant::now()));
        say(e)
    };
    let summary = dist::build(comm, place.seeds, below.as_ref(), &opts, &path, &say)?;
    drop(below);
    // Peak memory of each rank, as the kernel counts it.
    let peak = peak_rss().unwrap_or(0);
    let (peak_max, peak_sum) = (comm.max(peak), comm.sum(peak));
    if me == 0 {
        let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        println!(
            "built {} on {} ranks in {:.1} s: {} positions, {:.1} MB; {} waves, {:.1} MB sent between ranks; peak memory a rank {:.1} MB (mean {:.1} MB)",
            path.display(),
            comm.ranks(),
            t0.elapsed().as_secs_f64(),
            positions(place.seeds),
            size as f64 / 1e6,
            summary.waves,
            summary.sent as f64 / 1e6,
            peak_max as f64 / 1e6,
            peak_sum as f64 / comm.ranks() as f64 / 1e6,
        );
    }
    Ok(())
}

/// A line on stderr for each event (lines, not a bar: mpirun forwards the ranks' output).
fn say(e: &Event) {
    let left = |l: &Option<Duration>| match l {
        Some(d) => format!(", about {:.0} s left", d.as_secs_f64()),
        None => String::new(),
    };
    match e {
        Event::Resumed { wave } => eprintln!("resuming from the checkpoint of wave {wave}"),
        Event::Moves { done, of, left: l } => {
            eprintln!("moves: {done} of {of} positions of rank 0{}", left(l))
        }
        Event::Wave {
            wave,
            settled,
            fields,
            sent,
            elapsed,
            left: l,
        } => eprintln!(
            "wave {wave}: {settled} of {fields} fields settled, {:.1} MB sent, {:.1} s{}",
            *sent as f64 / 1e6,
            elapsed.as_secs_f64(),
            left(l)
        ),
        Event::Checkpoint { wave, bytes } => {
            eprintln!("checkpoint of wave {wave}: {:.1} MB", *bytes as f64 / 1e6)
        }
    }
}

/// This process's peak resident memory in bytes (Linux's VmHWM).
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
