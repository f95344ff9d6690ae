// Clients that hang up at any moment leave no game half-changed (issue 10, finding 1): a
// request is sent and its connection closed after a random wait, at every kind of change
// (move, take-back, join, resign, rematch, import); then the game in memory (the API's answer)
// must equal the game in the database, the stored moves must replay with `anywoli_core` to
// the stored position, and the next move must work.
//
// Before rounds (crate::round), a dropped request could leave the database changed and the
// memory not: 14 failures in 64 tries.
//
// (Plain comments: `hangups_postgres.rs` includes this file.)

use std::time::Duration;

use anywoli_server::round::game::Game;
use anywoli_server::{start, Config, RateLimits, Server, Store, Think};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

// A new SQLite file here; `hangups_postgres.rs` defines a `fresh_db` of its own, which
// shadows this glob-imported one.
#[allow(unused_imports)]
use sqlite_db::*;
#[allow(dead_code)]
mod sqlite_db {
    use std::path::PathBuf;

    pub fn fresh_db(name: &str) -> PathBuf {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("hangups-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("games.sqlite")
    }
}

fn request(method: &str, path: &str, body: &Value) -> Vec<u8> {
    let body = body.to_string();
    format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

async fn call(server: &Server, method: &str, path: &str, body: Value) -> (u16, Value) {
    let mut s = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    s.write_all(&request(method, path, &body)).await.unwrap();
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).await.unwrap();
    let text = String::from_utf8_lossy(&buf);
    let (head, rest) = text.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, serde_json::from_str(rest).unwrap_or(Value::Null))
}

