//! What `anywoli loadtest` is asked to do: its flags, what clap cannot check about them
//! together, and the servers' addresses read from `--server`.

use std::net::{SocketAddr, ToSocketAddrs};

use clap::Args;

use crate::common::usize_in;
use crate::error::LoadtestError;

#[derive(Args)]
pub struct LoadtestArgs {
    /// A server to load, http://HOST:PORT (repeatable: games are spread over them in turn).
    #[arg(long = "server", value_name = "URL", required = true)]
    pub(super) servers: Vec<String>,
    /// Games played at once; when one ends, a new one starts in its place.
    #[arg(long, default_value_t = 10, value_name = "N", value_parser = usize_in(1, 1_000_000))]
    pub(super) games: usize,
    /// Each player moves every SECS seconds, like people (from a random start offset, so that
    /// the moves spread out): a game makes about 2/SECS moves a second.
    #[arg(long, value_name = "SECS", value_parser = positive_secs, conflicts_with = "full_speed")]
    pub(super) pace: Option<f64>,
    /// Each move as soon as the previous one is answered (the default without --pace).
    #[arg(long)]
    pub(super) full_speed: bool,
    /// Seconds to play (Ctrl-C stops sooner and still reports).
    #[arg(long, default_value_t = 30.0, value_name = "SECS", value_parser = positive_secs)]
    pub(super) duration: f64,
    /// WebSocket watchers per game: each measures the delivery of every move, from the POST
    /// being sent to its `move` event arriving.
    #[arg(long, default_value_t = 0, value_name = "W", value_parser = usize_in(0, 1000))]
    pub(super) watchers: usize,
    /// Each game's watchers connect to the next server in the list, not to the one its moves
    /// go to: the delivery measured is from one instance to another (needs two --server).
    #[arg(long)]
    pub(super) watch_other: bool,
    /// With two or more --server: a request that gets no answer (refused, reset, closed,
    /// timed out) or a 502 or 503 goes to the next server instead of ending its game, and a
    /// move whose outcome is unknown is read back there; a watcher that is dropped
    /// reconnects to another server.
    #[arg(long)]
    pub(super) failover: bool,
    /// How long --failover tries the other servers for one request before it counts as failed.
    #[arg(long, default_value_t = 30.0, value_name = "SECS", value_parser = positive_secs, requires = "failover")]
    pub(super) failover_secs: f64,
    /// `local`: one secret holds both seats; `friend`: the second player joins with the
    /// invite token and each side moves with its own secret.
    #[arg(long, value_enum, default_value = "local")]
    pub(super) mode: Mode,
    /// HTTP/1.1 connections to each server, kept alive, one request at a time each
    /// (WebSocket watchers have their own).
    #[arg(long, default_value_t = 64, value_name = "C", value_parser = usize_in(1, 100_000))]
    pub(super) connections: usize,
    /// Seconds a request may take, connecting included, before it counts as a timeout.
    #[arg(long, default_value_t = 10.0, value_name = "SECS", value_parser = positive_secs)]
    pub(super) timeout: f64,
    /// A server's process id (repeatable): its memory (VmRSS, and the peak VmHWM) is read from
    /// /proc/PID/status at the start and at the end.
    #[arg(long = "server-pid", value_name = "PID")]
    pub(super) server_pids: Vec<u32>,
    /// Games whose stored moves are checked at the end against the acknowledged ones and
    /// replayed (a random sample when more were played).
    #[arg(long, default_value_t = 1000, value_name = "N")]
    pub(super) check_games: usize,
    /// Print the report as JSON.
    #[arg(long)]
    pub(super) json: bool,
    /// Play the games on a clock (`5+3`: minutes + seconds per move, as the API takes it), and
    /// measure what the clock charges beyond the player's own thinking (docs/scaling.md).
    #[arg(long, value_name = "CONTROL", value_parser = real_time_clock)]
    pub(super) clock: Option<String>,
    /// Play a tournament instead of games: --players accounts sign up, join an arena or a
    /// Swiss (clock 1+0) and play it to its end as bots, then the tournament is checked for
    /// double pairings and lost games (docs/tournaments.md, "Load and faults"). The servers
    /// must take signups and entries without limit: --logins-per-minute 0 --games-per-minute 0.
    #[arg(long, value_enum, value_name = "SYSTEM")]
    pub(super) tournament: Option<TournamentSystem>,
    /// With --tournament: how many accounts play it.
    #[arg(long, value_name = "N", value_parser = usize_in(2, 1000), requires = "tournament")]
    pub(super) players: Option<usize>,
    /// With --tournament swiss: its rounds (default 5).
    #[arg(long, value_name = "R", value_parser = clap::value_parser!(i64).range(3..=15), requires = "tournament")]
    pub(super) rounds: Option<i64>,
    /// With --tournament arena: its length in the server's minutes (default 20; see the
    /// server's hidden --tournament-minute-ms).
    #[arg(long, value_name = "M", value_parser = clap::value_parser!(i64).range(20..=180), requires = "tournament")]
    pub(super) minutes: Option<i64>,
    /// With --tournament: the plies a game lasts; then the player to move resigns.
    #[arg(long, default_value_t = 12, value_name = "K", value_parser = clap::value_parser!(u64).range(1..=10_000), requires = "tournament")]
    pub(super) plies: u64,
}

