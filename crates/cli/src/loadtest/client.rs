//! The load test's HTTP/1.1 client: keep-alive connections to one server, at most a fixed
//! number of them, each carrying one request at a time. Small on purpose: the tool measures
//! the server, so the client does nothing behind its back (no hidden connections, no retries
//! but one, on a kept-alive connection the server closed before answering).

use std::net::SocketAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::sync::Semaphore;

/// A kept-alive connection unused this long is closed rather than reused: the server closes
/// idle ones after `--idle-timeout` (60 s by default).
const IDLE_REUSE: Duration = Duration::from_secs(30);
/// The largest answer read (a game's JSON is a few KiB).
const MAX_BODY: usize = 16 << 20;

/// What went wrong with a request, as reported by kind.
#[derive(Debug)]
pub enum HttpError {
    /// The TCP connection could not be made.
    Connect(std::io::Error),
    /// No answer within the timeout (connecting included).
    Timeout,
    /// The server closed the connection before answering.
    Closed,
    /// Reading or writing failed.
    Io(std::io::Error),
    /// Not an HTTP/1.1 answer this client understands.
    Bad(String),
}

impl HttpError {
    /// The kind, for the report's error counts.
    pub fn kind(&self) -> String {
        match self {
            HttpError::Connect(e) => format!("connect: {}", io_kind(e)),
            HttpError::Timeout => "timeout".to_string(),
            HttpError::Closed => "connection closed before an answer".to_string(),
            HttpError::Io(e) => format!("i/o: {}", io_kind(e)),
            HttpError::Bad(what) => format!("bad answer: {what}"),
        }
    }
}

fn io_kind(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::ConnectionRefused => "connection refused".to_string(),
        std::io::ErrorKind::ConnectionReset => "connection reset".to_string(),
        std::io::ErrorKind::BrokenPipe => "broken pipe".to_string(),
        std::io::ErrorKind::AddrNotAvailable => "address not available".to_string(),
        _ => e.to_string(),
    }
}

/// An answer: its status, `Retry-After` in seconds if any, the cookies it sets, and its body.
pub struct Answer {
    pub status: u16,
    pub retry_after: Option<u64>,
    /// Each `Set-Cookie` header's value (a signup's session).
    pub set_cookies: Vec<String>,
    pub body: Vec<u8>,
}

/// Timings of one request.
pub struct Timing {
    /// From writing the request to reading the whole answer.
    pub round_trip: Duration,
    /// Waiting for a free connection first (the client's own queue).
    pub queued: Duration,
}

struct Conn {
    stream: BufReader<TcpStream>,
    last_used: Instant,
}

/// The connections to one server.
pub struct Pool {
    addr: SocketAddr,
    /// The `Host` header: the URL's host and port.
    host: String,
    idle: Mutex<Vec<Conn>>,
    permits: Semaphore,
    timeout: Duration,
}

impl Pool {
    pub fn new(addr: SocketAddr, host: String, connections: usize, timeout: Duration) -> Pool {
        Pool {
            addr,
            host,
            idle: Mutex::new(Vec::new()),
            permits: Semaphore::new(connections),
            timeout,
        }
    }

    /// Sends a request and reads its answer, within the timeout (not counting the wait for a
    /// free connection). `on_send` is called with the instant the request is written, before
    /// the answer can arrive (again if it is sent again on a fresh connection).
    pub async fn request(
        &self,
        method: &str,
        path: &str,
        body: Option<&[u8]>,
        on_send: impl FnMut(Instant),
    ) -> Result<(Answer, Timing), HttpError> {
        self.request_with(method, path, "", body, on_send).await
    }

    /// [`Pool::request`] with more header lines (`headers`: each `Name: value\r\n`), such as
    /// an account's cookie and CSRF token.
    pub async fn request_with(
        &self,
        method: &str,
        path: &str,
        headers: &str,
        body: Option<&[u8]>,
        mut on_send: impl FnMut(Instant),
    ) -> Result<(Answer, Timing), HttpError> {
        let asked = Instant::now();
        let _permit = self
            .permits
            .acquire()
            .await
            .expect("the pool is never closed");
        let queued = asked.elapsed();
        let mut head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\n{headers}",
            self.host
        );
        if let Some(b) = body {
            head.push_str(&format!(
                "Content-Type: application/json\r\nContent-Length: {}\r\n",
                b.len()
            ));
        }
        head.push_str("\r\n");
        let mut bytes = head.into_bytes();
        bytes.extend_from_slice(body.unwrap_or_default());

        let deadline = tokio::time::Instant::now() + self.timeout;
        let mut retried = false;
        loop {
            let reused = self.take_idle();
            let fresh = reused.is_none();
            let attempt = async {
                let mut conn = match reused {
                    Some(c) => c,
                    None => {
                        let s = TcpStream::connect(self.addr)
                            .await
                            .map_err(HttpError::Connect)?;
                        let _ = s.set_nodelay(true);
                        Conn {
                            stream: BufReader::new(s),
                            last_used: Instant::now(),
                        }
                    }
                };
                let sent = Instant::now();
                on_send(sent);
                let (answer, keep) = exchange(&mut conn.stream, &bytes).await?;
                let round_trip = sent.elapsed();
                Ok::<_, HttpError>((conn, answer, keep, round_trip))
            };
            match tokio::time::timeout_at(deadline, attempt).await {
                Err(_) => return Err(HttpError::Timeout),
                Ok(Ok((mut conn, answer, keep, round_trip))) => {
                    if keep {
                        conn.last_used = Instant::now();
                        self.idle.lock().unwrap().push(conn);
                    }
                    return Ok((answer, Timing { round_trip, queued }));
                }
                // A kept-alive connection the server closed meanwhile: once more on a new one.
                Ok(Err(HttpError::Closed)) if !fresh && !retried => retried = true,
                Ok(Err(e)) => return Err(e),
            }
        }
    }

    fn take_idle(&self) -> Option<Conn> {
        let mut idle = self.idle.lock().unwrap();
        while let Some(c) = idle.pop() {
            if c.last_used.elapsed() < IDLE_REUSE {
                return Some(c);
            }
        }
        None
    }
}

