// Tournaments (issue 39) over the API, played to the end on every store: an arena, a Swiss and
// a round robin with several accounts, their games started by the director and played by the
// test, the standings and podium checked; and the refusals. A tournament "minute" lasts
// 400 ms here, so a 20-minute arena takes 8 s. (Plain comments: `tournaments_postgres.rs`
// includes this file.)

use std::collections::{BTreeSet, HashSet};
use std::time::{Duration, Instant};

use crate::chat::socket::*;
use serde_json::{json, Value};

#[allow(unused_imports)]
use sqlite_store::*;
#[allow(dead_code)]
mod sqlite_store {
    pub fn fresh_store() -> anywoli_server::Store {
        anywoli_server::Store::in_memory().unwrap()
    }
}

const MINUTE_MS: i64 = 400;

async fn server() -> Srv {
    start_with(fresh_store(), |o| o.minute_ms = MINUTE_MS).await
}

async fn create(srv: &Srv, by: &str, body: Value) -> String {
    let (s, v) = api(srv, by, "POST", "/api/tournaments", body).await;
    assert_eq!(s, 201, "{v}");
    v["tournament"]["id"].as_str().unwrap().to_string()
}

async fn page(srv: &Srv, who: &str, id: &str) -> Value {
    let (s, v) = api(
        srv,
        who,
        "GET",
        &format!("/api/tournaments/{id}"),
        json!({}),
    )
    .await;
    assert_eq!(s, 200, "{v}");
    v
}

async fn standings(srv: &Srv, id: &str) -> Vec<Value> {
    let (s, v) = api(
        srv,
        "x",
        "GET",
        &format!("/api/tournaments/{id}/standings"),
        json!({}),
    )
    .await;
    assert_eq!(s, 200, "{v}");
    v["players"].as_array().unwrap().clone()
}

/// Waits until `ok` holds of the tournament's page, or fails after 20 s.
async fn until(srv: &Srv, id: &str, what: &str, ok: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let v = page(srv, "x", id).await;
        if ok(&v) {
            return v;
        }
        assert!(Instant::now() < deadline, "{what}: {v}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The games being played: (game, south, north).
async fn running(srv: &Srv, id: &str) -> Vec<(String, String, String)> {
    let (s, v) = api(
        srv,
        "x",
        "GET",
        &format!("/api/tournaments/{id}/games"),
        json!({}),
    )
    .await;
    assert_eq!(s, 200, "{v}");
    v["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            let f = |k: &str| g[k].as_str().unwrap().to_string();
            (f("game"), f("south"), f("north"))
        })
        .collect()
}

/// Plays game `game` between `south` and `north` as their pages would: each takes the seat
/// of their account, each moves once, then `loser` resigns (or they agree a draw).
async fn play(srv: &Srv, game: &str, south: &str, north: &str, loser: Option<&str>) {
    let mut secrets = Vec::new();
    for who in [south, north] {
        let (s, v) = api(
            srv,
            who,
            "POST",
            &format!("/api/games/{game}/seat"),
            json!({}),
        )
        .await;
        assert_eq!(s, 200, "{who}'s seat: {v}");
        secrets.push(v["secret"].as_str().unwrap().to_string());
    }
    for (ply, secret) in secrets.iter().enumerate() {
        let (_, g) = api(srv, "x", "GET", &format!("/api/games/{game}"), json!({})).await;
        let mv = g["legal"][0].as_str().unwrap().to_string();
        let body = json!({"move": mv, "secret": secret, "ply": ply});
        let (s, v) = api(srv, "x", "POST", &format!("/api/games/{game}/moves"), body).await;
        assert_eq!(s, 200, "{v}");
    }
    match loser {
        Some(l) => {
            let secret = &secrets[usize::from(l == north)];
            let body = json!({"secret": secret});
            let (s, v) = api(srv, l, "POST", &format!("/api/games/{game}/resign"), body).await;
            assert_eq!(s, 200, "{v}");
        }
        None => {
            let body = json!({"secret": secrets[0], "offer": "draw"});
            let (s, v) = api(
                srv,
                south,
                "POST",
                &format!("/api/games/{game}/offer"),
                body,
            )
            .await;
            assert_eq!(s, 200, "{v}");
            let body = json!({"secret": secrets[1]});
            let path = format!("/api/games/{game}/offer/accept");
            let (s, v) = api(srv, north, "POST", &path, body).await;
            assert_eq!(s, 200, "{v}");
        }
    }
}

/// A GET's status, head and body as text (the exports are not JSON).
async fn raw_get(srv: &Srv, path: &str) -> (u16, String, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(srv.addr).await.unwrap();
    let head = format!(
        "GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        srv.addr
    );
    s.write_all(head.as_bytes()).await.unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).await.unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, head.to_string(), body.to_string())
}

