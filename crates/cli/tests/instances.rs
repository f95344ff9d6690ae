//! Two `anywoli serve` processes on one PostgreSQL database, and a `kill -9` of the one that
//! owes the engine's reply: the other plays it, for a game watched through it and for a game
//! nobody watches. It is `#[ignore]`d for PostgreSQL
//! (`ANYWOLI_TEST_POSTGRES`).

use crate::support;

use std::net::TcpStream;
use std::process::Child;
use std::time::{Duration, Instant};

use anywoli_server::Store;
use serde_json::{json, Value};
use support::{address, http, scratch, spawn};
use tungstenite::{Message, WebSocket};

/// Kills the servers when the test ends, whatever way it ends.
struct Servers(Vec<Child>);

impl Drop for Servers {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn next_event(ws: &mut WebSocket<TcpStream>) -> Value {
    loop {
        match ws.read().expect("the watcher's socket stays open") {
            Message::Text(t) => return serde_json::from_str(&t).unwrap(),
            Message::Close(_) => panic!("the server closed the watcher's socket"),
            _ => {}
        }
    }
}

/// A counter of the server's `/metrics`.
fn counter(addr: &str, name: &str) -> u64 {
    use std::io::{Read, Write};
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET /metrics HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {name} in /metrics"))
}

fn game(addr: &str, id: &str) -> Value {
    let (s, g) = http(addr, "GET", &format!("/api/games/{id}"), None);
    assert_eq!(s, 200, "{g}");
    g
}

/// The position after `k A` with its counters at 0: outside level 10's opening book, so level 10
/// searches for its whole movetime here (from the start it answers from the book at once), and
/// no reply of North to `e` or `a` gives it an extra move: the reply is one ply.
const OUT_OF_BOOK: &str = "1,6,6,6,6,1,5,5,5,5,1,5/0,6,1,6,6,0,6,1,6,6,6,0 s 0 0 - - 0 0";

/// A new game against level 10 (a 1.5 s search: time to kill its instance mid-search), and
/// the person's first move: the instance that stored it owes the reply.
fn game_with_reply_owed(addr: &str) -> String {
    let (s, v) = http(
        addr,
        "POST",
        "/api/games",
        Some(json!({"mode": "computer", "level": 10, "side": "south", "position": OUT_OF_BOOK})),
    );
    assert_eq!(s, 201, "{v}");
    let id = v["game"]["id"].as_str().unwrap().to_string();
    let (s, r) = http(
        addr,
        "POST",
        &format!("/api/games/{id}/moves"),
        Some(json!({"move": "e", "secret": v["secret"], "ply": 0})),
    );
    assert_eq!(s, 200, "{r}");
    id
}

#[test]
#[ignore = "needs PostgreSQL: ANYWOLI_TEST_POSTGRES"]
fn the_other_instance_plays_the_reply_a_killed_one_owed() {
    let _alone = support::one_failover_at_a_time();
    let url = Store::test_postgres_url("kill -9 of the instance owing the engine's reply");
    let dir = scratch("instances");
    let serve = || {
        let (child, line) = spawn(
            &[
                "serve",
                "--port",
                "0",
                "--db",
                &url,
                "--engine-lease",
                "2",
                "--games-per-minute",
                "0",
            ],
            &dir,
        );
        (child, address(&line))
    };
    let (a, a_addr) = serve();
    let (b, b_addr) = serve();
    let mut servers = Servers(vec![a, b]);

    let watched = {
        let (s, v) = http(
            &a_addr,
            "POST",
            "/api/games",
            Some(
                json!({"mode": "computer", "level": 10, "side": "south", "position": OUT_OF_BOOK}),
            ),
        );
        assert_eq!(s, 201, "{v}");
        (
            v["game"]["id"].as_str().unwrap().to_string(),
            v["secret"].clone(),
        )
    };
    let stream = TcpStream::connect(&b_addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let url_b = format!("ws://{b_addr}/api/games/{}/events", watched.0);
    let (mut on_b, _) = tungstenite::client(url_b.as_str(), stream).unwrap();
    assert_eq!(next_event(&mut on_b)["type"], "state");
    let (s, r) = http(
        &a_addr,
        "POST",
        &format!("/api/games/{}/moves", watched.0),
        Some(json!({"move": "e", "secret": watched.1, "ply": 0})),
    );
    assert_eq!(s, 200, "{r}");
    let unwatched = game_with_reply_owed(&a_addr);

    // A dies in the middle of both searches.
    servers.0[0].kill().unwrap();
    servers.0[0].wait().unwrap();

    // The watcher on B sees the person's move, then the engine's, played by B.
    let mut ply = 0;
    while ply < 2 {
        let ev = next_event(&mut on_b);
        if ev["type"] == "move" {
            ply = ev["game"]["ply"].as_u64().unwrap();
        }
    }
    let g = game(&b_addr, &watched.0);
    assert_eq!(g["to_move"], "south", "{g}");

    // The game nobody watches is found by B's look for claims that ran out.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let g = game(&b_addr, &unwatched);
        if g["ply"].as_u64().unwrap() >= 2 {
            assert!(g["to_move"] == "south" || g["status"] == "over", "{g}");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "B never played the reply A owed: {g}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(
        counter(&b_addr, "anywoli_engine_takeovers_total"),
        2,
        "B took both turns over from A"
    );
    assert!(counter(&b_addr, "anywoli_games_caught_up_total") >= 1);
}
