//! TV under a crowd (issue 38), measured (not asserted: the machines are shared): N spectators
//! (1,000 by default) of the TV socket, `/api/tv/events`, all in this process with the server.
//!
//! 1. memory: the process's resident memory before and after the spectators connected, per
//!    spectator. The spectators' own sockets and buffers are in this process too, so the
//!    figure is an upper bound of what the server pays.
//! 2. delivery: a move played in the game on TV, timed from the HTTP request to each
//!    spectator's receipt of its event: median, 99th percentile and the slowest, for 5 moves.
//!
//! `cargo bench -p anywoli-server --bench tv` (`-- --spectators N` for another crowd).

mod common;
use common::rss_kib;

use std::time::{Duration, Instant};

use anywoli_server::{start, Config, Limits, RateLimits, Think};
use futures_util::StreamExt;
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

async fn call(addr: std::net::SocketAddr, path: &str, body: Value) -> Value {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let body = body.to_string();
    let req = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut buf = String::new();
    s.read_to_string(&mut buf).await.unwrap();
    let (_, body) = buf.split_once("\r\n\r\n").unwrap();
    serde_json::from_str(body).unwrap_or(Value::Null)
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
        rates: RateLimits {
            games_per_minute: 0,
            hints_per_minute: 0,
            imports_per_minute: 0,
            logins_per_minute: 0,
        },
        ..Config::default()
    };
    c.sockets.max_sockets = crowd + 100;
    c.sockets.max_sockets_per_client = crowd + 100;
    c
}

/// Milliseconds at the fraction `q` of sorted `v`.
fn at(v: &[f64], q: f64) -> f64 {
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
    let server = start(&config(dir.join("games.sqlite"), crowd))
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

    tokio::time::sleep(Duration::from_millis(500)).await;
    let before = rss_kib();
    let url = format!("ws://{addr}/api/tv/events");
    let mut crowd_ws = Vec::with_capacity(crowd);
    for _ in 0..crowd {
        let (mut ws, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
        // The `tv` message and the game's state.
        for _ in 0..2 {
            ws.next().await.unwrap().unwrap();
        }
        crowd_ws.push(ws);
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after = rss_kib();
    println!(
        "memory: {crowd} spectators, {before} KiB before, {after} KiB after: {:.1} KiB a spectator (server and client together)",
        (after.saturating_sub(before)) as f64 / crowd as f64
    );

    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Instant>();
    for mut ws in crowd_ws {
        let tx = tx.clone();
        tokio::spawn(async move {
            while let Some(Ok(m)) = ws.next().await {
                if let Message::Text(t) = m {
                    if t.contains("\"type\":\"move\"") {
                        let _ = tx.send(Instant::now());
                    }
                }
            }
        });
    }
    let secrets = [south, north];
    let mut legal: Vec<String> = serde_json::from_value(g["game"]["legal"].clone()).unwrap();
    for ply in 0..5usize {
        let sent = Instant::now();
        let r = call(
            addr,
            &format!("/api/games/{id}/moves"),
            json!({"move": legal[0], "secret": secrets[ply % 2], "ply": ply}),
        )
        .await;
        legal = serde_json::from_value(r["game"]["legal"].clone()).unwrap_or_default();
        let mut ms = Vec::with_capacity(crowd);
        while ms.len() < crowd {
            let got = tokio::time::timeout(Duration::from_secs(10), rx.recv()).await;
            let Ok(Some(t)) = got else { break };
            ms.push(t.duration_since(sent).as_secs_f64() * 1000.0);
        }
        ms.sort_by(f64::total_cmp);
        println!(
            "move {}: {} of {crowd} spectators got it; median {:.1} ms, p99 {:.1} ms, slowest {:.1} ms",
            ply + 1,
            ms.len(),
            at(&ms, 0.5),
            at(&ms, 0.99),
            ms.last().copied().unwrap_or(f64::NAN)
        );
        if legal.is_empty() {
            break;
        }
    }
    server.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}
