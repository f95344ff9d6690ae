//! The Anywoli web app: `anywoli serve` (and `cargo run --release`) runs [`run`].
//!
//! The server is the authority: it checks every move with `anywoli_core`, stores it in SQLite
//! before acknowledging it, runs the engine on blocking threads and tells every watcher of a
//! game what happened over a WebSocket. The API is documented in docs/api.md.

pub mod account;
mod api;
mod app;
mod assets;
pub mod backup;
mod chat;
pub mod dates;
pub mod engine_queue;
pub mod error;
pub mod explorer;
pub mod exports;
mod guard;
mod histogram;
pub mod house;
pub mod ids;
mod lessons;
mod listener;
pub mod lobby;
pub mod memory;
pub mod metrics;
mod presence;
mod proxies;
mod puzzles;
pub mod rate_limit;
pub mod rating;
mod reviews;
pub mod round;
pub mod site;
pub mod store;
pub mod tournaments;
pub mod trace_json;
mod tv;
pub mod ws;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use axum::extract::DefaultBodyLimit;
use axum::routing::get;
use axum::Router;

pub use api::games::{DEFAULT_LEVEL, IMPORT_LIMIT};
pub use api::position::{PROOF_MAX_SEEDS, PROOF_NODES};
pub use app::{AppState, BackgroundError, Options};
pub use error::{ApiError, ErrorCode};
pub use listener::Limits;
pub use proxies::{BadProxy, TrustedProxies};
pub use puzzles::community::COMPOSE_NODES;
pub use puzzles::rating::start_rating as puzzle_start_rating;
pub use rate_limit::RateLimits;
pub use round::Think;
pub use site::{PublicUrl, PublicUrlError, SiteView};
pub use store::Store;

/// Largest request body, except for imports.
pub const BODY_LIMIT: usize = 16 * 1024;

/// What `anywoli serve` takes.
#[derive(Clone, Debug)]
pub struct Config {
    pub addr: String,
    pub port: u16,
    pub db: PathBuf,
    pub think: Think,
    /// The address people reach the server at, behind a reverse proxy (`--public-url`).
    pub public_url: Option<PublicUrl>,
    /// Connections and timeouts (`--max-connections` and the like).
    pub limits: Limits,
    /// Per-client rates of new games, hints and imports (`--games-per-minute` and the like).
    pub rates: RateLimits,
    /// Host names the server answers to besides IP addresses, `localhost` and the public
    /// URL's host (`--allowed-host`).
    pub allowed_hosts: Vec<String>,
    /// How long an instance's claim on the engine's turn holds (`--engine-lease`).
    pub engine_lease: Duration,
    /// Reverse proxies whose `X-Forwarded-For` names the client (`--trusted-proxy`).
    pub trusted_proxies: TrustedProxies,
    /// WebSockets: caps, pings and timeouts (`--max-sockets` and the like).
    pub sockets: ws::SocketLimits,
    /// How long a tournament's minute lasts (`--tournament-minute-ms`, for tests).
    pub minute_ms: i64,
    /// The house bots this instance plays (`--house-bots`).
    pub house: house::HouseBots,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            addr: "127.0.0.1".to_string(),
            port: 8080,
            db: PathBuf::from("anywoli.sqlite"),
            think: Think::default(),
            public_url: None,
            limits: Limits::default(),
            rates: RateLimits::default(),
            allowed_hosts: Vec::new(),
            engine_lease: round::ENGINE_LEASE,
            trusted_proxies: TrustedProxies::default(),
            sockets: ws::SocketLimits::default(),
            minute_ms: 60_000,
            house: house::HouseBots::default(),
        }
    }
}

/// Every route that upgrades to a WebSocket: a game's events, the lobby, the analysis board, TV,
/// a tournament's change signal.
/// The router takes them from here, and `crates/cli/tests/proxy.rs` opens each through the
/// shipped nginx configuration, whose WebSocket location must list them all.
pub const WEBSOCKET_ROUTES: [&str; 5] = [
    "/api/games/{id}/events",
    "/api/lobby",
    "/api/analysis",
    "/api/tv/events",
    "/api/tournaments/{id}/events",
];

/// The whole app as a router, for a server or for tests that call it directly: the page, the
/// WebSockets, operations and the API (each resource's routes are its module's `router()`),
/// then the layers.
pub fn app(state: AppState) -> Router {
    Router::new()
        .merge(assets::router())
        .merge(sockets())
        .merge(api::health::router())
        .nest("/api", api_router())
        .fallback(assets::page_not_found)
        .method_not_allowed_fallback(api::method_not_allowed)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(axum::middleware::from_fn_with_state(
            state.hosts(),
            guard::guard,
        ))
        // Outermost, so that it times and counts the guard's refusals too.
        .layer(axum::middleware::from_fn_with_state(
            state.metrics().clone(),
            api::health::track,
        ))
        .with_state(state)
}

/// [`WEBSOCKET_ROUTES`], each to its handler.
fn sockets() -> Router<AppState> {
    use api::{analysis, events, lobby};
    Router::new()
        .route(WEBSOCKET_ROUTES[0], get(events::events))
        .route(WEBSOCKET_ROUTES[1], get(lobby::lobby))
        .route(WEBSOCKET_ROUTES[2], get(analysis::analysis))
        .route(WEBSOCKET_ROUTES[3], get(api::tv::events))
        .route(WEBSOCKET_ROUTES[4], get(api::tournaments::events))
}

