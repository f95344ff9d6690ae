//! What a stranger can hold of the server is bounded (issue 10, finding 3): idle connections,
//! half-sent heads and bodies time out, connections are capped in all and per client, and a
//! request with both `Content-Length` and `Transfer-Encoding` is refused, while WebSockets and
//! a graceful stop keep working.
//!
//! The limits are small so that the tests are quick; nothing here checks how fast anything
//! happens, only what happens. Every read has a deadline of [`patience`] (20 times the timeout
//! under test, and at least 10 s): reaching it means the server hung, and the test fails.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anywoli_server::{start, Config, Limits, Server, Think};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::tungstenite::Message;

const SHORT: Duration = Duration::from_millis(500);
const LONG: Duration = Duration::from_secs(600);

/// Limits where nothing times out or fills up unless a test says so.
fn roomy() -> Limits {
    Limits {
        max_connections: 1000,
        max_connections_per_client: 0,
        header_timeout: LONG,
        idle_timeout: LONG,
        request_timeout: LONG,
    }
}

fn patience(timeout: Duration) -> Duration {
    (timeout * 20).max(Duration::from_secs(10))
}

async fn server(name: &str, limits: Limits) -> Server {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("limits-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    start(&Config {
        addr: "127.0.0.1".to_string(),
        port: 0,
        db: dir.join("games.sqlite"),
        think: Think {
            movetime: Duration::from_millis(200),
            hash_mib: 1,
        },
        public_url: None,
        limits,
        rates: Default::default(),
        allowed_hosts: Vec::new(),
        engine_lease: anywoli_server::round::ENGINE_LEASE,
        ..Config::default()
    })
    .await
    .unwrap()
}

/// A connection from `from` (an address in 127.0.0.0/8) to the server.
async fn connect_from(from: [u8; 4], to: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind((from, 0).into()).unwrap();
    socket.connect(to).await.unwrap()
}

/// Reads until the server closes the connection (end of stream or reset): what came before.
/// Panics if it is still open after `wait`.
async fn until_closed(s: &mut TcpStream, wait: Duration) -> Vec<u8> {
    let mut got = Vec::new();
    let read = async {
        let mut buf = [0u8; 64 * 1024];
        loop {
            match s.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
    };
    tokio::time::timeout(wait, read)
        .await
        .unwrap_or_else(|_| panic!("the connection is still open after {wait:?}"));
    got
}

/// One response on a connection that may stay open: (status, head in lower case, JSON body).
async fn response(s: &mut TcpStream, wait: Duration) -> (u16, String, Value) {
    let read = async {
        let mut data = Vec::new();
        let mut buf = [0u8; 64 * 1024];
        loop {
            if let Some(i) = data.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&data[..i]).to_ascii_lowercase();
                let status: u16 = head.split(' ').nth(1).unwrap().parse().unwrap();
                if status == 100 {
                    data.drain(..i + 4);
                    continue;
                }
                let len: usize = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .map_or(0, |v| v.trim().parse().unwrap());
                if data.len() >= i + 4 + len {
                    let body = &data[i + 4..i + 4 + len];
                    return (
                        status,
                        head,
                        serde_json::from_slice(body).unwrap_or(Value::Null),
                    );
                }
            }
            let n = s.read(&mut buf).await.expect("a response, not a reset");
            assert!(n > 0, "closed before a whole response came");
            data.extend_from_slice(&buf[..n]);
        }
    };
    tokio::time::timeout(wait, read)
        .await
        .unwrap_or_else(|_| panic!("no response within {wait:?}"))
}

fn get(path: &str) -> String {
    format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
}

