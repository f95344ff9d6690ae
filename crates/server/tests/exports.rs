// `GET /api/games/user/{name}`: a player's finished games as records or NDJSON, newest first,
// with their filters, its limits, and its refusals; and `GET /api/explorer`, the counts kept
// as those games end.

use anywoli_core::{BySide, Position, Rules};
use anywoli_server::rating::GameRatings;
use anywoli_server::round::clock::TimeControl;
use anywoli_server::round::game::{Game, Mode, NewGame, People, Player};
use anywoli_server::round::Command;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::chat::socket::{start_with, Srv};

// The store every test starts with: SQLite in memory here; `exports_postgres.rs` defines a
// `fresh_store` of its own, which shadows this glob-imported one.
#[allow(unused_imports)]
use sqlite_store::*;
#[allow(dead_code)]
mod sqlite_store {
    pub fn fresh_store() -> anywoli_server::Store {
        anywoli_server::Store::in_memory().unwrap()
    }
}

/// A game of `south` against `north`, `moves` played then resigned by North (or, with no
/// moves, aborted): its id.
async fn finished(
    srv: &Srv,
    south: &str,
    north: &str,
    clock: &str,
    rated: bool,
    moves: &[&str],
) -> String {
    let id = anywoli_server::ids::new_id();
    let rules = Rules::from_name("anywoli", 0).unwrap();
    let game = Game::new(NewGame {
        id: id.clone(),
        at: anywoli_server::dates::now_ms(),
        mode: Mode::Friend,
        rules,
        players: BySide::both(Player::Human),
        secrets: BySide::from([format!("{id}-s"), format!("{id}-n")]).map(Some),
        start: Position::start(rules),
        hints: false,
        invite: None,
        clock: Some(TimeControl::parse(clock).unwrap()),
        people: People {
            accounts: BySide::from([Some(south.to_string()), Some(north.to_string())]),
            rated,
            public: true,
            ratings: GameRatings::default(),
        },
    });
    let rounds = srv.state.rounds();
    rounds.create(game).await.unwrap();
    for (i, m) in moves.iter().enumerate() {
        let secret = if i % 2 == 0 {
            format!("{id}-s")
        } else {
            format!("{id}-n")
        };
        rounds
            .call(&id, |reply| Command::Play {
                secret: secret.clone(),
                mv: m.parse().unwrap(),
                ply: None,
                lag_ms: 0,
                reply,
            })
            .await
            .unwrap()
            .unwrap();
    }
    let secret = format!("{id}-n");
    rounds
        .call(&id, |reply| Command::Resign {
            secret: secret.clone(),
            reply,
        })
        .await
        .unwrap()
        .unwrap();
    id
}

/// `GET path` with `accept`: status, content type and body.
async fn get(srv: &Srv, path: &str, accept: &str) -> (u16, String, String) {
    let mut s = tokio::net::TcpStream::connect(srv.addr).await.unwrap();
    let head = format!(
        "GET {path} HTTP/1.1\r\nHost: {}\r\nAccept: {accept}\r\nConnection: close\r\n\r\n",
        srv.addr
    );
    s.write_all(head.as_bytes()).await.unwrap();
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).await.unwrap();
    let text = String::from_utf8(buf).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let ct = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-type: ")
                .map(str::to_string)
        })
        .unwrap_or_default();
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(body)
    } else {
        body.to_string()
    };
    (status, ct, body)
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    loop {
        let (size, rest) = body.split_once("\r\n").unwrap();
        let n = usize::from_str_radix(size.trim(), 16).unwrap();
        if n == 0 {
            return out;
        }
        out.push_str(&rest[..n]);
        body = &rest[n + 2..];
    }
}