/// Sends the request, waits `micros`, and hangs up without reading the answer.
async fn hang_up(server: &Server, method: &str, path: &str, body: Value, micros: u64) {
    let mut s = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    s.write_all(&request(method, path, &body)).await.unwrap();
    if micros > 0 {
        tokio::time::sleep(Duration::from_micros(micros)).await;
    }
    // Reset rather than close politely, as a dropped connection looks to the server. (The
    // deprecation warns that a non-zero linger blocks on drop; a zero one resets at once.)
    #[allow(deprecated)]
    let _ = s.set_linger(Some(Duration::ZERO));
    drop(s);
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Memory (the API) and the database agree about game `id`, its moves replay, and if it goes
/// on, the player to move can move. Returns the game as the API shows it.
async fn consistent(server: &Server, store: &Store, id: &str, secret: Option<&str>) -> Value {
    // Let the round finish what the dropped request started.
    let mut memory = Value::Null;
    for _ in 0..200 {
        let (s, g) = call(server, "GET", &format!("/api/games/{id}"), json!(null)).await;
        assert_eq!(s, 200, "{g}");
        memory = g;
        if memory["thinking"] == false {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // The store blocks (PostgreSQL's client runs a runtime of its own): not on this one.
    let (row, moves) = tokio::task::block_in_place(|| store.load(id))
        .unwrap()
        .expect("the game is stored");
    let stored = Game::from_row(row, &moves).expect("the stored moves replay");
    assert_eq!(
        memory["moves"],
        json!(moves),
        "memory and database hold the same moves"
    );
    assert_eq!(memory["position"], json!(stored.pos.to_string()));
    let (status, result, termination) = stored.status_columns();
    assert_eq!(memory["status"], status);
    assert_eq!(memory["result"], result);
    assert_eq!(memory["termination"], json!(termination));
    assert_eq!(memory["rematch"], json!(stored.rematch));
    assert_eq!(
        memory["seats"]["north"]["taken"],
        json!(stored.to_row().secrets[1].is_some())
    );
    if let (Some(secret), "playing") = (secret, memory["status"].as_str().unwrap()) {
        if memory["seats"][memory["to_move"].as_str().unwrap()]["kind"] == "human" {
            let mv = memory["legal"][0].as_str().unwrap();
            let (s, r) = call(
                server,
                "POST",
                &format!("/api/games/{id}/moves"),
                json!({"move": mv, "secret": secret, "ply": memory["ply"]}),
            )
            .await;
            assert!(
                s == 200 || (s == 409 && r["error"] == "not_your_turn"),
                "the next move works: {s} {r}"
            );
            let (_, after) = call(server, "GET", &format!("/api/games/{id}"), json!(null)).await;
            return after;
        }
    }
    memory
}

store_test! {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn hanging_up_at_any_moment_changes_nothing_or_everything() {
        let db = fresh_db("all");
        let server = start(&Config {
            addr: "127.0.0.1".to_string(),
            port: 0,
            db: db.clone(),
            think: Think {
                movetime: Duration::from_millis(50),
                hash_mib: 1,
            },
            // One client makes hundreds of games here.
            rates: RateLimits {
                games_per_minute: 0,
                hints_per_minute: 0,
                imports_per_minute: 0,
                logins_per_minute: 0,
            },
            ..Config::default()
        })
        .await
        .unwrap();
        let store = Store::open_db(&db).unwrap();
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut tries = 0;

        // Moves and take-backs in one game on one screen, and a game against the computer.
        for mode in ["local", "computer"] {
            let (_, v) = call(
                &server,
                "POST",
                "/api/games",
                json!({"mode": mode, "level": if mode == "computer" { json!(1) } else { json!(null) }}),
            )
            .await;
            let id = v["game"]["id"].as_str().unwrap().to_string();
            let secret = v["secret"].as_str().unwrap().to_string();
            let mut game = v["game"].clone();
            for i in 0..60 {
                let wait = rng.next() % 3000;
                if game["status"] != "playing" {
                    break;
                }
                if i % 3 == 2 {
                    hang_up(
                        &server,
                        "POST",
                        &format!("/api/games/{id}/takeback"),
                        json!({"secret": secret}),
                        wait,
                    )
                    .await;
                } else {
                    let legal = game["legal"].as_array().unwrap();
                    if legal.is_empty() {
                        tokio::time::sleep(Duration::from_millis(20)).await;
                    } else {
                        let mv = &legal[(rng.next() as usize) % legal.len()];
                        hang_up(
                            &server,
                            "POST",
                            &format!("/api/games/{id}/moves"),
                            json!({"move": mv, "secret": secret}),
                            wait,
                        )
                        .await;
                    }
                }
                tries += 1;
                game = consistent(&server, &store, &id, Some(&secret)).await;
            }
        }

        // Joining, resigning and rematches: a fresh friend game each time.
        for i in 0..50 {
            let (_, v) = call(&server, "POST", "/api/games", json!({"mode": "friend"})).await;
            let id = v["game"]["id"].as_str().unwrap().to_string();
            let south = v["secret"].as_str().unwrap().to_string();
            let invite = v["invite"].clone();
            hang_up(
                &server,
                "POST",
                &format!("/api/games/{id}/join"),
                json!({"invite": invite}),
                rng.next() % 3000,
            )
            .await;
            tries += 1;
            consistent(&server, &store, &id, Some(&south)).await;
            hang_up(
                &server,
                "POST",
                &format!("/api/games/{id}/resign"),
                json!({"secret": south}),
                rng.next() % 3000,
            )
            .await;
            tries += 1;
            let g = consistent(&server, &store, &id, None).await;
            if g["status"] == "over" && i % 2 == 0 {
                hang_up(
                    &server,
                    "POST",
                    &format!("/api/games/{id}/rematch"),
                    json!({"secret": south}),
                    rng.next() % 3000,
                )
                .await;
                tries += 1;
                let g = consistent(&server, &store, &id, None).await;
                if let Some(next) = g["rematch"].as_str() {
                    consistent(&server, &store, next, Some(&south)).await;
                }
            }
        }

        // Imports: a game is stored whole or not at all.
        let record = "[Rules \"anywoli\"]\n\ne F a C *\n";
        for _ in 0..40 {
            hang_up(
                &server,
                "POST",
                "/api/import",
                json!({"record": record}),
                rng.next() % 3000,
            )
            .await;
            tries += 1;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        let (_, list) = call(&server, "GET", "/api/games?limit=200", json!(null)).await;
        for g in list["games"].as_array().unwrap() {
            let id = g["id"].as_str().unwrap();
            let (row, moves) = tokio::task::block_in_place(|| store.load(id))
                .unwrap()
                .unwrap();
            Game::from_row(row, &moves).expect("every stored game replays");
        }
        assert!(tries >= 200, "{tries} tries");
        server.stop().await;
    }
}