/// Everything under `/api`; what matches none of it is an API error, not the page.
fn api_router() -> Router<AppState> {
    use api::{account, games, play, players, position, review};
    Router::new()
        .merge(games::router())
        .merge(play::router())
        .merge(review::router())
        .merge(account::router())
        .merge(api::challenges::router())
        .merge(api::bot::router())
        .merge(api::tokens::router())
        .merge(api::exports::router())
        .merge(api::explorer::router())
        .merge(players::router())
        .merge(puzzles::router())
        .merge(lessons::router())
        .merge(position::router())
        .merge(api::follows::router())
        .merge(api::leaderboards::router())
        .merge(api::tv::router())
        .merge(api::blocks::router())
        .merge(api::care::router())
        .merge(api::moderation::router())
        .merge(api::waits::router())
        .merge(api::reports::router())
        .merge(api::tournaments::router())
        .fallback(api::not_found)
        .method_not_allowed_fallback(api::method_not_allowed)
}

/// A running server.
pub struct Server {
    pub addr: SocketAddr,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Server {
    /// Stops accepting, lets requests in flight finish, and waits.
    pub async fn stop(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        let _ = tokio::time::timeout(Duration::from_secs(10), &mut self.task).await;
    }
}

/// Why the server could not start: said to the operator as one line.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The database named by `--db` cannot be opened or brought up to date.
    #[error("{0}")]
    Store(#[from] store::StoreError),
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        addr: String,
        source: std::io::Error,
    },
    #[error("cannot start the runtime: {0}")]
    Runtime(std::io::Error),
    /// What runs beside requests (hearing other instances, the lobby) cannot start.
    #[error("{0}")]
    Background(#[from] BackgroundError),
    #[error(transparent)]
    House(#[from] house::HouseError),
    /// The task opening the database stopped (it panicked).
    #[error("opening the database failed: {0}")]
    Opening(tokio::task::JoinError),
}

/// Opens the database, binds and serves in the background.
pub async fn start(config: &Config) -> Result<Server, StartError> {
    let db = config.db.clone();
    let store = tokio::task::spawn_blocking(move || Store::open_db(&db))
        .await
        .map_err(StartError::Opening)??;
    let addr = format!("{}:{}", config.addr, config.port);
    let listen = |source| StartError::Listen {
        addr: addr.clone(),
        source,
    };
    let listener = tokio::net::TcpListener::bind(&addr).await.map_err(listen)?;
    let addr = listener.local_addr().map_err(listen)?;
    let site = SiteView::new(addr, config.public_url.as_ref());
    let mut options = Options::new(config.think, site);
    options.rates = config.rates;
    options.allowed_hosts = config.allowed_hosts.clone();
    options.engine_lease = config.engine_lease;
    options.minute_ms = config.minute_ms;
    options.trusted_proxies = config.trusted_proxies.clone();
    options.sockets = config.sockets;
    options.house = config.house.clone();
    let state = AppState::with_options(store, options);
    state.start_background()?;
    house::start(&state).await?;
    let metrics = state.metrics().clone();
    let router = app(state);
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(listener::serve(
        listener,
        router,
        config.limits,
        config.trusted_proxies.clone(),
        metrics,
        async move {
            let _ = rx.await;
        },
    ));
    Ok(Server {
        addr,
        shutdown: Some(tx),
        task,
    })
}

/// Serves until Ctrl-C, printing the address to open and who else can reach it.
pub async fn serve(config: Config) -> Result<(), StartError> {
    let stop = stop_signal();
    let server = start(&config).await?;
    eprintln!(
        "anywoli: serving on http://{} (games in {})",
        server.addr,
        store::db_label(&config.db)
    );
    for line in reach_lines(&SiteView::new(server.addr, config.public_url.as_ref())) {
        eprintln!("anywoli: {line}");
    }
    if config.public_url.is_some() && config.trusted_proxies.is_empty() {
        eprintln!(
            "anywoli: warning: --public-url without --trusted-proxy: behind a reverse proxy \
             every client counts as the proxy's address for the limits per client; start with \
             --trusted-proxy 127.0.0.1/32 (the proxy's address) so that each counts as itself"
        );
    }
    stop.await;
    eprintln!("anywoli: stopping");
    server.stop().await;
    Ok(())
}

/// Ctrl-C (SIGINT) or SIGTERM, which service managers and `kill` send: either lets the requests
/// in flight finish before the process ends. The handlers are in place when this returns, so a
/// signal sent the moment the address is printed is not missed (and does not kill the process).
fn stop_signal() -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let (Ok(mut term), Ok(mut int)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) {
            return Box::pin(async move {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = int.recv() => {}
                }
            });
        }
    }
    Box::pin(async {
        let _ = tokio::signal::ctrl_c().await;
    })
}

/// What the operator is told at start: where to open the page and whether a friend on another
/// device can (the same facts the page shows beside an invite link).
fn reach_lines(site: &SiteView) -> Vec<String> {
    if let Some(url) = &site.public_url {
        return vec![format!("links on the page point at {url}")];
    }
    if site.loopback_only {
        return vec![format!(
            "only this machine can open it; to let a friend on another device join, start it \
             with --addr 0.0.0.0 (and --port {})",
            site.port
        )];
    }
    let mut lines = vec![format!(
        "on this machine open http://127.0.0.1:{}",
        site.port
    )];
    for url in &site.network_urls {
        lines.push(format!("from another device on your network open {url}"));
    }
    lines
}

/// [`serve`] on a runtime of its own, for a synchronous `main`.
pub fn run(config: Config) -> Result<(), StartError> {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .try_init();
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(StartError::Runtime)?
        .block_on(serve(config))
}
