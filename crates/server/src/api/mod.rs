//! The HTTP and WebSocket API (docs/api.md), by resource: games (`games`), play in a game
//! (`play`), and a game's events (`events`). Handlers read the request, ask the game's round
//! (crate::round) and answer; they never change a game themselves.

pub mod account;
pub mod analysis;
pub mod client;
pub mod events;
pub mod extract;
pub mod games;
pub mod health;
pub mod lobby;
pub mod play;
pub mod players;
pub mod position;
pub mod review;

use crate::error::ErrorCode;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::{header, StatusCode};
use serde::de::DeserializeOwned;

use crate::engine_queue::{default_max_waiting_hints, EngineQueue};
use crate::error::{ApiError, ApiResult};
use crate::guard::AllowedHosts;
use crate::rate_limit::{Limiters, RateLimits};
use crate::round::{Context, Rounds, Think, ENGINE_LEASE, ROUND_IDLE};
use crate::site::SiteView;
use crate::store::Store;

/// The server's shared state.
#[derive(Clone)]
pub struct AppState(Arc<Inner>);

pub struct Inner {
    pub rounds: Arc<Rounds>,
    pub lobby: Arc<crate::lobby::Lobby>,
    pub site: SiteView,
    pub limiters: Limiters,
    pub hosts: AllowedHosts,
    pub attempts: crate::account::attempts::Attempts,
    pub reviews: review::Running,
    pub trusted_proxies: client::TrustedProxies,
    pub sockets: Arc<crate::ws::SocketCaps>,
    pub analyses: Arc<crate::ws::SocketCaps>,
}

/// How the app behaves, beyond its store.
#[derive(Clone, Debug)]
pub struct Options {
    pub think: Think,
    pub site: SiteView,
    /// How long a game's round stays in memory with nothing to do.
    pub idle: std::time::Duration,
    pub rates: RateLimits,
    /// Host names the server answers to besides IP addresses, `localhost` and the public
    /// URL's host (`--allowed-host`).
    pub allowed_hosts: Vec<String>,
    /// How long an instance's claim on the engine's turn holds (`--engine-lease`).
    pub engine_lease: std::time::Duration,
    /// Reverse proxies whose `X-Forwarded-For` is believed (`--trusted-proxy`).
    pub trusted_proxies: client::TrustedProxies,
    /// WebSockets in all and per client, pings and timeouts (`--max-sockets` and the like).
    pub sockets: crate::ws::SocketLimits,
}

impl Options {
    pub fn new(think: Think, site: SiteView) -> Options {
        Options {
            think,
            site,
            idle: ROUND_IDLE,
            rates: RateLimits::default(),
            allowed_hosts: Vec::new(),
            engine_lease: ENGINE_LEASE,
            trusted_proxies: client::TrustedProxies::default(),
            sockets: crate::ws::SocketLimits::default(),
        }
    }
}

impl AppState {
    /// A state for a server on loopback (what tests that call the router directly need).
    pub fn new(store: Store, think: Think) -> AppState {
        let site = SiteView::new(([127, 0, 0, 1], 0).into(), None);
        AppState::with_site(store, think, site)
    }

    pub fn with_site(store: Store, think: Think, site: SiteView) -> AppState {
        AppState::with_options(store, Options::new(think, site))
    }

    pub fn with_options(store: Store, o: Options) -> AppState {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let engine = EngineQueue::new(cores, default_max_waiting_hints(cores))
            .with_hint_time(o.think.movetime);
        let store = Arc::new(store);
        let lobby = Arc::new(crate::lobby::Lobby::new(store.clone()));
        let rounds = Rounds::new(Context {
            listener: lobby.clone(),
            store,
            engine,
            think: o.think,
            idle: o.idle,
            metrics: Arc::new(crate::metrics::Metrics::new()),
            engine_lease: o.engine_lease,
        });

        let public_host = o
            .site
            .public_url
            .as_deref()
            .and_then(|u| u.split_once("://"))
            .map(|(_, h)| h.rsplit_once(':').map_or(h, |(n, _)| n).to_string());
        let hosts = AllowedHosts::new(o.allowed_hosts.iter().cloned().chain(public_host));
        AppState(Arc::new(Inner {
            rounds,
            lobby,
            site: o.site,
            limiters: Limiters::new(o.rates),
            hosts,
            attempts: Default::default(),
            reviews: Default::default(),
            trusted_proxies: o.trusted_proxies,
            sockets: crate::ws::SocketCaps::new(o.sockets),
            analyses: crate::ws::SocketCaps::analyses(),
        }))
    }

