//! `anywoli loadtest`: many live games at once over HTTP and WebSocket against one or more
//! servers, as fast as they go or at people's pace, and what it cost: moves per second, round
//! trips, WebSocket delivery, errors by kind and the servers' memory; at the end, a check that
//! every acknowledged move is stored (docs/scaling.md).

mod client;

use std::collections::BTreeMap;
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::Args;
use futures_util::StreamExt;
use serde::Serialize;
use serde_json::{json, Value};
use tokio::net::TcpStream;
use tokio::sync::{oneshot, watch};
use tokio_tungstenite::tungstenite::{self, Message};

use crate::{CmdResult, Failure};
use client::{HttpError, Pool, Timing};

#[derive(Args)]
pub struct LoadtestArgs {
    /// A server to load, http://HOST:PORT (repeatable: games are spread over them in turn).
    #[arg(long = "server", value_name = "URL", required = true)]
    servers: Vec<String>,
    /// Games played at once; when one ends, a new one starts in its place.
    #[arg(long, default_value_t = 10, value_name = "N", value_parser = crate::usize_in(1, 1_000_000))]
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
    #[arg(long, default_value_t = 0, value_name = "W", value_parser = crate::usize_in(0, 1000))]
    watchers: usize,
    /// `local`: one secret holds both seats; `friend`: the second player joins with the
    /// invite token and each side moves with its own secret.
    #[arg(long, value_enum, default_value = "local")]
    mode: Mode,
    /// HTTP/1.1 connections to each server, kept alive, one request at a time each
    /// (WebSocket watchers have their own).
    #[arg(long, default_value_t = 64, value_name = "C", value_parser = crate::usize_in(1, 100_000))]
    connections: usize,
    /// Seconds a request may take, connecting included, before it counts as a timeout.
    #[arg(long, default_value_t = 10.0, value_name = "SECS", value_parser = positive_secs)]
    timeout: f64,
    /// A server's process id (repeatable): its memory (VmRSS, and the peak VmHWM) is read from
    /// /proc/PID/status at the start and at the end.
    #[arg(long = "server-pid", value_name = "PID")]
    server_pids: Vec<u32>,
    /// Games whose stored moves are checked at the end against the acknowledged ones (a random
    /// sample when more were played).
    #[arg(long, default_value_t = 1000, value_name = "N")]
    check_games: usize,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
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
    timeout: Duration,
    stop: watch::Receiver<bool>,
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
    samples: Mutex<Samples>,
    errors: Mutex<BTreeMap<String, u64>>,
    played: Mutex<Vec<Played>>,
}

/// Times in microseconds.
#[derive(Default)]
struct Samples {
    round_trip: Vec<u32>,
    create: Vec<u32>,
    queued: Vec<u32>,
    delivery: Vec<u32>,
}

/// A game as the tool knows it: where, and the moves the server acknowledged.
struct Played {
    target: usize,
    id: String,
    acked: Vec<String>,
}

fn micros(d: Duration) -> u32 {
    d.as_micros().min(u32::MAX as u128) as u32
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
    }

    /// One request whose answer is JSON; any failure is counted under `what` and the answer
    /// is `Err` with how long to wait before making new games on that server.
    async fn call(
        &self,
        target: usize,
        what: &str,
        method: &str,
        path: &str,
        body: Option<Value>,
        on_send: impl FnMut(Instant),
    ) -> Result<(Value, Timing), Duration> {
        let body = body.map(|b| b.to_string().into_bytes());
        let t = &self.targets[target];
        match t.pool.request(method, path, body.as_deref(), on_send).await {
            Err(e) => {
                self.error(format!("{what}: {}", e.kind()));
                Err(match e {
                    HttpError::Timeout => Duration::ZERO,
                    _ => Duration::from_secs(1),
                })
            }
            Ok((answer, timing)) => {
                let v: Value = serde_json::from_slice(&answer.body).unwrap_or(Value::Null);
                if (200..300).contains(&answer.status) {
                    return Ok((v, timing));
                }
                let code = v["error"].as_str().unwrap_or("-");
                self.error(format!("{what}: {} {code}", answer.status));
                if answer.status == 429 && !self.stats.rate_limited.swap(true, Ordering::Relaxed) {
                    eprintln!(
                        "anywoli loadtest: {} refuses new games (429 {code}): start it with --games-per-minute 0",
                        t.url
                    );
                }
                Err(Duration::from_secs(
                    answer.retry_after.unwrap_or(1).clamp(1, 60),
                ))
            }
        }
    }
}

