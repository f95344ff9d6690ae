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

use crate::error::ErrorCode;
use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::ConnectInfo;
use axum::http::{header, HeaderValue, Request, Response, StatusCode};
use axum::response::IntoResponse;
use axum::{BoxError, Router};
use http_body::{Frame, SizeHint};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Notify, OwnedSemaphorePermit, Semaphore};
use tokio::time::{Instant, Sleep};
use tower_service::Service;

use crate::error::ApiError;

/// Default of `--max-connections`.
pub const DEFAULT_MAX_CONNECTIONS: usize = 960;
/// Default of `--max-connections-per-client`.
pub const DEFAULT_MAX_CONNECTIONS_PER_CLIENT: usize = 48;
/// Default of `--header-timeout`.
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// Default of `--idle-timeout`.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// Default of `--request-timeout`.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// Descriptors kept for everything but connections: the listener, the runtime, SQLite and its
/// backups, standard streams. `--max-connections` is lowered to the descriptor limit minus this.
pub const RESERVED_DESCRIPTORS: usize = 64;
/// Longest request head (request line and headers); hyper answers a longer one with 431.
pub const MAX_HEAD_BYTES: usize = 16 * 1024;

/// What one client, or all of them, may hold of the server (`anywoli serve` flags).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Connections open at once, WebSockets included. One more is closed as soon as it is
    /// accepted. Lowered at start to what the descriptor limit (`ulimit -n`) allows.
    pub max_connections: usize,
    /// Connections open at once from one client: one IPv4 address, or one IPv6 /64.
    /// 0: no cap per client (behind a reverse proxy every connection comes from the proxy).
    pub max_connections_per_client: usize,
    /// From the first byte of a request to the end of its headers.
    pub header_timeout: Duration,
    /// How long a connection may stay open with no request in flight and nothing received.
    /// An upgraded connection (a WebSocket) is never idle in this sense.
    pub idle_timeout: Duration,
    /// From the end of a request's headers to the end of its body (then: 408 and the
    /// connection closed); also how long a response may wait for the client to take a byte.
    pub request_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_connections_per_client: DEFAULT_MAX_CONNECTIONS_PER_CLIENT,
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
        }
    }
}

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

/// `max_connections`, lowered so that connections cannot take the last descriptors.
fn effective_max_connections(wanted: usize) -> usize {
    let wanted = wanted.max(1);
    let Some(limit) = open_files_limit() else {
        return wanted;
    };
    let room = usize::try_from(limit)
        .unwrap_or(usize::MAX)
        .saturating_sub(RESERVED_DESCRIPTORS)
        .max(1);
    if wanted > room {
        tracing::warn!(
            "at most {room} connections at once instead of {wanted} (--max-connections): the \
             limit on open files (ulimit -n) is {limit}, and {RESERVED_DESCRIPTORS} are kept for \
             the database and the server itself"
        );
        return room;
    }
    wanted
}

/// The soft limit on open files, where the system says (Linux: /proc/self/limits).
fn open_files_limit() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = text.lines().find(|l| l.starts_with("Max open files"))?;
    line["Max open files".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The client a connection counts against: the IPv4 address (also when mapped into IPv6, as a
/// dual-stack listener sees it), or the /64 of an IPv6 address, which one home or one phone
/// usually holds whole.
fn client_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
    }
}

/// Admission: the connections open in all and per client.
struct Gate {
    total: Arc<Semaphore>,
    per_client: usize,
    clients: Mutex<HashMap<IpAddr, usize>>,
    /// Reverse proxies, whose connections are their many clients': no cap per client for
    /// them (the sockets and rates are capped per forwarded client instead).
    trusted: crate::proxies::TrustedProxies,
}

/// Why a connection was refused.
#[derive(Clone, Copy, Debug)]
enum Full {
    Total,
    Client,
}

