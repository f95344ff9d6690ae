//! The report of a load: what it measured, built from the counters at the end, and the
//! summary of a set of times (count, median, p99, max, mean).

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Serialize;

use super::args::LoadtestArgs;
use super::check::Check;
use super::ctx::{Ctx, RELAXED};
use super::stats::Second;
use super::system::{load_average, Memory};

#[derive(Serialize)]
pub(super) struct Report {
    pub(super) servers: Vec<String>,
    pub(super) mode: &'static str,
    pub(super) games_at_once: usize,
    /// Seconds between a player's moves; `null` at full speed.
    pub(super) pace_s: Option<f64>,
    pub(super) watchers_per_game: usize,
    /// Watchers on the next server, not the one the game's moves go to.
    pub(super) watch_other: bool,
    pub(super) connections_per_server: usize,
    /// `--failover-secs` with `--failover`, else `null`.
    pub(super) failover_s: Option<f64>,
    pub(super) duration_s: f64,
    pub(super) games_started: u64,
    pub(super) games_finished: u64,
    pub(super) games_abandoned: u64,
    pub(super) moves: u64,
    pub(super) moves_per_s: f64,
    pub(super) round_trip_ms: Summary,
    pub(super) create_ms: Summary,
    /// Waiting for a free connection of the tool's own (not the server's doing).
    pub(super) connection_wait_ms: Summary,
    pub(super) delivery_ms: Summary,
    /// With `--clock`: what each move's clock was charged beyond the tool's own time between
    /// learning it was its move and sending it (the network both ways and the server's queue;
    /// at 1 ms resolution, the clock's).
    pub(super) clock_overhead_ms: Summary,
    /// Of those, moves charged more than the 0.5 s the server gives back for lag at most.
    pub(super) clock_overhead_over_allowance: u64,
    /// Moves a slow or reconnected watcher got as a `state` message instead of their `move`
    /// events.
    pub(super) resynced_moves: u64,
    /// Requests (and watchers) that went to another server after one failed.
    pub(super) failovers: u64,
    pub(super) failovers_by_kind: BTreeMap<String, u64>,
    /// Moves whose answer was lost with a server, read back from another one: there or not.
    pub(super) unknown_outcome_found_stored: u64,
    pub(super) unknown_outcome_not_stored: u64,
    pub(super) ws_reconnects: u64,
    /// Requests that ran into the timeout.
    pub(super) hangs: u64,
    /// 5xx answers that are not JSON with an `error` code and a `message`.
    pub(super) http_5xx_without_message: u64,
    pub(super) check: Check,
    pub(super) errors: BTreeMap<String, u64>,
    pub(super) errors_total: u64,
    /// Acknowledged moves, errors and failovers in each second of the run (the check's
    /// errors in the seconds after it).
    pub(super) timeline: Vec<Second>,
    pub(super) memory: Vec<Memory>,
    /// CPU time this tool used, in seconds (it shares the machine when on the server's).
    pub(super) tool_cpu_s: Option<f64>,
    pub(super) load_average: Option<String>,
    pub(super) notes: Vec<String>,
}