/// Ama berserks before her first move (her clock halves; her opponent's does not), the game
/// runs 20 plies, and `loser` resigns.
async fn berserk_and_win(srv: &Srv, game: &str, south: &str, north: &str, loser: &str) {
    let mut secrets = std::collections::HashMap::new();
    for who in [south, north] {
        let (s, v) = api(
            srv,
            who,
            "POST",
            &format!("/api/games/{game}/seat"),
            json!({}),
        )
        .await;
        assert_eq!(s, 200, "{v}");
        secrets.insert(
            v["side"].as_str().unwrap().to_string(),
            v["secret"].as_str().unwrap().to_string(),
        );
    }
    let ama_side = if south == "Ama" { "south" } else { "north" };
    let body = json!({"secret": secrets[ama_side]});
    let (s, v) = api(
        srv,
        "Ama",
        "POST",
        &format!("/api/games/{game}/berserk"),
        body.clone(),
    )
    .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["game"]["berserk"][ama_side], true, "{v}");
    assert_eq!(
        v["game"]["clock"][ama_side], 90_000,
        "half of 3 minutes: {v}"
    );
    let other = if ama_side == "south" {
        "north"
    } else {
        "south"
    };
    assert_eq!(v["game"]["clock"][other], 180_000, "{v}");
    let (s, v) = api(
        srv,
        "Ama",
        "POST",
        &format!("/api/games/{game}/berserk"),
        body,
    )
    .await;
    assert_eq!(
        (s, v["error"].as_str()),
        (409, Some("not_allowed")),
        "once: {v}"
    );
    for ply in 0..20 {
        let (_, g) = api(srv, "x", "GET", &format!("/api/games/{game}"), json!({})).await;
        assert_eq!(g["status"], "playing", "the game went on to ply {ply}: {g}");
        let to_move = g["to_move"].as_str().unwrap().to_string();
        let mv = g["legal"][0].as_str().unwrap().to_string();
        let body = json!({"move": mv, "secret": secrets[&to_move], "ply": ply});
        let (s, v) = api(srv, "x", "POST", &format!("/api/games/{game}/moves"), body).await;
        assert_eq!(s, 200, "{v}");
    }
    let side = if loser == south { "south" } else { "north" };
    let body = json!({"secret": secrets[side]});
    let (s, v) = api(
        srv,
        loser,
        "POST",
        &format!("/api/games/{game}/resign"),
        body,
    )
    .await;
    assert_eq!(s, 200, "{v}");
}

fn names(rows: &[Value]) -> Vec<String> {
    rows.iter()
        .map(|r| r["name"].as_str().unwrap().to_string())
        .collect()
}

