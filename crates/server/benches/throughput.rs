//! Moves per second on one machine (issue 11): N clients on loopback, each playing its own game
//! on one screen over one keep-alive HTTP/1.1 connection, each sending its next move as soon as
//! the last one is answered. A move is answered only once it is stored (SQLite WAL,
//! synchronous=FULL), so this measures how many moves the store makes durable per second when
//! many games want it at once. Prints, per client count, moves/s and the move round trip's
//! median and 99th percentile. Each count gets a fresh server and database.
//!
//! `cargo bench -p anywoli-server --bench throughput` (`ANYWOLI_BENCH_CLIENTS=1,8,64` and
//! `ANYWOLI_BENCH_SECONDS=5` by default).

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use anywoli_server::{start, Config, Limits, Think};
use serde_json::{json, Value};

/// One keep-alive HTTP/1.1 connection.
struct Conn {
    r: BufReader<TcpStream>,
}

impl Conn {
    fn open(addr: SocketAddr) -> Conn {
        let s = TcpStream::connect(addr).unwrap();
        s.set_nodelay(true).unwrap();
        Conn {
            r: BufReader::new(s),
        }
    }

    fn post(&mut self, path: &str, body: &Value) -> (u16, Value) {
        let body = body.to_string();
        let req = format!(
            "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        self.r.get_mut().write_all(req.as_bytes()).unwrap();
        let mut status = String::new();
        self.r.read_line(&mut status).unwrap();
        let code = status.split(' ').nth(1).unwrap_or("0").parse().unwrap_or(0);
        let mut len = 0usize;
        loop {
            let mut line = String::new();
            self.r.read_line(&mut line).unwrap();
            if line == "\r\n" || line.is_empty() {
                break;
            }
            if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                len = v.trim().parse().unwrap_or(0);
            }
        }
        let mut buf = vec![0; len];
        self.r.read_exact(&mut buf).unwrap();
        (code, serde_json::from_slice(&buf).unwrap_or(Value::Null))
    }
}

struct Game {
    id: String,
    secret: String,
    view: Value,
}

fn new_game(c: &mut Conn) -> Game {
    let (s, v) = c.post("/api/games", &json!({"mode": "local"}));
    assert_eq!(s, 201, "{v}");
    Game {
        id: v["game"]["id"].as_str().unwrap().to_string(),
        secret: v["secret"].as_str().unwrap().to_string(),
        view: v["game"].clone(),
    }
}

/// Plays until `deadline`; the round trip of every move answered by then.
fn client(addr: SocketAddr, seed: u64, start: &Barrier, run: Duration) -> Vec<Duration> {
    let mut c = Conn::open(addr);
    let mut game = new_game(&mut c);
    let mut n = seed;
    let mut times = Vec::new();
    start.wait();
    let deadline = Instant::now() + run;
    while Instant::now() < deadline {
        let legal = game.view["legal"].as_array().cloned().unwrap_or_default();
        if game.view["status"] != "playing" || legal.is_empty() {
            // Making a game is a write too, but not a move: it is left out of the figures.
            game = new_game(&mut c);
            continue;
        }
        n = n
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mv = legal[(n >> 33) as usize % legal.len()].clone();
        let path = format!("/api/games/{}/moves", game.id);
        let t = Instant::now();
        let (s, r) = c.post(&path, &json!({"move": mv, "secret": game.secret}));
        times.push(t.elapsed());
        assert_eq!(s, 200, "{r}");
        game.view = r["game"].clone();
    }
    times
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn main() {
    let clients: Vec<usize> = std::env::var("ANYWOLI_BENCH_CLIENTS")
        .unwrap_or_else(|_| "1,8,64".to_string())
        .split(',')
        .map(|s| {
            s.trim()
                .parse()
                .expect("ANYWOLI_BENCH_CLIENTS: numbers and commas")
        })
        .collect();
    let run = Duration::from_secs_f64(
        std::env::var("ANYWOLI_BENCH_SECONDS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(5.0),
    );
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    for &n in &clients {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("throughput-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let server = rt
            .block_on(start(&Config {
                addr: "127.0.0.1".to_string(),
                port: 0,
                db: dir.join("bench.sqlite"),
                think: Think::default(),
                // Every client is 127.0.0.1: the per-client caps would refuse most of them.
                limits: Limits {
                    max_connections_per_client: 0,
                    ..Limits::default()
                },
                rates: common::no_rates(),
                ..Config::default()
            }))
            .unwrap();
        let addr = server.addr;
        let barrier = Arc::new(Barrier::new(n + 1));
        let threads: Vec<_> = (0..n)
            .map(|i| {
                let barrier = barrier.clone();
                std::thread::spawn(move || client(addr, i as u64 + 1, &barrier, run))
            })
            .collect();
        barrier.wait();
        let t = Instant::now();
        let mut times: Vec<Duration> = threads
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect();
        let elapsed = t.elapsed();
        times.sort();
        println!(
            "throughput: {n:>3} clients: {:>6.0} moves/s ({} moves in {:.1} s), round trip median {:.2} ms, p99 {:.2} ms",
            times.len() as f64 / elapsed.as_secs_f64(),
            times.len(),
            elapsed.as_secs_f64(),
            percentile(&times, 0.5).as_secs_f64() * 1e3,
            percentile(&times, 0.99).as_secs_f64() * 1e3,
        );
        rt.block_on(server.stop());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