impl Report {
    /// The report of the load `ctx` played for `moving`, with the check's findings and the
    /// machine's figures.
    pub(super) fn new(
        args: &LoadtestArgs,
        ctx: &Ctx,
        check: Check,
        moving: Duration,
        memory: Vec<Memory>,
        tool_cpu_s: Option<f64>,
    ) -> Report {
        let stats = &ctx.stats;
        let samples = std::mem::take(&mut *stats.samples.lock().unwrap());
        let errors = stats.errors.lock().unwrap().clone();
        let errors_total = errors.values().sum();
        let failovers_by_kind = stats.failovers.lock().unwrap().clone();
        let timeline = stats.timeline.lock().unwrap().clone();
        let moves = stats.moves.load(RELAXED);
        let notes = notes(ctx, &check, &errors);
        Report {
            servers: ctx.targets.iter().map(|t| t.url.clone()).collect(),
            mode: args.mode.name(),
            games_at_once: args.games,
            pace_s: args.pace,
            watchers_per_game: args.watchers,
            watch_other: args.watch_other,
            connections_per_server: args.connections,
            failover_s: args.failover.then_some(args.failover_secs),
            duration_s: (moving.as_secs_f64() * 1e3).round() / 1e3,
            games_started: stats.games_started.load(RELAXED),
            games_finished: stats.games_finished.load(RELAXED),
            games_abandoned: stats.games_abandoned.load(RELAXED),
            moves,
            moves_per_s: (moves as f64 / moving.as_secs_f64() * 10.0).round() / 10.0,
            round_trip_ms: Summary::of(samples.round_trip),
            create_ms: Summary::of(samples.create),
            connection_wait_ms: Summary::of(samples.queued),
            clock_overhead_over_allowance: samples
                .clock_overhead
                .iter()
                .filter(|&&us| us > 500_000)
                .count() as u64,
            clock_overhead_ms: Summary::of(samples.clock_overhead),
            delivery_ms: Summary::of(samples.delivery),
            resynced_moves: stats.resynced.load(RELAXED),
            failovers: failovers_by_kind.values().sum(),
            failovers_by_kind,
            unknown_outcome_found_stored: stats.unknown_found.load(RELAXED),
            unknown_outcome_not_stored: stats.unknown_not_stored.load(RELAXED),
            ws_reconnects: stats.ws_reconnects.load(RELAXED),
            hangs: stats.hangs.load(RELAXED),
            http_5xx_without_message: stats.unexplained_5xx.load(RELAXED),
            check,
            errors,
            errors_total,
            timeline,
            memory,
            tool_cpu_s,
            load_average: load_average(),
            notes,
        }
    }
}

/// What the reader should know to read the figures: the first game that does not replay,
/// and the server's limits the load ran into.
fn notes(ctx: &Ctx, check: &Check, errors: &BTreeMap<String, u64>) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(m) = &check.first_mismatch {
        notes.push(format!("the first stored game that does not replay: {m}"));
    }
    if ctx.stats.rate_limited.load(RELAXED) {
        notes.push(
            "the server refused requests with 429 (rate_limited): start it with --games-per-minute 0 for a load test".to_string(),
        );
    }
    if errors
        .keys()
        .any(|k| k.contains("connection closed") || k.contains("connect") || k.contains("reset"))
    {
        notes.push(
            "connections were refused or closed: over the server's caps? (--max-connections, --max-connections-per-client 0; the open-file limit, ulimit -n)".to_string(),
        );
    }
    notes
}

#[derive(Serialize)]
pub(super) struct Summary {
    pub(super) count: usize,
    pub(super) median: Option<f64>,
    pub(super) p99: Option<f64>,
    pub(super) max: Option<f64>,
    pub(super) mean: Option<f64>,
}

impl Summary {
    pub(super) fn of(mut v: Vec<u32>) -> Summary {
        v.sort_unstable();
        let ms = |us: u32| (us as f64 / 1e3 * 1e3).round() / 1e3;
        let pick = |p: f64| {
            v.get(((v.len() as f64 - 1.0) * p).round() as usize)
                .map(|&x| ms(x))
        };
        Summary {
            count: v.len(),
            median: pick(0.5),
            p99: pick(0.99),
            max: v.last().map(|&x| ms(x)),
            mean: (!v.is_empty())
                .then(|| ms((v.iter().map(|&x| x as u64).sum::<u64>() / v.len() as u64) as u32)),
        }
    }

    pub(super) fn text(&self) -> String {
        match (self.median, self.p99, self.max) {
            (Some(m), Some(p), Some(x)) => {
                format!(
                    "median {} ms, p99 {} ms, max {} ms",
                    fmt_ms(m),
                    fmt_ms(p),
                    fmt_ms(x)
                )
            }
            _ => "none".to_string(),
        }
    }
}

fn fmt_ms(x: f64) -> String {
    if x < 10.0 {
        format!("{x:.2}")
    } else if x < 100.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.0}")
    }
}
