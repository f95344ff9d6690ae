//! The load itself: every server is asked whether it answers, the games are started, a
//! progress line goes to stderr every few seconds, and at the end (time up or Ctrl-C) the
//! games are stopped, the servers measured and the stored games checked.

use std::sync::atomic::AtomicUsize;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::watch;

use super::args::{increment_ms, LoadtestArgs};
use super::check;
use super::ctx::{Ctx, Target, RELAXED};
use super::game::slot;
use super::report::{Report, Summary};
use super::stats::Stats;
use super::system::Baseline;
use crate::error::LoadtestError;

/// How often a progress line goes to stderr.
const PROGRESS_EVERY: Duration = Duration::from_secs(5);

/// Plays the load on `targets` and reports it.
pub(super) async fn load(
    args: &LoadtestArgs,
    targets: Vec<Target>,
    baseline: Baseline,
) -> Result<Report, LoadtestError> {
    for t in &targets {
        answers(t).await?;
    }
    let (stop_tx, stop_rx) = watch::channel(false);
    let start = Instant::now();
    let ctx = Arc::new(new_ctx(args, targets, stop_rx, start));
    let mut slots = tokio::task::JoinSet::new();
    for _ in 0..args.games {
        slots.spawn(slot(ctx.clone()));
    }
    let progress = tokio::spawn(progress(ctx.clone(), start));
    tokio::select! {
        _ = tokio::time::sleep(Duration::from_secs_f64(args.duration)) => {}
        _ = tokio::signal::ctrl_c() => eprintln!("anywoli loadtest: stopping"),
    }
    let _ = stop_tx.send(true);
    let moving = start.elapsed();
    while slots.join_next().await.is_some() {}
    progress.abort();
    let (memory, tool_cpu_s) = baseline.end();
    let check = check::check(&ctx, args.check_games).await;
    Ok(Report::new(args, &ctx, check, moving, memory, tool_cpu_s))
}

/// Whether a server answers as an anywoli server before the load starts.
pub(super) async fn answers(t: &Target) -> Result<(), LoadtestError> {
    match t.pool.request("GET", "/api/rules", None, |_| {}).await {
        Ok((a, _)) if a.status == 200 => Ok(()),
        Ok((a, _)) => {
            let v: Value = serde_json::from_slice(&a.body).unwrap_or_default();
            Err(LoadtestError::NotAnywoli {
                url: t.url.clone(),
                status: a.status,
                code: v["error"].as_str().unwrap_or("").to_string(),
            })
        }
        Err(e) => Err(LoadtestError::Unreachable {
            url: t.url.clone(),
            kind: e.kind(),
        }),
    }
}

pub(super) fn new_ctx(
    args: &LoadtestArgs,
    targets: Vec<Target>,
    stop: watch::Receiver<bool>,
    start: Instant,
) -> Ctx {
    Ctx {
        targets,
        next_target: AtomicUsize::new(0),
        mode: args.mode,
        pace: args.pace.map(Duration::from_secs_f64),
        watchers: args.watchers,
        watch_other: args.watch_other,
        failover: args
            .failover
            .then(|| Duration::from_secs_f64(args.failover_secs)),
        clock: args
            .clock
            .as_ref()
            .and_then(|c| Some((c.clone(), increment_ms(c)?))),
        timeout: Duration::from_secs_f64(args.timeout),
        stop,
        start,
        stats: Stats::default(),
    }
}

/// Every [`PROGRESS_EVERY`], a line on stderr.
async fn progress(ctx: Arc<Ctx>, start: Instant) {
    let mut last_moves = 0;
    let mut last_samples = 0;
    let mut tick = tokio::time::interval_at((start + PROGRESS_EVERY).into(), PROGRESS_EVERY);
    loop {
        tick.tick().await;
        let s = &ctx.stats;
        let moves = s.moves.load(RELAXED);
        let recent = {
            let samples = s.samples.lock().unwrap();
            let r = samples.round_trip[last_samples.min(samples.round_trip.len())..].to_vec();
            last_samples = samples.round_trip.len();
            r
        };
        let errors: u64 = s.errors.lock().unwrap().values().sum();
        let failovers = if ctx.failover.is_some() {
            let n: u64 = s.failovers.lock().unwrap().values().sum();
            format!("  failovers {n}")
        } else {
            String::new()
        };
        eprintln!(
            "anywoli loadtest: {:>5.0} s  games {} started, {} finished  moves {} ({:.0}/s)  round trip {}  errors {}{failovers}",
            start.elapsed().as_secs_f64(),
            s.games_started.load(RELAXED),
            s.games_finished.load(RELAXED),
            moves,
            (moves - last_moves) as f64 / PROGRESS_EVERY.as_secs_f64(),
            Summary::of(recent).text(),
            errors,
        );
        last_moves = moves;
    }
}
