// House bots and seeks held open (docs/api-bots.md, "House bots", "Seeks").
// (Plain comments: `bots_lobby_postgres.rs` includes this file.)

use std::time::Duration;

use serde_json::json;

use crate::bots_support::{bearer, position_after, server_on, token, Stream};

// The store every test starts with: SQLite in memory here; `bots_lobby_postgres.rs` defines a
// `fresh_store` of its own, which shadows this glob-imported one.
#[allow(unused_imports)]
use sqlite_store::*;
#[allow(dead_code)]
mod sqlite_store {
    pub fn fresh_store() -> anywoli_server::Store {
        anywoli_server::Store::in_memory().unwrap()
    }
}

store_test! {
#[tokio::test]
async fn house_bots_seek_in_the_lobby_take_challenges_and_play_their_moves() {
    let store = fresh_store();
    let srv = crate::chat::socket::start_with(store, |o| {
        o.house = anywoli_server::house::HouseBots::parse("Anuak3:3", "3+2,10+0", 2).unwrap();
    })
    .await;
    srv.account("Ana").await;
    anywoli_server::house::start(&srv.state).await.unwrap();
    // Its seeks: one per clock, rated, by the BOT.
    let mut seeks = Vec::new();
    for _ in 0..100 {
        seeks = srv.state.lobby().snapshot();
        if seeks.len() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(seeks.len(), 2, "{seeks:?}");
    assert!(seeks
        .iter()
        .all(|s| s.rated && s.by.as_deref() == Some("Anuak3")));
    // A challenge is taken at once: the game starts, the bot's seat the computer's.
    let ana = token(&srv, "Ana", "board:play challenge:write").await;
    let mut events = Stream::open(&srv, &ana, "/api/stream/event")
        .await
        .ok()
        .unwrap();
    let form = "rated=true&clock.limit=180&clock.increment=2&color=white";
    let (status, c) = bearer(&srv, &ana, "POST", "/api/challenge/Anuak3", form).await;
    assert_eq!(status, 201, "{c}");
    let start = events.next_of("gameStart").await;
    let game = start["game"]["gameId"].as_str().unwrap().to_string();
    assert_eq!(start["game"]["opponent"]["title"], "BOT", "{start}");
    let g = srv.state.rounds().snapshot(&game).await.unwrap();
    assert_eq!(
        g.players[anywoli_core::Side::North],
        anywoli_server::round::game::Player::Computer(3)
    );
    assert!(g.people.rated);
    // Ana moves; the house bot answers by itself.
    let mut stream = Stream::open(&srv, &ana, &format!("/api/board/game/stream/{game}"))
        .await
        .ok()
        .unwrap();
    assert_eq!(stream.next().await["type"], "gameFull");
    let (status, e) = bearer(
        &srv,
        &ana,
        "POST",
        &format!("/api/board/game/{game}/move/c"),
        "",
    )
    .await;
    assert_eq!(status, 200, "{e}");
    loop {
        let s = stream.next_of("gameState").await;
        let moves = s["moves"].as_str().unwrap().to_string();
        if position_after(&moves).to_move() == Some(anywoli_core::Side::South) {
            assert!(moves.split_whitespace().count() >= 2, "{s}");
            break;
        }
    }
    // With its games full (2), the next challenge is declined.
    let (status, _) = bearer(
        &srv,
        &ana,
        "POST",
        "/api/challenge/Anuak3",
        "rated=false&clock.limit=600",
    )
    .await;
    assert_eq!(status, 201);
    assert_eq!(
        events.next_of("gameStart").await["game"]["opponent"]["username"],
        "Anuak3"
    );
    let (status, _) = bearer(
        &srv,
        &ana,
        "POST",
        "/api/challenge/Anuak3",
        "rated=false&clock.limit=300",
    )
    .await;
    assert_eq!(status, 201);
    let declined = events.next_of("challengeDeclined").await;
    assert!(declined["challenge"]["id"].is_string(), "{declined}");
}}

store_test! {
#[tokio::test]
async fn a_seek_waits_while_its_request_is_open_and_answers_the_game() {
    let srv = server_on(fresh_store()).await;
    let ana = token(&srv, "Ana", "board:play").await;
    let form = "time=3&increment=2&rated=true&color=white";
    let mut seek = Stream::open_with(&srv, &ana, "POST", "/api/board/seek", form)
        .await
        .ok()
        .unwrap();
    let seeks = srv.state.lobby().snapshot();
    assert_eq!(seeks.len(), 1, "{seeks:?}");
    assert_eq!((seeks[0].by.as_deref(), seeks[0].clock.as_str()), (Some("Ana"), "3+2"));
    // Okello accepts it in the lobby.
    let mut lobby = srv.lobby_as("Okello").await;
    let id = seeks[0].id.clone();
    crate::chat::socket::send(&mut lobby, json!({"type": "accept", "id": id})).await;
    let started = seek.next().await;
    let game = started["id"].as_str().unwrap().to_string();
    let g = srv.state.rounds().snapshot(&game).await.unwrap();
    assert_eq!(g.people.accounts[anywoli_core::Side::South].as_deref(), Some("Ana"));
    assert!(g.people.rated);
    assert_eq!(seek.line().await, None, "the stream ends with the game");
    // A seek whose request closes goes.
    let seek = Stream::open_with(&srv, &ana, "POST", "/api/board/seek", "time=10&increment=0")
        .await
        .ok()
        .unwrap();
    assert_eq!(srv.state.lobby().snapshot().len(), 1);
    drop(seek);
    let mut gone = false;
    for _ in 0..100 {
        if srv.state.lobby().snapshot().is_empty() {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(gone, "the seek went with its request (at the stream's next keep-alive)");
    for bad in ["", "time=3&color=green", "time=3&ratingRange=high", "days=1&time=3"] {
        let (status, e) = Stream::open_with(&srv, &ana, "POST", "/api/board/seek", bad)
            .await
            .err()
            .unwrap();
        assert_eq!((status, e["error"].as_str()), (400, Some("malformed")), "{bad}: {e}");
    }
    let read = token(&srv, "Ana", "challenge:read").await;
    let (status, _) = Stream::open_with(&srv, &read, "POST", "/api/board/seek", form)
        .await
        .err()
        .unwrap();
    assert_eq!(status, 403);
}
}