store_test! {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_arena_pairs_again_as_games_end_scores_streaks_and_finishes() {
        let srv = server().await;
        let players = ["Ama", "Bol", "Cey", "Dak"];
        for p in players {
            srv.account(p).await;
        }
        let id = create(&srv, "Ama", json!({
            "name": "Quick arena", "system": "arena", "clock": "3+2", "minutes": 20,
            "rated": true,
        }))
        .await;
        let v = until(&srv, &id, "it starts now", |v| v["tournament"]["status"] == "running").await;
        assert_eq!(v["tournament"]["round_gap_s"], Value::Null, "{v}");
        let v = page(&srv, "Ama", &id).await;
        assert_eq!(v["can_join"], true);
        for p in players {
            let (s, v) = api(&srv, p, "POST", &format!("/api/tournaments/{id}/join"), json!({})).await;
            assert_eq!((s, &v["me"]["state"]), (200, &json!("active")), "{v}");
        }
        let mut met: Vec<(String, String)> = Vec::new();
        let mut ama_games = 0;
        let mut played: HashSet<String> = HashSet::new();
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let v = page(&srv, "x", &id).await;
            if v["tournament"]["status"] == "finished" {
                break;
            }
            assert!(Instant::now() < deadline, "the arena did not finish: {v}");
            let games = running(&srv, &id).await;
            let busy: HashSet<&str> = games
                .iter()
                .flat_map(|(_, s, n)| [s.as_str(), n.as_str()])
                .collect();
            assert_eq!(busy.len(), games.len() * 2, "nobody plays two games at once: {games:?}");
            for (game, south, north) in &games {
                // Until the director settles it (within a second), a game ended is listed.
                if !played.insert(game.clone()) {
                    continue;
                }
                // Ama wins all her games; otherwise South wins.
                let loser = if north == "Ama" { south } else { north };
                let ama_plays = south == "Ama" || north == "Ama";
                if ama_plays && ama_games == 0 {
                    // Her first: she berserks and wins in 20 plies, for a point more.
                    berserk_and_win(&srv, game, south, north, loser).await;
                } else {
                    play(&srv, game, south, north, Some(loser)).await;
                }
                if ama_plays {
                    ama_games += 1;
                }
                met.push((south.clone(), north.clone()));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert!(met.len() >= 4, "several waves in 8 s: {met:?}");
        // No immediate rematch while someone else waited: with four players, a player's two
        // games in a row are never against the same opponent.
        for p in players {
            let mine: Vec<&String> = met
                .iter()
                .filter(|(s, n)| s == p || n == p)
                .map(|(s, n)| if s == p { n } else { s })
                .collect();
            for w in mine.windows(2) {
                assert_ne!(w[0], w[1], "{p} met {} twice in a row: {met:?}", w[0]);
            }
        }
        let rows = standings(&srv, &id).await;
        assert_eq!(names(&rows)[0], "Ama");
        let ama = &rows[0];
        assert_eq!(ama["wins"], json!(ama_games));
        // Win 2, 2, then 4 a win on the streak.
        let expected = 1 + if ama_games >= 2 { 4 + 4 * (ama_games - 2) } else { 2 * ama_games };
        assert_eq!(ama["score"], json!(expected as f64), "{ama}");
        assert_eq!(ama["streak"], json!(ama_games >= 2));
        let v = page(&srv, "Ama", &id).await;
        assert_eq!(v["tournament"]["winner"], "Ama", "{v}");
        assert_eq!(v["podium"].as_array().unwrap().len(), 3, "{v}");
        assert_eq!(v["can_join"], false);
        // The games say which tournament they are of.
        let (_, g) = api(&srv, "x", "GET", &format!("/api/games/{}", met_game(&srv, &id).await), json!({})).await;
        assert_eq!(g["tournament"], json!({"id": id, "name": "Quick arena"}), "{g}");
    }
}

async fn met_game(srv: &Srv, id: &str) -> String {
    let (_, v) = api(
        srv,
        "x",
        "GET",
        &format!("/api/tournaments/{id}/games?round=0"),
        json!({}),
    )
    .await;
    v["games"][0]["game"].as_str().unwrap().to_string()
}

store_test! {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_swiss_plays_its_rounds_without_rematches_and_gives_each_bye_once() {
        let srv = server().await;
        let players = ["Ama", "Bol", "Cey", "Dak", "Eno"];
        for p in players {
            srv.account(p).await;
        }
        let id = create(&srv, "Ama", json!({
            "name": "Club Swiss", "system": "swiss", "clock": "5+3", "rounds": 3,
            "round_gap_s": 0, "starts_at": anywoli_server::dates::now_ms() + 600_000,
        }))
        .await;
        for p in players {
            let (s, v) = api(&srv, p, "POST", &format!("/api/tournaments/{id}/join"), json!({})).await;
            assert_eq!(s, 200, "{v}");
        }
        let v = page(&srv, "Ama", &id).await;
        assert_eq!(v["tournament"]["status"], "upcoming");
        // Only the organiser starts it early.
        let (s, v) = api(&srv, "Bol", "POST", &format!("/api/tournaments/{id}/start"), json!({})).await;
        assert_eq!((s, v["error"].as_str()), (403, Some("not_allowed")), "{v}");
        let (s, v) = api(&srv, "Ama", "POST", &format!("/api/tournaments/{id}/start"), json!({})).await;
        assert_eq!(s, 200, "{v}");
        let mut pairs: BTreeSet<(String, String)> = BTreeSet::new();
        for round in 1..=3 {
            let v = until(&srv, &id, "the next round", |v| v["tournament"]["round"] == round).await;
            assert_eq!(v["tournament"]["status"], "running");
            let games = running(&srv, &id).await;
            assert_eq!(games.len(), 2, "five players: two games and a bye");
            for (game, south, north) in games {
                let key = if south < north { (south.clone(), north.clone()) } else { (north.clone(), south.clone()) };
                assert!(pairs.insert(key), "a rematch in round {round}");
                // The higher name in the alphabet loses, but Bol and Cey draw.
                let loser = if (south.as_str(), north.as_str()) == ("Bol", "Cey") || (south.as_str(), north.as_str()) == ("Cey", "Bol") {
                    None
                } else {
                    Some(south.clone().max(north.clone()))
                };
                play(&srv, &game, &south, &north, loser.as_deref()).await;
            }
        }
        let v = until(&srv, &id, "the end", |v| v["tournament"]["status"] == "finished").await;
        let rows = standings(&srv, &id).await;
        let byes: Vec<usize> = rows
            .iter()
            .map(|r| r["sheet"].as_array().unwrap().iter().filter(|l| l["result"] == "bye").count())
            .collect();
        assert_eq!(byes.iter().sum::<usize>(), 3, "a bye each round: {rows:?}");
        assert!(byes.iter().all(|&b| b <= 1), "nobody has two byes: {byes:?}");
        for r in &rows {
            let points: f64 = r["sheet"].as_array().unwrap().iter().map(|l| l["points"].as_f64().unwrap()).sum();
            assert_eq!(r["score"].as_f64().unwrap(), points, "{r}");
            assert_eq!(r["sheet"].as_array().unwrap().len(), 3, "a line a round: {r}");
        }
        // Scores never rise down the table, and ties are ordered by Buchholz.
        for w in rows.windows(2) {
            let (a, b) = (&w[0], &w[1]);
            let (sa, sb) = (a["score"].as_f64().unwrap(), b["score"].as_f64().unwrap());
            assert!(sa > sb || (sa == sb && a["buchholz"].as_f64() >= b["buchholz"].as_f64()), "{rows:?}");
        }
        assert_eq!(v["tournament"]["winner"], rows[0]["name"]);

        // The exports: the standings as CSV, the games as records.
        let (s, head, csv) = raw_get(&srv, &format!("/api/tournaments/{id}/standings.csv")).await;
        assert_eq!(s, 200, "{csv}");
        assert!(head.to_ascii_lowercase().contains("content-type: text/csv"), "{head}");
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 6, "a header and five players: {csv}");
        assert!(lines[0].starts_with("rank,name,rating,score"), "{csv}");
        assert!(lines[1].starts_with(&format!("1,{},", rows[0]["name"].as_str().unwrap())), "{csv}");
        let (s, _, records) = raw_get(&srv, &format!("/api/tournaments/{id}/games.txt")).await;
        assert_eq!(s, 200);
        assert_eq!(records.matches("[Event \"Club Swiss\"]").count(), 6, "six games: {records}");
        assert_eq!(records.matches(&format!("[Tournament \"{id}\"]")).count(), 6);
    }
}

