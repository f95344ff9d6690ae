//! How many WebSockets the server keeps, in all and per client, and how long a silent one
//! lives.
//!
//! A socket is admitted before its upgrade (a refusal is an HTTP answer with a JSON error, not
//! a closed connection) and holds its place until its loop ends. The client is the address
//! [`crate::api::client::ClientIp`] gives: behind a trusted proxy (`--trusted-proxy`) the one
//! the proxy saw, so that a proxy's many clients are not one.
//!
//! # The defaults, from measurement (issue 36)
//!
//! At main 74384e7, 15 addresses × 64 silent sockets reached the connection cap (960) and
//! every newcomer was refused, since a socket never timed out.
//!
//! - **[`DEFAULT_MAX_SOCKETS_PER_CLIENT`] = 16.** A page holds one socket (a game's events, the
//!   lobby or the analysis board; two on the analysis board of a game). 16 is eight tabs each
//!   with two, or a household sharing an address. 16 addresses at that cap hold 256 sockets.
//! - **[`DEFAULT_MAX_SOCKETS`] = 768**, four fifths of the 960 connections the listener keeps
//!   by default: a full house of sockets still leaves 192 connections for pages, moves and
//!   logins, so a newcomer is served. A watcher's socket takes about 7 kB
//!   (crate::listener's table), 768 of them 5.5 MB.
//! - **[`DEFAULT_PING_INTERVAL`] = 25 s, [`DEFAULT_SOCKET_IDLE_TIMEOUT`] = 60 s.** The server
//!   pings every 25 s and a browser answers a ping by itself, even in a background tab whose
//!   timers the browser slows to once a minute; a socket from which nothing came for 60 s is
//!   closed at the next ping, at most 85 s after its last sign of life: within the two
//!   minutes. A page whose socket was closed reconnects by itself (0.5 s, doubling to 5 s).
//!   The pings also keep a proxy's read timeout (nginx's default 60 s) from cutting a quiet
//!   socket.
//! - **[`DEFAULT_SEND_TIMEOUT`] = 20 s.** A reader that has not taken a message in 20 s, with
//!   the kernel's buffer and the socket's 16 KiB already full, is gone or hopelessly behind:
//!   it is dropped rather than buffered for (its page reconnects and gets the whole state).

use crate::error::ErrorCode;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::http::StatusCode;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::error::ApiError;
use crate::rate_limit::client_key;

/// Default of `--max-sockets`.
pub const DEFAULT_MAX_SOCKETS: usize = 768;
/// Default of `--max-sockets-per-client`.
pub const DEFAULT_MAX_SOCKETS_PER_CLIENT: usize = 16;
/// Default of `--socket-ping-interval`.
pub const DEFAULT_PING_INTERVAL: Duration = Duration::from_secs(25);
/// Default of `--socket-idle-timeout`.
pub const DEFAULT_SOCKET_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a message may wait for the client to take it.
pub const DEFAULT_SEND_TIMEOUT: Duration = Duration::from_secs(20);

/// The WebSockets' bounds (`anywoli serve` flags).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SocketLimits {
    /// WebSockets open at once, all clients together.
    pub max_sockets: usize,
    /// WebSockets open at once from one client (an IPv4 address, an IPv6 /64); 0: no cap.
    pub max_sockets_per_client: usize,
    /// How often the server pings each socket.
    pub ping_interval: Duration,
    /// A socket from which nothing came for this long (not even the answer to a ping) is
    /// closed at the next ping.
    pub idle_timeout: Duration,
    /// How long one message may wait for the client to take it before the socket is dropped.
    pub send_timeout: Duration,
}

impl Default for SocketLimits {
    fn default() -> SocketLimits {
        SocketLimits {
            max_sockets: DEFAULT_MAX_SOCKETS,
            max_sockets_per_client: DEFAULT_MAX_SOCKETS_PER_CLIENT,
            ping_interval: DEFAULT_PING_INTERVAL,
            idle_timeout: DEFAULT_SOCKET_IDLE_TIMEOUT,
            send_timeout: DEFAULT_SEND_TIMEOUT,
        }
    }
}

/// The sockets open now, in all and per client (or anything else counted the same way: the
/// analyses running, [`SocketCaps::analyses`]).
#[derive(Debug)]
pub struct SocketCaps {
    limits: SocketLimits,
    total: Arc<Semaphore>,
    clients: Mutex<HashMap<IpAddr, usize>>,
    /// The refusal's code and what is counted, for its message.
    code: ErrorCode,
    what: &'static str,
}

