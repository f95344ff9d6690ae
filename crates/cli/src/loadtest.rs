//! `anywoli loadtest`: many live games at once over HTTP and WebSocket against one or more
//! servers, as fast as they go or at people's pace, and what it cost: moves per second, round
//! trips, WebSocket delivery, errors by kind and the servers' memory; at the end, a check that
//! every acknowledged move is stored and that every stored game replays (docs/scaling.md).
//! With `--failover`, games move to another server when theirs goes away, as behind a load
//! balancer whose instances share one database.

mod check;
mod client;
mod failover;
mod watcher;

use std::collections::BTreeMap;
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::Args;
use serde::Serialize;
use serde_json::{json, Value};
use tokio::sync::{oneshot, watch};

use crate::common::{CmdResult, Failure};
use check::Check;
use client::Pool;
use failover::{resync, settle, CallError, Pending, Req, Resend};

#[derive(Args)]
pub struct LoadtestArgs {
    /// A server to load, http://HOST:PORT (repeatable: games are spread over them in turn).
    #[arg(long = "server", value_name = "URL", required = true)]
    servers: Vec<String>,
    /// Games played at once; when one ends, a new one starts in its place.
    #[arg(long, default_value_t = 10, value_name = "N", value_parser = crate::common::usize_in(1, 1_000_000))]
    games: usize,
    /// Each player moves every SECS seconds, like people (from a random start offset, so that
    /// the moves spread out): a game makes about 2/SECS moves a second.
    #[arg(long, value_name = "SECS", value_parser = positive_secs, conflicts_with = "full_speed")]
    pace: Option<f64>,
    /// Each move as soon as the previous one is answered (the default without --pace).
    #[arg(long)]
    full_speed: bool,
    /// Seconds to play (Ctrl-C stops sooner and still reports).
    #[arg(long, default_value_t = 30.0, value_name = "SECS", value_parser = positive_secs)]
    duration: f64,
    /// WebSocket watchers per game: each measures the delivery of every move, from the POST
    /// being sent to its `move` event arriving.
    #[arg(long, default_value_t = 0, value_name = "W", value_parser = crate::common::usize_in(0, 1000))]
    watchers: usize,
    /// Each game's watchers connect to the next server in the list, not to the one its moves
    /// go to: the delivery measured is from one instance to another (needs two --server).
    #[arg(long)]
    watch_other: bool,
    /// With two or more --server: a request that gets no answer (refused, reset, closed,
    /// timed out) or a 502 or 503 goes to the next server instead of ending its game, and a
    /// move whose outcome is unknown is read back there; a watcher that is dropped
    /// reconnects to another server.
    #[arg(long)]
    failover: bool,
    /// How long --failover tries the other servers for one request before it counts as failed.
    #[arg(long, default_value_t = 30.0, value_name = "SECS", value_parser = positive_secs, requires = "failover")]
    failover_secs: f64,
    /// `local`: one secret holds both seats; `friend`: the second player joins with the
    /// invite token and each side moves with its own secret.
    #[arg(long, value_enum, default_value = "local")]
    mode: Mode,
    /// HTTP/1.1 connections to each server, kept alive, one request at a time each
    /// (WebSocket watchers have their own).
    #[arg(long, default_value_t = 64, value_name = "C", value_parser = crate::common::usize_in(1, 100_000))]
    connections: usize,
    /// Seconds a request may take, connecting included, before it counts as a timeout.
    #[arg(long, default_value_t = 10.0, value_name = "SECS", value_parser = positive_secs)]
    timeout: f64,
    /// A server's process id (repeatable): its memory (VmRSS, and the peak VmHWM) is read from
    /// /proc/PID/status at the start and at the end.
    #[arg(long = "server-pid", value_name = "PID")]
    server_pids: Vec<u32>,
    /// Games whose stored moves are checked at the end against the acknowledged ones and
    /// replayed (a random sample when more were played).
    #[arg(long, default_value_t = 1000, value_name = "N")]
    check_games: usize,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// Play the games on a clock (`5+3`: minutes + seconds per move, as the API takes it), and
    /// measure what the clock charges beyond the player's own thinking (docs/scaling.md).
    #[arg(long, value_name = "CONTROL", value_parser = real_time_clock)]
    clock: Option<String>,
}