store_test! {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_round_robin_has_everyone_meet_once() {
        let srv = server().await;
        let players = ["Ama", "Bol", "Cey", "Dak"];
        for p in players {
            srv.account(p).await;
        }
        let id = create(&srv, "Dak", json!({
            "name": "Four friends", "system": "round-robin", "clock": "1+0", "round_gap_s": 0,
            "starts_at": anywoli_server::dates::now_ms() + 600_000,
        }))
        .await;
        for p in players {
            let (s, v) = api(&srv, p, "POST", &format!("/api/tournaments/{id}/join"), json!({})).await;
            assert_eq!(s, 200, "{v}");
        }
        let (s, v) = api(&srv, "Dak", "POST", &format!("/api/tournaments/{id}/start"), json!({})).await;
        assert_eq!(s, 200, "{v}");
        // The director starts it at its next tick; nobody joins once it has.
        until(&srv, &id, "round 1", |v| v["tournament"]["round"] == 1).await;
        srv.account("Eno").await;
        let (s, v) = api(&srv, "Eno", "POST", &format!("/api/tournaments/{id}/join"), json!({})).await;
        assert_eq!((s, v["error"].as_str()), (409, Some("tournament_closed")), "{v}");
        let mut pairs = BTreeSet::new();
        for round in 1..=3 {
            let v = until(&srv, &id, "the next round", |v| v["tournament"]["round"] == round).await;
            assert_eq!(v["tournament"]["rounds"], 3, "{v}");
            for (game, south, north) in running(&srv, &id).await {
                pairs.insert(if south < north { (south.clone(), north.clone()) } else { (north.clone(), south.clone()) });
                let loser = south.clone().min(north.clone());
                play(&srv, &game, &south, &north, Some(&loser)).await;
            }
        }
        until(&srv, &id, "the end", |v| v["tournament"]["status"] == "finished").await;
        assert_eq!(pairs.len(), 6, "every pair met: {pairs:?}");
        let rows = standings(&srv, &id).await;
        // The later name in the alphabet won every game: Dak 3, Cey 2, Bol 1, Ama 0.
        assert_eq!(names(&rows), ["Dak", "Cey", "Bol", "Ama"]);
        let scores: Vec<f64> = rows.iter().map(|r| r["score"].as_f64().unwrap()).collect();
        assert_eq!(scores, [3.0, 2.0, 1.0, 0.0]);
    }
}

