//! What a move's round trip costs: a client on loopback sends `POST /api/games/{id}/moves` and
//! waits for the answer, which the server gives only once the move is checked, stored in
//! SQLite (WAL, synchronous=FULL, so one fsync per move) and announced. Prints the median and
//! the 99th percentile over `ANYWOLI_BENCH_MOVES` moves (500 by default).
//!
//! `cargo bench -p anywoli-server --bench roundtrip`

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anywoli_server::{start, Config, Think};
use serde_json::{json, Value};

/// One keep-alive HTTP/1.1 connection.
struct Conn {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Conn {
    fn open(addr: std::net::SocketAddr) -> Conn {
        let s = TcpStream::connect(addr).unwrap();
        s.set_nodelay(true).unwrap();
        Conn {
            reader: BufReader::new(s.try_clone().unwrap()),
            writer: s,
        }
    }

    fn post(&mut self, path: &str, body: &Value) -> (u16, Value) {
        let body = body.to_string();
        write!(
            self.writer,
            "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut status = 0;
        let mut length = 0;
        let mut line = String::new();
        loop {
            line.clear();
            self.reader.read_line(&mut line).unwrap();
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            if let Some(rest) = l.strip_prefix("HTTP/1.1 ") {
                status = rest[..3].parse().unwrap();
            } else if let Some((k, v)) = l.split_once(':') {
                if k.eq_ignore_ascii_case("content-length") {
                    length = v.trim().parse().unwrap();
                }
            }
        }
        let mut buf = vec![0; length];
        self.reader.read_exact(&mut buf).unwrap();
        (status, serde_json::from_slice(&buf).unwrap_or(Value::Null))
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn main() {
    let moves: usize = std::env::var("ANYWOLI_BENCH_MOVES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(500);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("roundtrip-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let server = rt
        .block_on(start(&Config {
            addr: "127.0.0.1".to_string(),
            port: 0,
            db: dir.join("bench.sqlite"),
            think: Think::default(),
            public_url: None,
            limits: Default::default(),
            rates: anywoli_server::RateLimits {
                games_per_minute: 0,
                hints_per_minute: 0,
                imports_per_minute: 0,
                logins_per_minute: 0,
            },
            allowed_hosts: Vec::new(),
            engine_lease: anywoli_server::round::ENGINE_LEASE,
            ..Config::default()
        }))
        .unwrap();
    let mut conn = Conn::open(server.addr);
    let mut times = Vec::with_capacity(moves);
    let mut game: Option<(String, String, Value)> = None;
    let mut n = 0u64;
    while times.len() < moves {
        let (id, secret, view) = match game.take() {
            Some(g) => g,
            None => {
                // Games on one screen: both seats are the client's, so no engine runs and the
                // figure is the server's own cost.
                let (s, v) = conn.post("/api/games", &json!({"mode": "local"}));
                assert_eq!(s, 201, "{v}");
                (
                    v["game"]["id"].as_str().unwrap().to_string(),
                    v["secret"].as_str().unwrap().to_string(),
                    v["game"].clone(),
                )
            }
        };
        let legal = view["legal"].as_array().unwrap();
        if legal.is_empty() {
            continue;
        }
        // A fixed pseudo-random choice, so that runs play the same games.
        n = n
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mv = legal[(n >> 33) as usize % legal.len()].clone();
        let path = format!("/api/games/{id}/moves");
        let t = Instant::now();
        let (s, r) = conn.post(&path, &json!({"move": mv, "secret": secret}));
        times.push(t.elapsed());
        assert_eq!(s, 200, "{r}");
        if r["game"]["status"] == "playing" {
            game = Some((id, secret, r["game"].clone()));
        }
    }
    times.sort();
    let mean = times.iter().sum::<Duration>() / times.len() as u32;
    println!(
        "move round trip over {} moves (loopback HTTP/1.1 keep-alive, SQLite WAL synchronous=FULL): median {:.2} ms, p99 {:.2} ms, mean {:.2} ms, max {:.2} ms",
        times.len(),
        percentile(&times, 0.5).as_secs_f64() * 1e3,
        percentile(&times, 0.99).as_secs_f64() * 1e3,
        mean.as_secs_f64() * 1e3,
        times[times.len() - 1].as_secs_f64() * 1e3,
    );
    rt.block_on(server.stop());
    let _ = std::fs::remove_dir_all(&dir);
}
