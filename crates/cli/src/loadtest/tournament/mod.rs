//! `anywoli loadtest --tournament arena|swiss`: accounts sign up, join one tournament and play
//! it to its end as bots, the way the page does (the tournament's change signal, its page,
//! each game's seat and events), and the tournament is checked at the end: nobody paired twice
//! at once, no game lost (docs/tournaments.md, "Load and faults (measured)").
//!
//! The parts: `setup` (signups, the tournament, entries), `bot` (a player watching the
//! tournament), `play` (a player's game), `socket` (WebSockets with reconnection), `check` (the
//! tournament read back), `metrics` (the servers' pairing step histogram), `report`.

mod bot;
mod check;
mod metrics;
mod play;
mod report;
mod setup;
mod socket;

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, AtomicUsize};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::Value;
use tokio::sync::watch;

use super::args::{LoadtestArgs, TournamentSystem};
use super::ctx::{Ctx, Target, RELAXED};
use super::failover::{Auth, Req};
use super::load::{answers, new_ctx};
use super::system::{rss_kib, Baseline};
use crate::error::LoadtestError;

pub(super) use report::{print_text, TournamentReport};

/// The tournament stops being waited for when its version has not changed for this long.
const STALL: Duration = Duration::from_secs(180);
/// How often the servers' memory is sampled, and the tournament's state read.
const SAMPLE_EVERY: Duration = Duration::from_secs(1);
/// Once the tournament is over, how long the bots' last games may take to end.
const GRACE: Duration = Duration::from_secs(30);

/// One account playing.
pub(super) struct Player {
    pub(super) name: String,
    pub(super) auth: Auth,
    /// The server its requests and sockets go to: the other one after a connection failure.
    pub(super) target: AtomicUsize,
}

impl Player {
    /// A request as this player, to its server (which follows a failover).
    pub(super) async fn call(&self, ctx: &Ctx, req: Req<'_>) -> Result<Value, ()> {
        let mut t = self.target.load(RELAXED);
        let r = ctx.call(&mut t, req.by(&self.auth)).await;
        self.target.store(t, RELAXED);
        r.map(|(v, _)| v).map_err(|_| ())
    }

    /// Moves the player to the next server after its connection to this one failed.
    pub(super) fn switch(&self, ctx: &Ctx, kind: &str) {
        if ctx.failover.is_some() {
            let t = self.target.load(RELAXED);
            self.target.store((t + 1) % ctx.targets.len(), RELAXED);
            ctx.failed_over(kind);
        }
    }
}

/// What the bots share.
pub(super) struct Shared {
    pub(super) ctx: Arc<Ctx>,
    pub(super) id: String,
    pub(super) system: TournamentSystem,
    /// Plies a game lasts before the player to move resigns.
    pub(super) plies: u64,
    /// The rounds of a Swiss.
    pub(super) rounds: i64,
    /// Wall-clock ms after which an arena pairs no more: waits that begin later are not
    /// counted (`i64::MAX` for a Swiss).
    pub(super) pairing_until: i64,
    /// The tournament is over: the bots stop watching it and finish their games.
    pub(super) over: watch::Receiver<bool>,
    pub(super) moves: AtomicU64,
    pub(super) resigns: AtomicU64,
    /// Moves and resignations whose answer was lost with a server (read back instead).
    pub(super) unknown_outcomes: AtomicU64,
    pub(super) ws_reconnects: AtomicU64,
    /// The longest time the running tournament's version stood still while it paired, as
    /// read every second (a director's death shows here).
    pub(super) longest_pause_ms: AtomicU64,
    pub(super) seen: Mutex<Seen>,
}

/// What the bots saw.
#[derive(Default)]
pub(super) struct Seen {
    /// Waits from seeing a game end to seeing the next game, in ms, while the tournament pairs.
    pub(super) waits_ms: Vec<f64>,
    /// Waits that began while the tournament paired (an arena: 5 s before its pairing stops; a
    /// Swiss: before its last round) and saw no next game.
    pub(super) unanswered: Vec<String>,
    /// `changed` messages: arrival less the server's `at`, in ms.
    pub(super) lags_ms: Vec<f64>,
    pub(super) changed_messages: u64,
    /// Per version: the first and last arrival (µs since the epoch) and how many watchers got it.
    pub(super) arrivals: HashMap<i64, (i64, i64, u64)>,
    /// Every game a bot was sent to (`me.playing`), and who was sent.
    pub(super) sent: BTreeMap<String, Vec<String>>,
    /// Games the bots saw aborted, as each bot saw it last while it was played.
    pub(super) aborted: Vec<String>,
}