fn post(path: &str, body: &str) -> String {
    format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// A request that works on a keep-alive connection: the server answers it.
async fn works(s: &mut TcpStream) {
    s.write_all(get("/api/site").as_bytes()).await.unwrap();
    let (status, _, body) = response(s, patience(SHORT)).await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn an_idle_connection_is_closed_after_the_idle_timeout() {
    let server = server(
        "idle",
        Limits {
            idle_timeout: SHORT,
            ..roomy()
        },
    )
    .await;
    // Never a byte.
    let mut s = TcpStream::connect(server.addr).await.unwrap();
    assert!(until_closed(&mut s, patience(SHORT)).await.is_empty());
    // Idle after a request on a keep-alive connection.
    let mut s = TcpStream::connect(server.addr).await.unwrap();
    works(&mut s).await;
    assert!(until_closed(&mut s, patience(SHORT)).await.is_empty());
    server.stop().await;
}

#[tokio::test]
async fn a_half_sent_head_is_closed_after_the_header_timeout() {
    let server = server(
        "head",
        Limits {
            header_timeout: SHORT,
            ..roomy()
        },
    )
    .await;
    // Waiting for a request is not timed by the header timeout (the idle timeout is long)...
    let mut s = TcpStream::connect(server.addr).await.unwrap();
    tokio::time::sleep(SHORT * 3).await;
    works(&mut s).await;
    // ...but a head that stops half-way is.
    s.write_all(b"GET /api/site HTTP/1.1\r\nHost: te")
        .await
        .unwrap();
    assert!(until_closed(&mut s, patience(SHORT)).await.is_empty());

    // A head trickled a byte at a time is timed from its first byte, not from the last.
    let mut s = TcpStream::connect(server.addr).await.unwrap();
    let (mut r, mut w) = s.split();
    let trickle = async {
        for b in get("/api/site").bytes().cycle() {
            if w.write_all(&[b]).await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    let closed = async {
        let mut buf = [0u8; 1024];
        if let Ok(n @ 1..) = r.read(&mut buf).await {
            panic!(
                "an answer to a head that never ends: {}",
                String::from_utf8_lossy(&buf[..n])
            );
        }
    };
    tokio::time::timeout(patience(SHORT), async {
        tokio::select! {
            _ = trickle => {}
            _ = closed => {}
        }
    })
    .await
    .expect("the trickled head is still being read");
    server.stop().await;
}

#[tokio::test]
async fn a_body_shorter_than_its_length_gets_408_not_a_hang() {
    let server = server(
        "body",
        Limits {
            request_timeout: SHORT,
            ..roomy()
        },
    )
    .await;
    let mut s = TcpStream::connect(server.addr).await.unwrap();
    s.write_all(
        b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"mode\"",
    )
    .await
    .unwrap();
    let (status, head, body) = response(&mut s, patience(SHORT)).await;
    assert_eq!(status, 408, "{body}");
    assert!(head.contains("content-type: application/json"), "{head}");
    assert_eq!(body["error"], "timeout", "{body}");
    assert!(body["message"].is_string(), "{body}");
    until_closed(&mut s, patience(SHORT)).await;

    // A body trickled a byte at a time is timed as a whole, not byte by byte.
    let mut s = TcpStream::connect(server.addr).await.unwrap();
    let text = json!({"mode": "local", "rules": "anywoli"}).to_string() + &" ".repeat(200);
    s.write_all(
        format!(
            "POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            text.len()
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    let (mut r, mut w) = s.split();
    let trickle = async {
        for b in text.bytes() {
            if w.write_all(&[b]).await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        std::future::pending::<()>().await;
    };
    let answer = async {
        let mut got = Vec::new();
        let mut buf = [0u8; 4096];
        while !got.windows(4).any(|w| w == b"\r\n\r\n") {
            match r.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
        String::from_utf8_lossy(&got).to_string()
    };
    let got = tokio::time::timeout(patience(SHORT), async {
        tokio::select! {
            _ = trickle => unreachable!(),
            got = answer => got,
        }
    })
    .await
    .expect("the trickled body is still being read");
    assert!(got.starts_with("HTTP/1.1 408 "), "{got}");

    // A whole body is not affected.
    let mut s = TcpStream::connect(server.addr).await.unwrap();
    s.write_all(post("/api/games", r#"{"mode":"local"}"#).as_bytes())
        .await
        .unwrap();
    let (status, _, body) = response(&mut s, patience(SHORT)).await;
    assert_eq!(status, 201, "{body}");
    server.stop().await;
}

#[tokio::test]
async fn connections_over_the_cap_per_client_are_refused() {
    let server = server(
        "per-client",
        Limits {
            max_connections_per_client: 2,
            ..roomy()
        },
    )
    .await;
    let addr = server.addr;
    let mut a1 = connect_from([127, 0, 0, 1], addr).await;
    let mut a2 = connect_from([127, 0, 0, 1], addr).await;
    works(&mut a1).await;
    works(&mut a2).await;
    // A third from the same address is closed at once, without an answer.
    let mut a3 = connect_from([127, 0, 0, 1], addr).await;
    assert!(until_closed(&mut a3, patience(SHORT)).await.is_empty());
    // Another client is not affected, nor are the first two connections.
    let mut b1 = connect_from([127, 0, 0, 2], addr).await;
    works(&mut b1).await;
    works(&mut a1).await;
    works(&mut a2).await;
    // A closed connection gives its place back.
    drop(a1);
    served_again([127, 0, 0, 1], addr).await;
    server.stop().await;
}

#[tokio::test]
async fn connections_over_the_total_cap_are_refused() {
    let server = server(
        "total",
        Limits {
            max_connections: 2,
            max_connections_per_client: 0,
            ..roomy()
        },
    )
    .await;
    let addr = server.addr;
    let mut a = connect_from([127, 0, 0, 1], addr).await;
    let mut b = connect_from([127, 0, 0, 2], addr).await;
    works(&mut a).await;
    works(&mut b).await;
    for from in [[127, 0, 0, 1], [127, 0, 0, 3]] {
        let mut c = connect_from(from, addr).await;
        assert!(until_closed(&mut c, patience(SHORT)).await.is_empty());
    }
    works(&mut a).await;
    works(&mut b).await;
    drop(b);
    served_again([127, 0, 0, 3], addr).await;
    server.stop().await;
}

/// Connects from `from` until a connection is served: the server notices a closed connection
/// on its own time.
async fn served_again(from: [u8; 4], addr: SocketAddr) {
    tokio::time::timeout(patience(SHORT), async {
        loop {
            let mut s = connect_from(from, addr).await;
            if s.write_all(get("/api/site").as_bytes()).await.is_ok() {
                let mut buf = [0u8; 16];
                if let Ok(n) = s.read(&mut buf).await {
                    if buf[..n].starts_with(b"HTTP/1.1 200") {
                        return;
                    }
                }
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("a place is given back when a connection closes");
}

#[tokio::test]
async fn content_length_with_transfer_encoding_is_refused_with_json() {
    let server = server("cl-te", roomy()).await;
    let body = r#"{"mode":"local"}"#;
    let chunked = format!("{:x}\r\n{body}\r\n0\r\n\r\n", body.len());
    for (first, second) in [
        (
            format!("Content-Length: {}", chunked.len()),
            "Transfer-Encoding: chunked".to_string(),
        ),
        (
            "Transfer-Encoding: chunked".to_string(),
            format!("content-length: {}", body.len()),
        ),
    ] {
        let mut s = TcpStream::connect(server.addr).await.unwrap();
        s.write_all(
            format!(
                "POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n{first}\r\n{second}\r\n\r\n{chunked}"
            )
            .as_bytes(),
        )
        .await
        .unwrap();
        let (status, head, e) = response(&mut s, patience(SHORT)).await;
        assert_eq!(status, 400, "{e}");
        assert!(head.contains("content-type: application/json"), "{head}");
        assert_eq!(e["error"], "malformed", "{e}");
        assert!(e["message"].is_string(), "{e}");
        // The connection is not used again (RFC 9112, 6.3).
        until_closed(&mut s, patience(SHORT)).await;
    }
    // Transfer-Encoding alone is fine, and so is a keep-alive connection after it.
    let mut s = TcpStream::connect(server.addr).await.unwrap();
    s.write_all(
        format!(
            "POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n{chunked}"
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    let (status, _, v) = response(&mut s, patience(SHORT)).await;
    assert_eq!(status, 201, "{v}");
    s.write_all(post("/api/games", body).as_bytes())
        .await
        .unwrap();
    let (status, _, v) = response(&mut s, patience(SHORT)).await;
    assert_eq!(status, 201, "{v}");
    server.stop().await;
}

#[tokio::test]
async fn an_open_websocket_outlives_the_idle_timeout() {
    let server = server(
        "ws",
        Limits {
            idle_timeout: SHORT,
            header_timeout: SHORT,
            ..roomy()
        },
    )
    .await;
    let mut s = TcpStream::connect(server.addr).await.unwrap();
    s.write_all(post("/api/games", r#"{"mode":"local"}"#).as_bytes())
        .await
        .unwrap();
    let (status, _, v) = response(&mut s, patience(SHORT)).await;
    assert_eq!(status, 201, "{v}");
    let id = v["game"]["id"].as_str().unwrap().to_string();
    let url = format!("ws://{}/api/games/{id}/events", server.addr);
    let (mut ws, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
    assert_eq!(next_json(&mut ws).await["type"], "state");
    // Pinging as the page does, for many times the idle timeout...
    for _ in 0..8 {
        tokio::time::sleep(SHORT / 2).await;
        ws.send(Message::Text(r#"{"type":"ping"}"#.into()))
            .await
            .unwrap();
        assert_eq!(next_json(&mut ws).await["type"], "pong");
    }
    // ...and silent for several: an upgraded connection is not idle.
    tokio::time::sleep(SHORT * 4).await;
    ws.send(Message::Text(r#"{"type":"ping"}"#.into()))
        .await
        .unwrap();
    assert_eq!(next_json(&mut ws).await["type"], "pong");
    server.stop().await;
}

async fn next_json(
    ws: &mut tokio_tungstenite::WebSocketStream<
        tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
    >,
) -> Value {
    loop {
        let msg = tokio::time::timeout(patience(SHORT), ws.next())
            .await
            .expect("a message")
            .expect("the socket is open")
            .unwrap();
        if let Message::Text(t) = msg {
            return serde_json::from_str(&t).unwrap();
        }
    }
}

#[tokio::test]
async fn stop_lets_a_request_in_flight_finish() {
    let server = server("stop", roomy()).await;
    let addr = server.addr;
    // An idle keep-alive connection is closed by the stop.
    let mut idle = TcpStream::connect(addr).await.unwrap();
    works(&mut idle).await;
    // The server reads this request's body: it said so with 100 Continue.
    let body = r#"{"mode":"local"}"#;
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(
        format!(
            "POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\nExpect: 100-continue\r\n\r\n",
            body.len()
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    let mut buf = [0u8; 25];
    tokio::time::timeout(patience(SHORT), s.read_exact(&mut buf))
        .await
        .expect("100 Continue")
        .unwrap();
    assert_eq!(&buf, b"HTTP/1.1 100 Continue\r\n\r\n");
    let stopping = tokio::spawn(server.stop());
    tokio::time::sleep(Duration::from_millis(200)).await;
    s.write_all(body.as_bytes()).await.unwrap();
    let (status, _, v) = response(&mut s, patience(SHORT)).await;
    assert_eq!(status, 201, "{v}");
    assert!(v["game"]["id"].is_string(), "{v}");
    until_closed(&mut s, patience(SHORT)).await;
    until_closed(&mut idle, patience(SHORT)).await;
    tokio::time::timeout(patience(SHORT), stopping)
        .await
        .expect("stop returns")
        .unwrap();
    assert!(
        TcpStream::connect(addr).await.is_err(),
        "a stopped server accepts nothing"
    );
}

#[tokio::test]
async fn a_client_that_does_not_take_its_responses_is_dropped() {
    let server = server(
        "stall",
        Limits {
            request_timeout: SHORT,
            ..roomy()
        },
    )
    .await;
    let mut s = TcpStream::connect(server.addr).await.unwrap();
    // The size of one answer.
    s.write_all(get("/assets/i18n/en.json").as_bytes())
        .await
        .unwrap();
    let one = until_first_response_len(&mut s).await;
    // Far more answers than the socket buffers hold, never read while the server writes.
    let n = 64 * 1024 * 1024 / one + 1;
    let requests = get("/assets/i18n/en.json").repeat(n);
    let (mut r, mut w) = s.split();
    let _ = tokio::time::timeout(patience(SHORT), w.write_all(requests.as_bytes())).await;
    tokio::time::sleep(patience(SHORT) / 2).await;
    let mut got = 0usize;
    let mut buf = vec![0u8; 1 << 20];
    tokio::time::timeout(patience(SHORT), async {
        loop {
            match r.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(k) => got += k,
            }
        }
    })
    .await
    .expect("the connection is closed");
    assert!(
        got < (n - 1) * one,
        "all {n} answers were written: {got} bytes"
    );
    server.stop().await;
}

/// Reads one response whole: its length in bytes, head included.
async fn until_first_response_len(s: &mut TcpStream) -> usize {
    let mut data = Vec::new();
    let mut buf = [0u8; 64 * 1024];
    loop {
        let n = tokio::time::timeout(patience(SHORT), s.read(&mut buf))
            .await
            .expect("a response")
            .unwrap();
        assert!(n > 0);
        data.extend_from_slice(&buf[..n]);
        if let Some(i) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&data[..i]).to_ascii_lowercase();
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .map(|v| v.trim().parse().unwrap())
                .expect("a length");
            if data.len() >= i + 4 + len {
                return i + 4 + len;
            }
        }
    }
}

// ---- WebSockets (issue 36): silent ones close, and they are capped per client and in all,
// the client being the forwarded address behind a trusted proxy.

type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>;

async fn socket_server(
    name: &str,
    sockets: anywoli_server::ws::SocketLimits,
    trusted: Option<&str>,
) -> Server {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("limits-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    start(&Config {
        port: 0,
        db: dir.join("games.sqlite"),
        limits: roomy(),
        sockets,
        trusted_proxies: trusted.map(|t| t.parse().unwrap()).unwrap_or_default(),
        ..Config::default()
    })
    .await
    .unwrap()
}

/// A WebSocket to `path` from `from` (an address in 127.0.0.0/8), with an `X-Forwarded-For`
/// if given: the socket, or the HTTP refusal's status and JSON body.
async fn socket_from(
    from: [u8; 4],
    to: SocketAddr,
    path: &str,
    forwarded: Option<&str>,
) -> Result<Ws, (u16, Value)> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut req = format!("ws://{to}{path}").into_client_request().unwrap();
    if let Some(f) = forwarded {
        req.headers_mut()
            .insert("x-forwarded-for", f.parse().unwrap());
    }
    let stream = connect_from(from, to).await;
    match tokio_tungstenite::client_async(req, tokio_tungstenite::MaybeTlsStream::Plain(stream))
        .await
    {
        Ok((ws, _)) => Ok(ws),
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => {
            let body = resp.body().clone().unwrap_or_default();
            Err((
                resp.status().as_u16(),
                serde_json::from_slice(&body).unwrap_or(Value::Null),
            ))
        }
        Err(e) => panic!("the handshake failed: {e}"),
    }
}

fn few_sockets(total: usize, per_client: usize) -> anywoli_server::ws::SocketLimits {
    anywoli_server::ws::SocketLimits {
        max_sockets: total,
        max_sockets_per_client: per_client,
        ..Default::default()
    }
}

#[tokio::test]
async fn a_silent_websocket_is_closed_and_one_that_answers_pings_is_kept() {
    let sockets = anywoli_server::ws::SocketLimits {
        ping_interval: Duration::from_millis(200),
        idle_timeout: Duration::from_millis(800),
        ..Default::default()
    };
    let server = socket_server("silent", sockets, None).await;
    // The silent client is a raw connection that upgrades and then never reads or writes a
    // byte, as a stranger holding sockets would.
    let mut silent = TcpStream::connect(server.addr).await.unwrap();
    silent
        .write_all(
            b"GET /api/lobby HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\n\
              Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\
              Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
        )
        .await
        .unwrap();
    let mut alive = socket_from([127, 0, 0, 1], server.addr, "/api/analysis", None)
        .await
        .unwrap();
    // The live one reads all along, and so answers every ping (tungstenite does, as a browser
    // does); the silent one reads nothing for many idle timeouts.
    let reader = tokio::spawn(async move {
        let mut pings = 0;
        let until = tokio::time::Instant::now() + Duration::from_secs(4);
        while let Ok(Some(m)) = tokio::time::timeout_at(until, alive.next()).await {
            if matches!(m.unwrap(), Message::Ping(_)) {
                pings += 1;
            }
        }
        (alive, pings)
    });
    tokio::time::sleep(Duration::from_secs(4)).await;
    let got = until_closed(&mut silent, patience(SHORT)).await;
    let text = String::from_utf8_lossy(&got);
    assert!(text.starts_with("HTTP/1.1 101"), "{text}");
    // The server's frames after the handshake: the lobby, pings (0x89, empty), then a close
    // frame (0x88) with 1001 and its reason.
    let close = [&[0x88, 20, 0x03, 0xE9][..], b"no answer to pings"].concat();
    let pings = got.windows(2).filter(|w| *w == [0x89, 0]).count();
    assert!(
        got.ends_with(&close),
        "the silent socket is closed with 1001: {got:?}"
    );
    assert!(pings >= 2, "it was pinged first ({pings})");
    let (mut alive, pinged) = reader.await.unwrap();
    assert!(pinged >= 10, "the live one was pinged all along ({pinged})");
    alive
        .send(Message::Text(r#"{"type":"ping"}"#.into()))
        .await
        .unwrap();
    assert_eq!(next_json(&mut alive).await["type"], "pong", "and is open");
    server.stop().await;
}

#[tokio::test]
async fn websockets_over_the_cap_per_client_are_refused_while_others_are_served() {
    let server = socket_server("sockets-per-client", few_sockets(100, 2), None).await;
    let a = server.addr;
    let _one = socket_from([127, 0, 0, 1], a, "/api/lobby", None)
        .await
        .unwrap();
    let _two = socket_from([127, 0, 0, 1], a, "/api/analysis", None)
        .await
        .unwrap();
    let (status, body) = socket_from([127, 0, 0, 1], a, "/api/lobby", None)
        .await
        .expect_err("a third socket from the same address is refused");
    assert_eq!(
        (status, body["error"].as_str()),
        (429, Some("too_many_sockets")),
        "{body}"
    );
    // A refused upgrade's connection is closed at once, not left to idle in the listener's
    // count (a flood of refused upgrades would fill the connections).
    let mut raw = connect_from([127, 0, 0, 1], a).await;
    raw.write_all(
        b"GET /api/lobby HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\n\
          Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\
          Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
    )
    .await
    .unwrap();
    let answer =
        String::from_utf8_lossy(&until_closed(&mut raw, patience(SHORT)).await).to_lowercase();
    assert!(answer.starts_with("http/1.1 429"), "{answer}");
    assert!(answer.contains("connection: close"), "{answer}");
    // Without --trusted-proxy a forwarded address is not believed.
    let refused = socket_from([127, 0, 0, 1], a, "/api/lobby", Some("203.0.113.5")).await;
    assert_eq!(refused.err().map(|e| e.0), Some(429));
    // Another address is served, sockets and pages alike.
    let mut other = socket_from([127, 0, 0, 2], a, "/api/lobby", None)
        .await
        .unwrap();
    assert_eq!(next_json(&mut other).await["type"], "lobby");
    works(&mut connect_from([127, 0, 0, 3], a).await).await;
    // A closed socket gives its place back.
    drop(_one);
    let deadline = tokio::time::Instant::now() + patience(SHORT);
    loop {
        match socket_from([127, 0, 0, 1], a, "/api/lobby", None).await {
            Ok(_) => break,
            Err(e) if tokio::time::Instant::now() < deadline => {
                assert_eq!(e.0, 429);
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(e) => panic!("the place never came back: {e:?}"),
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn behind_a_trusted_proxy_each_forwarded_client_has_its_own_cap() {
    let server = socket_server("sockets-proxy", few_sockets(100, 2), Some("127.0.0.1/32")).await;
    let a = server.addr;
    let from_proxy =
        |client: &'static str| socket_from([127, 0, 0, 1], a, "/api/lobby", Some(client));
    let _one = from_proxy("198.51.100.7, 203.0.113.1").await.unwrap();
    let _two = from_proxy("203.0.113.1").await.unwrap();
    let (status, body) = from_proxy("10.9.9.9, 203.0.113.1")
        .await
        .expect_err("its third");
    assert_eq!(
        (status, body["error"].as_str()),
        (429, Some("too_many_sockets"))
    );
    // Another client of the same proxy is let in: the proxy itself has no cap.
    let mut other = from_proxy("203.0.113.2").await.unwrap();
    assert_eq!(next_json(&mut other).await["type"], "lobby");
    // A peer that is not the trusted proxy cannot pick its address.
    let _three = socket_from([127, 0, 0, 9], a, "/api/lobby", Some("203.0.113.3"))
        .await
        .unwrap();
    let _four = socket_from([127, 0, 0, 9], a, "/api/lobby", Some("203.0.113.4"))
        .await
        .unwrap();
    let refused = socket_from([127, 0, 0, 9], a, "/api/lobby", Some("203.0.113.5")).await;
    assert_eq!(refused.err().map(|e| e.0), Some(429));
    server.stop().await;
}

#[tokio::test]
async fn websockets_over_the_total_are_refused_with_503_and_pages_still_served() {
    let server = socket_server("sockets-total", few_sockets(3, 0), None).await;
    let a = server.addr;
    let mut held = Vec::new();
    for i in 1..=3 {
        held.push(
            socket_from([127, 0, 0, i], a, "/api/lobby", None)
                .await
                .unwrap(),
        );
    }
    let (status, body) = socket_from([127, 0, 0, 4], a, "/api/lobby", None)
        .await
        .expect_err("a fourth socket");
    assert_eq!(
        (status, body["error"].as_str()),
        (503, Some("busy")),
        "{body}"
    );
    works(&mut connect_from([127, 0, 0, 4], a).await).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_runs_at_most_two_analyses_at_once() {
    let server = socket_server("analyses", few_sockets(100, 16), None).await;
    let a = server.addr;
    let start = "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0";
    let ask = json!({"type": "analyse", "position": start, "movetime": 30_000}).to_string();
    let mut boards = Vec::new();
    for _ in 0..3 {
        boards.push(
            socket_from([127, 0, 0, 5], a, "/api/analysis", None)
                .await
                .unwrap(),
        );
    }
    for b in &mut boards[..2] {
        b.send(Message::Text(ask.clone().into())).await.unwrap();
        assert_eq!(next_json(b).await["type"], "info", "it runs");
    }
    boards[2]
        .send(Message::Text(ask.clone().into()))
        .await
        .unwrap();
    let refused = next_json(&mut boards[2]).await;
    assert_eq!(refused["type"], "error", "{refused}");
    assert_eq!(refused["error"], "too_many_analyses", "{refused}");
    // A board that asks again replaces its own analysis: still two, none refused.
    boards[0]
        .send(Message::Text(ask.clone().into()))
        .await
        .unwrap();
    let mut other = socket_from([127, 0, 0, 6], a, "/api/analysis", None)
        .await
        .unwrap();
    other
        .send(Message::Text(r#"{"type":"ping"}"#.into()))
        .await
        .unwrap();
    assert_eq!(next_json(&mut other).await["type"], "pong");
    // Closing a board frees its place at once.
    drop(boards.remove(1));
    let deadline = tokio::time::Instant::now() + patience(SHORT);
    loop {
        boards[1]
            .send(Message::Text(ask.clone().into()))
            .await
            .unwrap();
        let got = tokio::time::timeout(Duration::from_millis(300), boards[1].next()).await;
        match got {
            Err(_) => break, // no refusal: it runs (or waits for a worker)
            Ok(Some(Ok(Message::Text(t)))) => {
                let v: Value = serde_json::from_str(&t).unwrap();
                if v["error"] != "too_many_analyses" {
                    break;
                }
                assert!(
                    tokio::time::Instant::now() < deadline,
                    "the place never came back"
                );
            }
            Ok(other) => panic!("unexpected {other:?}"),
        }
    }
    server.stop().await;
}

/// Sends a seek on `ws` and answers its outcome: `seeking`, or the error's code.
async fn seek_on(ws: &mut Ws) -> String {
    let seek = json!({"type": "seek", "clock": "5+3"}).to_string();
    ws.send(Message::Text(seek.into())).await.unwrap();
    loop {
        let m = next_json(ws).await;
        match m["type"].as_str() {
            Some("seeking") => return "seeking".to_string(),
            Some("error") => return m["error"].as_str().unwrap().to_string(),
            _ => {}
        }
    }
}

#[tokio::test]
async fn one_address_holds_at_most_six_seeks_however_many_sockets() {
    let server = socket_server("seeks", few_sockets(100, 16), None).await;
    let a = server.addr;
    let mut pages = Vec::new();
    for _ in 0..3 {
        let mut ws = socket_from([127, 0, 0, 7], a, "/api/lobby", None)
            .await
            .unwrap();
        assert_eq!(next_json(&mut ws).await["type"], "lobby");
        pages.push(ws);
    }
    let mut outcomes = Vec::new();
    for page in &mut pages {
        for _ in 0..3 {
            outcomes.push(seek_on(page).await);
        }
    }
    assert_eq!(
        outcomes,
        ["seeking", "seeking", "seeking", "seeking", "seeking", "seeking"]
            .into_iter()
            .chain(["rate_limited"; 3])
            .collect::<Vec<_>>(),
        "three a page, six an address"
    );
    let mut other = socket_from([127, 0, 0, 8], a, "/api/lobby", None)
        .await
        .unwrap();
    let hello = next_json(&mut other).await;
    assert_eq!(hello["seeks"].as_array().map(Vec::len), Some(6));
    assert_eq!(
        seek_on(&mut other).await,
        "seeking",
        "another address seeks"
    );
    // A page that goes takes its seeks with it, and the address may seek again.
    drop(pages.remove(0));
    let deadline = tokio::time::Instant::now() + patience(SHORT);
    while seek_on(&mut pages[1]).await != "seeking" {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the seeks never went"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reviews_are_limited_per_client_and_one_already_there_is_free() {
    let server = socket_server("reviews", few_sockets(100, 16), None).await;
    let mut s = connect_from([127, 0, 0, 11], server.addr).await;
    let mut ids = Vec::new();
    for _ in 0..3 {
        s.write_all(post("/api/games", r#"{"mode":"local"}"#).as_bytes())
            .await
            .unwrap();
        let (status, _, v) = response(&mut s, patience(SHORT)).await;
        assert_eq!(status, 201, "{v}");
        let (id, secret) = (
            v["game"]["id"].as_str().unwrap(),
            v["secret"].as_str().unwrap(),
        );
        let body = json!({"move": "e", "secret": secret}).to_string();
        s.write_all(post(&format!("/api/games/{id}/moves"), &body).as_bytes())
            .await
            .unwrap();
        let (status, _, v) = response(&mut s, patience(SHORT)).await;
        assert_eq!(status, 200, "{v}");
        ids.push(id.to_string());
    }
    let review = |id: &str| format!("/api/games/{id}/review");
    let mut statuses = Vec::new();
    for id in &ids {
        s.write_all(post(&review(id), "{}").as_bytes())
            .await
            .unwrap();
        let (status, _, v) = response(&mut s, patience(SHORT)).await;
        statuses.push((status, v["error"].as_str().map(str::to_string)));
    }
    assert_eq!(
        statuses,
        [
            (202, None),
            (202, None),
            (429, Some("rate_limited".to_string()))
        ],
        "a burst of two"
    );
    // Asking again for one that runs or is done costs nothing.
    s.write_all(post(&review(&ids[0]), "{}").as_bytes())
        .await
        .unwrap();
    let (status, _, v) = response(&mut s, patience(SHORT)).await;
    assert!(status == 200 || status == 202, "{status} {v}");
    // Another client reviews the third.
    let mut t = connect_from([127, 0, 0, 12], server.addr).await;
    t.write_all(post(&review(&ids[2]), "{}").as_bytes())
        .await
        .unwrap();
    let (status, _, v) = response(&mut t, patience(SHORT)).await;
    assert!(status == 200 || status == 202, "{status} {v}");
    server.stop().await;
}
