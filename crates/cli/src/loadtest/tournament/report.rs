//! The report of a tournament run, as JSON (`--json`) or text.

use std::collections::BTreeMap;
use std::io::{Result, Write};
use std::time::Duration;

use serde::Serialize;

use super::check::Check;
use super::metrics::Steps;
use super::setup::{round3, Timings};
use super::{End, MemorySamples, Shared};
use crate::loadtest::args::{LoadtestArgs, TournamentSystem};
use crate::loadtest::ctx::RELAXED;
use crate::loadtest::system::{load_average, Memory};

/// A distribution of times in ms: count, median, 95th percentile, max.
#[derive(Serialize)]
pub(in crate::loadtest) struct Dist {
    pub(in crate::loadtest) count: usize,
    pub(in crate::loadtest) median: Option<f64>,
    pub(in crate::loadtest) p95: Option<f64>,
    pub(in crate::loadtest) max: Option<f64>,
}

impl Dist {
    fn of(mut v: Vec<f64>) -> Dist {
        v.sort_by(f64::total_cmp);
        let pick = |p: f64| {
            v.get(((v.len() as f64 - 1.0) * p).round() as usize)
                .map(|&x| round3(x))
        };
        Dist {
            count: v.len(),
            median: pick(0.5),
            p95: pick(0.95),
            max: v.last().map(|&x| round3(x)),
        }
    }

    fn text(&self) -> String {
        match (self.median, self.p95, self.max) {
            (Some(m), Some(p), Some(x)) => format!(
                "median {} ms, p95 {} ms, max {} ms ({})",
                ms(m),
                ms(p),
                ms(x),
                self.count
            ),
            _ => "none".to_string(),
        }
    }
}

fn ms(x: f64) -> String {
    if x.abs() < 10.0 {
        format!("{x:.2}")
    } else if x.abs() < 100.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.0}")
    }
}

/// A server's memory over the run, from samples every second.
#[derive(Serialize)]
pub(in crate::loadtest) struct MemoryOverTime {
    pub(in crate::loadtest) pid: u32,
    pub(in crate::loadtest) samples: usize,
    pub(in crate::loadtest) first_kib: Option<u64>,
    pub(in crate::loadtest) last_kib: Option<u64>,
    pub(in crate::loadtest) max_kib: Option<u64>,
    /// (seconds from the start, KiB), one sample in 5.
    pub(in crate::loadtest) series: Vec<(f64, u64)>,
}

#[derive(Serialize)]
pub(in crate::loadtest) struct TournamentReport {
    pub(in crate::loadtest) servers: Vec<String>,
    pub(in crate::loadtest) tournament: String,
    pub(in crate::loadtest) system: &'static str,
    pub(in crate::loadtest) players: usize,
    pub(in crate::loadtest) rounds: Option<i64>,
    pub(in crate::loadtest) minutes: Option<i64>,
    pub(in crate::loadtest) plies: u64,
    pub(in crate::loadtest) setup: Timings,
    /// `finished`, `cancelled`, `stalled` or `interrupted`.
    pub(in crate::loadtest) ended: String,
    /// From the bots watching (a Swiss: from its start) to the end.
    pub(in crate::loadtest) played_s: f64,
    /// The longest the tournament's version stood still while it paired (read every second).
    pub(in crate::loadtest) longest_pause_s: f64,
    /// Games the tournament lists.
    pub(in crate::loadtest) games: u64,
    pub(in crate::loadtest) moves: u64,
    pub(in crate::loadtest) resignations: u64,
    /// Games the bots saw aborted (a player never moved), as each of its bots saw it last
    /// while it was played (the first 10).
    pub(in crate::loadtest) aborted_as_seen: Vec<String>,
    /// From seeing a game end to seeing the next game, while the tournament pairs.
    pub(in crate::loadtest) waits_ms: Dist,
    pub(in crate::loadtest) waits_unanswered: usize,
    pub(in crate::loadtest) waits_unanswered_examples: Vec<String>,
    pub(in crate::loadtest) changed_messages: u64,
    /// Arrival less the server's `at` (when its instance read the new version); `null` when
    /// the messages carry no `at`.
    pub(in crate::loadtest) changed_lag_ms: Option<Dist>,
    /// Per version, its last watcher's arrival less its first's (versions seen by two or more).
    pub(in crate::loadtest) changed_spread_ms: Dist,
    pub(in crate::loadtest) failovers: u64,
    pub(in crate::loadtest) failovers_by_kind: BTreeMap<String, u64>,
    pub(in crate::loadtest) ws_reconnects: u64,
    /// Moves and resignations whose answer was lost with a server, read back instead.
    pub(in crate::loadtest) unknown_outcomes: u64,
    pub(in crate::loadtest) hangs: u64,
    pub(in crate::loadtest) http_5xx_without_message: u64,
    pub(in crate::loadtest) errors: BTreeMap<String, u64>,
    pub(in crate::loadtest) errors_total: u64,
    pub(in crate::loadtest) memory: Vec<Memory>,
    pub(in crate::loadtest) memory_over_time: Vec<MemoryOverTime>,
    pub(in crate::loadtest) tool_cpu_s: Option<f64>,
    pub(in crate::loadtest) load_average: Option<String>,
    /// The directors' steps, from each server's `anywoli_tournament_step_seconds`.
    pub(in crate::loadtest) pairing_steps: Vec<Steps>,
    pub(in crate::loadtest) check: Check,
}

