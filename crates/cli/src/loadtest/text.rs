//! The report as text, one figure a line, for people reading the terminal (`--json` is for
//! programs).

use std::io::{Result, Write};

use super::report::Report;

pub(super) fn print_text(out: &mut impl Write, r: &Report) -> Result<()> {
    print_load(out, r)?;
    print_check(out, r)?;
    print_machine(out, r)
}

/// What was asked, and the speed and times of the moves.
fn print_load(out: &mut impl Write, r: &Report) -> Result<()> {
    let pace = match r.pace_s {
        Some(p) => format!("a move every {p} s per player"),
        None => "full speed".to_string(),
    };
    writeln!(
        out,
        "anywoli loadtest: {} games at once ({}, {pace}), {} watcher(s) per game, {} connection(s) per server, against {}",
        r.games_at_once,
        r.mode,
        r.watchers_per_game,
        r.connections_per_server,
        r.servers.join(" ")
    )?;
    if r.watch_other {
        writeln!(
            out,
            "                  each game's watchers on the next server, not the one its moves go to"
        )?;
    }
    writeln!(out, "duration          {:.1} s", r.duration_s)?;
    writeln!(
        out,
        "games             {} started, {} finished, {} abandoned after an error",
        r.games_started, r.games_finished, r.games_abandoned
    )?;
    writeln!(
        out,
        "moves             {} acknowledged, {:.1}/s",
        r.moves, r.moves_per_s
    )?;
    writeln!(out, "move round trip   {}", r.round_trip_ms.text())?;
    writeln!(out, "create round trip {}", r.create_ms.text())?;
    writeln!(out, "connection wait   {}", r.connection_wait_ms.text())?;
    if r.watchers_per_game > 0 {
        writeln!(
            out,
            "ws delivery       {} ({} events; {} moves came as a state resync)",
            r.delivery_ms.text(),
            r.delivery_ms.count,
            r.resynced_moves
        )?;
    }
    if r.clock_overhead_ms.count > 0 {
        writeln!(
            out,
            "clock overhead    {} over {} moves; {} charged more than the 0.5 s lag allowance",
            r.clock_overhead_ms.text(),
            r.clock_overhead_ms.count,
            r.clock_overhead_over_allowance
        )?;
    }
    if let Some(secs) = r.failover_s {
        print_failover(out, r, secs)?;
    }
    Ok(())
}

/// Whether the stored games hold every acknowledged move and replay, and the errors.
fn print_check(out: &mut impl Write, r: &Report) -> Result<()> {
    let c = &r.check;
    if c.lost_moves == 0 && c.failed == 0 {
        writeln!(
            out,
            "stored moves      {} of {} games checked ({} moves): every acknowledged move is stored",
            c.games_checked, c.games_played, c.moves_checked
        )?;
    } else {
        writeln!(
            out,
            "stored moves      {} of {} games checked ({} moves): {} acknowledged moves LOST in {} games; {} games could not be read",
            c.games_checked, c.games_played, c.moves_checked, c.lost_moves, c.games_with_lost_moves, c.failed
        )?;
    }
    writeln!(
        out,
        "replayed          {} games, {} mismatches",
        c.replayed, c.replay_mismatches
    )?;
    writeln!(
        out,
        "error clarity     {} hangs, {} 5xx without a message",
        r.hangs, r.http_5xx_without_message
    )?;
    if r.errors.is_empty() {
        writeln!(out, "errors            none")?;
    } else {
        writeln!(out, "errors            {}", r.errors_total)?;
        for (kind, n) in &r.errors {
            writeln!(out, "  {n:>8}  {kind}")?;
        }
    }
    Ok(())
}

/// The servers' memory and CPU time, the tool's, and the machine's load.
fn print_machine(out: &mut impl Write, r: &Report) -> Result<()> {
    let mib = |k: u64| k as f64 / 1024.0;
    for m in &r.memory {
        writeln!(
            out,
            "server memory     pid {}: {:.1} MiB at the start, {:.1} MiB at the end, peak {:.1} MiB{}",
            m.pid,
            mib(m.rss_start_kib),
            mib(m.rss_end_kib),
            mib(m.peak_kib),
            m.cpu_s
                .map(|c| format!("; {c:.1} s of CPU during the load"))
                .unwrap_or_default()
        )?;
    }
    if let Some(c) = r.tool_cpu_s {
        writeln!(out, "this tool's CPU   {c:.1} s")?;
    }
    if let Some(l) = &r.load_average {
        writeln!(out, "load average      {l} (at the end)")?;
    }
    for n in &r.notes {
        writeln!(out, "note: {n}")?;
    }
    Ok(())
}

fn print_failover(out: &mut impl Write, r: &Report, secs: f64) -> Result<()> {
    writeln!(
        out,
        "failovers         {} (another server tried for up to {secs} s per request); {} ws reconnects",
        r.failovers, r.ws_reconnects
    )?;
    for (kind, n) in &r.failovers_by_kind {
        writeln!(out, "  {n:>8}  {kind}")?;
    }
    writeln!(
        out,
        "unknown outcomes  {} moves found stored, {} not stored (answers lost with a server, read back from another)",
        r.unknown_outcome_found_stored, r.unknown_outcome_not_stored
    )
}