/// Writes the request and reads the answer; also says whether the connection may be reused.
async fn exchange(
    stream: &mut BufReader<TcpStream>,
    request: &[u8],
) -> Result<(Answer, bool), HttpError> {
    match stream.get_mut().write_all(request).await {
        Ok(()) => {}
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::ConnectionReset
            ) =>
        {
            return Err(HttpError::Closed)
        }
        Err(e) => return Err(HttpError::Io(e)),
    }
    let mut head = read_head(stream).await?;
    let body = if head.chunked {
        read_chunked(stream).await?
    } else if let Some(n) = head.length {
        if n > MAX_BODY {
            return Err(HttpError::Bad(format!("a body of {n} bytes")));
        }
        let mut body = vec![0; n];
        stream.read_exact(&mut body).await.map_err(HttpError::Io)?;
        body
    } else if head.status == 204 || head.status == 304 {
        Vec::new()
    } else {
        // Until the server closes the connection.
        head.keep = false;
        let mut body = Vec::new();
        (&mut *stream)
            .take(MAX_BODY as u64)
            .read_to_end(&mut body)
            .await
            .map_err(HttpError::Io)?;
        body
    };
    Ok((
        Answer {
            status: head.status,
            retry_after: head.retry_after,
            set_cookies: head.set_cookies,
            body,
        },
        head.keep,
    ))
}

/// An answer's status line and the headers this client heeds.
struct Head {
    status: u16,
    /// Whether the connection may carry another request.
    keep: bool,
    length: Option<usize>,
    chunked: bool,
    retry_after: Option<u64>,
    set_cookies: Vec<String>,
}

/// Reads the status line and the headers, up to the empty line.
async fn read_head(stream: &mut BufReader<TcpStream>) -> Result<Head, HttpError> {
    let mut line = String::new();
    let n = match stream.read_line(&mut line).await {
        Ok(n) => n,
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return Err(HttpError::Closed),
        Err(e) => return Err(HttpError::Io(e)),
    };
    if n == 0 {
        return Err(HttpError::Closed);
    }
    let status: u16 = line
        .strip_prefix("HTTP/1.1 ")
        .or_else(|| line.strip_prefix("HTTP/1.0 "))
        .and_then(|r| r.get(..3))
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| HttpError::Bad(format!("status line {:?}", line.trim_end())))?;
    let mut head = Head {
        status,
        keep: line.starts_with("HTTP/1.1"),
        length: None,
        chunked: false,
        retry_after: None,
        set_cookies: Vec::new(),
    };
    loop {
        line.clear();
        if stream.read_line(&mut line).await.map_err(HttpError::Io)? == 0 {
            return Err(HttpError::Bad("cut in the headers".to_string()));
        }
        let l = line.trim_end();
        if l.is_empty() {
            return Ok(head);
        }
        let Some((name, value)) = l.split_once(':') else {
            return Err(HttpError::Bad(format!("header {l:?}")));
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            head.length = Some(
                value
                    .parse::<usize>()
                    .map_err(|_| HttpError::Bad(format!("Content-Length {value:?}")))?,
            );
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            head.chunked = value.eq_ignore_ascii_case("chunked");
        } else if name.eq_ignore_ascii_case("connection") {
            head.keep = !value.eq_ignore_ascii_case("close");
        } else if name.eq_ignore_ascii_case("retry-after") {
            head.retry_after = value.parse().ok();
        } else if name.eq_ignore_ascii_case("set-cookie") {
            head.set_cookies.push(value.to_string());
        }
    }
}

async fn read_chunked(stream: &mut BufReader<TcpStream>) -> Result<Vec<u8>, HttpError> {
    let mut body = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        stream.read_line(&mut line).await.map_err(HttpError::Io)?;
        let size = line.trim_end().split(';').next().unwrap_or("");
        let size = usize::from_str_radix(size.trim(), 16)
            .map_err(|_| HttpError::Bad(format!("chunk size {:?}", line.trim_end())))?;
        if body.len() + size > MAX_BODY {
            return Err(HttpError::Bad("a body over 16 MiB".to_string()));
        }
        if size == 0 {
            // Trailers, up to the empty line.
            loop {
                line.clear();
                if stream.read_line(&mut line).await.map_err(HttpError::Io)? == 0
                    || line.trim_end().is_empty()
                {
                    return Ok(body);
                }
            }
        }
        let start = body.len();
        body.resize(start + size, 0);
        stream
            .read_exact(&mut body[start..])
            .await
            .map_err(HttpError::Io)?;
        let mut crlf = [0; 2];
        stream.read_exact(&mut crlf).await.map_err(HttpError::Io)?;
    }
}