/// Until `rx` says true (the guard `wait_for` gives is dropped here: a future holding it is
/// not `Send`).
pub(super) async fn until_true(rx: &mut watch::Receiver<bool>) {
    let _ = rx.wait_for(|s| *s).await;
}

/// Microseconds since the epoch, on the machine's clock (the servers' clock on one machine).
pub(super) fn wall_us() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as i64)
}

pub(super) fn wall_ms() -> i64 {
    wall_us() / 1000
}

/// Plays a tournament on `targets` and reports it.
pub(super) async fn load(
    args: &LoadtestArgs,
    targets: Vec<Target>,
    baseline: Baseline,
) -> Result<TournamentReport, LoadtestError> {
    let system = args.tournament.expect("a tournament load");
    for t in &targets {
        answers(t).await?;
    }
    let (stop_tx, stop_rx) = watch::channel(false);
    let start = Instant::now();
    let mut ctx = new_ctx(args, targets, stop_rx, start);
    // A tournament has no other way to go on: with two servers, a player whose server fails
    // goes to the other one.
    if ctx.targets.len() > 1 && ctx.failover.is_none() {
        ctx.failover = Some(Duration::from_secs_f64(args.failover_secs));
    }
    let ctx = Arc::new(ctx);
    let steps_before = metrics::scrape_all(&ctx).await;
    let samples: Arc<Mutex<MemorySamples>> = Arc::new(Mutex::new(
        args.server_pids.iter().map(|&p| (p, Vec::new())).collect(),
    ));
    let sampler = tokio::spawn(sample_memory(samples.clone()));

    let setup = setup::set_up(&ctx, args, system).await?;
    let (over_tx, over_rx) = watch::channel(false);
    let sh = Arc::new(Shared {
        ctx: ctx.clone(),
        id: setup.id.clone(),
        system,
        plies: args.plies,
        rounds: args.rounds.unwrap_or(5),
        pairing_until: setup.pairing_until,
        over: over_rx,
        moves: AtomicU64::new(0),
        resigns: AtomicU64::new(0),
        unknown_outcomes: AtomicU64::new(0),
        ws_reconnects: AtomicU64::new(0),
        longest_pause_ms: AtomicU64::new(0),
        seen: Mutex::new(Seen::default()),
    });
    let players = setup.players;
    let mut bots = tokio::task::JoinSet::new();
    let mut ready = Vec::new();
    for p in &players {
        let (tx, rx) = tokio::sync::oneshot::channel();
        bots.spawn(bot::bot(sh.clone(), p.clone(), tx));
        ready.push(rx);
    }
    // Every bot watches the tournament before a Swiss starts (a minute at most in all).
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    for r in ready {
        let _ = tokio::time::timeout_at(deadline, r).await;
    }
    let playing_from = Instant::now();
    if system == TournamentSystem::Swiss {
        setup::start(&ctx, &players[0], &setup.id).await?;
    }
    let ended = tokio::select! {
        e = follow(&sh, start) => e,
        _ = tokio::signal::ctrl_c() => {
            eprintln!("anywoli loadtest: stopping");
            End::Interrupted
        }
    };
    let played_for = playing_from.elapsed();
    let _ = over_tx.send(true);
    if matches!(ended, End::Stalled(_) | End::Interrupted) {
        let _ = stop_tx.send(true);
    }
    // The bots' last games end with the tournament; past the grace, everything stops.
    if tokio::time::timeout(GRACE, async { while bots.join_next().await.is_some() {} })
        .await
        .is_err()
    {
        ctx.error("bots: games still in play after the tournament ended".to_string());
        let _ = stop_tx.send(true);
        while bots.join_next().await.is_some() {}
    }
    sampler.abort();
    let memory_samples = std::mem::take(&mut *samples.lock().unwrap());
    let steps = metrics::scrape_all(&ctx).await;
    let (memory, tool_cpu_s) = baseline.end();
    if let End::Stalled(v) = &ended {
        ctx.error(format!(
            "tournament: no change for {} s (version {v}): stopped waiting",
            STALL.as_secs()
        ));
    }
    let players_names: Vec<String> = players.iter().map(|p| p.name.clone()).collect();
    let pairing_steps = metrics::since(&ctx, steps_before, steps);
    let check = check::check(&sh, &players_names, step_window_ms(&pairing_steps)).await;
    Ok(report::TournamentReport::new(
        args,
        &sh,
        setup.timings,
        played_for,
        &ended,
        check,
        memory,
        memory_samples,
        tool_cpu_s,
        pairing_steps,
    ))
}

