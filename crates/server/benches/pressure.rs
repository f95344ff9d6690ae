//! The server under the pressures of issue 10, measured (not asserted: the machines are shared):
//! 1. memory while 100,000 stored games are read one after another (`GET /api/games/{id}`):
//!    the process's resident memory every 10,000 reads;
//! 2. a level-1 computer's reply while 20 clients keep asking for hints: the time from a
//!    player's move to the engine's stored reply, median of 20 moves.
//!
//! `cargo bench -p anywoli-server --bench pressure` (add `-- --games N` for fewer games, and
//! `--rest SECS`, 120 by default, for how long to watch the memory fall back afterwards).

mod common;
use common::rss_kib;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anywoli_core::{Position, Rules};
use anywoli_server::{start, Config, Store, Think};
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

    fn call(&mut self, method: &str, path: &str, body: Option<&Value>) -> (u16, Value) {
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        let req = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
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

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("anywoli-pressure-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn config(db: PathBuf, movetime: Duration) -> Config {
    Config {
        addr: "127.0.0.1".into(),
        port: 0,
        db,
        think: Think {
            movetime,
            hash_mib: 16,
        },
        rates: common::no_rates(),
        ..Config::default()
    }
}

/// Stores `n` games of 20 moves each straight into the database (fast: one transaction).
fn fill(db: &PathBuf, n: usize) -> Vec<String> {
    drop(Store::open(db).unwrap());
    let c = rusqlite::Connection::open(db).unwrap();
    c.execute_batch("PRAGMA synchronous=OFF;").unwrap();
    let mut pos = Position::start(Rules::Anywoli);
    let mut moves = Vec::new();
    while moves.len() < 20 {
        let mv = pos.moves().next().unwrap();
        pos.play(mv).unwrap();
        moves.push(mv.to_string());
    }
    let start = Position::start(Rules::Anywoli).to_string();
    let ids: Vec<String> = (0..n)
        .map(|i| {
            let mut id = String::new();
            let mut k = i;
            for _ in 0..12 {
                id.push(b"abcdefghijkmnpqrstuvwxyz23456789"[k % 32] as char);
                k /= 32;
            }
            id
        })
        .collect();
    let tx = c.unchecked_transaction().unwrap();
    {
        let mut g = tx
            .prepare(
                "INSERT INTO games (id, created, updated, mode, rules, seed, start, south, north,
                    south_secret, north_secret, status, result, termination, rematch, tags, hints)
                 VALUES (?1, 0, 0, 'local', 'anywoli', '0', ?2, 'human', 'human', 's', 's',
                    'playing', '*', NULL, NULL, '[]', 1)",
            )
            .unwrap();
        let mut m = tx
            .prepare("INSERT INTO moves (game, ply, mv, at) VALUES (?1, ?2, ?3, 0)")
            .unwrap();
        for id in &ids {
            g.execute(rusqlite::params![id, start]).unwrap();
            for (p, mv) in moves.iter().enumerate() {
                m.execute(rusqlite::params![id, p as i64 + 1, mv]).unwrap();
            }
        }
    }
    tx.commit().unwrap();
    ids
}

fn memory(rt: &tokio::runtime::Runtime, games: usize, rest: u64) {
    let dir = scratch("memory");
    let db = dir.join("games.sqlite");
    let t = Instant::now();
    let ids = fill(&db, games);
    eprintln!("stored {games} games in {:.1} s", t.elapsed().as_secs_f64());
    let server = rt
        .block_on(start(&config(db, Duration::from_millis(100))))
        .unwrap();
    let mut conn = Conn::open(server.addr);
    println!("memory: reads, resident KiB");
    println!("memory: 0, {}", rss_kib());
    let t = Instant::now();
    for (i, id) in ids.iter().enumerate() {
        let (s, _) = conn.call("GET", &format!("/api/games/{id}"), None);
        assert_eq!(s, 200);
        if (i + 1) % (games / 10).max(1) == 0 {
            println!("memory: {}, {}", i + 1, rss_kib());
        }
    }
    println!(
        "memory: {games} reads in {:.1} s ({:.0} reads/s)",
        t.elapsed().as_secs_f64(),
        games as f64 / t.elapsed().as_secs_f64()
    );
    // The rounds rest after a minute with nothing to do, and the server gives the memory
    // back once many have (crate::memory): the resident memory as it falls back.
    if rest > 0 {
        for waited in (10..=rest).step_by(10) {
            std::thread::sleep(Duration::from_secs(10));
            println!("memory: {waited} s after the reads, {} KiB", rss_kib());
        }
    }
    rt.block_on(server.stop());
    let _ = std::fs::remove_dir_all(dir);
}