store_test! {
    #[tokio::test]
    async fn tournaments_refuse_clearly_and_change_nothing() {
        let srv = server().await;
        for p in ["Ama", "Bol"] {
            srv.account(p).await;
        }
        let (s, v) = api(&srv, "x", "GET", "/api/tournaments/nosuchthing1", json!({})).await;
        assert_eq!((s, v["error"].as_str()), (404, Some("unknown_tournament")), "{v}");
        for (body, field) in [
            (json!({"name": "A", "system": "arena", "clock": "3+2", "minutes": 30}), "name"),
            (json!({"name": "Arena", "system": "arena", "clock": "3+2", "minutes": 5}), "minutes"),
            (json!({"name": "Arena", "system": "arena", "clock": "2d", "minutes": 30}), "clock"),
            (json!({"name": "Swiss", "system": "swiss", "clock": "3+2", "rounds": 40}), "rounds"),
            (json!({"name": "Swiss", "system": "knockout", "clock": "3+2"}), "knockout"),
        ] {
            let (s, v) = api(&srv, "Ama", "POST", "/api/tournaments", body).await;
            assert_eq!((s, v["error"].as_str()), (400, Some("malformed")), "{field}: {v}");
            assert!(v["message"].as_str().unwrap().contains(field), "{field}: {v}");
        }
        let (s, v) = api(&srv, "x", "GET", "/api/tournaments", json!({})).await;
        assert_eq!(s, 200);
        assert_eq!(v, json!({"upcoming": [], "running": [], "finished": []}), "nothing made");

        let later = anywoli_server::dates::now_ms() + 3_600_000;
        let id = create(&srv, "Ama", json!({
            "name": "Strong only", "system": "swiss", "clock": "3+2", "rounds": 3,
            "starts_at": later, "min_rating": 1800, "password": "sesame",
        }))
        .await;
        let path = format!("/api/tournaments/{id}/join");
        let (s, v) = api(&srv, "Bol", "POST", &path, json!({"password": "open"})).await;
        assert_eq!((s, v["error"].as_str()), (403, Some("wrong_password")), "{v}");
        let (s, v) = api(&srv, "Bol", "POST", &path, json!({"password": "sesame"})).await;
        assert_eq!((s, v["error"].as_str()), (403, Some("entry_conditions")), "{v}");
        let v = page(&srv, "Bol", &id).await;
        assert_eq!(v["tournament"]["players"], 0, "{v}");
        assert_eq!(v["tournament"]["private"], true);
        assert!(!v.to_string().contains("sesame"), "the password is never shown: {v}");
        let (_, list) = api(&srv, "x", "GET", "/api/tournaments", json!({})).await;
        assert_eq!(list["upcoming"][0]["id"], json!(id));
        for q in ["standings?page=abc", "games?round=1e9"] {
            let (s, v) = api(&srv, "x", "GET", &format!("/api/tournaments/{id}/{q}"), json!({})).await;
            assert_eq!((s, v["error"].as_str()), (400, Some("malformed")), "{q}: {v}");
        }
        let (s, v) = api(&srv, "x", "GET", &format!("/api/tournaments/{id}/standings?page=99"), json!({})).await;
        assert_eq!((s, &v["page"]), (200, &json!(1)), "past the last page: the last: {v}");
    }
}

