//! DOC PLACEHOLDER

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

use crate::ApiError;

/// Default of `--max-connections`.
pub const DEFAULT_MAX_CONNECTIONS: usize = 960;
/// Default of `--max-connections-per-client`.
pub const DEFAULT_MAX_CONNECTIONS_PER_CLIENT: usize = 64;
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
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let max = effective_max_connections(limits.max_connections);
    let gate = Arc::new(Gate {
        total: Arc::new(Semaphore::new(max)),
        per_client: limits.max_connections_per_client,
        clients: Mutex::new(HashMap::new()),
    });
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
        if self.per_client > 0 {
            let mut clients = self.lock();
            let n = clients.entry(key).or_insert(0);
            if *n >= self.per_client {
                return Err(Full::Client);
            }
            *n += 1;
        }
        let client = (self.per_client > 0).then(|| (self.clone(), key));
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
            "refused {} connection(s) in the last minute; the last because {reason}",
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
            "network",
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
}