store_test! {
#[tokio::test]
async fn a_player_s_games_stream_as_records_or_ndjson_with_filters() {
    // Without the per-address limit on exports (5 at once, 10 a minute): this test makes 20.
    let srv = start_with(fresh_store(), |o| {
        o.rates.logins_per_minute = 0;
    })
    .await;
    for n in ["Ana", "Okello", "Abula"] {
        srv.account(n).await;
    }
    let mut ids = Vec::new();
    ids.push(finished(&srv, "Ana", "Okello", "3+2", true, &["e", "F"]).await);
    ids.push(finished(&srv, "Okello", "Ana", "10+0", false, &["a"]).await);
    ids.push(finished(&srv, "Ana", "Okello", "1+0", true, &[]).await);
    let other = finished(&srv, "Okello", "Abula", "3+2", true, &["c"]).await;
    let (status, ct, text) = get(&srv, "/api/games/user/ana", "*/*").await;
    assert_eq!(status, 200);
    assert!(ct.starts_with("application/x-anywoli-record"), "{ct}");
    let records: Vec<anywoli_core::Record> = text
        .split("\n\n\n")
        .filter(|r| !r.trim().is_empty())
        .map(|r| anywoli_core::Record::parse(r).unwrap())
        .collect();
    assert_eq!(records.len(), 3, "{text}");
    // Newest first, each the game as its own record says it.
    let got: Vec<&str> = records.iter().map(|r| r.tag("GameId").unwrap()).collect();
    let want: Vec<&str> = ids.iter().rev().map(String::as_str).collect();
    assert_eq!(got, want);
    assert!(!text.contains(&other));
    for (r, id) in records.iter().zip(ids.iter().rev()) {
        let g = srv.state.rounds().snapshot(id).await.unwrap();
        assert_eq!(r.to_string(), g.record().to_string());
    }
    // NDJSON, by Accept or by format=.
    let (status, ct, text) = get(&srv, "/api/games/user/Ana", "application/x-ndjson").await;
    assert_eq!((status, ct.as_str()), (200, "application/x-ndjson"));
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[2]["id"], ids[0].as_str());
    assert_eq!(lines[2]["moves"], "e F");
    assert_eq!(lines[2]["players"]["white"]["user"]["name"], "Ana");
    assert_eq!(lines[2]["status"], "resign");
    assert_eq!(lines[2]["winner"], "white");
    let count = |text: &str| text.lines().filter(|l| !l.is_empty()).count();
    for (query, n) in [
        ("rated=true", 2),
        ("rated=false", 1),
        ("perfType=blitz", 1),
        ("perfType=bullet,rapid", 2),
        ("max=1", 1),
        ("variant=anywoli", 3),
        ("variant=anywoli-it", 0),
        ("until=1", 0),
        ("since=1", 3),
    ] {
        let (status, _, text) = get(
            &srv,
            &format!("/api/games/user/Ana?format=ndjson&{query}"),
            "*/*",
        )
        .await;
        assert_eq!((status, count(&text)), (200, n), "{query}: {text}");
    }
    for bad in [
        "max=1000000",
        "max=0",
        "perfType=blazing",
        "rated=maybe",
        "colour=white",
        "format=pgn",
        "variant=chess",
    ] {
        let (status, _, text) = get(&srv, &format!("/api/games/user/Ana?{bad}"), "*/*").await;
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            (status, v["error"].as_str()),
            (400, Some("malformed")),
            "{bad}: {text}"
        );
    }
    let (status, _, text) = get(&srv, "/api/games/user/Nobody", "*/*").await;
    assert_eq!(status, 404, "{text}");
}}

store_test! {
#[tokio::test]
async fn the_explorer_counts_games_as_they_end() {
    let srv = start_with(fresh_store(), |o| {
        o.rates.logins_per_minute = 0;
    })
    .await;
    for n in ["Ana", "Okello"] {
        srv.account(n).await;
    }
    let explore = |q: &str| format!("/api/explorer?{q}");
    let (status, _, text) = get(&srv, &explore(""), "*/*").await;
    let empty: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        (status, empty["total"]["games"].as_i64()),
        (200, Some(0)),
        "{text}"
    );
    // North resigns each: South wins all three.
    finished(&srv, "Ana", "Okello", "3+2", true, &["e", "F"]).await;
    finished(&srv, "Okello", "Ana", "10+0", false, &["e", "A"]).await;
    finished(&srv, "Ana", "Okello", "1+0", true, &["a"]).await;
    // Aborted before both moved: not counted.
    let aborted = finished(&srv, "Ana", "Okello", "3+2", true, &[]).await;
    let _ = aborted;
    // Queued as they ended; folded in within half a second (`explorer::fold_loop`), here now.
    srv.db(|s| s.explorer_fold_all()).await.unwrap();
    let (_, _, text) = get(&srv, &explore(""), "*/*").await;
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["total"]["games"], 3, "{v}");
    assert_eq!(v["total"]["south"], 3, "{v}");
    assert_eq!(v["moves"][0]["move"], "e");
    assert_eq!(v["moves"][0]["games"], 2);
    assert_eq!(v["moves"][1]["move"], "a");
    assert_eq!(v["recent"].as_array().unwrap().len(), 3);
    assert!(
        v["book"].as_array().is_some_and(|b| !b.is_empty()),
        "the book's moves: {v}"
    );
    let (_, _, text) = get(&srv, &explore("moves=e"), "*/*").await;
    let after_e: Value = serde_json::from_str(&text).unwrap();
    let replies: Vec<&str> = after_e["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["move"].as_str().unwrap())
        .collect();
    assert_eq!(replies, ["A", "F"], "{after_e}");
    for (q, n) in [
        ("speeds=blitz", 1),
        ("speeds=blitz,rapid", 2),
        ("speeds=bullet", 1),
        ("ratings=-1", 3),
        ("ratings=1400,1600", 0),
    ] {
        let (status, _, text) = get(&srv, &explore(q), "*/*").await;
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            (status, v["total"]["games"].as_i64()),
            (200, Some(n)),
            "{q}: {v}"
        );
    }
    // (These games were made without ratings: band -1.) The same position by its string.
    let pos = after_e["position"].as_str().unwrap().replace(' ', "+");
    let (_, _, text) = get(&srv, &explore(&format!("position={pos}")), "*/*").await;
    let by_string: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(by_string["moves"], after_e["moves"]);
    for bad in [
        "moves=e+e",
        "moves=z",
        "position=nonsense",
        "position=4,4/4+s+0+0+-+-+0+0",
        "speeds=fast",
        "ratings=1650",
        "rules=chess",
        "colour=white",
    ] {
        let (status, _, text) = get(&srv, &explore(bad), "*/*").await;
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            (status, v["error"].as_str()),
            (400, Some("malformed")),
            "{bad}: {text}"
        );
    }
}}
