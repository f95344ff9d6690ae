//! TV under a crowd (issue 38), measured (not asserted: the machines are shared): N spectators
//! (1,000 by default) of the TV socket, `/api/tv/events`, all in this process with the server.
//!
//! 1. memory: the process's resident memory before and after the spectators connected, per
//!    spectator. The spectators' own sockets and buffers are in this process too, so the
//!    figure is an upper bound of what the server pays.
//! 2. delivery: a move played in the game on TV, timed from the HTTP request to each
//!    spectator's receipt of its event: median, 99th percentile and the slowest, for 5 moves.
//! 3. chat: N spectators of the same game on its own events socket (the game's page, where the
//!    spectators' chat is read; the TV socket carries moves only), their memory as in 1, and 5
//!    lines said by a logged-in spectator, timed from the sending to each spectator's receipt.
//!
//! `cargo bench -p anywoli-server --bench tv` (`-- --spectators N` for another crowd).

mod common;
use common::rss_kib;

use std::time::{Duration, Instant};

use anywoli_server::{start, Config, Limits, Think};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

async fn call(addr: std::net::SocketAddr, path: &str, body: Value) -> Value {
    post(addr, path, body, None).await.1
}

/// A POST: the answer's head and its JSON body.
async fn post(
    addr: std::net::SocketAddr,
    path: &str,
    body: Value,
    session: Option<&Session>,
) -> (String, Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let body = body.to_string();
    let cookie = session.map_or(String::new(), |s| {
        format!("Cookie: {}\r\nX-CSRF-Token: {}\r\n", s.cookie, s.csrf)
    });
    let req = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nOrigin: http://{addr}\r\n{cookie}Connection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut buf = String::new();
    s.read_to_string(&mut buf).await.unwrap();
    let (head, body) = buf.split_once("\r\n\r\n").unwrap();
    (
        head.to_string(),
        serde_json::from_str(body).unwrap_or(Value::Null),
    )
}

fn config(db: std::path::PathBuf, crowd: usize) -> Config {
    let mut c = Config {
        addr: "127.0.0.1".to_string(),
        port: 0,
        db,
        think: Think {
            movetime: Duration::from_millis(100),
            hash_mib: 1,
        },
        limits: Limits {
            max_connections: crowd + 100,
            max_connections_per_client: crowd + 100,
            ..Limits::default()
        },
        rates: common::no_rates(),
        ..Config::default()
    };
    c.sockets.max_sockets = crowd + 100;
    c.sockets.max_sockets_per_client = crowd + 100;
    c
}