/// How long a director's step may take from reading the clock to reading the state, in ms:
/// the upper bound of the bucket its slowest step fell in (any server), or a second (its tick)
/// when no server says. A game that starts less than this before another game of the same
/// player ended may have been paired by a step that had already read that game's end: the
/// game's start is the clock the director read before the state.
fn step_window_ms(steps: &[metrics::Steps]) -> i64 {
    steps
        .iter()
        .filter_map(|s| s.max_bucket_le_s.as_deref()?.parse::<f64>().ok())
        .map(|le| (le * 1e3).ceil() as i64)
        .max()
        .unwrap_or(1_000)
}

/// How the wait for the tournament's end ended.
pub(super) enum End {
    /// `finished` or `cancelled`.
    Over(String),
    /// No change for [`STALL`]: the version it stayed at.
    Stalled(i64),
    Interrupted,
}

/// Reads the tournament every [`SAMPLE_EVERY`] until it is over, or stalls; a progress line
/// on stderr every 5 s.
async fn follow(sh: &Shared, start: Instant) -> End {
    let ctx = &sh.ctx;
    let path = format!("/api/tournaments/{}", sh.id);
    let mut target = 0;
    let mut last = (i64::MIN, Instant::now());
    let mut tick = tokio::time::interval(SAMPLE_EVERY);
    let mut n = 0u64;
    loop {
        tick.tick().await;
        n += 1;
        let Ok((v, _)) = ctx.call(&mut target, Req::get("follow", &path)).await else {
            if last.1.elapsed() > STALL {
                return End::Stalled(last.0);
            }
            continue;
        };
        let t = &v["tournament"];
        let status = t["status"].as_str().unwrap_or("").to_string();
        let version = v["version"].as_i64().unwrap_or(i64::MIN);
        if status == "running" && wall_ms() < sh.pairing_until {
            let pause = last.1.elapsed().as_millis() as u64;
            sh.longest_pause_ms.fetch_max(pause, RELAXED);
        }
        if version != last.0 {
            last = (version, Instant::now());
        }
        if n.is_multiple_of(5) {
            let errors: u64 = ctx.stats.errors.lock().unwrap().values().sum();
            eprintln!(
                "anywoli loadtest: {:>5.0} s  tournament {status}, round {}, version {version}  errors {errors}",
                start.elapsed().as_secs_f64(),
                t["round"],
            );
        }
        if status == "finished" || status == "cancelled" {
            return End::Over(status);
        }
        if last.1.elapsed() > STALL {
            return End::Stalled(last.0);
        }
    }
}

/// Each server's memory over the run: per pid, (seconds from the start, KiB).
pub(super) type MemorySamples = Vec<(u32, Vec<(f64, u64)>)>;

/// Samples each server's memory every [`SAMPLE_EVERY`] into `into`, until aborted.
async fn sample_memory(into: Arc<Mutex<MemorySamples>>) {
    let started = Instant::now();
    let mut tick = tokio::time::interval(SAMPLE_EVERY);
    loop {
        tick.tick().await;
        let at = started.elapsed().as_secs_f64();
        for (pid, v) in into.lock().unwrap().iter_mut() {
            if let Some(kib) = rss_kib(*pid) {
                v.push((at, kib));
            }
        }
    }
}
