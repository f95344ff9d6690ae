// The server on a real port: WebSocket events, and games that outlive the server.
// (Plain comments: `live_postgres.rs` includes this file.)

use std::path::PathBuf;
use std::time::Duration;

use anywoli_server::{start, Config, Think};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

fn config(db: PathBuf) -> Config {
    Config {
        addr: "127.0.0.1".to_string(),
        port: 0,
        db,
        think: Think {
            movetime: Duration::from_millis(200),
            hash_mib: 1,
        },
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
    }
}

// A new SQLite file here; `live_postgres.rs` defines a `fresh_db` of its own, which shadows
// this glob-imported one.
#[allow(unused_imports)]
use sqlite_db::*;
#[allow(dead_code)]
mod sqlite_db {
    use std::path::PathBuf;

    pub fn fresh_db(name: &str) -> PathBuf {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("live-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("games.sqlite")
    }
}

/// A minimal HTTP/1.1 client: one request per connection, JSON in and out.
async fn http(
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).await.unwrap();
    let text = String::from_utf8(buf).unwrap();
    let (head, rest) = text.split_once("\r\n\r\n").unwrap();
    let status: u16 = head.split(' ').nth(1).unwrap().parse().unwrap();
    // The server answers with Content-Length bodies or chunks; JSON bodies here are small
    // enough to come in one chunk.
    let json_text = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        let (_, r) = rest.split_once("\r\n").unwrap();
        r.rsplit_once("\r\n0\r\n")
            .map_or(r, |(a, _)| a)
            .trim_end()
            .to_string()
    } else {
        rest.to_string()
    };
    (
        status,
        serde_json::from_str(&json_text).unwrap_or(Value::Null),
    )
}