impl TournamentReport {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        args: &LoadtestArgs,
        sh: &Shared,
        setup: Timings,
        played: Duration,
        ended: &End,
        check: Check,
        memory: Vec<Memory>,
        samples: MemorySamples,
        tool_cpu_s: Option<f64>,
        pairing_steps: Vec<Steps>,
    ) -> TournamentReport {
        let ctx = &sh.ctx;
        let seen = std::mem::take(&mut *sh.seen.lock().unwrap());
        let errors = ctx.stats.errors.lock().unwrap().clone();
        let failovers_by_kind = ctx.stats.failovers.lock().unwrap().clone();
        let spreads: Vec<f64> = seen
            .arrivals
            .values()
            .filter(|(_, _, n)| *n > 1)
            .map(|(first, last, _)| (last - first) as f64 / 1e3)
            .collect();
        let swiss = sh.system == TournamentSystem::Swiss;
        TournamentReport {
            servers: ctx.targets.iter().map(|t| t.url.clone()).collect(),
            tournament: sh.id.clone(),
            system: sh.system.name(),
            players: args.players.unwrap_or(0),
            rounds: swiss.then_some(sh.rounds),
            minutes: (!swiss).then(|| args.minutes.unwrap_or(20)),
            plies: sh.plies,
            setup,
            ended: match ended {
                End::Over(s) => s.clone(),
                End::Stalled(_) => "stalled".to_string(),
                End::Interrupted => "interrupted".to_string(),
            },
            played_s: round3(played.as_secs_f64()),
            longest_pause_s: sh.longest_pause_ms.load(RELAXED) as f64 / 1e3,
            games: check.games,
            moves: sh.moves.load(RELAXED),
            resignations: sh.resigns.load(RELAXED),
            aborted_as_seen: seen.aborted.into_iter().take(10).collect(),
            waits_ms: Dist::of(seen.waits_ms),
            waits_unanswered: seen.unanswered.len(),
            waits_unanswered_examples: seen.unanswered.into_iter().take(5).collect(),
            changed_messages: seen.changed_messages,
            changed_lag_ms: (!seen.lags_ms.is_empty()).then(|| Dist::of(seen.lags_ms)),
            changed_spread_ms: Dist::of(spreads),
            failovers: failovers_by_kind.values().sum(),
            failovers_by_kind,
            ws_reconnects: sh.ws_reconnects.load(RELAXED),
            unknown_outcomes: sh.unknown_outcomes.load(RELAXED),
            hangs: ctx.stats.hangs.load(RELAXED),
            http_5xx_without_message: ctx.stats.unexplained_5xx.load(RELAXED),
            errors_total: errors.values().sum(),
            errors,
            memory,
            memory_over_time: samples
                .into_iter()
                .map(|(pid, s)| MemoryOverTime {
                    pid,
                    samples: s.len(),
                    first_kib: s.first().map(|x| x.1),
                    last_kib: s.last().map(|x| x.1),
                    max_kib: s.iter().map(|x| x.1).max(),
                    series: s.iter().step_by(5).copied().collect(),
                })
                .collect(),
            tool_cpu_s,
            load_average: load_average(),
            pairing_steps,
            check,
        }
    }
}