    /// The reverse proxies whose forwarding headers are believed.
    pub fn trusted_proxies(&self) -> &client::TrustedProxies {
        &self.0.trusted_proxies
    }

    /// The analyses running, per client.
    pub fn analyses(&self) -> &Arc<crate::ws::SocketCaps> {
        &self.0.analyses
    }

    /// The WebSockets open, and their bounds.
    pub fn sockets(&self) -> &Arc<crate::ws::SocketCaps> {
        &self.0.sockets
    }

    pub fn hosts(&self) -> AllowedHosts {
        self.0.hosts.clone()
    }

    pub fn limiters(&self) -> &Limiters {
        &self.0.limiters
    }

    /// Failed logins per name.
    pub fn attempts(&self) -> &crate::account::attempts::Attempts {
        &self.0.attempts
    }

    pub fn lobby(&self) -> &Arc<crate::lobby::Lobby> {
        &self.0.lobby
    }

    /// Starts what the server does beside requests: the rounds' (other instances' changes,
    /// engine turns whose claims ran out) and the lobby's (seeks announced and swept).
    pub fn start_background(&self) -> Result<(), String> {
        self.rounds().start_background()?;
        let rt = tokio::runtime::Handle::try_current()
            .map_err(|_| "the lobby needs a Tokio runtime".to_string())?;
        self.lobby().start(&rt);
        Ok(())
    }

    /// The game reviews running on this instance.
    pub fn reviews(&self) -> &review::Running {
        &self.0.reviews
    }

    pub fn site(&self) -> &SiteView {
        &self.0.site
    }

    pub fn rounds(&self) -> &Arc<Rounds> {
        &self.0.rounds
    }

    /// This server's counters (`/metrics`), shared with its rounds.
    pub fn metrics(&self) -> &Arc<crate::metrics::Metrics> {
        &self.0.rounds.ctx.metrics
    }

    /// How many games are in memory (rounds in play).
    pub fn games_in_memory(&self) -> usize {
        self.0.rounds.len()
    }
}

/// Reads a request's move letters, naming the first bad one by its place (`move 3: …`).
pub fn parse_moves(moves: &[String]) -> ApiResult<Vec<anywoli_core::Move>> {
    moves
        .iter()
        .enumerate()
        .map(|(i, m)| {
            m.parse()
                .map_err(|e| ApiError::malformed(format!("move {}: {e}", i + 1)))
        })
        .collect()
}

/// A JSON request body, the one way every POST of the API is read: `Content-Type` must be
/// `application/json` (so that another site cannot post a plain form at the API), an empty
/// body reads as `{}`, and every way it can be wrong is a JSON error that names it.
pub struct JsonBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let json = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"));
        if !json {
            return Err(ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                ErrorCode::UnsupportedMediaType,
                "send the request body as JSON, with Content-Type: application/json",
            ));
        }
        let bytes = Bytes::from_request(req, state).await.map_err(|e| {
            if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    ErrorCode::TooLarge,
                    "the request body is larger than this endpoint accepts",
                )
            } else {
                ApiError::malformed(format!("the request body could not be read: {e}"))
            }
        })?;
        let bytes: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) {
            b"{}"
        } else {
            &bytes
        };
        serde_json::from_slice(bytes).map(JsonBody).map_err(|e| {
            ApiError::malformed(format!(
                "the request body is not valid JSON for this request: {e}"
            ))
        })
    }
}

/// Reads `side` as the API writes it.
pub fn parse_side(s: &str) -> Result<anywoli_core::Side, ApiError> {
    match s {
        "south" => Ok(anywoli_core::Side::South),
        "north" => Ok(anywoli_core::Side::North),
        _ => Err(ApiError::malformed(format!(
            "side '{}' is neither south nor north",
            s.chars().take(20).collect::<String>()
        ))),
    }
}

/// `south`, `north` or `both`: the seats a secret holds.
pub fn seat_name(seats: &[anywoli_core::Side]) -> &'static str {
    match seats {
        [one] => crate::trace_json::side_name(*one),
        _ => "both",
    }
}

pub async fn not_found() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        ErrorCode::NotFound,
        "there is no such API endpoint",
    )
}

pub async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        ErrorCode::MethodNotAllowed,
        "this endpoint does not take that HTTP method",
    )
}