async fn next_json<S>(ws: &mut S) -> Value
where
    S: StreamExt<Item = Result<Message, tokio_tungstenite::tungstenite::Error>> + Unpin,
{
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

store_test! {
    #[tokio::test]
    async fn watchers_hear_every_move_and_reconnecting_resumes() {
        let server = start(&config(fresh_db("ws"))).await.unwrap();
        let addr = server.addr;
        let (s, v) = http(addr, "POST", "/api/games", Some(json!({"mode": "friend"}))).await;
        assert_eq!(s, 201, "{v}");
        let id = v["game"]["id"].as_str().unwrap().to_string();
        let south = v["secret"].as_str().unwrap().to_string();
        let (_, j) = http(
            addr,
            "POST",
            &format!("/api/games/{id}/join"),
            Some(json!({"invite": v["invite"]})),
        )
        .await;
        let north = j["secret"].as_str().unwrap().to_string();

        let url = format!("ws://{addr}/api/games/{id}/events");
        let (mut watcher, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
        let first = next_json(&mut watcher).await;
        assert_eq!(first["type"], "state");
        assert_eq!(first["game"]["ply"], 0);
        assert!(
            !first.to_string().contains(&south),
            "secrets are never sent to watchers"
        );

        let (s, _) = http(
            addr,
            "POST",
            &format!("/api/games/{id}/moves"),
            Some(json!({"move": "e", "secret": south})),
        )
        .await;
        assert_eq!(s, 200);
        let ev = next_json(&mut watcher).await;
        assert_eq!(ev["type"], "move");
        assert_eq!(ev["trace"]["move"], "e");
        assert_eq!(ev["game"]["ply"], 1);
        assert_eq!(ev["game"]["to_move"], "north");

        watcher
            .send(Message::Text(r#"{"type":"ping"}"#.into()))
            .await
            .unwrap();
        assert_eq!(next_json(&mut watcher).await["type"], "pong");

        // A watcher that lost its connection gets the whole state again on reconnecting.
        drop(watcher);
        http(
            addr,
            "POST",
            &format!("/api/games/{id}/moves"),
            Some(json!({"move": "F", "secret": north})),
        )
        .await;
        let (mut again, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
        let st = next_json(&mut again).await;
        assert_eq!(st["type"], "state");
        assert_eq!(st["game"]["moves"], json!(["e", "F"]));

        // A WebSocket for a game that does not exist is refused with the JSON error.
        let (s, e) = http(addr, "GET", "/api/games/abcdefghijkm/events", None).await;
        assert_eq!(s, 404);
        assert_eq!(e["error"], "unknown_game");
        server.stop().await;
    }
}

store_test! {
    #[tokio::test]
    async fn acknowledged_moves_survive_a_restart() {
        let db = fresh_db("restart");
        let server = start(&config(db.clone())).await.unwrap();
        let addr = server.addr;
        let (_, v) = http(addr, "POST", "/api/games", Some(json!({"mode": "local"}))).await;
        let id = v["game"]["id"].as_str().unwrap().to_string();
        let secret = v["secret"].as_str().unwrap().to_string();
        let mut played = Vec::new();
        let mut g = v["game"].clone();
        // Plays the first legal move each turn for twenty moves.
        for _ in 0..20 {
            let mv = g["legal"][0].as_str().unwrap().to_string();
            let (s, r) = http(
                addr,
                "POST",
                &format!("/api/games/{id}/moves"),
                Some(json!({"move": mv, "secret": secret})),
            )
            .await;
            assert_eq!(s, 200, "{r}");
            played.push(mv);
            g = r["game"].clone();
        }
        let position = g["position"].clone();
        server.stop().await;

        let server = start(&config(db)).await.unwrap();
        let (s, g) = http(server.addr, "GET", &format!("/api/games/{id}"), None).await;
        assert_eq!(s, 200);
        assert_eq!(g["moves"], json!(played));
        assert_eq!(g["position"], position);
        // The seat secret still holds the seats.
        let mv = g["legal"][0].as_str().unwrap();
        let (s, _) = http(
            server.addr,
            "POST",
            &format!("/api/games/{id}/moves"),
            Some(json!({"move": mv, "secret": secret})),
        )
        .await;
        assert_eq!(s, 200);
        server.stop().await;
    }
}

store_test! {
    #[tokio::test]
    async fn a_watcher_that_floods_the_socket_is_cut_off() {
        let server = start(&config(fresh_db("flood"))).await.unwrap();
        let addr = server.addr;
        let (_, v) = http(addr, "POST", "/api/games", Some(json!({"mode": "local"}))).await;
        let id = v["game"]["id"].as_str().unwrap().to_string();
        let url = format!("ws://{addr}/api/games/{id}/events");
        let (mut ws, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
        assert_eq!(next_json(&mut ws).await["type"], "state");
        // A few pings are answered, as the page's are.
        for _ in 0..3 {
            ws.send(Message::Text(r#"{"type":"ping"}"#.into()))
                .await
                .unwrap();
            assert_eq!(next_json(&mut ws).await["type"], "pong");
        }
        // A flood is not.
        for _ in 0..40 {
            if ws
                .send(Message::Text(r#"{"type":"ping"}"#.into()))
                .await
                .is_err()
            {
                break;
            }
        }
        let mut closed = false;
        for _ in 0..100 {
            match tokio::time::timeout(Duration::from_secs(10), ws.next()).await {
                Ok(Some(Ok(Message::Close(frame)))) => {
                    assert_eq!(frame.unwrap().reason.as_str(), "too many messages");
                    closed = true;
                    break;
                }
                Ok(Some(Ok(_))) => continue,
                Ok(None) | Ok(Some(Err(_))) => {
                    closed = true;
                    break;
                }
                Err(_) => break,
            }
        }
        assert!(closed, "the flooding socket was closed");
        // A message larger than the limit is refused too.
        let (mut ws, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
        next_json(&mut ws).await;
        let _ = ws.send(Message::Text("x".repeat(10_000).into())).await;
        let mut ended = false;
        for _ in 0..10 {
            match tokio::time::timeout(Duration::from_secs(10), ws.next()).await {
                Ok(Some(Ok(Message::Close(_)))) | Ok(None) | Ok(Some(Err(_))) => {
                    ended = true;
                    break;
                }
                Ok(Some(Ok(_))) => continue,
                Err(_) => break,
            }
        }
        assert!(ended, "an oversized message ends the socket");
        server.stop().await;
    }
}
