// TV on a real port (docs/api.md, "TV"): the best live game between people, its events, and
// the next game announced within 2 s of the end. (Plain comments: `tv_postgres.rs` includes
// this file.)

use std::time::{Duration, Instant};

use anywoli_server::start;
use futures_util::StreamExt;
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

use crate::lobby::config;
use crate::support::{http_json, public_game};

// A new SQLite file here; `tv_postgres.rs` defines a `fresh_db` of its own, which shadows this
// glob-imported one.
#[allow(unused_imports)]
use sqlite_db::*;
#[allow(dead_code)]
mod sqlite_db {
    pub fn fresh_db(name: &str) -> std::path::PathBuf {
        crate::support::sqlite_db(&format!("tv-{name}"))
    }
}

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn next(ws: &mut Ws) -> Value {
    loop {
        let m = tokio::time::timeout(Duration::from_secs(30), ws.next())
            .await
            .expect("a TV message in time")
            .expect("the socket is open")
            .unwrap();
        if let Message::Text(t) = m {
            return serde_json::from_str(&t).unwrap();
        }
    }
}

store_test! {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn tv_follows_on_to_the_next_game_within_two_seconds() {
        let server = start(&config(fresh_db("follows-on"))).await.unwrap();
        let (s, v) = http_json(&server, "GET", "/api/tv", None).await;
        assert_eq!((s, &v), (200, &json!({"game": null})));
        let (first, _) = public_game(&server, json!({"mode": "friend"})).await;
        tokio::time::sleep(Duration::from_millis(5)).await;
        let (second, secret) = public_game(&server, json!({"mode": "friend"})).await;
        // Later games that are no show: against the computer, and one on a single screen.
        for mode in ["computer", "local"] {
            let (s, v) = http_json(&server, "POST", "/api/games", Some(json!({"mode": mode}))).await;
            assert_eq!(s, 201, "{v}");
        }
        let (s, v) = http_json(&server, "GET", "/api/tv", None).await;
        assert_eq!((s, &v["game"]), (200, &json!(second)), "the most recent between people: {v}");

        let url = format!("ws://{}/api/tv/events", server.addr);
        let (mut ws, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
        assert_eq!(next(&mut ws).await, json!({"type": "tv", "game": second}));
        let state = next(&mut ws).await;
        assert_eq!((&state["type"], &state["game"]["id"]), (&json!("state"), &json!(second)));

        let resign = format!("/api/games/{second}/resign");
        let (s, r) = http_json(&server, "POST", &resign, Some(json!({"secret": secret}))).await;
        assert_eq!(s, 200, "{r}");
        let ended = Instant::now();
        loop {
            let m = next(&mut ws).await;
            if m["type"] == "tv" {
                assert_eq!(m["game"], json!(first), "{m}");
                break;
            }
            assert_eq!(m["game"]["id"], json!(second), "the end of the game on TV: {m}");
        }
        let took = ended.elapsed();
        assert!(took < Duration::from_secs(2), "the next game after {took:?}");
        let state = next(&mut ws).await;
        assert_eq!((&state["type"], &state["game"]["id"]), (&json!("state"), &json!(first)));

        server.stop().await;
    }
}

/// Waits on a lobby socket for a message of `kind`, passing others by.
async fn lobby_heard(ws: &mut crate::lobby::Ws, kind: &str) -> Value {
    loop {
        let m = crate::lobby::next(ws).await;
        if m["type"] == kind {
            return m;
        }
    }
}

store_test! {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_rated_game_between_accounts_goes_before_casual_ones() {
        use crate::lobby::{lobby, send, signup};
        let server = start(&config(fresh_db("rated-first"))).await.unwrap();
        let (a, b) = (signup(server.addr, "Abula").await, signup(server.addr, "Kofi").await);
        let (mut wa, _) = lobby(server.addr, Some(&a)).await;
        let (mut wb, _) = lobby(server.addr, Some(&b)).await;
        send(&mut wa, json!({"type": "seek", "clock": "3+2", "rated": true})).await;
        let seek = lobby_heard(&mut wa, "seeking").await["id"].clone();
        send(&mut wb, json!({"type": "accept", "id": seek})).await;
        let rated = lobby_heard(&mut wb, "started").await["game"].clone();
        // A casual game between people, made later.
        let (casual, _) = public_game(&server, json!({"mode": "friend"})).await;
        let (s, v) = http_json(&server, "GET", "/api/tv", None).await;
        assert_eq!((s, &v["game"]), (200, &rated), "not the casual {casual}: {v}");
        drop((wa, wb));
        server.stop().await;
    }
}
