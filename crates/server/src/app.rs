//! The app's services and the state every handler is given: the store, the engine queue, the
//! games in play (rounds), the lobby, the counters, the limiters, the running reviews and the
//! WebSocket caps. [`AppState`] owns them; handlers reach each one directly (`st.db(…)`,
//! `st.engine()`), and the rounds receive only what they need.

use std::sync::Arc;
use std::time::Duration;

use crate::account::attempts::Attempts;
use crate::engine_queue::{default_max_waiting_hints, EngineQueue};
use crate::error::{ApiError, ApiResult};
use crate::guard::AllowedHosts;
use crate::lobby::Lobby;
use crate::metrics::Metrics;
use crate::proxies::TrustedProxies;
use crate::rate_limit::{Limiters, RateLimits};
use crate::reviews::Running;
use crate::round::{Context, Rounds, Think, ENGINE_LEASE, ROUND_IDLE};
use crate::site::SiteView;
use crate::store::{Store, StoreError};
use crate::ws::{SocketCaps, SocketLimits};

/// The server's shared state.
#[derive(Clone)]
pub struct AppState(Arc<Inner>);

pub struct Inner {
    pub store: Arc<Store>,
    pub engine: EngineQueue,
    pub metrics: Arc<Metrics>,
    pub think: Think,
    pub rounds: Arc<Rounds>,
    pub lobby: Arc<Lobby>,
    pub site: SiteView,
    pub limiters: Limiters,
    pub hosts: AllowedHosts,
    pub attempts: Attempts,
    pub reviews: Running,
    pub trusted_proxies: TrustedProxies,
    pub sockets: Arc<SocketCaps>,
    pub analyses: Arc<SocketCaps>,
    pub presence: crate::presence::Presence,
    pub follow_limits: crate::rate_limit::ClientAndAccount,
    pub tv: Arc<crate::tv::Tv>,
    pub chat: Arc<crate::chat::Hub>,
    pub tournaments: Arc<crate::tournaments::signal::Signals>,
    pub tournament_cache: crate::tournaments::cache::StateCache,
    /// The programs' streams open on this instance (crate::api::bot::stream).
    pub streams: crate::api::bot::stream::Open,
    /// The same streams, per client address and in all.
    pub stream_caps: Arc<SocketCaps>,
    /// Exports running, per client address and in all.
    pub exports: Arc<SocketCaps>,
    /// The house bots this instance plays (crate::house).
    pub house: crate::house::HouseBots,
    /// How long a tournament's minute lasts: 60,000 ms but in tests of whole tournaments.
    pub minute_ms: i64,
}

/// Follows and unfollows a minute, per client and per account, once the burst is spent: a
/// person clicks the button a few times; a script that follows and unfollows to notify
/// someone again and again is stopped.
pub const FOLLOWS_PER_MINUTE: u32 = 20;
/// Follows and unfollows at once.
pub const FOLLOW_BURST: u32 = 10;

/// How the app behaves, beyond its store.
#[derive(Clone, Debug)]
pub struct Options {
    pub think: Think,
    pub site: SiteView,
    /// How long a game's round stays in memory with nothing to do.
    pub idle: Duration,
    pub rates: RateLimits,
    /// Host names the server answers to besides IP addresses, `localhost` and the public
    /// URL's host (`--allowed-host`).
    pub allowed_hosts: Vec<String>,
    /// How long an instance's claim on the engine's turn holds (`--engine-lease`).
    pub engine_lease: Duration,
    /// Reverse proxies whose `X-Forwarded-For` is believed (`--trusted-proxy`).
    pub trusted_proxies: TrustedProxies,
    /// WebSockets in all and per client, pings and timeouts (`--max-sockets` and the like).
    pub sockets: SocketLimits,
    /// How long a tournament's minute lasts (an arena's length, `--tournament-minute-ms`):
    /// 60,000 but for tests that play whole tournaments.
    pub minute_ms: i64,
    /// The house bots this instance plays (`--house-bots`).
    pub house: crate::house::HouseBots,
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
            trusted_proxies: TrustedProxies::default(),
            sockets: SocketLimits::default(),
            minute_ms: 60_000,
            house: Default::default(),
        }
    }
}

/// Why what runs beside requests could not start.
#[derive(Debug, thiserror::Error)]
pub enum BackgroundError {
    /// The rounds' work (hearing other instances, taking over engine turns).
    #[error(transparent)]
    Rounds(#[from] crate::round::RoundsBackgroundError),
    #[error("the lobby needs a Tokio runtime")]
    NoRuntime,
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
        let metrics = Arc::new(Metrics::new());
        let lobby = Arc::new(Lobby::new(store.clone()));
        let chat = Arc::new(crate::chat::Hub::new(store.clone()));
        let rounds = Rounds::new(Context {
            listener: Arc::new(crate::chat::Fanout {
                lobby: lobby.clone(),
                chat: chat.clone(),
            }),
            store: store.clone(),
            engine: engine.clone(),
            think: o.think,
            idle: o.idle,
            metrics: metrics.clone(),
            engine_lease: o.engine_lease,
        });

        let public_host = o
            .site
            .public_url
            .as_deref()
            .and_then(|u| u.split_once("://"))
            .map(|(_, h)| h.rsplit_once(':').map_or(h, |(n, _)| n).to_string());
        let hosts = AllowedHosts::new(o.allowed_hosts.iter().cloned().chain(public_host));
        let presence = crate::presence::Presence::new(store.clone());
        let tv = crate::tv::Tv::new(store.clone(), rounds.clone());
        let tournaments = crate::tournaments::signal::Signals::new(store.clone());
        AppState(Arc::new(Inner {
            store,
            engine,
            metrics,
            think: o.think,
            rounds,
            lobby,
            site: o.site,
            limiters: Limiters::new(o.rates),
            hosts,
            attempts: Default::default(),
            reviews: Default::default(),
            trusted_proxies: o.trusted_proxies,
            sockets: SocketCaps::new(o.sockets),
            analyses: SocketCaps::analyses(),
            presence,
            follow_limits: crate::rate_limit::ClientAndAccount::new(
                FOLLOWS_PER_MINUTE,
                FOLLOW_BURST,
            ),
            tv,
            chat,
            tournaments,
            tournament_cache: Default::default(),
            streams: Default::default(),
            stream_caps: SocketCaps::streams(),
            exports: SocketCaps::exports(),
            house: o.house.clone(),
            minute_ms: o.minute_ms.max(1),
        }))
    }