impl Gate {
    fn admit(self: &Arc<Gate>, ip: IpAddr) -> Result<Slot, Full> {
        let key = client_key(ip);
        let per_client = self.per_client > 0 && !self.trusted.contains(ip);
        if per_client {
            let mut clients = self.lock();
            let n = clients.entry(key).or_insert(0);
            if *n >= self.per_client {
                return Err(Full::Client);
            }
            *n += 1;
        }
        let client = per_client.then(|| (self.clone(), key));
        // From here the slot gives the client's count back when dropped, refused or not.
        let Ok(permit) = self.total.clone().try_acquire_owned() else {
            drop(ClientCount(client));
            return Err(Full::Total);
        };
        Ok(Slot {
            _permit: permit,
            _client: ClientCount(client),
        })
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<IpAddr, usize>> {
        self.clients.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A connection's place: held as long as its socket is open, a WebSocket's too (it lives in
/// the socket wrapper, which an upgrade hands on).
struct Slot {
    _permit: OwnedSemaphorePermit,
    _client: ClientCount,
}

struct ClientCount(Option<(Arc<Gate>, IpAddr)>);

impl Drop for ClientCount {
    fn drop(&mut self) {
        if let Some((gate, key)) = self.0.take() {
            let mut clients = gate.lock();
            if let Some(n) = clients.get_mut(&key) {
                *n -= 1;
                if *n == 0 {
                    clients.remove(&key);
                }
            }
        }
    }
}

/// Tells the operator about refused connections, at most once a minute.
#[derive(Default)]
struct Refusals {
    last: Option<Instant>,
    since: u64,
}

impl Refusals {
    fn note(&mut self, ip: IpAddr, why: Full, limits: &Limits, max: usize) {
        self.since += 1;
        if self
            .last
            .is_some_and(|t| t.elapsed() < Duration::from_secs(60))
        {
            return;
        }
        let reason = match why {
            Full::Total => format!("{max} connections are open (--max-connections)"),
            Full::Client if ip.is_loopback() => format!(
                "{ip} has {} open (--max-connections-per-client); behind a reverse proxy every \
                 connection comes from the proxy: start with --public-url, or set \
                 --max-connections-per-client 0",
                limits.max_connections_per_client
            ),
            Full::Client => format!(
                "{ip} has {} open (--max-connections-per-client)",
                limits.max_connections_per_client
            ),
        };
        tracing::warn!(
            "refused {} connection(s) since the last such message; the last because {reason}",
            self.since
        );
        self.last = Some(Instant::now());
        self.since = 0;
    }
}

/// One connection's clock: what the watchdog needs to know when to close it.
struct Clock {
    state: Mutex<ClockState>,
    /// Wakes the watchdog when a deadline comes nearer.
    wake: Notify,
    /// Set once the connection is a WebSocket: nothing to watch any more.
    upgraded: AtomicBool,
}

struct ClockState {
    /// Requests whose response has not been sent whole yet.
    in_flight: u32,
    /// When the last response was sent (or the connection opened).
    idle_since: Instant,
    /// The first byte of a request whose head is not complete yet.
    head_started: Option<Instant>,
    /// The last time the client took bytes of a response.
    last_write: Instant,
    /// Since when a write waits for the client to take bytes.
    write_stalled_since: Option<Instant>,
    /// The server was told to stop.
    stopping: bool,
    head: HeadScan,
}

impl Clock {
    fn new() -> Clock {
        let now = Instant::now();
        Clock {
            state: Mutex::new(ClockState {
                in_flight: 0,
                idle_since: now,
                head_started: None,
                last_write: now,
                write_stalled_since: None,
                stopping: false,
                head: HeadScan::armed(),
            }),
            wake: Notify::new(),
            upgraded: AtomicBool::new(false),
        }
    }

    fn lock(&self) -> MutexGuard<'_, ClockState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn on_read(&self, bytes: &[u8]) {
        if self.upgraded.load(Ordering::Relaxed) {
            return;
        }
        let mut s = self.lock();
        s.head.feed(bytes);
        if s.in_flight == 0 && s.head_started.is_none() {
            s.head_started = Some(Instant::now());
            drop(s);
            self.wake.notify_one();
        }
    }

    fn on_write(&self, progressed: bool) {
        if self.upgraded.load(Ordering::Relaxed) {
            return;
        }
        let mut s = self.lock();
        if progressed {
            s.last_write = Instant::now();
            s.write_stalled_since = None;
        } else if s.write_stalled_since.is_none() {
            s.write_stalled_since = Some(Instant::now());
            drop(s);
            self.wake.notify_one();
        }
    }

    /// A request head was read: returns whether it had a `Content-Length` header.
    fn request_started(&self) -> bool {
        let mut s = self.lock();
        s.in_flight += 1;
        s.head_started = None;
        s.head.take_content_length()
    }

    fn request_finished(&self) {
        let mut s = self.lock();
        s.in_flight -= 1;
        if s.in_flight == 0 {
            s.idle_since = Instant::now();
            s.head = HeadScan::armed();
            drop(s);
            self.wake.notify_one();
        }
    }

    fn stop(&self) {
        self.lock().stopping = true;
    }

    /// When the connection is to be closed, as things stand.
    fn deadline(&self, limits: &Limits) -> Option<Instant> {
        if self.upgraded.load(Ordering::Relaxed) {
            return None;
        }
        let s = self.lock();
        let mut at: Option<Instant> = None;
        let mut consider = |t: Instant| at = Some(at.map_or(t, |a| a.min(t)));
        if s.in_flight == 0 {
            match s.head_started {
                // A head the app has not seen is no request in flight: stopping drops it.
                Some(_) if s.stopping => consider(Instant::now()),
                Some(t) => consider(t + limits.header_timeout),
                None => consider(s.idle_since.max(s.last_write) + limits.idle_timeout),
            }
        }
        if let Some(t) = s.write_stalled_since {
            consider(t + limits.request_timeout);
        }
        at
    }
}

/// Watches the bytes of a request head go by for a `Content-Length` header, which hyper drops
/// when `Transfer-Encoding` comes with it (RFC 9112, 6.3); the app refuses such a request.
struct HeadScan {
    active: bool,
    /// The first bytes of the current line, enough to recognise the header name.
    line: [u8; 16],
    line_len: usize,
    last: u8,
    seen_request_line: bool,
    content_length: bool,
}

const CONTENT_LENGTH: &[u8] = b"content-length:";

impl HeadScan {
    fn armed() -> HeadScan {
        HeadScan {
            active: true,
            line: [0; 16],
            line_len: 0,
            last: b'\n',
            seen_request_line: false,
            content_length: false,
        }
    }

    fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if !self.active {
                return;
            }
            if b != b'\n' {
                if self.line_len < self.line.len() {
                    self.line[self.line_len] = b;
                }
                self.line_len += 1;
                self.last = b;
                continue;
            }
            let len = self.line_len - usize::from(self.line_len > 0 && self.last == b'\r');
            if len == 0 {
                // Empty lines before the request line are skipped, as hyper does.
                if self.seen_request_line {
                    self.active = false;
                }
            } else if !self.seen_request_line {
                self.seen_request_line = true;
            } else if len >= CONTENT_LENGTH.len()
                && self.line[..CONTENT_LENGTH.len()].eq_ignore_ascii_case(CONTENT_LENGTH)
            {
                self.content_length = true;
            }
            self.line_len = 0;
            self.last = b'\n';
        }
    }

    fn take_content_length(&mut self) -> bool {
        self.active = false;
        std::mem::take(&mut self.content_length)
    }
}

/// The socket, telling the clock what goes through it, and holding the connection's slot.
struct Socket {
    stream: TcpStream,
    clock: Arc<Clock>,
    _slot: Slot,
}

impl AsyncRead for Socket {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let r = Pin::new(&mut this.stream).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = r {
            let new = &buf.filled()[before..];
            if !new.is_empty() {
                this.clock.on_read(new);
            }
        }
        r
    }
}

