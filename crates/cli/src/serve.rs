//! `anywoli serve`, and `anywoli` with no command: its flags and the server's configuration
//! made from them.

use std::time::Duration;

use anywoli_server::{Limits, RateLimits};
use clap::Args;

use crate::common::{usize_in, CmdResult};

/// What `anywoli serve` takes; `anywoli` with no command uses the defaults.
#[derive(Args, Clone)]
pub struct ServeArgs {
    /// Address to listen on: 127.0.0.1 (this machine only) or 0.0.0.0 (every network
    /// interface, so that a friend on another device can join).
    #[arg(long, default_value = "127.0.0.1")]
    addr: String,
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// SQLite file holding the games (created if missing), or a PostgreSQL URL
    /// (postgres://USER:PASS@HOST/DB, whose tables are created if missing).
    #[arg(long, default_value = "anywoli.sqlite", value_name = "PATH|URL")]
    db: std::path::PathBuf,
    /// The address people reach the server at, when it sits behind a reverse proxy
    /// (e.g. https://anywoli.example.org): the page builds the links it shows from it.
    #[arg(long, value_name = "URL")]
    public_url: Option<String>,
    /// Connections open at once, WebSockets included: one more is closed as soon as it is
    /// accepted. Lowered at start to what the open-file limit (ulimit -n) allows.
    #[arg(long, value_name = "N", value_parser = usize_in(1, 10_000_000),
          default_value_t = Limits::default().max_connections)]
    max_connections: usize,
    /// Connections open at once from one client (an IPv4 address, an IPv6 /64), 0 for no cap;
    /// a --trusted-proxy has none [default: 48, or 0 with --public-url and no --trusted-proxy,
    /// where every connection comes from the proxy]
    #[arg(long, value_name = "N", value_parser = usize_in(0, 10_000_000))]
    max_connections_per_client: Option<usize>,
    /// Seconds a client may take to send a request's headers, from their first byte.
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..=86_400),
          default_value_t = Limits::default().header_timeout.as_secs())]
    header_timeout: u64,
    /// Seconds a connection may stay open with no request in flight (WebSockets excepted).
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..=86_400),
          default_value_t = Limits::default().idle_timeout.as_secs())]
    idle_timeout: u64,
    /// Seconds a client may take to send a request's body once its headers are in (then 408),
    /// and to take a byte of a response.
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..=86_400),
          default_value_t = Limits::default().request_timeout.as_secs())]
    request_timeout: u64,
    /// New games one client (address) may make per minute, after a burst of 10; 0 for no limit.
    #[arg(long, value_name = "N", default_value_t = RateLimits::default().games_per_minute)]
    games_per_minute: u32,
    /// Hints one client may ask for per minute, after a burst of 4; 0 for no limit.
    #[arg(long, value_name = "N", default_value_t = RateLimits::default().hints_per_minute)]
    hints_per_minute: u32,
    /// Imports one client may make per minute, after a burst of 5; 0 for no limit.
    #[arg(long, value_name = "N", default_value_t = RateLimits::default().imports_per_minute)]
    imports_per_minute: u32,
    /// Signups and logins one client may try per minute, after a burst of 5; 0 for no limit
    /// (failed logins of one name are limited whatever this says: 5 in 15 minutes).
    #[arg(long, value_name = "N", default_value_t = RateLimits::default().logins_per_minute)]
    logins_per_minute: u32,
    /// A host name the server answers to (repeatable), besides IP addresses, localhost and
    /// the --public-url's host: requests to any other name are refused (DNS rebinding).
    #[arg(long = "allowed-host", value_name = "NAME")]
    allowed_hosts: Vec<String>,
    /// Seconds this server's claim on the engine's turn in a game holds: when it dies, another
    /// server on the same PostgreSQL database plays the engine's move after at most this
    /// long (docs/hosting.md, "Several instances").
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..=3_600),
          default_value_t = anywoli_server::round::ENGINE_LEASE.as_secs())]
    engine_lease: u64,
    /// How many milliseconds a tournament's minute lasts: only for tests that play whole
    /// arenas in seconds.
    #[arg(long, value_name = "MS", hide = true, default_value_t = 60_000,
          value_parser = clap::value_parser!(i64).range(100..=60_000))]
    tournament_minute_ms: i64,
    /// A reverse proxy whose X-Forwarded-For (or X-Real-IP) names the client, as an address
    /// or network (repeatable; e.g. 127.0.0.1/32 for nginx on this machine). Every limit per
    /// client then counts the client's address, not the proxy's. None by default: a peer that
    /// is not trusted cannot pick the address it is counted under.
    #[arg(long = "trusted-proxy", value_name = "CIDR")]
    trusted_proxies: Vec<anywoli_server::TrustedProxies>,
    /// WebSockets (live games, the lobby, the analysis board) open at once, all clients
    /// together; one more is refused with 503.
    #[arg(long, value_name = "N", value_parser = usize_in(1, 10_000_000),
          default_value_t = anywoli_server::ws::SocketLimits::default().max_sockets)]
    max_sockets: usize,
    /// WebSockets open at once from one client (an IPv4 address, an IPv6 /64; the forwarded
    /// one behind a --trusted-proxy); one more is refused with 429. 0 for no cap.
    #[arg(long, value_name = "N", value_parser = usize_in(0, 10_000_000),
          default_value_t = anywoli_server::ws::SocketLimits::default().max_sockets_per_client)]
    max_sockets_per_client: usize,
    /// Seconds between the server's pings on each WebSocket.
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..=3_600),
          default_value_t = anywoli_server::ws::SocketLimits::default().ping_interval.as_secs())]
    socket_ping_interval: u64,
    /// Seconds a WebSocket may stay silent (not even answering a ping) before it is closed
    /// at the next ping.
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..=86_400),
          default_value_t = anywoli_server::ws::SocketLimits::default().idle_timeout.as_secs())]
    socket_idle_timeout: u64,
    /// House bots: BOT accounts the server plays itself at engine levels, NAME:LEVEL
    /// comma-separated (`Anuak3:3,Anuak10:10`), made if new. Each seeks rated games in the
    /// lobby and takes challenges (docs/api-bots.md, "House bots"). Give every instance the
    /// same list.
    #[arg(long, value_name = "NAME:LEVEL,…", default_value = "")]
    house_bots: String,
    /// The clocks the house bots seek games at (at most 3).
    #[arg(long, value_name = "CLOCK,…", default_value = "3+2,10+0")]
    house_bot_clocks: String,
    /// Games each house bot plays at once.
    #[arg(long, value_name = "N", default_value_t = anywoli_server::house::DEFAULT_GAMES)]
    house_bot_games: usize,
}