/// Analyses one client may have running at once (the analysis board of two tabs). Issue 36:
/// eight anonymous analysis sockets held both cores for 30 s each; with games preempting them
/// (crate::engine_queue) and this cap, one address holds at most two workers' worth.
pub const ANALYSES_PER_CLIENT: usize = 2;

/// Streams one address may hold: a bot's event stream and 64 games' (a page's 16 WebSockets
/// are too few for a bot playing 20 games, one stream each).
pub const STREAMS_PER_CLIENT: usize = 72;

/// Exports one address may run at once, and the server in all: each reads the store on a
/// blocking thread for as long as its client takes the games.
pub const EXPORTS_PER_CLIENT: usize = 2;
pub const EXPORTS: usize = 8;

impl SocketCaps {
    pub fn new(limits: SocketLimits) -> Arc<SocketCaps> {
        Arc::new(SocketCaps {
            limits,
            total: Arc::new(Semaphore::new(limits.max_sockets.max(1))),
            clients: Mutex::new(HashMap::new()),
            code: ErrorCode::TooManySockets,
            what: "live connections open",
        })
    }

    /// The analyses running: [`ANALYSES_PER_CLIENT`] per client, refused with
    /// `429 too_many_analyses`; in all they are bounded by the engine queue.
    pub fn analyses() -> Arc<SocketCaps> {
        SocketCaps::counting(
            usize::MAX >> 4,
            ANALYSES_PER_CLIENT,
            ErrorCode::TooManyAnalyses,
            "analyses running",
        )
    }

    /// Programs' NDJSON streams (crate::api::bot::stream): as many in all as WebSockets, and
    /// [`STREAMS_PER_CLIENT`] per address, refused with `429 too_many_streams`.
    pub fn streams() -> Arc<SocketCaps> {
        SocketCaps::counting(
            SocketLimits::default().max_sockets,
            STREAMS_PER_CLIENT,
            ErrorCode::TooManyStreams,
            "streams open",
        )
    }

    /// Exports running (crate::api::exports): [`EXPORTS_PER_CLIENT`] per address and
    /// [`EXPORTS`] in all, refused with `429 too_many_streams` and `503 busy`.
    pub fn exports() -> Arc<SocketCaps> {
        SocketCaps::counting(
            EXPORTS,
            EXPORTS_PER_CLIENT,
            ErrorCode::TooManyStreams,
            "exports running",
        )
    }

    /// Places of something other than WebSockets: `total` in all, `per_client` per address.
    fn counting(
        total: usize,
        per_client: usize,
        code: ErrorCode,
        what: &'static str,
    ) -> Arc<SocketCaps> {
        let limits = SocketLimits {
            max_sockets: total,
            max_sockets_per_client: per_client,
            ..SocketLimits::default()
        };
        Arc::new(SocketCaps {
            limits,
            total: Arc::new(Semaphore::new(limits.max_sockets)),
            clients: Mutex::new(HashMap::new()),
            code,
            what,
        })
    }

    pub fn limits(&self) -> SocketLimits {
        self.limits
    }

    /// Sockets open now.
    pub fn open(&self) -> usize {
        self.limits
            .max_sockets
            .max(1)
            .saturating_sub(self.total.available_permits())
    }

