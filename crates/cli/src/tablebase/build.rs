//! `anywoli tablebase build` and `anywoli tablebase compact`: a database built and saved, and
//! its compact file written.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use anywoli_engine::endgame::{self, Table};

use super::place::{eight_only, missing, Place};
use super::progress::{bar, progress};
use super::stats::{print_stats, print_stats12};
use crate::common::{CmdResult, Failure};

/// What `build --seeds 12` says before it starts: it is long.
pub const TWELVE: &str = "building the 12-seed database of anywoli from the 8-seed one: \
    834,451,800 positions; expect about 20 minutes on 2 cores, 3.5 GB of memory, a 1.7 GB \
    file (docs/tablebase.md)";

/// The 12-seed build's peak memory (docs/tablebase.md): one packed 32-bit word per position
/// for the three thresholds' states and move counts, turned into the table in place.
const MEMORY12: u64 = 3_600_000_000;

/// The memory the kernel says is available, when it says (Linux); `None` elsewhere.
pub fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

pub fn build(place: &Place, threads: usize, force: bool, write_compact: bool) -> CmdResult {
    let path = place.plain_path()?;
    if place.seeds >= 16 {
        return Err(Failure::Says(format!(
            "the {}-seed layer has {} positions, {:.0} GB of packed words: one machine does not \
             hold it; build it with --distributed on a cluster (docs/tablebase-distributed.md)",
            place.seeds,
            endgame::positions(place.seeds),
            endgame::dist::word_bytes(place.seeds) as f64 * endgame::positions(place.seeds) as f64
                / 1e9
        )));
    }
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
        endgame::build12(&tb8, threads, &progress(&pb))
    } else {
        endgame::build(place.seeds, threads, &progress(&pb))
    }?;
    pb.finish_and_clear();
    let built = t0.elapsed();
    table.save(&path)?;
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
        return print_stats12(&mut out, &endgame::stats12(&table), &table);
    }
    print_stats(&mut out, &table.stats(), &table)
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
    let size = table.save_compact(to, threads)?;
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

pub fn compact(place: &Place, threads: usize) -> CmdResult {
    let path = place.plain_path()?;
    // From 16 seeds the plain file is read through a map, a batch of blocks at a time.
    let table = if place.seeds >= 16 {
        Table::map_plain(&path)
    } else {
        Table::load(&path)
    }
    .map_err(|e| missing(&path, e))?;
    say_compacted(
        &mut std::io::stdout().lock(),
        &path,
        &table,
        &place.compact_path()?,
        threads,
    )
}