impl AsyncWrite for Socket {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.stream).poll_write(cx, buf);
        match &r {
            Poll::Pending => this.clock.on_write(false),
            Poll::Ready(Ok(n)) if *n > 0 => this.clock.on_write(true),
            _ => {}
        }
        r
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.stream).poll_write_vectored(cx, bufs);
        match &r {
            Poll::Pending => this.clock.on_write(false),
            Poll::Ready(Ok(n)) if *n > 0 => this.clock.on_write(true),
            _ => {}
        }
        r
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

/// Serves one connection until it closes, is upgraded, or a deadline passes.
async fn connection(
    stream: TcpStream,
    peer: SocketAddr,
    slot: Slot,
    router: Router,
    limits: Limits,
    mut stop: watch::Receiver<bool>,
    _done: watch::Receiver<()>,
) {
    let clock = Arc::new(Clock::new());
    let io = TokioIo::new(Socket {
        stream,
        clock: clock.clone(),
        _slot: slot,
    });
    let service = {
        let clock = clock.clone();
        hyper::service::service_fn(move |req| {
            handle(
                req,
                router.clone(),
                clock.clone(),
                peer,
                limits.request_timeout,
            )
        })
    };
    let mut builder = http1::Builder::new();
    // The clock above times heads; hyper's own header timer would also run while the
    // connection waits for a request, that is count idle time against the head.
    builder
        .header_read_timeout(None)
        .max_header_size(MAX_HEAD_BYTES)
        .keep_alive(true);
    let conn = builder.serve_connection(io, service).with_upgrades();
    tokio::pin!(conn);
    let mut stopping = false;
    loop {
        let deadline = clock.deadline(&limits);
        tokio::select! {
            r = conn.as_mut() => {
                if let Err(e) = r {
                    tracing::debug!("connection from {peer}: {e}");
                }
                return;
            }
            _ = stop.changed(), if !stopping => {
                stopping = true;
                clock.stop();
                conn.as_mut().graceful_shutdown();
            }
            _ = clock.wake.notified() => {}
            _ = sleep_until(deadline) => {
                if clock.deadline(&limits).is_some_and(|d| d <= Instant::now()) {
                    tracing::debug!("connection from {peer}: closed, a timeout passed");
                    return;
                }
            }
        }
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// One request: refuses a smuggling-shaped head, bounds the body's time, and answers 408 when
/// the body did not arrive in time.
async fn handle(
    req: Request<Incoming>,
    mut router: Router,
    clock: Arc<Clock>,
    peer: SocketAddr,
    request_timeout: Duration,
) -> Result<Response<TrackedBody>, Infallible> {
    let had_content_length = clock.request_started();
    let in_flight = InFlight(clock.clone());
    if had_content_length && req.headers().contains_key(header::TRANSFER_ENCODING) {
        let resp = closing(ApiError::malformed(
            "a request may not have both Content-Length and Transfer-Encoding",
        ));
        return Ok(resp.map(|b| TrackedBody::new(b, in_flight)));
    }
    let timed_out = Arc::new(AtomicBool::new(false));
    let (mut parts, body) = req.into_parts();
    parts.extensions.insert(ConnectInfo(peer));
    let body = TimedBody {
        inner: body,
        deadline: Box::pin(tokio::time::sleep(request_timeout)),
        timed_out: timed_out.clone(),
    };
    let resp = match router
        .call(Request::from_parts(parts, Body::new(body)))
        .await
    {
        Ok(r) => r,
        Err(never) => match never {},
    };
    let resp = if timed_out.load(Ordering::Relaxed) {
        closing(ApiError::new(
            StatusCode::REQUEST_TIMEOUT,
            ErrorCode::Timeout,
            format!(
                "the request's body did not arrive within {} s",
                request_timeout.as_secs_f64()
            ),
        ))
    } else {
        resp
    };
    if resp.status() == StatusCode::SWITCHING_PROTOCOLS {
        clock.upgraded.store(true, Ordering::Relaxed);
    }
    Ok(resp.map(|b| TrackedBody::new(b, in_flight)))
}

/// An error answer after which the connection closes.
fn closing(e: ApiError) -> Response<Body> {
    let mut resp = e.into_response();
    resp.headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    resp
}

/// Counts a request as in flight until its response has been sent whole (or given up).
struct InFlight(Arc<Clock>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.request_finished();
    }
}

/// A response body that holds its request's [`InFlight`] until hyper is done with it.
struct TrackedBody {
    inner: Body,
    _in_flight: InFlight,
}

impl TrackedBody {
    fn new(inner: Body, in_flight: InFlight) -> TrackedBody {
        TrackedBody {
            inner,
            _in_flight: in_flight,
        }
    }
}

impl http_body::Body for TrackedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.get_mut().inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// A request body that fails once `deadline` passes before its end.
struct TimedBody {
    inner: Incoming,
    deadline: Pin<Box<Sleep>>,
    timed_out: Arc<AtomicBool>,
}

impl http_body::Body for TimedBody {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(frame) => Poll::Ready(frame.map(|f| f.map_err(BoxError::from))),
            Poll::Pending => {
                if this.deadline.as_mut().poll(cx).is_ready() {
                    this.timed_out.store(true, Ordering::Relaxed);
                    Poll::Ready(Some(Err("the request body did not arrive in time".into())))
                } else {
                    Poll::Pending
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(chunks: &[&[u8]]) -> bool {
        let mut s = HeadScan::armed();
        for c in chunks {
            s.feed(c);
        }
        s.take_content_length()
    }

    #[test]
    fn the_head_scan_sees_content_length_in_the_head_only() {
        assert!(scan(&[b"POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc"]));
        assert!(scan(&[
            b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\ncOnTeNt-LeNgTh: 3\r\n\r\n"
        ]));
        // Split anywhere, bare LF line ends, empty lines before the request line.
        assert!(scan(&[
            b"\r\n\r\nPOST / HTTP/1.1\nHost: x\ncontent-len",
            b"gth:3\n\n"
        ]));
        assert!(!scan(&[
            b"GET / HTTP/1.1\r\nHost: x\r\n\r\nContent-Length: 3\r\n"
        ]));
        assert!(!scan(&[
            b"GET /content-length: HTTP/1.1\r\nX-Content-Length: 3\r\n\r\n"
        ]));
    }

    #[test]
    fn clients_are_ipv4_addresses_and_ipv6_64s() {
        let v4: IpAddr = "192.0.2.7".parse().unwrap();
        assert_eq!(client_key(v4), v4);
        let mapped: IpAddr = "::ffff:192.0.2.7".parse().unwrap();
        assert_eq!(client_key(mapped), v4);
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::9".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(client_key(a), client_key(b));
        assert_ne!(client_key(a), client_key(c));
    }

    #[test]
    fn the_gate_counts_per_client_and_in_all() {
        let gate = Arc::new(Gate {
            total: Arc::new(Semaphore::new(3)),
            per_client: 2,
            clients: Mutex::new(HashMap::new()),
            trusted: "192.0.2.9".parse().unwrap(),
        });
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        let a1 = gate.admit(a).unwrap();
        let _a2 = gate.admit(a).unwrap();
        assert!(matches!(gate.admit(a), Err(Full::Client)));
        let _b1 = gate.admit(b).unwrap();
        assert!(matches!(gate.admit(b), Err(Full::Total)));
        // A refusal for the total gives the client's count back.
        assert_eq!(gate.lock().get(&client_key(b)), Some(&1));
        drop(a1);
        assert_eq!(gate.lock().get(&client_key(a)), Some(&1));
        let _a3 = gate.admit(a).unwrap();
        assert!(matches!(gate.admit(a), Err(Full::Client)));
    }

    #[test]
    fn a_trusted_proxy_has_no_cap_per_client() {
        let gate = Arc::new(Gate {
            total: Arc::new(Semaphore::new(5)),
            per_client: 1,
            clients: Mutex::new(HashMap::new()),
            trusted: "127.0.0.1/32".parse().unwrap(),
        });
        let proxy: IpAddr = "127.0.0.1".parse().unwrap();
        let held: Vec<_> = (0..5).map(|_| gate.admit(proxy).unwrap()).collect();
        assert!(
            matches!(gate.admit(proxy), Err(Full::Total)),
            "the total still holds"
        );
        assert!(gate.lock().is_empty());
        drop(held);
    }
}
