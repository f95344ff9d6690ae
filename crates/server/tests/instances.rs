//! Two server instances on one PostgreSQL database, in one process: a move through either
//! reaches the watchers of both, the database decides between two moves at the same ply, and
//! the engine's reply is played once although both instances have the game in memory. (The
//! `kill -9` of the instance that owes the engine's reply is in `crates/cli/tests/instances.rs`,
//! with real processes.) They are `#[ignore]`d for
//! PostgreSQL (`ANYWOLI_TEST_POSTGRES`).

use crate::support;

use std::time::Duration;

use anywoli_server::{start, Config, Server, Store, Think};
use futures_util::StreamExt;
use serde_json::{json, Value};
use support::http_json;
use tokio_tungstenite::tungstenite::Message;

fn config(db: &str) -> Config {
    Config {
        addr: "127.0.0.1".to_string(),
        port: 0,
        db: db.into(),
        think: Think {
            movetime: Duration::from_millis(200),
            hash_mib: 1,
        },
        rates: anywoli_server::RateLimits {
            games_per_minute: 0,
            hints_per_minute: 0,
            imports_per_minute: 0,
            logins_per_minute: 0,
        },
        ..Config::default()
    }
}

async fn two_instances(what: &str) -> (Server, Server) {
    let url = Store::test_postgres_url(what);
    let a = start(&config(&url)).await.unwrap();
    let b = start(&config(&url)).await.unwrap();
    (a, b)
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn watch(server: &Server, id: &str) -> Socket {
    let url = format!("ws://{}/api/games/{id}/events", server.addr);
    let (mut ws, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
    assert_eq!(next_event(&mut ws).await["type"], "state");
    ws
}

async fn next_event(ws: &mut Socket) -> Value {
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(30), ws.next())
            .await
            .expect("an event within 30 s")
            .expect("the socket is open")
            .unwrap();
        if let Message::Text(t) = msg {
            return serde_json::from_str(&t).unwrap();
        }
    }
}

/// The next event that is not the engine starting or stopping to think, nor a whole state:
/// an instance that hears of a change other than a move (the seat taken through the other
/// instance, say) after its watcher connected sends the state again.
async fn next_change(ws: &mut Socket) -> Value {
    loop {
        let ev = next_event(ws).await;
        if ev["type"] != "thinking" && ev["type"] != "state" {
            return ev;
        }
    }
}

async fn play(server: &Server, id: &str, mv: &str, secret: &str, ply: u64) -> (u16, Value) {
    http_json(
        server,
        "POST",
        &format!("/api/games/{id}/moves"),
        Some(json!({"move": mv, "secret": secret, "ply": ply})),
    )
    .await
}