/// Plays games, one after another, until the stop.
async fn slot(ctx: Arc<Ctx>) {
    while !ctx.stopped() {
        let target = ctx.next_target.fetch_add(1, Ordering::Relaxed) % ctx.targets.len();
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
    let mode = ctx.mode.name();
    let (created, timing) = ctx
        .call(
            target,
            "create",
            "POST",
            "/api/games",
            Some(json!({"mode": mode})),
            |_| {},
        )
        .await?;
    ctx.stats.games_started.fetch_add(1, Ordering::Relaxed);
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
    let mut game = created["game"].clone();
    // The secret of each side: [south, north].
    let mut secrets = [secret.clone(), secret.clone()];
    if ctx.mode == Mode::Friend {
        let invite = created["invite"].as_str().unwrap_or_default();
        let Ok((joined, _)) = ctx
            .call(
                target,
                "join",
                "POST",
                &format!("/api/games/{id}/join"),
                Some(json!({"invite": invite})),
                |_| {},
            )
            .await
        else {
            ctx.stats.games_abandoned.fetch_add(1, Ordering::Relaxed);
            return Ok(());
        };
        let other = joined["secret"].as_str().unwrap_or_default().to_string();
        match (created["seat"].as_str(), joined["seat"].as_str()) {
            (Some("south"), Some("north")) => secrets = [secret, other],
            (Some("north"), Some("south")) => secrets = [other, secret],
            (a, b) => {
                ctx.error(format!("join: seats {a:?} and {b:?}"));
                ctx.stats.games_abandoned.fetch_add(1, Ordering::Relaxed);
                return Ok(());
            }
        }
        game = joined["game"].clone();
    }

    // The watchers, each connected and holding the state before the first move.
    let sent: SentTimes = Arc::new(Mutex::new(Vec::new()));
    let (last_tx, last_rx) = watch::channel(None::<u64>);
    let mut watchers = Vec::with_capacity(ctx.watchers);
    let mut ready = Vec::with_capacity(ctx.watchers);
    for _ in 0..ctx.watchers {
        let (tx, rx) = oneshot::channel();
        watchers.push(tokio::spawn(watcher(
            ctx.clone(),
            target,
            id.clone(),
            sent.clone(),
            last_rx.clone(),
            tx,
        )));
        ready.push(rx);
    }
    for r in ready {
        let _ = r.await;
    }

    let path = format!("/api/games/{id}/moves");
    let mut acked = Vec::new();
    let mut due = [Instant::now(); 2];
    if let Some(p) = ctx.pace {
        for d in &mut due {
            *d += p.mul_f64(rand::random_range(0.0..1.0));
        }
    }
    loop {
        if game["status"] != "playing" {
            ctx.stats.games_finished.fetch_add(1, Ordering::Relaxed);
            break;
        }
        if ctx.stopped() {
            break;
        }
        let side = match game["to_move"].as_str() {
            Some("south") => 0,
            Some("north") => 1,
            other => {
                ctx.error(format!("move: a game playing with to_move {other:?}"));
                ctx.stats.games_abandoned.fetch_add(1, Ordering::Relaxed);
                break;
            }
        };
        let legal: Vec<&str> = game["legal"]
            .as_array()
            .map(|l| l.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if legal.is_empty() {
            ctx.error("move: a game playing without legal moves".to_string());
            ctx.stats.games_abandoned.fetch_add(1, Ordering::Relaxed);
            break;
        }
        let mv = legal[rand::random_range(0..legal.len())].to_string();
        if ctx.pace.is_some() && ctx.sleep_until(due[side]).await {
            break;
        }
        let ply = game["ply"].as_u64().unwrap_or(0);
        let mut sent_at = Instant::now();
        let answer = ctx
            .call(
                target,
                "move",
                "POST",
                &path,
                Some(json!({"move": mv, "secret": secrets[side], "ply": ply})),
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
        match answer {
            Ok((v, timing)) => {
                ctx.stats.moves.fetch_add(1, Ordering::Relaxed);
                {
                    let mut s = ctx.stats.samples.lock().unwrap();
                    s.round_trip.push(micros(timing.round_trip));
                    s.queued.push(micros(timing.queued));
                }
                acked.push(mv);
                game = v["game"].clone();
                if let Some(p) = ctx.pace {
                    due[side] = sent_at + p;
                }
            }
            Err(_) => {
                // The game's state is unknown now: a new game instead.
                ctx.stats.games_abandoned.fetch_add(1, Ordering::Relaxed);
                break;
            }
        }
    }
    let _ = last_tx.send(Some(game["ply"].as_u64().unwrap_or(0)));
    for w in watchers {
        let _ = w.await;
    }
    ctx.stats
        .played
        .lock()
        .unwrap()
        .push(Played { target, id, acked });
    Ok(())
}

/// Connects a watcher to the game's events and reads them until it saw the game's last move
/// (the ply sent on `last`), timing each `move` event from its POST.
async fn watcher(
    ctx: Arc<Ctx>,
    target: usize,
    id: String,
    sent: SentTimes,
    mut last: watch::Receiver<Option<u64>>,
    ready: oneshot::Sender<()>,
) {
    let t = &ctx.targets[target];
    let url = format!("ws://{}/api/games/{id}/events", t.host);
    let config = tungstenite::protocol::WebSocketConfig::default()
        .read_buffer_size(16 * 1024)
        .write_buffer_size(4 * 1024);
    let connect = async {
        let tcp = TcpStream::connect(t.addr)
            .await
            .map_err(|e| format!("ws connect: {}", HttpError::Connect(e).kind()))?;
        let _ = tcp.set_nodelay(true);
        let (mut ws, _) =
            tokio_tungstenite::client_async_with_config(url.as_str(), tcp, Some(config))
                .await
                .map_err(|e| format!("ws handshake: {}", ws_kind(&e)))?;
        // The first message is the whole state.
        let first = match ws.next().await {
            Some(Ok(Message::Text(text))) => {
                serde_json::from_str::<Value>(&text).unwrap_or_default()
            }
            Some(Err(e)) => return Err(format!("ws: {}", ws_kind(&e))),
            _ => return Err("ws: no state message first".to_string()),
        };
        if first["type"] != "state" {
            return Err(format!("ws: the first message is {:?}", first["type"]));
        }
        Ok((ws, first["game"]["ply"].as_u64().unwrap_or(0)))
    };
    let (mut ws, mut seen) = match tokio::time::timeout(ctx.timeout, connect).await {
        Err(_) => return ctx.error("ws connect: timeout".to_string()),
        Ok(Err(kind)) => return ctx.error(kind),
        Ok(Ok(x)) => x,
    };
    let _ = ready.send(());
    // The last ply to wait for, and until when.
    let mut end: Option<(u64, tokio::time::Instant)> = None;
    loop {
        if let Some((ply, _)) = end {
            if seen >= ply {
                break;
            }
        }
        let deadline = end.map(|e| e.1);
        tokio::select! {
            msg = ws.next() => match msg {
                Some(Ok(Message::Text(text))) => {
                    let now = Instant::now();
                    let v: Value = serde_json::from_str(&text).unwrap_or_default();
                    let ply = v["game"]["ply"].as_u64().unwrap_or(0);
                    match v["type"].as_str() {
                        Some("move") => {
                            if ply > seen + 1 {
                                ctx.error_n("ws: move events skipped".to_string(), ply - seen - 1);
                            }
                            let at = sent.lock().unwrap().get(ply as usize).copied().flatten();
                            if let Some(at) = at {
                                ctx.stats.samples.lock().unwrap().delivery.push(micros(now - at));
                            }
                            seen = seen.max(ply);
                        }
                        // A watcher too slow to follow every event gets the state instead.
                        Some("state") if ply > seen => {
                            ctx.stats.resynced.fetch_add(ply - seen, Ordering::Relaxed);
                            seen = ply;
                        }
                        _ => {}
                    }
                }
                Some(Ok(Message::Close(_))) | None => {
                    return ctx.error("ws: closed by the server".to_string());
                }
                Some(Ok(_)) => {}
                Some(Err(e)) => return ctx.error(format!("ws: {}", ws_kind(&e))),
            },
            changed = last.changed(), if end.is_none() => {
                let ply = match changed {
                    Ok(()) => (*last.borrow()).unwrap_or(seen),
                    Err(_) => seen,
                };
                end = Some((ply, tokio::time::Instant::now() + ctx.timeout));
            }
            _ = tokio::time::sleep_until(deadline.unwrap_or_else(tokio::time::Instant::now)), if deadline.is_some() => {
                ctx.error("ws: the last move's event did not come within the timeout".to_string());
                break;
            }
        }
    }
    let _ = tokio::time::timeout(Duration::from_secs(1), ws.close(None)).await;
}

fn ws_kind(e: &tungstenite::Error) -> String {
    match e {
        tungstenite::Error::Io(io) => HttpError::Io(std::io::Error::new(io.kind(), io.to_string()))
            .kind()
            .replacen("i/o: ", "", 1),
        tungstenite::Error::Http(r) => format!("HTTP {}", r.status().as_u16()),
        tungstenite::Error::Protocol(p) => format!("protocol: {p}"),
        other => other.to_string(),
    }
}

/// `http://HOST[:PORT][/]` -> (`HOST:PORT` as written, the address).
fn parse_url(url: &str) -> Result<(String, SocketAddr), Failure> {
    let bad = |why: &str| Failure(format!("--server {url}: {why}"));
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
        .map_err(|e| Failure(format!("--server-pid {pid}: cannot read {path}: {e}")))?;
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|r| r.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
    };
    match (field("VmRSS:"), field("VmHWM:")) {
        (Some(rss), Some(hwm)) => Ok((rss, hwm)),
        _ => Err(Failure(format!("--server-pid {pid}: no VmRSS in {path}"))),
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
    connections_per_server: usize,
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
    /// Moves a slow watcher got as a `state` message instead of their `move` events.
    resynced_moves: u64,
    check: Check,
    errors: BTreeMap<String, u64>,
    errors_total: u64,
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
struct Check {
    games_played: usize,
    games_checked: usize,
    moves_checked: u64,
    lost_moves: u64,
    games_with_lost_moves: u64,
    failed: u64,
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
        .map_err(|e| Failure(format!("cannot start the runtime: {e}")))?;
    let report = rt.block_on(load(args, targets, mem_start, tool_cpu_start))?;
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &report)?;
        std::io::Write::write_all(&mut out, b"\n")?;
    } else {
        print_text(&mut out, &report)?;
    }
    if report.errors_total > 0 {
        return Err(Failure(format!(
            "the load test saw {} errors (see the report)",
            report.errors_total
        )));
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
                return Err(Failure(format!(
                    "{} answers GET /api/rules with {} {} (is it an anywoli server?)",
                    t.url,
                    a.status,
                    v["error"].as_str().unwrap_or("")
                )));
            }
            Err(e) => return Err(Failure(format!("cannot reach {}: {}", t.url, e.kind()))),
        }
    }
    let (stop_tx, stop_rx) = watch::channel(false);
    let ctx = Arc::new(Ctx {
        targets,
        next_target: AtomicUsize::new(0),
        mode: args.mode,
        pace: args.pace.map(Duration::from_secs_f64),
        watchers: args.watchers,
        timeout: Duration::from_secs_f64(args.timeout),
        stop: stop_rx,
        stats: Stats::default(),
    });
    let start = Instant::now();
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

    let check = check(&ctx, args.check_games).await;
    let stats = &ctx.stats;
    let samples = std::mem::take(&mut *stats.samples.lock().unwrap());
    let errors = stats.errors.lock().unwrap().clone();
    let errors_total = errors.values().sum();
    let moves = stats.moves.load(Ordering::Relaxed);
    let mut notes = Vec::new();
    if stats.rate_limited.load(Ordering::Relaxed) {
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
        connections_per_server: args.connections,
        duration_s: (moving.as_secs_f64() * 1e3).round() / 1e3,
        games_started: stats.games_started.load(Ordering::Relaxed),
        games_finished: stats.games_finished.load(Ordering::Relaxed),
        games_abandoned: stats.games_abandoned.load(Ordering::Relaxed),
        moves,
        moves_per_s: (moves as f64 / moving.as_secs_f64() * 10.0).round() / 10.0,
        round_trip_ms: Summary::of(samples.round_trip),
        create_ms: Summary::of(samples.create),
        connection_wait_ms: Summary::of(samples.queued),
        delivery_ms: Summary::of(samples.delivery),
        resynced_moves: stats.resynced.load(Ordering::Relaxed),
        check,
        errors,
        errors_total,
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
        let moves = s.moves.load(Ordering::Relaxed);
        let recent = {
            let samples = s.samples.lock().unwrap();
            let r = samples.round_trip[last_samples.min(samples.round_trip.len())..].to_vec();
            last_samples = samples.round_trip.len();
            r
        };
        let errors: u64 = s.errors.lock().unwrap().values().sum();
        eprintln!(
            "anywoli loadtest: {:>5.0} s  games {} started, {} finished  moves {} ({:.0}/s)  round trip {}  errors {}",
            start.elapsed().as_secs_f64(),
            s.games_started.load(Ordering::Relaxed),
            s.games_finished.load(Ordering::Relaxed),
            moves,
            (moves - last_moves) as f64 / PROGRESS_EVERY.as_secs_f64(),
            Summary::of(recent).text(),
            errors,
        );
        last_moves = moves;
    }
}