/// A real-time control `M+S`: its increment in milliseconds, or why not.
fn real_time_clock(s: &str) -> Result<String, String> {
    increment_ms(s)
        .map(|_| s.to_string())
        .ok_or_else(|| format!("{s:?} is not a real-time clock MINUTES+SECONDS such as 5+3"))
}

fn increment_ms(control: &str) -> Option<i64> {
    let (m, inc) = control.split_once('+')?;
    m.parse::<f64>().ok()?;
    Some(inc.parse::<i64>().ok()? * 1000)
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Mode {
    Local,
    Friend,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Local => "local",
            Mode::Friend => "friend",
        }
    }
}

fn positive_secs(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x > 0.0 && x <= 1e7 => Ok(x),
        _ => Err(format!("{s:?} is not a number of seconds above 0")),
    }
}

/// How often a progress line goes to stderr.
const PROGRESS_EVERY: Duration = Duration::from_secs(5);

/// The counters are independent: none orders other memory.
const RELAXED: Ordering = Ordering::Relaxed;

/// One server under load.
struct Target {
    url: String,
    /// `HOST:PORT` as the URL writes it: the `Host` header.
    host: String,
    addr: SocketAddr,
    pool: Pool,
}

/// Everything the games share.
struct Ctx {
    targets: Vec<Target>,
    next_target: AtomicUsize,
    mode: Mode,
    pace: Option<Duration>,
    watchers: usize,
    watch_other: bool,
    /// `--failover-secs` with `--failover`.
    failover: Option<Duration>,
    /// `--clock`, and its increment in milliseconds.
    clock: Option<(String, i64)>,
    timeout: Duration,
    stop: watch::Receiver<bool>,
    /// When the load started: second 0 of the timeline.
    start: Instant,
    stats: Stats,
}

#[derive(Default)]
struct Stats {
    games_started: AtomicU64,
    games_finished: AtomicU64,
    games_abandoned: AtomicU64,
    moves: AtomicU64,
    resynced: AtomicU64,
    rate_limited: AtomicBool,
    /// Requests that went to another server after one failed, by what failed.
    failovers: Mutex<BTreeMap<String, u64>>,
    /// Moves whose answer was lost with a server, found stored or not when read back.
    unknown_found: AtomicU64,
    unknown_not_stored: AtomicU64,
    ws_reconnects: AtomicU64,
    /// Requests that ran into the timeout.
    hangs: AtomicU64,
    /// 5xx answers that are not JSON with an `error` code and a `message`.
    unexplained_5xx: AtomicU64,
    samples: Mutex<Samples>,
    errors: Mutex<BTreeMap<String, u64>>,
    timeline: Mutex<Vec<Second>>,
    played: Mutex<Vec<Played>>,
}

/// Times in microseconds.
#[derive(Default)]
struct Samples {
    round_trip: Vec<u32>,
    create: Vec<u32>,
    queued: Vec<u32>,
    delivery: Vec<u32>,
    /// With `--clock`: what a move's clock was charged beyond the time between the tool
    /// learning it was its move and sending it.
    clock_overhead: Vec<u32>,
}

/// What happened in one second of the run, from its start.
#[derive(Default, Clone, Copy, Serialize)]
struct Second {
    second: usize,
    moves: u64,
    errors: u64,
    failovers: u64,
}

/// A game as the tool knows it at the end: where to read it, and the moves it knows are
/// stored (acknowledged with a 2xx answer, or found stored after an unknown outcome).
struct Played {
    target: usize,
    id: String,
    known: Vec<String>,
}

/// A game being played.
struct LiveGame {
    id: String,
    /// The server its requests go to: another one after a failover.
    target: usize,
    /// The secret of each side: [south, north].
    secrets: [String; 2],
    /// The game as the last answer showed it.
    state: Value,
    /// The moves known to be stored, in order.
    known: Vec<String>,
    /// A move read back after a failover and not found, until the game moves on.
    unsettled: Option<Pending>,
}

fn micros(d: Duration) -> u32 {
    d.as_micros().min(u32::MAX as u128) as u32
}

