//! The figures of a database as `tablebase stats`, `build` and `verify` print them.

use std::io::Write;

use anywoli_core::{Rules, QUIET_LIMIT};
use anywoli_engine::endgame::{Stats, Stats12, Table, MARGINS12};

use crate::common::CmdResult;

/// `n` as a percentage of `whole` (0 when `whole` is 0).
fn percent_of(whole: u64) -> impl Fn(u64) -> f64 {
    move |n| 100.0 * n as f64 / whole.max(1) as f64
}

/// ", e.g. <position>" for the position of index `at`, or nothing when it has none.
fn example(t: &Table, at: u64) -> String {
    t.position_at(at, Rules::Anywoli)
        .map_or_else(String::new, |p| format!(", e.g. {p}"))
}

/// The line "`what` within N plies: 1:x% 5:y% …": the share of `total` decided within each
/// of `marks` plies, from the counts by distance.
fn write_within(
    out: &mut impl Write,
    what: &str,
    by_distance: impl Iterator<Item = u64>,
    marks: &[usize],
    total: u64,
) -> CmdResult {
    let pct = percent_of(total);
    let mut cumulative = 0u64;
    write!(out, "{what} within N plies:")?;
    for (d, c) in by_distance.enumerate() {
        cumulative += c;
        if marks.contains(&d) {
            write!(out, " {d}:{:.1}%", pct(cumulative))?;
        }
    }
    writeln!(out)?;
    Ok(())
}

pub fn print_stats12(out: &mut impl Write, s: &Stats12, t: &Table) -> CmdResult {
    let valid = s.positions - s.invalid;
    let pct = percent_of(valid);
    writeln!(
        out,
        "positions: {} distributions of 12 seeds, {} with seeds for the side to move",
        s.positions, valid
    )?;
    for (i, m) in MARGINS12.iter().enumerate() {
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
    let longest = example(t, s.longest_at);
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
    write_within(
        out,
        "proven margins",
        s.by_dtc.iter().copied(),
        &[1, 5, 10, 20, 40, 60, 80, 100, 150, 200],
        s.exact.iter().sum(),
    )?;
    Ok(())
}

pub fn print_stats(out: &mut impl Write, s: &Stats, t: &Table) -> CmdResult {
    let valid = s.positions - s.invalid;
    let pct = percent_of(valid);
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
    let longest = example(t, s.longest_at);
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
    write_within(
        out,
        "forced captures",
        s.by_dtc.iter().map(|c| c[0] + c[1]),
        &[1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100],
        s.wins + s.losses,
    )?;
    Ok(())
}
