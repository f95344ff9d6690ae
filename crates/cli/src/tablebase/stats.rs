//! The figures of a database as `tablebase stats`, `build` and `verify` print them.

use std::io::Write;

use anywoli_core::{Rules, QUIET_LIMIT};
use anywoli_engine::endgame::{Stats, Stats12, Table, MARGINS12};

use crate::common::CmdResult;

pub fn print_stats12(out: &mut impl Write, s: &Stats12, t: &Table) -> CmdResult {
    let valid = s.positions - s.invalid;
    let pct = |n: u64| 100.0 * n as f64 / valid.max(1) as f64;
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

pub fn print_stats(out: &mut impl Write, s: &Stats, t: &Table) -> CmdResult {
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