    /// A place for one more socket of `client` (`None`: a request that came over no socket,
    /// a test calling the router), or the refusal to answer with: `429 too_many_sockets` for
    /// a client at its cap, `503 busy` when the server is full.
    pub fn admit(self: &Arc<SocketCaps>, client: Option<IpAddr>) -> Result<SocketPermit, ApiError> {
        let per_client = self.limits.max_sockets_per_client;
        let key = client.filter(|_| per_client > 0).map(client_key);
        if let Some(key) = key {
            let mut clients = self.lock();
            let n = clients.entry(key).or_insert(0);
            if *n >= per_client {
                let what = self.what;
                return Err(ApiError::new(
                    StatusCode::TOO_MANY_REQUESTS,
                    self.code,
                    format!(
                        "your address has {per_client} {what}, the most one address may hold: \
                         close a tab or two"
                    ),
                )
                .with_retry_after(10));
            }
            *n += 1;
        }
        let count = ClientCount(key.map(|k| (self.clone(), k)));
        let Ok(permit) = self.total.clone().try_acquire_owned() else {
            drop(count);
            return Err(ApiError::busy(
                "the server holds as many live connections as it can; try again shortly",
                5,
            ));
        };
        Ok(SocketPermit {
            _permit: permit,
            _client: count,
        })
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<IpAddr, usize>> {
        self.clients.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// What a WebSocket route is given: the upgrade asked for, or why the request is none.
pub type AskedUpgrade = Result<
    axum::extract::ws::WebSocketUpgrade,
    axum::extract::ws::rejection::WebSocketUpgradeRejection,
>;

/// The upgrade a WebSocket route was asked for; a plain HTTP request to the route gets a JSON
/// error instead.
pub fn upgrade(ws: AskedUpgrade) -> Result<axum::extract::ws::WebSocketUpgrade, ApiError> {
    ws.map_err(|e| ApiError::malformed(format!("this endpoint takes a WebSocket connection: {e}")))
}

/// The upgrade a WebSocket route was asked for ([`upgrade`]), then a place for its socket
/// among `caps`, or why there is none.
pub fn open(
    caps: &Arc<SocketCaps>,
    client: Option<IpAddr>,
    ws: AskedUpgrade,
) -> Result<(axum::extract::ws::WebSocketUpgrade, SocketPermit), Unopened> {
    let ws = upgrade(ws).map_err(Unopened::NotAnUpgrade)?;
    let permit = caps.admit(client).map_err(Unopened::Refused)?;
    Ok((ws, permit))
}

/// Why [`open`] opened no socket; its answer is the route's.
#[derive(Debug)]
pub enum Unopened {
    /// A plain HTTP request: the JSON error.
    NotAnUpgrade(ApiError),
    /// No place for the socket: [`refused`].
    Refused(ApiError),
}

impl axum::response::IntoResponse for Unopened {
    fn into_response(self) -> axum::response::Response {
        match self {
            Unopened::NotAnUpgrade(e) => e.into_response(),
            Unopened::Refused(e) => refused(e),
        }
    }
}

/// The answer to a refused upgrade: the JSON error, and `Connection: close`, so that the
/// refused client's connection goes at once instead of idling in the listener's count until
/// its idle timeout (a flood of refused upgrades would otherwise fill the connections).
pub fn refused(e: ApiError) -> axum::response::Response {
    use axum::response::IntoResponse;
    let mut resp = e.into_response();
    resp.headers_mut().insert(
        axum::http::header::CONNECTION,
        axum::http::HeaderValue::from_static("close"),
    );
    resp
}

/// One socket's place: given back when dropped (the socket's loop owns it).
#[derive(Debug)]
pub struct SocketPermit {
    _permit: OwnedSemaphorePermit,
    _client: ClientCount,
}

#[derive(Debug)]
struct ClientCount(Option<(Arc<SocketCaps>, IpAddr)>);

impl Drop for ClientCount {
    fn drop(&mut self) {
        if let Some((caps, key)) = self.0.take() {
            let mut clients = caps.lock();
            if let Some(n) = clients.get_mut(&key) {
                *n -= 1;
                if *n == 0 {
                    clients.remove(&key);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(total: usize, per_client: usize) -> Arc<SocketCaps> {
        SocketCaps::new(SocketLimits {
            max_sockets: total,
            max_sockets_per_client: per_client,
            ..SocketLimits::default()
        })
    }

    #[test]
    fn a_client_at_its_cap_is_refused_and_others_are_not() {
        let c = caps(10, 2);
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let p1 = c.admit(Some(a)).unwrap();
        let _p2 = c.admit(Some(a)).unwrap();
        let e = c.admit(Some(a)).unwrap_err();
        assert_eq!(
            (e.status.as_u16(), e.code),
            (429, ErrorCode::TooManySockets)
        );
        assert!(c.admit(Some(b)).is_ok(), "another address is let in");
        drop(p1);
        let _p3 = c
            .admit(Some(a))
            .expect("a closed socket gives its place back");
        assert_eq!(c.open(), 2, "a's two held; b's was dropped");
    }

    #[test]
    fn the_total_is_a_cap_for_everyone_and_its_refusal_gives_the_client_place_back() {
        let c = caps(2, 2);
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let _p1 = c.admit(Some(a)).unwrap();
        let _p2 = c.admit(None).unwrap();
        let e = c.admit(Some(b)).unwrap_err();
        assert_eq!((e.status.as_u16(), e.code), (503, ErrorCode::Busy));
        assert!(c.lock().get(&b).is_none(), "b holds nothing");
        assert_eq!(c.lock().get(&a), Some(&1));
    }

    #[test]
    fn an_ipv6_64_is_one_client() {
        let c = caps(10, 1);
        let _p = c.admit(Some("2001:db8::1".parse().unwrap())).unwrap();
        assert!(c.admit(Some("2001:db8::2".parse().unwrap())).is_err());
        assert!(c.admit(Some("2001:db8:0:1::1".parse().unwrap())).is_ok());
    }
}