impl Default for ServeArgs {
    fn default() -> ServeArgs {
        let c = anywoli_server::Config::default();
        ServeArgs {
            addr: c.addr,
            port: c.port,
            db: c.db,
            public_url: None,
            max_connections: c.limits.max_connections,
            max_connections_per_client: None,
            header_timeout: c.limits.header_timeout.as_secs(),
            idle_timeout: c.limits.idle_timeout.as_secs(),
            request_timeout: c.limits.request_timeout.as_secs(),
            games_per_minute: c.rates.games_per_minute,
            hints_per_minute: c.rates.hints_per_minute,
            imports_per_minute: c.rates.imports_per_minute,
            logins_per_minute: c.rates.logins_per_minute,
            allowed_hosts: Vec::new(),
            engine_lease: c.engine_lease.as_secs(),
            tournament_minute_ms: c.minute_ms,
            trusted_proxies: Vec::new(),
            max_sockets: c.sockets.max_sockets,
            max_sockets_per_client: c.sockets.max_sockets_per_client,
            socket_ping_interval: c.sockets.ping_interval.as_secs(),
            socket_idle_timeout: c.sockets.idle_timeout.as_secs(),
            house_bots: String::new(),
            house_bot_clocks: "3+2,10+0".to_string(),
            house_bot_games: anywoli_server::house::DEFAULT_GAMES,
        }
    }
}

pub fn run(args: ServeArgs) -> CmdResult {
    let public_url = match args.public_url.as_deref() {
        None => None,
        Some(u) => Some(anywoli_server::PublicUrl::parse(u)?),
    };
    let trusted = anywoli_server::TrustedProxies::join(args.trusted_proxies);
    // Behind a reverse proxy that is not trusted, every connection comes from the proxy: a
    // cap per client would be a cap on everyone. A trusted proxy is exempt from the cap.
    let per_client = match (args.max_connections_per_client, &public_url) {
        (Some(n), _) => n,
        (None, Some(_)) if trusted.is_empty() => 0,
        _ => Limits::default().max_connections_per_client,
    };
    let sockets = anywoli_server::ws::SocketLimits {
        max_sockets: args.max_sockets,
        max_sockets_per_client: args.max_sockets_per_client,
        ping_interval: Duration::from_secs(args.socket_ping_interval),
        idle_timeout: Duration::from_secs(args.socket_idle_timeout),
        ..anywoli_server::ws::SocketLimits::default()
    };
    let limits = anywoli_server::Limits {
        max_connections: args.max_connections,
        max_connections_per_client: per_client,
        header_timeout: Duration::from_secs(args.header_timeout),
        idle_timeout: Duration::from_secs(args.idle_timeout),
        request_timeout: Duration::from_secs(args.request_timeout),
    };
    let house = anywoli_server::house::HouseBots::parse(
        &args.house_bots,
        &args.house_bot_clocks,
        args.house_bot_games,
    )?;
    anywoli_server::run(anywoli_server::Config {
        addr: args.addr,
        port: args.port,
        db: args.db,
        public_url,
        limits,
        rates: anywoli_server::RateLimits {
            games_per_minute: args.games_per_minute,
            hints_per_minute: args.hints_per_minute,
            imports_per_minute: args.imports_per_minute,
            logins_per_minute: args.logins_per_minute,
        },
        allowed_hosts: args.allowed_hosts,
        engine_lease: Duration::from_secs(args.engine_lease),
        minute_ms: args.tournament_minute_ms,
        trusted_proxies: trusted,
        sockets,
        house,
        ..anywoli_server::Config::default()
    })?;
    Ok(())
}