async fn game(server: &Server, id: &str) -> Value {
    let (s, g) = http_json(server, "GET", &format!("/api/games/{id}"), None).await;
    assert_eq!(s, 200, "{g}");
    g
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL: ANYWOLI_TEST_POSTGRES"]
async fn a_move_through_one_instance_reaches_the_watchers_of_both() {
    let (a, b) = two_instances("a move through one instance reaches both").await;
    let (s, v) = http_json(&a, "POST", "/api/games", Some(json!({"mode": "friend"}))).await;
    assert_eq!(s, 201, "{v}");
    let id = v["game"]["id"].as_str().unwrap().to_string();
    let south = v["secret"].as_str().unwrap().to_string();
    // The friend joins through the other instance.
    let (s, j) = http_json(
        &b,
        "POST",
        &format!("/api/games/{id}/join"),
        Some(json!({"invite": v["invite"]})),
    )
    .await;
    assert_eq!(s, 200, "{j}");
    let north = j["secret"].as_str().unwrap().to_string();
    let mut on_a = watch(&a, &id).await;
    let mut on_b = watch(&b, &id).await;

    // South plays through A: B's watcher sees the move itself, with its trace to animate.
    let (s, r) = play(&a, &id, "e", &south, 0).await;
    assert_eq!(s, 200, "{r}");
    for ws in [&mut on_a, &mut on_b] {
        let ev = next_change(ws).await;
        assert_eq!(ev["type"], "move", "{ev}");
        assert_eq!(ev["trace"]["move"], "e");
        assert_eq!(ev["game"]["ply"], 1);
    }

    // North answers through B at once, with the seat it took through B; A's watcher hears it.
    let reply = r["game"]["legal"][0].as_str().unwrap().to_string();
    let (s, r) = play(&b, &id, &reply, &north, 1).await;
    assert_eq!(s, 200, "{r}");
    for ws in [&mut on_a, &mut on_b] {
        let ev = next_change(ws).await;
        assert_eq!(
            (ev["type"].as_str(), ev["game"]["ply"].as_u64()),
            (Some("move"), Some(2))
        );
    }

    // Two moves at the same ply, one through each instance: the database stores one, the
    // other is answered `stale`, and both instances then show the same game.
    let legal: Vec<String> = serde_json::from_value(r["game"]["legal"].clone()).unwrap();
    let second = legal.last().unwrap().clone();
    let (ra, rb) = tokio::join!(
        play(&a, &id, &legal[0], &south, 2),
        play(&b, &id, &second, &south, 2)
    );
    let mut statuses = [ra.0, rb.0];
    statuses.sort_unstable();
    assert_eq!(statuses, [200, 409], "{} / {}", ra.1, rb.1);
    let refused = if ra.0 == 409 { &ra.1 } else { &rb.1 };
    assert_eq!(refused["error"], "stale", "{refused}");
    for ws in [&mut on_a, &mut on_b] {
        let ev = next_change(ws).await;
        assert_eq!(
            (ev["type"].as_str(), ev["game"]["ply"].as_u64()),
            (Some("move"), Some(3))
        );
    }
    let (ga, gb) = (game(&a, &id).await, game(&b, &id).await);
    assert_eq!(ga["moves"], gb["moves"]);
    assert_eq!(ga["moves"].as_array().unwrap().len(), 3);
    assert_eq!(
        ga["version"], gb["version"],
        "a state has one version whichever instance shows it"
    );
    a.stop().await;
    b.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL: ANYWOLI_TEST_POSTGRES"]
async fn the_engine_replies_once_though_both_instances_watch() {
    let (a, b) = two_instances("the engine replies once").await;
    let (s, v) = http_json(
        &a,
        "POST",
        "/api/games",
        Some(json!({"mode": "computer", "level": 3, "side": "south"})),
    )
    .await;
    assert_eq!(s, 201, "{v}");
    let id = v["game"]["id"].as_str().unwrap().to_string();
    let secret = v["secret"].as_str().unwrap().to_string();
    let mut on_a = watch(&a, &id).await;
    let mut on_b = watch(&b, &id).await;
    for turn in 0..4 {
        // The person moves through either instance; whichever stored the move owes the reply.
        let (server, g) = if turn % 2 == 0 {
            (&b, game(&b, &id).await)
        } else {
            (&a, game(&a, &id).await)
        };
        if g["status"] != "playing" {
            break;
        }
        let mv = g["legal"][0].as_str().unwrap().to_string();
        let (s, r) = play(server, &id, &mv, &secret, g["ply"].as_u64().unwrap()).await;
        assert_eq!(s, 200, "{r}");
        // Both watchers see every move until the person's turn comes back: each move once.
        let mut seen = [Vec::new(), Vec::new()];
        for (k, ws) in [&mut on_a, &mut on_b].into_iter().enumerate() {
            loop {
                let ev = next_change(ws).await;
                assert_eq!(ev["type"], "move", "{ev}");
                seen[k].push(ev["game"]["ply"].as_u64().unwrap());
                if ev["game"]["to_move"] == "south" || ev["game"]["status"] != "playing" {
                    break;
                }
            }
        }
        assert_eq!(seen[0], seen[1]);
        let first = seen[0][0];
        let want: Vec<u64> = (first..first + seen[0].len() as u64).collect();
        assert_eq!(seen[0], want, "every ply once, in order");
    }
    let (ga, gb) = (game(&a, &id).await, game(&b, &id).await);
    assert_eq!(ga["moves"], gb["moves"]);
    assert!(ga["moves"].as_array().unwrap().len() >= 8);
    a.stop().await;
    b.stop().await;
}