/// A game's moves as the API shows them.
fn move_list(game: &Value) -> Vec<String> {
    game["moves"]
        .as_array()
        .map(|m| {
            m.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

impl Ctx {
    fn stopped(&self) -> bool {
        *self.stop.borrow()
    }

    /// Sleeps until `t` or the stop; true if stopped.
    async fn sleep_until(&self, t: Instant) -> bool {
        let mut stop = self.stop.clone();
        tokio::select! {
            _ = tokio::time::sleep_until(t.into()) => self.stopped(),
            _ = stop.wait_for(|s| *s) => true,
        }
    }

    fn error(&self, kind: String) {
        self.error_n(kind, 1);
    }

    fn error_n(&self, kind: String, n: u64) {
        *self.stats.errors.lock().unwrap().entry(kind).or_default() += n;
        self.this_second(|s| s.errors += n);
    }

    /// A request or a watcher went to another server after `kind` went wrong.
    fn failed_over(&self, kind: &str) {
        *self
            .stats
            .failovers
            .lock()
            .unwrap()
            .entry(kind.to_string())
            .or_default() += 1;
        self.this_second(|s| s.failovers += 1);
    }

    /// Adds to the timeline's current second.
    fn this_second(&self, add: impl FnOnce(&mut Second)) {
        let i = self.start.elapsed().as_secs() as usize;
        let mut timeline = self.stats.timeline.lock().unwrap();
        if timeline.len() <= i {
            let from = timeline.len();
            timeline.extend((from..=i).map(|second| Second {
                second,
                ..Second::default()
            }));
        }
        add(&mut timeline[i]);
    }
}

/// Plays games, one after another, until the stop.
async fn slot(ctx: Arc<Ctx>) {
    while !ctx.stopped() {
        let target = ctx.next_target.fetch_add(1, RELAXED) % ctx.targets.len();
        if let Err(wait) = play_game(&ctx, target).await {
            ctx.sleep_until(Instant::now() + wait).await;
        }
    }
}

/// Ply -> when the move that made it was sent (for the watchers' delivery times).
type SentTimes = Arc<Mutex<Vec<Option<Instant>>>>;

/// One game from creation to its end, to a failed move or to the stop. `Err` is how long to
/// wait before the next game (a failed creation).
async fn play_game(ctx: &Arc<Ctx>, target: usize) -> Result<(), Duration> {
    let Some(mut game) = open_game(ctx, target).await? else {
        ctx.stats.games_abandoned.fetch_add(1, RELAXED);
        return Ok(());
    };

    // The watchers, each connected and holding the state before the first move.
    let sent: SentTimes = Arc::new(Mutex::new(Vec::new()));
    let (last_tx, last_rx) = watch::channel(None::<u64>);
    let watched = if ctx.watch_other {
        (game.target + 1) % ctx.targets.len()
    } else {
        game.target
    };
    let mut watchers = Vec::with_capacity(ctx.watchers);
    let mut ready = Vec::with_capacity(ctx.watchers);
    for _ in 0..ctx.watchers {
        let (tx, rx) = oneshot::channel();
        watchers.push(tokio::spawn(watcher::watcher(
            ctx.clone(),
            watched,
            game.id.clone(),
            sent.clone(),
            last_rx.clone(),
            tx,
        )));
        ready.push(rx);
    }
    for r in ready {
        let _ = r.await;
    }

    play_moves(ctx, &mut game, &sent).await;
    settle(ctx, &mut game);
    let _ = last_tx.send(Some(game.state["ply"].as_u64().unwrap_or(0)));
    for w in watchers {
        let _ = w.await;
    }
    ctx.stats.played.lock().unwrap().push(Played {
        target: game.target,
        id: game.id,
        known: game.known,
    });
    Ok(())
}

/// Makes a game and, between friends, joins it. `Ok(None)`: it cannot be played (the join
/// failed).
async fn open_game(ctx: &Ctx, mut target: usize) -> Result<Option<LiveGame>, Duration> {
    let mut body = json!({"mode": ctx.mode.name()});
    if let Some((control, _)) = &ctx.clock {
        body["clock"] = json!(control);
    }
    let create = Req::post(
        "create",
        "/api/games",
        body,
        // A creation lost with a server leaves an unused game at worst.
        Resend::Always,
    );
    let (created, timing) = ctx.call(&mut target, create).await?;
    ctx.stats.games_started.fetch_add(1, RELAXED);
    {
        let mut s = ctx.stats.samples.lock().unwrap();
        s.create.push(micros(timing.round_trip));
        s.queued.push(micros(timing.queued));
    }
    let id = created["game"]["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let secret = created["secret"].as_str().unwrap_or_default().to_string();
    if id.is_empty() || secret.is_empty() {
        ctx.error("create: an answer without id or secret".to_string());
        return Err(Duration::from_secs(1));
    }
    let mut game = LiveGame {
        id,
        target,
        secrets: [secret.clone(), secret],
        state: created["game"].clone(),
        known: Vec::new(),
        unsettled: None,
    };
    if ctx.mode == Mode::Friend && !join(ctx, &mut game, &created).await {
        return Ok(None);
    }
    Ok(Some(game))
}

/// Takes the free seat of a friend game with its invite token; false if that failed.
async fn join(ctx: &Ctx, game: &mut LiveGame, created: &Value) -> bool {
    let path = format!("/api/games/{}/join", game.id);
    let body = json!({"invite": created["invite"].as_str().unwrap_or_default()});
    let join = Req::post("join", &path, body, Resend::IfNotCarriedOut);
    let joined = match ctx.request(&mut game.target, join, |_| {}).await {
        Ok((joined, _)) => joined,
        // The lost join may have taken the seat, whose secret only its answer carried: the
        // game cannot be played, and nothing went wrong at the server that is still there.
        Err(CallError::Unsure { .. }) => return false,
        Err(e) => {
            ctx.fail(game.target, "join", &e);
            return false;
        }
    };
    let secret = &game.secrets[0];
    let other = joined["secret"].as_str().unwrap_or_default().to_string();
    match (created["seat"].as_str(), joined["seat"].as_str()) {
        (Some("south"), Some("north")) => game.secrets = [secret.clone(), other],
        (Some("north"), Some("south")) => game.secrets = [other, secret.clone()],
        (a, b) => {
            ctx.error(format!("join: seats {a:?} and {b:?}"));
            return false;
        }
    }
    game.state = joined["game"].clone();
    true
}

/// Plays random legal moves until the game is over, the stop, or a failure that leaves its
/// state unknown.
async fn play_moves(ctx: &Ctx, game: &mut LiveGame, sent: &SentTimes) {
    let path = format!("/api/games/{}/moves", game.id);
    let mut due = [Instant::now(); 2];
    // When the tool learned the state it moves from (the previous answer).
    let mut learned = Instant::now();
    if let Some(p) = ctx.pace {
        for d in &mut due {
            *d += p.mul_f64(rand::random_range(0.0..1.0));
        }
    }
    loop {
        if game.state["status"] != "playing" {
            ctx.stats.games_finished.fetch_add(1, RELAXED);
            break;
        }
        if ctx.stopped() {
            break;
        }
        let (side, mv) = match next_move(&game.state) {
            Ok(x) => x,
            Err(why) => {
                ctx.error(format!("move: {why}"));
                ctx.stats.games_abandoned.fetch_add(1, RELAXED);
                break;
            }
        };
        if ctx.pace.is_some() && ctx.sleep_until(due[side]).await {
            break;
        }
        let ply = game.state["ply"].as_u64().unwrap_or(0);
        let mut sent_at = Instant::now();
        let body = json!({"move": mv, "secret": game.secrets[side], "ply": ply});
        let answer = ctx
            .request(
                &mut game.target,
                Req::post("move", &path, body, Resend::IfNotCarriedOut),
                |at| {
                    sent_at = at;
                    let mut s = sent.lock().unwrap();
                    let i = ply as usize + 1;
                    if s.len() <= i {
                        s.resize(i + 1, None);
                    }
                    s[i] = Some(at);
                },
            )
            .await;
        let pending = match answer {
            Ok((v, timing)) => {
                settle(ctx, game);
                ctx.stats.moves.fetch_add(1, RELAXED);
                ctx.this_second(|s| s.moves += 1);
                let overhead = ctx.clock.as_ref().and_then(|(_, inc)| {
                    clock_overhead(&game.state, &v["game"], side, *inc, sent_at - learned)
                });
                {
                    let mut s = ctx.stats.samples.lock().unwrap();
                    s.round_trip.push(micros(timing.round_trip));
                    s.queued.push(micros(timing.queued));
                    s.clock_overhead.extend(overhead);
                }
                learned = Instant::now();
                game.known.push(mv);
                game.state = v["game"].clone();
                if let Some(p) = ctx.pace {
                    due[side] = sent_at + p;
                }
                continue;
            }
            Err(CallError::Unsure { .. }) => {
                settle(ctx, game);
                Some(Pending::new(mv, true))
            }
            // The game moved on behind the tool's back: after a failover, the failed server
            // may have stored the move sent to it after all (the one read back and not
            // found, or this one).
            Err(e) if e.is_stale() && game.unsettled.is_some() => game.unsettled.take(),
            Err(e) if e.is_stale_after_failover() => Some(Pending::new(mv, false)),
            Err(e) => {
                ctx.fail(game.target, "move", &e);
                // The game's state is unknown now: a new game instead.
                ctx.stats.games_abandoned.fetch_add(1, RELAXED);
                break;
            }
        };
        if resync(ctx, game, pending).await.is_err() {
            ctx.stats.games_abandoned.fetch_add(1, RELAXED);
            break;
        }
    }
}

/// What the clock of `side` (0 South, 1 North) was charged for its move beyond `thinking`, the
/// time from the tool reading `before` to sending the move, in microseconds: the network both
/// ways and the server's queue. `None` when `side`'s clock was not running.
///
/// `before`'s clock says what `side` had as of that answer, `after`'s what it has after the
/// move and its increment; so the difference, less `thinking`, is the time between the first
/// answer leaving the server and the move arriving there, less what the tool spent itself.
fn clock_overhead(
    before: &Value,
    after: &Value,
    side: usize,
    inc: i64,
    thinking: Duration,
) -> Option<u32> {
    let name = ["south", "north"][side];
    if before["clock"]["running"] != name {
        return None;
    }
    let had = before["clock"][name].as_i64()?;
    let has = after["clock"][name].as_i64()?;
    let charged_us = (had - (has - inc)) * 1000;
    Some((charged_us - thinking.as_micros() as i64).clamp(0, i64::from(u32::MAX)) as u32)
}

/// The side to move (0 South, 1 North) and a random legal move, or why the game cannot go on.
fn next_move(game: &Value) -> Result<(usize, String), String> {
    let side = match game["to_move"].as_str() {
        Some("south") => 0,
        Some("north") => 1,
        other => return Err(format!("a game playing with to_move {other:?}")),
    };
    let legal: Vec<&str> = game["legal"]
        .as_array()
        .map(|l| l.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if legal.is_empty() {
        return Err("a game playing without legal moves".to_string());
    }
    Ok((side, legal[rand::random_range(0..legal.len())].to_string()))
}

/// `http://HOST[:PORT][/]` -> (`HOST:PORT` as written, the address).
fn parse_url(url: &str) -> Result<(String, SocketAddr), Failure> {
    let bad = |why: &str| Failure::Says(format!("--server {url}: {why}"));
    let rest = url.strip_prefix("http://").ok_or_else(|| {
        bad("give an http:// address (the load goes to the server itself, not to a TLS proxy)")
    })?;
    let host = rest.trim_end_matches('/');
    if host.is_empty() || host.contains('/') {
        return Err(bad(
            "give the server's address without a path, e.g. http://127.0.0.1:8080",
        ));
    }
    let with_port = if host.ends_with(']') || !host.contains(':') {
        format!("{host}:80")
    } else {
        host.to_string()
    };
    // IPv4 first: `localhost` may name ::1 too, and the server listens on 127.0.0.1 by default.
    let mut addrs: Vec<SocketAddr> = with_port
        .to_socket_addrs()
        .map_err(|e| bad(&e.to_string()))?
        .collect();
    addrs.sort_by_key(|a| !a.is_ipv4());
    let addr = *addrs
        .first()
        .ok_or_else(|| bad("the name has no address"))?;
    Ok((host.to_string(), addr))
}

/// VmRSS and VmHWM of a process, in KiB.
fn memory(pid: u32) -> Result<(u64, u64), Failure> {
    let path = format!("/proc/{pid}/status");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| Failure::Says(format!("--server-pid {pid}: cannot read {path}: {e}")))?;
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|r| r.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
    };
    match (field("VmRSS:"), field("VmHWM:")) {
        (Some(rss), Some(hwm)) => Ok((rss, hwm)),
        _ => Err(Failure::Says(format!(
            "--server-pid {pid}: no VmRSS in {path}"
        ))),
    }
}

#[derive(Serialize)]
struct Report {
    servers: Vec<String>,
    mode: &'static str,
    games_at_once: usize,
    /// Seconds between a player's moves; `null` at full speed.
    pace_s: Option<f64>,
    watchers_per_game: usize,
    /// Watchers on the next server, not the one the game's moves go to.
    watch_other: bool,
    connections_per_server: usize,
    /// `--failover-secs` with `--failover`, else `null`.
    failover_s: Option<f64>,
    duration_s: f64,
    games_started: u64,
    games_finished: u64,
    games_abandoned: u64,
    moves: u64,
    moves_per_s: f64,
    round_trip_ms: Summary,
    create_ms: Summary,
    /// Waiting for a free connection of the tool's own (not the server's doing).
    connection_wait_ms: Summary,
    delivery_ms: Summary,
    /// With `--clock`: what each move's clock was charged beyond the tool's own time between
    /// learning it was its move and sending it (the network both ways and the server's queue;
    /// at 1 ms resolution, the clock's).
    clock_overhead_ms: Summary,
    /// Of those, moves charged more than the 0.5 s the server gives back for lag at most.
    clock_overhead_over_allowance: u64,
    /// Moves a slow or reconnected watcher got as a `state` message instead of their `move`
    /// events.
    resynced_moves: u64,
    /// Requests (and watchers) that went to another server after one failed.
    failovers: u64,
    failovers_by_kind: BTreeMap<String, u64>,
    /// Moves whose answer was lost with a server, read back from another one: there or not.
    unknown_outcome_found_stored: u64,
    unknown_outcome_not_stored: u64,
    ws_reconnects: u64,
    /// Requests that ran into the timeout.
    hangs: u64,
    /// 5xx answers that are not JSON with an `error` code and a `message`.
    http_5xx_without_message: u64,
    check: Check,
    errors: BTreeMap<String, u64>,
    errors_total: u64,
    /// Acknowledged moves, errors and failovers in each second of the run (the check's
    /// errors in the seconds after it).
    timeline: Vec<Second>,
    memory: Vec<Memory>,
    /// CPU time this tool used, in seconds (it shares the machine when on the server's).
    tool_cpu_s: Option<f64>,
    load_average: Option<String>,
    notes: Vec<String>,
}

#[derive(Serialize)]
struct Summary {
    count: usize,
    median: Option<f64>,
    p99: Option<f64>,
    max: Option<f64>,
    mean: Option<f64>,
}

impl Summary {
    fn of(mut v: Vec<u32>) -> Summary {
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

    fn text(&self) -> String {
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

#[derive(Serialize)]
struct Memory {
    pid: u32,
    rss_start_kib: u64,
    rss_end_kib: u64,
    peak_kib: u64,
    /// CPU time the server used during the load (user and system), in seconds.
    cpu_s: Option<f64>,
}

/// CPU time a process has used, user and system, in seconds (`self` for this one).
fn cpu_seconds(pid: &str) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // After the command's ")": state, ppid, ... utime is the 14th field, stime the 15th.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    // USER_HZ, 100 on Linux.
    Some(ticks as f64 / 100.0)
}

pub fn run(args: &LoadtestArgs) -> CmdResult {
    check_args(args)?;
    let mut targets = Vec::new();
    for url in &args.servers {
        let (host, addr) = parse_url(url)?;
        let timeout = Duration::from_secs_f64(args.timeout);
        targets.push(Target {
            url: url.trim_end_matches('/').to_string(),
            pool: Pool::new(addr, host.clone(), args.connections, timeout),
            host,
            addr,
        });
    }
    let mem_start = args
        .server_pids
        .iter()
        .map(|&p| Ok((memory(p)?, cpu_seconds(&p.to_string()))))
        .collect::<Result<Vec<_>, Failure>>()?;
    let tool_cpu_start = cpu_seconds("self");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::Says(format!("cannot start the runtime: {e}")))?;
    let report = rt.block_on(load(args, targets, mem_start, tool_cpu_start))?;
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &report)?;
        std::io::Write::write_all(&mut out, b"\n")?;
    } else {
        print_text(&mut out, &report)?;
    }
    if report.errors_total > 0 {
        return Err(Failure::Says(format!(
            "the load test saw {} errors (see the report)",
            report.errors_total
        )));
    }
    Ok(())
}

/// What clap cannot say about the flags together.
fn check_args(args: &LoadtestArgs) -> CmdResult {
    let servers = args.servers.len();
    if args.failover && servers < 2 {
        return Err(Failure::Says(
            "--failover moves games to another server: give two or more --server".to_string(),
        ));
    }
    if args.watch_other && servers < 2 {
        return Err(Failure::Says(
            "--watch-other puts the watchers on another server: give two or more --server"
                .to_string(),
        ));
    }
    if args.watch_other && args.watchers == 0 {
        return Err(Failure::Says(
            "--watch-other puts the watchers on another server: give --watchers 1 or more"
                .to_string(),
        ));
    }
    Ok(())
}

async fn load(
    args: &LoadtestArgs,
    targets: Vec<Target>,
    mem_start: Vec<((u64, u64), Option<f64>)>,
    tool_cpu_start: Option<f64>,
) -> Result<Report, Failure> {
    // Every server answers before the load starts.
    for t in &targets {
        match t.pool.request("GET", "/api/rules", None, |_| {}).await {
            Ok((a, _)) if a.status == 200 => {}
            Ok((a, _)) => {
                let v: Value = serde_json::from_slice(&a.body).unwrap_or_default();
                return Err(Failure::Says(format!(
                    "{} answers GET /api/rules with {} {} (is it an anywoli server?)",
                    t.url,
                    a.status,
                    v["error"].as_str().unwrap_or("")
                )));
            }
            Err(e) => {
                return Err(Failure::Says(format!(
                    "cannot reach {}: {}",
                    t.url,
                    e.kind()
                )))
            }
        }
    }
    let (stop_tx, stop_rx) = watch::channel(false);
    let start = Instant::now();
    let ctx = Arc::new(Ctx {
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
        stop: stop_rx,
        start,
        stats: Stats::default(),
    });
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
    let memory: Vec<Memory> = args
        .server_pids
        .iter()
        .zip(mem_start)
        .map(|(&pid, ((rss_start, _), cpu_start))| {
            let (rss_end, peak) = memory(pid).unwrap_or((0, 0));
            Memory {
                pid,
                rss_start_kib: rss_start,
                rss_end_kib: rss_end,
                peak_kib: peak,
                cpu_s: cpu_seconds(&pid.to_string())
                    .zip(cpu_start)
                    .map(|(end, start)| ((end - start) * 100.0).round() / 100.0),
            }
        })
        .collect();
    let tool_cpu_s = cpu_seconds("self")
        .zip(tool_cpu_start)
        .map(|(end, start)| ((end - start) * 100.0).round() / 100.0);

    let check = check::check(&ctx, args.check_games).await;
    let stats = &ctx.stats;
    let samples = std::mem::take(&mut *stats.samples.lock().unwrap());
    let errors = stats.errors.lock().unwrap().clone();
    let errors_total = errors.values().sum();
    let failovers_by_kind = stats.failovers.lock().unwrap().clone();
    let timeline = stats.timeline.lock().unwrap().clone();
    let moves = stats.moves.load(RELAXED);
    let mut notes = Vec::new();
    if let Some(m) = &check.first_mismatch {
        notes.push(format!("the first stored game that does not replay: {m}"));
    }
    if stats.rate_limited.load(RELAXED) {
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
    let load_average = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "));
    Ok(Report {
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
        load_average,
        notes,
    })
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

fn print_text(out: &mut impl std::io::Write, r: &Report) -> std::io::Result<()> {
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

fn print_failover(out: &mut impl std::io::Write, r: &Report, secs: f64) -> std::io::Result<()> {
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