store_test! {
    #[tokio::test]
    async fn an_arena_pause_is_a_withdrawal_one_comes_back_from_but_a_leader_waits() {
        let srv = server().await;
        for p in ["Ama", "Bol"] {
            srv.account(p).await;
        }
        let id = create(&srv, "Ama", json!({
            "name": "Pauses", "system": "arena", "clock": "3+2", "minutes": 60,
            "starts_at": anywoli_server::dates::now_ms() + 600_000,
        }))
        .await;
        let join = format!("/api/tournaments/{id}/join");
        let withdraw = format!("/api/tournaments/{id}/withdraw");
        // Before it runs, withdrawing is leaving, and coming back is free.
        let (s, v) = api(&srv, "Ama", "POST", &join, json!({})).await;
        assert_eq!(s, 200, "{v}");
        let (s, v) = api(&srv, "Ama", "POST", &withdraw, json!({})).await;
        assert_eq!((s, &v["me"]["state"]), (200, &json!("withdrawn")), "{v}");
        let (s, v) = api(&srv, "Ama", "POST", &join, json!({})).await;
        assert_eq!((s, &v["me"]["state"]), (200, &json!("active")), "{v}");
        let (s, _) = api(&srv, "Bol", "POST", &join, json!({})).await;
        assert_eq!(s, 200);
        // Running, a withdrawal is a pause; a leader (everyone here) waits a minute to return.
        let (s, v) = api(&srv, "Ama", "POST", &format!("/api/tournaments/{id}/start"), json!({})).await;
        assert_eq!(s, 200, "{v}");
        until(&srv, &id, "running", |v| v["tournament"]["status"] == "running").await;
        let (s, v) = api(&srv, "Bol", "POST", &withdraw, json!({})).await;
        assert_eq!((s, &v["me"]["state"]), (200, &json!("paused")), "{v}");
        let (s, v) = api(&srv, "Bol", "POST", &join, json!({})).await;
        assert_eq!((s, v["error"].as_str()), (429, Some("rate_limited")), "{v}");
        assert!(v["message"].as_str().unwrap().contains("after a minute"), "{v}");
        let v = page(&srv, "Bol", &id).await;
        assert_eq!(v["me"]["state"], "paused", "nothing changed: {v}");
    }
}

/// A watcher of tournament `id`'s events socket, as `who`'s page (or anonymous): its first
/// message (the version) read.
async fn watch_tournament(srv: &Srv, id: &str, who: Option<&str>) -> Ws {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut req = format!("ws://{}/api/tournaments/{id}/events", srv.addr)
        .into_client_request()
        .unwrap();
    if let Some(n) = who {
        let h = req.headers_mut();
        h.insert(
            "cookie",
            format!("anywoli_session={}", socket_cookie(n))
                .parse()
                .unwrap(),
        );
        h.insert("origin", format!("http://{}", srv.addr).parse().unwrap());
    }
    let (mut ws, _) = tokio_tungstenite::connect_async(req).await.unwrap();
    let first = next(&mut ws).await;
    assert_eq!(first["type"], "changed", "{first}");
    assert!(first["version"].is_i64() && first["at"].is_i64(), "{first}");
    ws
}

/// The next chat line or error a watcher gets (skipping version changes).
async fn next_chat(ws: &mut Ws) -> Value {
    loop {
        let m = next(ws).await;
        if m["type"] != "changed" {
            return m;
        }
    }
}