/// Milliseconds at the fraction `q` of sorted `v` (NaN for none).
fn at(v: &[f64], q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v[((v.len() - 1) as f64 * q).round() as usize]
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let crowd: usize = args
        .iter()
        .position(|a| a == "--spectators")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(1000);
    let dir = std::env::temp_dir().join(format!("anywoli-tv-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Two crowds at once: the TV socket's and the game's own.
    let server = start(&config(dir.join("games.sqlite"), 2 * crowd))
        .await
        .unwrap();
    let addr = server.addr;
    let g = call(
        addr,
        "/api/games",
        json!({"mode": "friend", "clock": "10+5"}),
    )
    .await;
    let id = g["game"]["id"].as_str().unwrap().to_string();
    let south = g["secret"].as_str().unwrap().to_string();
    let j = call(
        addr,
        &format!("/api/games/{id}/join"),
        json!({"invite": g["invite"]}),
    )
    .await;
    let north = j["secret"].as_str().unwrap().to_string();
    call(
        addr,
        &format!("/api/games/{id}/public"),
        json!({"secret": south, "public": true}),
    )
    .await;

    let legal: Vec<String> = serde_json::from_value(g["game"]["legal"].clone()).unwrap();
    tv_crowd(addr, &id, [south, north], legal, crowd).await;
    chat_crowd(addr, crowd).await;
    server.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// Opens `crowd` sockets at `url`, each read past its first messages (`until` true for the last
/// of them), then prints the memory they took.
async fn open_crowd(
    url: &str,
    crowd: usize,
    cookie: Option<&str>,
    until: impl Fn(&str) -> bool,
) -> Vec<Ws> {
    tokio::time::sleep(Duration::from_millis(500)).await;
    let before = rss_kib();
    let mut all = Vec::with_capacity(crowd);
    for _ in 0..crowd {
        let mut ws = connect(url, cookie).await;
        while let Some(Ok(m)) = ws.next().await {
            if matches!(&m, Message::Text(t) if until(t)) {
                break;
            }
        }
        all.push(ws);
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after = rss_kib();
    println!(
        "memory: {crowd} spectators of {url}, {before} KiB before, {after} KiB after: {:.1} KiB a spectator (server and client together)",
        (after.saturating_sub(before)) as f64 / crowd as f64
    );
    all
}

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn connect(url: &str, cookie: Option<&str>) -> Ws {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut req = url.into_client_request().unwrap();
    if let Some(c) = cookie {
        req.headers_mut().insert("cookie", c.parse().unwrap());
        let origin = url.replacen("ws://", "http://", 1);
        let origin = origin.split("/api").next().unwrap().to_string();
        req.headers_mut().insert("origin", origin.parse().unwrap());
    }
    tokio_tungstenite::connect_async(req).await.unwrap().0
}

/// Hands every message that `pick` accepts, with its time of receipt, to the returned channel.
fn listen(crowd: Vec<Ws>, pick: fn(&str) -> bool) -> tokio::sync::mpsc::UnboundedReceiver<Instant> {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel::<Instant>();
    for mut ws in crowd {
        let tx = tx.clone();
        tokio::spawn(async move {
            while let Some(Ok(m)) = ws.next().await {
                if matches!(&m, Message::Text(t) if pick(t)) {
                    let _ = tx.send(Instant::now());
                }
            }
        });
    }
    rx
}

/// Waits for `crowd` receipts (10 s at the most) and prints their delays from `sent`.
async fn delays(
    what: &str,
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<Instant>,
    sent: Instant,
    crowd: usize,
) {
    let mut ms = Vec::with_capacity(crowd);
    while ms.len() < crowd {
        let got = tokio::time::timeout(Duration::from_secs(10), rx.recv()).await;
        let Ok(Some(t)) = got else { break };
        ms.push(t.duration_since(sent).as_secs_f64() * 1000.0);
    }
    ms.sort_by(f64::total_cmp);
    println!(
        "{what}: {} of {crowd} spectators got it; median {:.1} ms, p99 {:.1} ms, slowest {:.1} ms",
        ms.len(),
        at(&ms, 0.5),
        at(&ms, 0.99),
        ms.last().copied().unwrap_or(f64::NAN)
    );
}

/// Part 1 and 2: the TV socket's crowd, and 5 moves played to it.
async fn tv_crowd(
    addr: std::net::SocketAddr,
    id: &str,
    secrets: [String; 2],
    mut legal: Vec<String>,
    crowd: usize,
) {
    // The `tv` message and the game's state.
    let url = format!("ws://{addr}/api/tv/events");
    let sockets = open_crowd(&url, crowd, None, |t| t.contains("\"type\":\"state\"")).await;
    let mut rx = listen(sockets, |t| t.contains("\"type\":\"move\""));
    for ply in 0..5usize {
        let sent = Instant::now();
        let r = call(
            addr,
            &format!("/api/games/{id}/moves"),
            json!({"move": legal[0], "secret": secrets[ply % 2], "ply": ply}),
        )
        .await;
        legal = serde_json::from_value(r["game"]["legal"].clone()).unwrap_or_default();
        delays(&format!("move {}", ply + 1), &mut rx, sent, crowd).await;
        if legal.is_empty() {
            break;
        }
    }
}

/// A logged-in account's cookie (`anywoli_session=…`) and CSRF token.
struct Session {
    cookie: String,
    csrf: String,
}

/// Signs `name` up.
async fn signup(addr: std::net::SocketAddr, name: &str) -> Session {
    let body = json!({"name": name, "password": "correct horse battery"});
    let (head, v) = post(addr, "/api/account/signup", body, None).await;
    let cookie = head
        .lines()
        .find_map(|l| l.strip_prefix("set-cookie: "))
        .and_then(|v| v.split(';').next())
        .expect("a session cookie")
        .to_string();
    let csrf = v["account"]["csrf"]
        .as_str()
        .expect("a CSRF token")
        .to_string();
    Session { cookie, csrf }
}

/// Part 3: a public game between two accounts (with an anonymous player seated, anonymous
/// watchers read the spectators' room only once the game is over: any of them could be that
/// player), its own sockets' crowd, and 5 lines said in the spectators' room.
async fn chat_crowd(addr: std::net::SocketAddr, crowd: usize) {
    let (south, north) = (signup(addr, "South").await, signup(addr, "North").await);
    let body = json!({"mode": "friend", "clock": "10+5"});
    let g = post(addr, "/api/games", body, Some(&south)).await.1;
    let id = g["game"]["id"].as_str().unwrap().to_string();
    let join = json!({"invite": g["invite"]});
    post(addr, &format!("/api/games/{id}/join"), join, Some(&north)).await;
    let public = json!({"secret": g["secret"], "public": true});
    post(
        addr,
        &format!("/api/games/{id}/public"),
        public,
        Some(&south),
    )
    .await;
    let speaker = signup(addr, "Speaker").await;
    let url = format!("ws://{addr}/api/games/{id}/events");
    let sockets = open_crowd(&url, crowd, None, |t| t.contains("\"type\":\"state\"")).await;
    let mut rx = listen(sockets, |t| t.contains("\"type\":\"chat\""));
    let mut speaker = connect(&url, Some(&speaker.cookie)).await;
    for n in 1..=5 {
        let line = json!({"type": "chat", "room": "spectators", "text": format!("line {n}")});
        let sent = Instant::now();
        speaker
            .send(Message::Text(line.to_string().into()))
            .await
            .unwrap();
        // The speaker hears its own line (or why it was refused).
        loop {
            match speaker.next().await {
                Some(Ok(Message::Text(t))) if t.contains("\"type\":\"chat\"") => break,
                Some(Ok(Message::Text(t))) if t.contains("\"type\":\"error\"") => {
                    panic!("the line was refused: {t}")
                }
                Some(Ok(_)) => {}
                other => panic!("the speaker's socket ended: {other:?}"),
            }
        }
        delays(&format!("chat line {n}"), &mut rx, sent, crowd).await;
        // Within the chat's rate: five lines in 10 s.
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}
