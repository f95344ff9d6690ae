//! `anywoli tablebase verify`: every entry checked against the moves of its position, and the
//! 12-seed database also against the exact solver on a sample.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use anywoli_engine::endgame::{self, Table, Tablebase};

use super::place::{eight_only, missing, table_path, Place};
use super::progress::{bar, progress};
use super::stats::{print_stats, print_stats12};
use crate::common::{CmdResult, Failure};

/// Positions `verify --seeds 12` checks against the exact solver, and its node limit for each:
/// 400 take about 35 s and the solver proves 40-45% of them.
const CROSS_SAMPLES: usize = 400;
const CROSS_NODES: u64 = 300_000;

pub fn verify(place: &Place, threads: usize) -> CmdResult {
    let path = place.path()?;
    super::place::whole_only(place.seeds, "verify")?;
    let t0 = Instant::now();
    let table = Table::load(&path).map_err(|e| missing(&path, e))?;
    if place.seeds == 12 {
        return verify12(place, &path, table, threads, t0);
    }
    let pb = bar();
    let stats = endgame::verify(&table, threads, &progress(&pb));
    pb.finish_and_clear();
    let stats = stats?;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "verified {}: every entry agrees with the moves of its position ({:.1} s)",
        path.display(),
        t0.elapsed().as_secs_f64()
    )?;
    print_stats(&mut out, &stats, &table)
}

/// The 12-seed table of `path`: its bounds against the moves, then a sample against the exact
/// solver with the 8-seed database alone.
fn verify12(place: &Place, path: &Path, table: Table, threads: usize, t0: Instant) -> CmdResult {
    let pb = bar();
    let tb8 = eight_only(place.dir.as_deref())?;
    let stats = endgame::verify12(&table, &tb8, threads, &progress(&pb));
    pb.finish_and_clear();
    let stats = stats?;
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
    let both = Tablebase::from_tables(vec![Table::load(&p8)?, table]);
    let c = endgame::cross_check12(&both, &tb8, CROSS_SAMPLES, CROSS_NODES, 1);
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
    print_stats12(&mut out, &stats, table)
}
