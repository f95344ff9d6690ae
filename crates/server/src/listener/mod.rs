//! The server's own accept loop (issue 10, finding 3): every connection, and all a client can
//! hold of the server with it, is bounded. `axum::serve` had no timeouts and no cap: ~1,010
//! idle connections took a 1,024-descriptor limit and the server could not be reached, and a
//! body shorter than its `Content-Length` hung for ever. Here connections are accepted,
//! counted and timed by this module and served by hyper's HTTP/1.1 with upgrades (the
//! WebSockets).
//!
//! # What is bounded, and how
//!
//! - **Connections in all** (`--max-connections`) and **per client** (an IPv4 address or an
//!   IPv6 /64, `--max-connections-per-client`, 0 for no cap). A connection over either cap is
//!   closed as soon as it is accepted, without an answer: answering (a 503) would need the
//!   very descriptor and time the cap protects, and a refused client learns the same from a
//!   closed connection (the page's fetch reports a network error; its WebSocket reconnects by
//!   itself, after 0.5 s doubling to 5 s). The operator is told with a warning, at most once a
//!   minute. A connection holds its place as long as its socket is open, a WebSocket too (the
//!   place lives in the socket wrapper, which the upgrade hands on). `--max-connections` is
//!   lowered at start, with a warning, to the open-file limit (`ulimit -n`) minus
//!   [`RESERVED_DESCRIPTORS`], so connections can never take the descriptors the database
//!   needs. Behind a reverse proxy every connection comes from the proxy, so `anywoli serve
//!   --public-url` turns the cap per client off unless it is given (the proxy limits per
//!   client: nginx's `limit_conn`).
//! - **Header timeout** (`--header-timeout`): from the first byte of a request head to its
//!   end, as a whole (a head trickled byte by byte is not extended). Then the connection is
//!   closed without an answer, as hyper does. hyper's own `header_read_timeout` is not used:
//!   its timer starts when a connection begins to wait for a request, so it would close idle
//!   keep-alive connections too, making the two timeouts one.
//! - **Idle timeout** (`--idle-timeout`): no request in flight and nothing received or sent.
//!   An upgraded connection is never idle: it leaves this module's watch at the upgrade (the
//!   WebSocket handler decides about silent sockets; the page pings every 15 s).
//! - **Request timeout** (`--request-timeout`): from the end of a head to the end of its body,
//!   as a whole. A body still incomplete then fails to read, and the answer is `408` with the
//!   JSON error `network` (the code the page already has words for: "the server cannot be
//!   reached") and `Connection: close`. Time the app takes to answer (the engine thinking) is
//!   not counted. The same timeout closes a connection whose client has not taken a byte of
//!   its response for that long.
//! - **Heads** over [`MAX_HEAD_BYTES`]: hyper answers 431 and closes.
//! - **`Content-Length` with `Transfer-Encoding`**: hyper alone reads such a request by its
//!   `Transfer-Encoding`, drops the `Content-Length` and closes the connection after the answer
//!   (RFC 9112, 6.3): measured, such a `POST /api/games` made a game (201). This module
//!   watches the bytes of each head go by for a `Content-Length` header (a pipelined head read
//!   while a request is in flight is not watched: hyper's handling then applies) and answers
//!   such a request 400 `malformed`, `Connection: close`.
//! - **Stopping** ([`crate::Server::stop`]): no more accepting; idle connections close; a
//!   half-sent head is dropped; requests in flight finish (`stop` waits up to 10 s). WebSockets
//!   are not waited for, as with `axum::serve`.
//!
//! Every request carries `ConnectInfo<SocketAddr>` (the peer) for the handlers. Answers made
//! here are the API's JSON errors; hyper's own answers to a head it cannot parse (400, 431)
//! have no body.
//!
//! # The defaults, from measurement
//!
//! Measured on the 2-core reference machine (Linux, release build, loopback; scripts that
//! open N connections and read `VmRSS` and `/proc/PID/fd` of the server before and after):
//!
//! | what | figure |
//! |---|---|
//! | the server at rest (after a page load and a game) | 13 descriptors, 8.1 MB |
//! | an idle connection (never a byte), 1,000 and 2,000 of them | 11.4 kB each (+11.4 MB, +22.9 MB) |
//! | a keep-alive connection after one request | 12.5–13.0 kB each |
//! | a WebSocket watching a game, axum's buffers (128 KiB read buffer) | 135 kB each |
//! | the same with the 4 KiB buffers the WebSocket handler now sets | 7.2 kB each |
//! | the page in Chromium 156 (new game against level 1, 6 moves, 20 s on the page) | 6 connections at once while loading; then 1 WebSocket + 1 keep-alive |
//! | its request heads | 509–648 bytes (`GET` 509–579, `POST` 584–614, the WebSocket's 526) |
//! | its request bodies | 62 bytes (new game), 65 bytes (a move) |
//! | the default soft limit on open files (Linux shells, systemd services; not measured: the measuring container had 20,000) | 1,024 |
//!
//! - **[`DEFAULT_MAX_CONNECTIONS`] = 960** = 1,024 − [`RESERVED_DESCRIPTORS`] (64, five times
//!   the 13 at rest: SQLite's three files, a backup's, tablebases while loading). 960
//!   connections take 7–13 MB of memory; descriptors, not memory, are the bound. Against the
//!   issue's flood (1,100 idle connections from one address, `ulimit -n 1024`) the server kept
//!   64 of them (the cap per client) and served other clients at once; with the cap per client
//!   off it kept 960 (973 descriptors, no "too many open files"), refused the rest and served
//!   again as the idle timeout closed them. With a higher limit (the systemd unit of
//!   docs/hosting.md sets `LimitNOFILE=16384`) raise it: about 13 kB a connection.
//! - **[`DEFAULT_MAX_CONNECTIONS_PER_CLIENT`] = 48.** A page takes up to 6 connections while it
//!   loads (the browser's limit per server) and then holds a WebSocket and a keep-alive
//!   connection: 48 is eight pages loading at once, or a household or classroom sharing one
//!   address. It was 64 until issue 36: 15 addresses at 64 took all 960 places and locked
//!   everyone else out; 16 at 48 hold 768 and leave 192 for newcomers. A trusted proxy
//!   (`--trusted-proxy`) has no cap per client: its clients are capped by their forwarded
//!   address (sockets, rates).
//! - **[`DEFAULT_HEADER_TIMEOUT`] = 10 s.** The page's heads (under 650 bytes) fit in one TCP
//!   segment, so they arrive whole and the timer hardly runs; 10 s lets a head split over two
//!   segments survive losing the second twice (TCP retransmits after about 1 s, then 2 s, then
//!   4 s: 7 s), and a half-sent head holds its place at most that long.
//! - **[`DEFAULT_IDLE_TIMEOUT`] = 60 s.** People move every few to some tens of seconds;
//!   keeping the connection that long spares a phone a new connection (a round trip, up to a
//!   second on a bad network) before most moves, for 13 kB and a descriptor within the caps.
//!   It also frees within a minute the connections of phones that changed network without
//!   closing them. (Chromium itself closed its unused connections within 20 s.)
//! - **[`DEFAULT_REQUEST_TIMEOUT`] = 30 s.** The page's bodies (65 bytes) come with their
//!   heads. In 30 s the largest body but an import (16 KiB) arrives at 4.4 kbit/s, and the
//!   largest import (3 MiB) at 0.84 Mbit/s, a slow 3G link. Behind nginx the proxy reads the
//!   whole body before passing it on, so slow clients there are nginx's business.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::{watch, Semaphore};