    /// Runs a store call on a blocking thread.
    pub async fn db<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Store) -> Result<T, StoreError> + Send + 'static,
    ) -> ApiResult<T> {
        let store = self.0.store.clone();
        match tokio::task::spawn_blocking(move || f(&store)).await {
            Ok(r) => r.map_err(ApiError::from),
            Err(e) => Err(ApiError::storage(format!("the storage task failed: {e}"))),
        }
    }

    /// The programs' streams' places per client address and in all.
    pub fn stream_caps(&self) -> &Arc<SocketCaps> {
        &self.0.stream_caps
    }

    /// Exports' places per client address and in all.
    pub fn exports(&self) -> &Arc<SocketCaps> {
        &self.0.exports
    }

    /// The house bots this instance plays.
    pub fn house(&self) -> &crate::house::HouseBots {
        &self.0.house
    }

    /// The programs' streams open on this instance.
    pub fn streams(&self) -> &crate::api::bot::stream::Open {
        &self.0.streams
    }

    /// The store itself, for callers that run their own blocking work on it.
    pub fn store(&self) -> &Arc<Store> {
        &self.0.store
    }

    /// The engine's work: one search per core, the computer's moves before hints.
    pub fn engine(&self) -> &EngineQueue {
        &self.0.engine
    }

    /// How long the engine may think.
    pub fn think(&self) -> Think {
        self.0.think
    }

    /// The reverse proxies whose forwarding headers are believed.
    pub fn trusted_proxies(&self) -> &TrustedProxies {
        &self.0.trusted_proxies
    }

    /// The analyses running, per client.
    pub fn analyses(&self) -> &Arc<SocketCaps> {
        &self.0.analyses
    }

    /// The WebSockets open, and their bounds.
    pub fn sockets(&self) -> &Arc<SocketCaps> {
        &self.0.sockets
    }

    pub fn hosts(&self) -> AllowedHosts {
        self.0.hosts.clone()
    }

    pub fn limiters(&self) -> &Limiters {
        &self.0.limiters
    }

    /// Failed logins per name.
    pub fn attempts(&self) -> &Attempts {
        &self.0.attempts
    }

    pub fn lobby(&self) -> &Arc<Lobby> {
        &self.0.lobby
    }

    /// Who is online: this instance's lobby sockets per account, and their leases.
    pub fn presence(&self) -> &crate::presence::Presence {
        &self.0.presence
    }

    /// TV: the best live game, for every spectator of this instance.
    pub fn tv(&self) -> &Arc<crate::tv::Tv> {
        &self.0.tv
    }

    /// How often a client and an account may follow and unfollow.
    pub fn follow_limits(&self) -> &crate::rate_limit::ClientAndAccount {
        &self.0.follow_limits
    }

    /// Games' chat lines on their way to watchers (here and on the other instances).
    pub fn chat(&self) -> &Arc<crate::chat::Hub> {
        &self.0.chat
    }

    /// Starts what the server does beside requests: the rounds' (other instances' changes,
    /// engine turns whose claims ran out) and the lobby's (seeks announced and swept).
    pub fn start_background(&self) -> Result<(), BackgroundError> {
        self.rounds().start_background()?;
        let rt = tokio::runtime::Handle::try_current().map_err(|_| BackgroundError::NoRuntime)?;
        self.lobby().start(&rt);
        let director = crate::tournaments::director::Director {
            store: self.store().clone(),
            rounds: Arc::downgrade(self.rounds()),
            minute_ms: self.minute_ms(),
            metrics: self.metrics().clone(),
            lobby: self.lobby().clone(),
        };
        rt.spawn(director.run());
        rt.spawn(crate::explorer::fold_loop(Arc::downgrade(self.store())));
        rt.spawn(crate::tournaments::signal::run(Arc::downgrade(
            &self.0.tournaments,
        )));
        Ok(())
    }

    /// The game reviews running on this instance.
    pub fn reviews(&self) -> &Running {
        &self.0.reviews
    }

    pub fn site(&self) -> &SiteView {
        &self.0.site
    }

    pub fn rounds(&self) -> &Arc<Rounds> {
        &self.0.rounds
    }

    /// This server's counters (`/metrics`), shared with its rounds.
    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.0.metrics
    }

    /// The tournaments watched here, and their change signal.
    pub fn tournaments(&self) -> &Arc<crate::tournaments::signal::Signals> {
        &self.0.tournaments
    }

    /// The tournaments being read on this instance, with their standings.
    pub fn tournament_cache(&self) -> &crate::tournaments::cache::StateCache {
        &self.0.tournament_cache
    }

    /// How long a tournament's minute lasts.
    pub fn minute_ms(&self) -> i64 {
        self.0.minute_ms
    }

    /// How many games are in memory (rounds in play).
    pub fn games_in_memory(&self) -> usize {
        self.0.rounds.len()
    }
}