/// The tournaments `--tournament` plays.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum TournamentSystem {
    Arena,
    Swiss,
}

impl TournamentSystem {
    pub(super) fn name(self) -> &'static str {
        match self {
            TournamentSystem::Arena => "arena",
            TournamentSystem::Swiss => "swiss",
        }
    }
}

/// A real-time control `M+S`: its increment in milliseconds, or why not.
fn real_time_clock(s: &str) -> Result<String, LoadtestError> {
    increment_ms(s)
        .map(|_| s.to_string())
        .ok_or_else(|| LoadtestError::Clock(s.to_string()))
}

pub(super) fn increment_ms(control: &str) -> Option<i64> {
    let (m, inc) = control.split_once('+')?;
    m.parse::<f64>().ok()?;
    Some(inc.parse::<i64>().ok()? * 1000)
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum Mode {
    Local,
    Friend,
}

impl Mode {
    pub(super) fn name(self) -> &'static str {
        match self {
            Mode::Local => "local",
            Mode::Friend => "friend",
        }
    }
}

fn positive_secs(s: &str) -> Result<f64, LoadtestError> {
    match s.parse::<f64>() {
        Ok(x) if x > 0.0 && x <= 1e7 => Ok(x),
        _ => Err(LoadtestError::Seconds(s.to_string())),
    }
}

/// What clap cannot say about the flags together.
pub(super) fn check_args(args: &LoadtestArgs) -> Result<(), LoadtestError> {
    let servers = args.servers.len();
    if args.failover && servers < 2 {
        return Err(LoadtestError::FailoverWithOneServer);
    }
    if args.watch_other && servers < 2 {
        return Err(LoadtestError::WatchOtherWithOneServer);
    }
    if args.watch_other && args.watchers == 0 {
        return Err(LoadtestError::WatchOtherWithoutWatchers);
    }
    match args.tournament {
        Some(_) if args.players.is_none() => return Err(LoadtestError::TournamentWithoutPlayers),
        Some(TournamentSystem::Arena) if args.rounds.is_some() => {
            return Err(LoadtestError::TournamentFlag("--rounds", "swiss"))
        }
        Some(TournamentSystem::Swiss) if args.minutes.is_some() => {
            return Err(LoadtestError::TournamentFlag("--minutes", "arena"))
        }
        _ => {}
    }
    Ok(())
}

/// `http://HOST[:PORT][/]` -> (`HOST:PORT` as written, the address).
pub(super) fn parse_url(url: &str) -> Result<(String, SocketAddr), LoadtestError> {
    let owned = || url.to_string();
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| LoadtestError::ServerNotHttp { url: owned() })?;
    let host = rest.trim_end_matches('/');
    if host.is_empty() || host.contains('/') {
        return Err(LoadtestError::ServerWithPath { url: owned() });
    }
    let with_port = if host.ends_with(']') || !host.contains(':') {
        format!("{host}:80")
    } else {
        host.to_string()
    };
    // IPv4 first: `localhost` may name ::1 too, and the server listens on 127.0.0.1 by default.
    let mut addrs: Vec<SocketAddr> = with_port
        .to_socket_addrs()
        .map_err(|error| LoadtestError::ServerName {
            url: owned(),
            error,
        })?
        .collect();
    addrs.sort_by_key(|a| !a.is_ipv4());
    let addr = *addrs
        .first()
        .ok_or_else(|| LoadtestError::ServerNoAddress { url: owned() })?;
    Ok((host.to_string(), addr))
}