use connection::connection;
use gate::{Full, Gate, Refusals};
use limits::effective_max_connections;

mod body;
mod clock;
mod connection;
mod gate;
mod head;
mod limits;
mod socket;

pub use limits::Limits;
// The module text names them.
#[cfg(doc)]
use limits::{
    DEFAULT_HEADER_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_CONNECTIONS_PER_CLIENT, DEFAULT_REQUEST_TIMEOUT, MAX_HEAD_BYTES,
    RESERVED_DESCRIPTORS,
};

/// Serves `router` on `listener` within `limits` until `shutdown` resolves, then stops
/// accepting, lets the requests in flight finish and returns when every connection that is
/// not a WebSocket has closed.
pub(crate) async fn serve(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    trusted: crate::proxies::TrustedProxies,
    metrics: Arc<crate::metrics::Metrics>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let max = effective_max_connections(limits.max_connections);
    let gate = Arc::new(Gate {
        total: Arc::new(Semaphore::new(max)),
        per_client: limits.max_connections_per_client,
        clients: Mutex::new(HashMap::new()),
        trusted,
    });
    metrics.watch_connections(gate.total.clone(), max);
    let (stop_tx, stop_rx) = watch::channel(false);
    let (done_tx, done_rx) = watch::channel(());
    let mut refusals = Refusals::default();
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            r = listener.accept() => r,
            _ = &mut shutdown => break,
        };
        let (stream, peer) = match accepted {
            Ok(c) => c,
            Err(e) if is_connection_error(&e) => continue,
            Err(e) => {
                // Out of descriptors or memory: accepting again at once would spin.
                tracing::error!("cannot accept a connection: {e}");
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_secs(1)) => continue,
                    _ = &mut shutdown => break,
                }
            }
        };
        match gate.admit(peer.ip()) {
            Ok(slot) => {
                // Answers go out at once rather than waiting on Nagle's algorithm for the
                // client's delayed ACK (up to 40 ms a response), as axum::serve does too.
                let _ = stream.set_nodelay(true);
                tokio::spawn(connection(
                    stream,
                    peer,
                    slot,
                    router.clone(),
                    limits,
                    stop_rx.clone(),
                    done_rx.clone(),
                ));
            }
            Err(why) => {
                drop(stream);
                metrics.connection_refused(matches!(why, Full::Client));
                refusals.note(peer.ip(), why, &limits, max);
            }
        }
    }
    drop(listener);
    let _ = stop_tx.send(true);
    drop(done_rx);
    done_tx.closed().await;
    Ok(())
}

/// `ECONNABORTED` and the like: that one connection failed, the listener is fine.
fn is_connection_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}