store_test! {
    #[tokio::test]
    async fn a_tournament_has_a_chat_for_accounts_that_blocks_and_mutes_hold_in() {
        let srv = server().await;
        for p in ["Ama", "Bol", "Cey"] {
            srv.account(p).await;
        }
        let id = create(&srv, "Ama", json!({
            "name": "Chatty", "system": "swiss", "clock": "3+2", "rounds": 3,
            "starts_at": anywoli_server::dates::now_ms() + 600_000,
        }))
        .await;
        let mut ama = watch_tournament(&srv, &id, Some("Ama")).await;
        let mut cey = watch_tournament(&srv, &id, Some("Cey")).await;
        let mut anon = watch_tournament(&srv, &id, None).await;
        send(&mut ama, json!({"type": "chat", "text": "good luck all"})).await;
        for ws in [&mut ama, &mut cey, &mut anon] {
            let m = next_chat(ws).await;
            assert_eq!(m["type"], "chat", "{m}");
            assert_eq!((m["line"]["author"].as_str(), m["line"]["text"].as_str(), m["line"]["room"].as_str()),
                (Some("Ama"), Some("good luck all"), Some("tournament")), "{m}");
        }
        send(&mut anon, json!({"type": "chat", "text": "hi"})).await;
        let m = next_chat(&mut anon).await;
        assert_eq!((m["type"].as_str(), m["error"].as_str()), (Some("error"), Some("not_logged_in")), "{m}");
        // Cey blocks Ama: a watcher opened since reads none of her lines, the history neither.
        let (s, _) = api(&srv, "Cey", "POST", "/api/players/Ama/block", json!({})).await;
        assert_eq!(s, 200);
        let mut cey = watch_tournament(&srv, &id, Some("Cey")).await;
        let mut bol = watch_tournament(&srv, &id, Some("Bol")).await;
        let m = next_chat(&mut bol).await;
        assert_eq!(m["line"]["text"], "good luck all", "the history: {m}");
        send(&mut ama, json!({"type": "chat", "text": "anyone for a blitz?"})).await;
        send(&mut bol, json!({"type": "chat", "text": "me"})).await;
        let m = next_chat(&mut cey).await;
        assert_eq!((m["line"]["author"].as_str(), m["line"]["text"].as_str()), (Some("Bol"), Some("me")), "Ama's lines are not Cey's to read: {m}");
        // A muted account's line is refused, and nobody reads it.
        srv.db(|s| {
            s.moderate(anywoli_server::store::Moderate {
                act: anywoli_server::store::Act::Mute { until: anywoli_server::dates::now_ms() + 3_600_000 },
                moderator: "admin (cli)".into(),
                target: "Bol".into(),
                reason: "spam".into(),
                detail: json!({}),
                at: anywoli_server::dates::now_ms(),
            })
        })
        .await
        .unwrap();
        send(&mut bol, json!({"type": "chat", "text": "still here"})).await;
        loop {
            let m = next_chat(&mut bol).await;
            if m["type"] == "error" {
                assert_eq!(m["error"], "muted", "{m}");
                break;
            }
        }
        // The lines are a player's lines for moderators: stored under the tournament.
        let lines = srv.db(|s| s.chat_lines_by("Ama", 10)).await.unwrap();
        assert_eq!(lines.len(), 2);
        assert!(lines.iter().all(|l| l.game == id && l.room == anywoli_server::store::Room::Tournament));
    }
}

store_test! {
    #[tokio::test]
    async fn players_hear_of_their_next_tournament_game_on_their_lobby_connection() {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        let srv = server().await;
        for p in ["Ama", "Bol"] {
            srv.account(p).await;
        }
        let mut req = format!("ws://{}/api/lobby", srv.addr).into_client_request().unwrap();
        req.headers_mut().insert("cookie", format!("anywoli_session={}", socket_cookie("Ama")).parse().unwrap());
        req.headers_mut().insert("origin", format!("http://{}", srv.addr).parse().unwrap());
        let (mut lobby, _) = tokio_tungstenite::connect_async(req).await.unwrap();
        let id = create(&srv, "Ama", json!({
            "name": "Told", "system": "arena", "clock": "3+2", "minutes": 20,
        }))
        .await;
        for p in ["Ama", "Bol"] {
            let (s, v) = api(&srv, p, "POST", &format!("/api/tournaments/{id}/join"), json!({})).await;
            assert_eq!(s, 200, "{v}");
        }
        let told = loop {
            let m = next(&mut lobby).await;
            if m["type"] == "tournament_game" {
                break m;
            }
        };
        assert_eq!((told["tournament"].as_str(), told["name"].as_str(), told["opponent"].as_str()), (Some(id.as_str()), Some("Told"), Some("Bol")), "{told}");
        let v = page(&srv, "Ama", &id).await;
        assert_eq!(v["me"]["playing"], told["game"], "{v}");
    }
}