pub(in crate::loadtest) fn print_text(out: &mut impl Write, r: &TournamentReport) -> Result<()> {
    let shape = match (r.rounds, r.minutes) {
        (Some(n), _) => format!("{n} rounds"),
        (_, Some(m)) => format!("{m} minutes"),
        _ => String::new(),
    };
    writeln!(
        out,
        "anywoli loadtest: {} {} ({shape}, clock 1+0, {} plies a game), {} players, against {}",
        r.system,
        r.tournament,
        r.plies,
        r.players,
        r.servers.join(" ")
    )?;
    writeln!(
        out,
        "setup             {} signups in {:.1} s, entries in {:.1} s",
        r.players, r.setup.signups_s, r.setup.joins_s
    )?;
    writeln!(
        out,
        "played            {:.1} s, {}; the version stood still {:.1} s at most while it paired",
        r.played_s, r.ended, r.longest_pause_s
    )?;
    writeln!(
        out,
        "games             {} ({} moves, {} resignations by the bots)",
        r.games, r.moves, r.resignations
    )?;
    for a in &r.aborted_as_seen {
        writeln!(out, "  {a}")?;
    }
    writeln!(out, "wait for a game   {}", r.waits_ms.text())?;
    if r.waits_unanswered > 0 {
        writeln!(
            out,
            "                  {} waits saw no next game: {}",
            r.waits_unanswered,
            r.waits_unanswered_examples.join("; ")
        )?;
    }
    match &r.changed_lag_ms {
        Some(d) => writeln!(
            out,
            "changed lag       {} (arrival less the server's at)",
            d.text()
        )?,
        None => writeln!(out, "changed lag       the messages carry no at")?,
    }
    writeln!(
        out,
        "changed spread    {} (last watcher less first, per version; {} messages)",
        r.changed_spread_ms.text(),
        r.changed_messages
    )?;
    for s in &r.pairing_steps {
        match (s.metric, s.mean_ms, &s.max_bucket_le_s) {
            ("found", Some(m), Some(le)) => writeln!(
                out,
                "pairing steps     {}: {} steps, mean {} ms, slowest in the bucket le={le} s",
                s.server,
                s.steps,
                ms(m)
            )?,
            ("found", _, _) => writeln!(out, "pairing steps     {}: none", s.server)?,
            (m, _, _) => writeln!(
                out,
                "pairing steps     {}: anywoli_tournament_step_seconds {m}",
                s.server
            )?,
        }
    }
    let c = &r.check;
    writeln!(
        out,
        "check             tournament {}; {} games listed ({} over, {} aborted, {} playing), {} sent to bots ({} to one player only); {} in the standings",
        c.status, c.games, c.games_over, c.games_aborted, c.games_playing, c.games_sent, c.games_sent_to_one, c.standings_players
    )?;
    writeln!(
        out,
        "double pairings   {}; {} overlaps within a director's step (up to {} ms){}",
        c.double_pairings,
        c.overlaps_within_step,
        c.step_window_ms,
        c.overlap_max_ms
            .map(|m| format!("; largest overlap {m} ms"))
            .unwrap_or_default()
    )?;
    writeln!(
        out,
        "lost games        {} ({} not found, {} ended and unsettled, {} not listed); {} results not the game's",
        c.lost_games, c.lost_not_found, c.lost_unsettled, c.lost_unlisted, c.result_mismatches
    )?;
    for e in &c.examples {
        writeln!(out, "  {e}")?;
    }
    if !r.servers.is_empty() && r.servers.len() > 1 {
        writeln!(
            out,
            "failovers         {}; {} ws reconnects; {} outcomes unknown (read back)",
            r.failovers, r.ws_reconnects, r.unknown_outcomes
        )?;
        for (kind, n) in &r.failovers_by_kind {
            writeln!(out, "  {n:>8}  {kind}")?;
        }
    }
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
    let mib = |k: u64| k as f64 / 1024.0;
    for m in &r.memory_over_time {
        if let (Some(f), Some(l), Some(x)) = (m.first_kib, m.last_kib, m.max_kib) {
            writeln!(
                out,
                "server memory     pid {}: {:.1} MiB first, {:.1} MiB last, {:.1} MiB max ({} samples, 1 a second)",
                m.pid,
                mib(f),
                mib(l),
                mib(x),
                m.samples
            )?;
        }
    }
    for m in &r.memory {
        if let Some(c) = m.cpu_s {
            writeln!(out, "server CPU        pid {}: {c:.1} s", m.pid)?;
        }
    }
    if let Some(c) = r.tool_cpu_s {
        writeln!(out, "this tool's CPU   {c:.1} s")?;
    }
    if let Some(l) = &r.load_average {
        writeln!(out, "load average      {l} (at the end)")?;
    }
    Ok(())
}