/// Memory of games in play: `games` local games made over the API (each a round in memory
/// until it rests a minute later), then watched fall back as they rest.
fn live(rt: &tokio::runtime::Runtime, games: usize, rest: u64) {
    let dir = scratch("live");
    let server = rt
        .block_on(start(&config(
            dir.join("games.sqlite"),
            Duration::from_millis(100),
        )))
        .unwrap();
    let before = rss_kib();
    println!("live: 0 games in play, {before} KiB");
    let t = Instant::now();
    let workers = 4;
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                let mut conn = Conn::open(server.addr);
                for _ in 0..games / workers {
                    let (status, v) =
                        conn.call("POST", "/api/games", Some(&json!({"mode": "local"})));
                    assert_eq!(status, 201, "{v}");
                }
            });
        }
    });
    let peak = rss_kib();
    let made = games / workers * workers;
    println!(
        "live: {made} games in play after {:.1} s, {peak} KiB: {:.1} KiB a game",
        t.elapsed().as_secs_f64(),
        (peak.saturating_sub(before)) as f64 / made as f64
    );
    for waited in (10..=rest).step_by(10) {
        std::thread::sleep(Duration::from_secs(10));
        println!("live: {waited} s later, {} KiB", rss_kib());
    }
    rt.block_on(server.stop());
    let _ = std::fs::remove_dir_all(dir);
}

fn hints(rt: &tokio::runtime::Runtime) {
    let dir = scratch("hints");
    // The web app's own thinking time for hints.
    let server = rt
        .block_on(start(&config(
            dir.join("games.sqlite"),
            Think::default().movetime,
        )))
        .unwrap();
    let addr = server.addr;
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut askers = Vec::new();
    let refused = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let answered = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    for _ in 0..20 {
        let (stop, refused, answered) = (stop.clone(), refused.clone(), answered.clone());
        askers.push(std::thread::spawn(move || {
            let mut c = Conn::open(addr);
            let (_, v) = c.call("POST", "/api/games", Some(&json!({"mode": "local"})));
            let id = v["game"]["id"].as_str().unwrap().to_string();
            let secret = v["secret"].clone();
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let (s, _) = c.call(
                    "POST",
                    &format!("/api/games/{id}/hint"),
                    Some(&json!({ "secret": secret })),
                );
                if s == 503 {
                    refused.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    std::thread::sleep(Duration::from_millis(200));
                } else {
                    answered.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
            }
        }));
    }
    std::thread::sleep(Duration::from_secs(2));
    let mut c = Conn::open(addr);
    let mut times = Vec::new();
    for _ in 0..20 {
        let (_, v) = c.call(
            "POST",
            "/api/games",
            Some(&json!({"mode": "computer", "level": 1})),
        );
        let id = v["game"]["id"].as_str().unwrap().to_string();
        let secret = v["secret"].clone();
        let t = Instant::now();
        let (s, _) = c.call(
            "POST",
            &format!("/api/games/{id}/moves"),
            Some(&json!({"move": "e", "secret": secret})),
        );
        assert_eq!(s, 200);
        loop {
            let (_, g) = c.call("GET", &format!("/api/games/{id}"), None);
            if g["ply"].as_u64().unwrap_or(0) >= 2 || g["status"] == "over" {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        times.push(t.elapsed());
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for a in askers {
        let _ = a.join();
    }
    times.sort();
    println!(
        "hints: level-1 reply with 20 clients asking for hints: median {:.0} ms, max {:.0} ms ({} hints answered, {} refused with 503)",
        times[times.len() / 2].as_secs_f64() * 1000.0,
        times[times.len() - 1].as_secs_f64() * 1000.0,
        answered.load(std::sync::atomic::Ordering::Relaxed),
        refused.load(std::sync::atomic::Ordering::Relaxed),
    );
    rt.block_on(server.stop());
    let _ = std::fs::remove_dir_all(dir);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let games = args
        .iter()
        .position(|a| a == "--games")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(100_000);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let rest = args
        .iter()
        .position(|a| a == "--rest")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(120);
    memory(&rt, games, rest.min(20));
    live(&rt, games, rest);
    hints(&rt);
}