/// Reads back games (all, or a random sample of `most`) and checks that the server's moves
/// start with every move it acknowledged.
async fn check(ctx: &Arc<Ctx>, most: usize) -> Check {
    let mut played = std::mem::take(&mut *ctx.stats.played.lock().unwrap());
    let games_played = played.len();
    if played.len() > most {
        // A uniform sample: a partial Fisher-Yates shuffle.
        for i in 0..most {
            let j = rand::random_range(i..played.len());
            played.swap(i, j);
        }
        played.truncate(most);
    }
    let moves_checked = played.iter().map(|p| p.acked.len() as u64).sum();
    let games_checked = played.len();
    let mut tasks = tokio::task::JoinSet::new();
    for p in played {
        let ctx = ctx.clone();
        tasks.spawn(async move {
            let path = format!("/api/games/{}", p.id);
            match ctx
                .call(p.target, "check", "GET", &path, None, |_| {})
                .await
            {
                Err(_) => Err(()),
                Ok((g, _)) => {
                    let stored: Vec<&str> = g["moves"]
                        .as_array()
                        .map(|m| m.iter().filter_map(Value::as_str).collect())
                        .unwrap_or_default();
                    let kept = p
                        .acked
                        .iter()
                        .zip(&stored)
                        .take_while(|(a, s)| a.as_str() == **s)
                        .count();
                    Ok((p.acked.len() - kept) as u64)
                }
            }
        });
    }
    let mut c = Check {
        games_played,
        games_checked,
        moves_checked,
        lost_moves: 0,
        games_with_lost_moves: 0,
        failed: 0,
    };
    while let Some(r) = tasks.join_next().await {
        match r {
            Ok(Ok(0)) => {}
            Ok(Ok(lost)) => {
                c.lost_moves += lost;
                c.games_with_lost_moves += 1;
            }
            _ => c.failed += 1,
        }
    }
    if c.lost_moves > 0 {
        ctx.error_n(
            "check: acknowledged moves missing from the stored game".to_string(),
            c.lost_moves,
        );
    }
    c
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
