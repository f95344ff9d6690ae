// Programs' API (docs/api-bots.md): tokens and their scopes, BOT accounts, the event stream,
// challenges as lichess's clients send them, a game's stream, and a whole rated game played
// through it by a BOT and a person's program, with chat and a draw declined.
// (Plain comments: `bots_postgres.rs` includes this file.)

use std::time::Duration;

use serde_json::{json, Value};

use crate::bots_support::{bearer, position_after, server_on, token, Stream};
use crate::chat::socket::{api, Srv};

// The store every test starts with: SQLite in memory here; `bots_postgres.rs` defines a
// `fresh_store` of its own, which shadows this glob-imported one.
#[allow(unused_imports)]
use sqlite_store::*;
#[allow(dead_code)]
mod sqlite_store {
    pub fn fresh_store() -> anywoli_server::Store {
        anywoli_server::Store::in_memory().unwrap()
    }
}

async fn server() -> Srv {
    server_on(fresh_store()).await
}

store_test! {
#[tokio::test]
async fn tokens_are_made_listed_used_and_revoked() {
    let srv = server().await;
    let body = json!({"description": "my bot", "scopes": ["bot:play", "challenge:write"]});
    let (status, made) = api(&srv, "Robo", "POST", "/api/tokens", body).await;
    assert_eq!(status, 201, "{made}");
    let text = made["token"].as_str().unwrap().to_string();
    assert!(text.starts_with("anw_"), "{text}");
    assert_eq!(made["scopes"], json!(["bot:play", "challenge:write"]));
    let (_, list) = api(&srv, "Robo", "GET", "/api/tokens", json!({})).await;
    assert_eq!(list["tokens"].as_array().unwrap().len(), 1);
    assert!(
        !list.to_string().contains(&text),
        "the text is shown once only"
    );
    // The store keeps no text of it either.
    let hash = anywoli_server::account::session::token_of(&text);
    let row = srv.db(move |s| s.token(&hash)).await.unwrap().unwrap();
    assert_eq!(row.account, "Robo");
    let (status, me) = bearer(&srv, &text, "GET", "/api/account", "").await;
    assert_eq!(status, 200, "{me}");
    assert_eq!(
        (me["username"].as_str(), me["id"].as_str()),
        (Some("Robo"), Some("robo"))
    );
    assert!(me["title"].is_null());
    let id = made["id"].as_str().unwrap();
    let (status, _) = api(
        &srv,
        "Ana",
        "DELETE",
        &format!("/api/tokens/{id}"),
        json!({}),
    )
    .await;
    assert_eq!(
        status, 404,
        "another account's token is not theirs to revoke"
    );
    let (status, _) = api(
        &srv,
        "Robo",
        "DELETE",
        &format!("/api/tokens/{id}"),
        json!({}),
    )
    .await;
    assert_eq!(status, 200);
    let (status, e) = bearer(&srv, &text, "GET", "/api/account", "").await;
    assert_eq!((status, e["error"].as_str()), (401, Some("bad_token")));
    assert!(
        !e.to_string().contains(&text),
        "a refusal never echoes the token"
    );
    for (body, what) in [
        (json!({"scopes": ["email:read"]}), "unknown scope"),
        (json!({"scopes": []}), "no scope"),
        (
            json!({"description": "x".repeat(101), "scopes": ["bot:play"]}),
            "too long",
        ),
    ] {
        let (status, e) = api(&srv, "Robo", "POST", "/api/tokens", body).await;
        assert_eq!(
            (status, e["error"].as_str()),
            (400, Some("malformed")),
            "{what}: {e}"
        );
    }
    // Made in the store: the page's own are limited per address (5 at once, 10 a minute).
    for _ in 0..20 {
        token(&srv, "Okello", "board:play").await;
    }
    let (status, e) = api(
        &srv,
        "Okello",
        "POST",
        "/api/tokens",
        json!({"scopes": ["board:play"]}),
    )
    .await;
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("too_many_tokens"))
    );
    for bad in [
        "anw_short",
        "lip_0123456789abcdef0123456789abcdef",
        &format!("{}x", &text[..35]),
    ] {
        let (status, e) = bearer(&srv, bad, "GET", "/api/stream/event", "").await;
        assert_eq!(
            (status, e["error"].as_str()),
            (401, Some("bad_token")),
            "{bad}"
        );
    }
}}

store_test! {
#[tokio::test]
async fn scopes_and_bot_accounts_are_checked() {
    let srv = server().await;
    let board = token(&srv, "Robo", "board:play").await;
    let (status, e) = bearer(&srv, &board, "POST", "/api/bot/account/upgrade", "").await;
    assert_eq!(
        (status, e["error"].as_str()),
        (403, Some("missing_scope")),
        "{e}"
    );
    let bot = token(&srv, "Robo", "bot:play").await;
    let g1 = anywoli_server::ids::new_id();
    srv.game(&g1, [Some("Robo"), Some("Ana")]).await;
    let (status, e) = bearer(
        &srv,
        &bot,
        "POST",
        &format!("/api/bot/game/{g1}/move/c"),
        "",
    )
    .await;
    assert_eq!(
        (status, e["error"].as_str()),
        (403, Some("not_a_bot")),
        "{e}"
    );
    let (status, e) = bearer(&srv, &bot, "POST", "/api/bot/account/upgrade", "").await;
    assert_eq!(
        (status, e["error"].as_str()),
        (400, Some("cannot_upgrade")),
        "has a game: {e}"
    );
    let fresh = token(&srv, "Okello", "bot:play").await;
    let (status, _) = bearer(&srv, &fresh, "POST", "/api/bot/account/upgrade", "").await;
    assert_eq!(status, 200);
    let (_, me) = bearer(&srv, &fresh, "GET", "/api/account", "").await;
    assert_eq!(me["title"], "BOT");
    let (_, profile) = api(&srv, "Ana", "GET", "/api/players/Okello", json!({})).await;
    assert_eq!(profile["title"], "BOT");
    // A BOT plays through the Bot API only.
    let board = token(&srv, "Okello", "board:play").await;
    let (status, e) = bearer(
        &srv,
        &board,
        "GET",
        &format!("/api/board/game/stream/{g1}"),
        "",
    )
    .await;
    assert_eq!(status, 403, "{e}");
    // Not its game.
    let (status, e) = bearer(
        &srv,
        &fresh,
        "POST",
        &format!("/api/bot/game/{g1}/move/c"),
        "",
    )
    .await;
    assert_eq!(
        (status, e["error"].as_str()),
        (403, Some("not_your_seat")),
        "{e}"
    );
    let (status, e) = bearer(
        &srv,
        &fresh,
        "POST",
        "/api/bot/game/aaaaaaaaaaaa/move/c",
        "",
    )
    .await;
    assert_eq!(status, 404, "{e}");
}}

store_test! {
#[tokio::test]
async fn event_streams_are_bounded_per_account() {
    let srv = server().await;
    let t = token(&srv, "Ana", "challenge:read").await;
    let mut open = Vec::new();
    for _ in 0..4 {
        open.push(
            Stream::open(&srv, &t, "/api/stream/event")
                .await
                .ok()
                .unwrap(),
        );
    }
    let (status, e) = Stream::open(&srv, &t, "/api/stream/event")
        .await
        .err()
        .unwrap();
    assert_eq!(
        (status, e["error"].as_str()),
        (429, Some("too_many_streams")),
        "{e}"
    );
    drop(open);
    // A stream gone gives its place back once its task sees it gone (at its next write).
    let mut reopened = None;
    for _ in 0..100 {
        if let Ok(s) = Stream::open(&srv, &t, "/api/stream/event").await {
            reopened = Some(s);
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(reopened.is_some(), "the places came back");
    let write = token(&srv, "Ana", "challenge:write").await;
    let (status, e) = Stream::open(&srv, &write, "/api/stream/event")
        .await
        .err()
        .unwrap();
    assert_eq!((status, e["error"].as_str()), (403, Some("missing_scope")));
}}

store_test! {
#[tokio::test]
async fn a_bot_and_a_person_s_program_play_a_rated_game_to_its_end() {
    let srv = server().await;
    let robo = token(&srv, "Robo", "bot:play").await;
    assert_eq!(
        bearer(&srv, &robo, "POST", "/api/bot/account/upgrade", "")
            .await
            .0,
        200
    );
    let ana = token(&srv, "Ana", "board:play challenge:write").await;
    let mut robo_events = Stream::open(&srv, &robo, "/api/stream/event")
        .await
        .ok()
        .unwrap();
    let mut ana_events = Stream::open(&srv, &ana, "/api/stream/event")
        .await
        .ok()
        .unwrap();
    // Ana challenges as lichess's clients do: a form, seconds.
    let form = "rated=true&clock.limit=180&clock.increment=2&color=white&variant=standard";
    let (status, c) = bearer(&srv, &ana, "POST", "/api/challenge/Robo", form).await;
    assert_eq!(status, 201, "{c}");
    let id = c["id"].as_str().unwrap().to_string();
    assert_eq!(c["challenge"]["id"], c["id"]);
    assert_eq!(c["timeControl"]["limit"], 180);
    let heard = robo_events.next_of("challenge").await;
    assert_eq!(heard["challenge"]["id"], id.as_str());
    assert_eq!(heard["challenge"]["direction"], "in");
    assert_eq!(heard["challenge"]["rated"], true);
    let (status, _) = bearer(
        &srv,
        &ana,
        "POST",
        &format!("/api/challenge/{id}/accept"),
        "",
    )
    .await;
    assert_eq!(status, 404, "a challenge is its player's to accept");
    let (status, a) = bearer(
        &srv,
        &robo,
        "POST",
        &format!("/api/challenge/{id}/accept"),
        "",
    )
    .await;
    assert_eq!(status, 200, "{a}");
    let game = a["game"]["id"].as_str().unwrap().to_string();
    for events in [&mut robo_events, &mut ana_events] {
        let start = events.next_of("gameStart").await;
        assert_eq!(start["game"]["gameId"], game.as_str());
        assert_eq!(start["game"]["id"], game.as_str());
        assert_eq!(start["game"]["rated"], true);
    }
    let (status, api_game) =
        api(&srv, "Ana", "GET", &format!("/api/games/{game}"), json!({})).await;
    assert_eq!(status, 200);
    assert_eq!(api_game["titles"]["north"], "BOT", "{api_game}");
    let (status, playing) = bearer(&srv, &robo, "GET", "/api/account/playing", "").await;
    assert_eq!(status, 200, "{playing}");
    assert_eq!(playing["nowPlaying"][0]["gameId"], game.as_str(), "{playing}");
    let mut robo_game = Stream::open(&srv, &robo, &format!("/api/bot/game/stream/{game}"))
        .await
        .ok()
        .unwrap();
    let mut ana_game = Stream::open(&srv, &ana, &format!("/api/board/game/stream/{game}"))
        .await
        .ok()
        .unwrap();
    let full = robo_game.next().await;
    assert_eq!(full["type"], "gameFull");
    assert_eq!(full["white"]["name"], "Ana");
    assert_eq!(full["black"]["name"], "Robo");
    assert_eq!(full["black"]["title"], "BOT");
    assert_eq!(full["initialFen"], "startpos");
    assert_eq!(full["clock"]["initial"], 180_000);
    assert_eq!(full["state"]["status"], "started");
    assert_eq!(ana_game.next().await["type"], "gameFull");
    // Chat, both ways.
    let (status, e) = bearer(
        &srv,
        &robo,
        "POST",
        &format!("/api/bot/game/{game}/chat"),
        "room=player&text=good+luck",
    )
    .await;
    assert_eq!(status, 200, "{e}");
    let line = ana_game.next_of("chatLine").await;
    assert_eq!(
        (line["username"].as_str(), line["text"].as_str()),
        (Some("Robo"), Some("good luck"))
    );
    // Out of turn, and a move of the other side: refused, nothing changes.
    let (status, e) = bearer(
        &srv,
        &robo,
        "POST",
        &format!("/api/bot/game/{game}/move/C"),
        "",
    )
    .await;
    assert!(status == 409 || status == 400, "{status} {e}");
    // Ana offers a draw; Robo declines.
    let (status, _) = bearer(
        &srv,
        &ana,
        "POST",
        &format!("/api/board/game/{game}/draw/yes"),
        "",
    )
    .await;
    assert_eq!(status, 200);
    let offered = robo_game.next_of("gameState").await;
    assert_eq!(offered["wdraw"], true, "{offered}");
    let (status, _) = bearer(
        &srv,
        &robo,
        "POST",
        &format!("/api/bot/game/{game}/draw/no"),
        "",
    )
    .await;
    assert_eq!(status, 200);
    let declined = robo_game.next_of("gameState").await;
    assert_eq!(declined["wdraw"], false, "{declined}");
    // Then each side's program plays the first legal move it sees, to the end.
    let mut moves = String::new();
    let mut plies = 0;
    loop {
        let pos = position_after(&moves);
        let Some(side) = pos.to_move() else { break };
        let mv = pos.moves().into_iter().next().unwrap();
        let (who, api_name) = match side {
            anywoli_core::Side::South => (&ana, "board"),
            anywoli_core::Side::North => (&robo, "bot"),
        };
        let path = format!("/api/{api_name}/game/{game}/move/{mv}");
        let (status, e) = bearer(&srv, who, "POST", &path, "").await;
        assert_eq!(status, 200, "ply {plies}: {e}");
        // Each side's stream says each move.
        let state = robo_game.next_of("gameState").await;
        moves = state["moves"].as_str().unwrap().to_string();
        plies += 1;
        assert_eq!(moves.split_whitespace().count(), plies, "{state}");
        if state["status"] != "started" {
            assert_eq!(state["status"], "variantEnd");
            break;
        }
        assert!(plies < 2000, "the game ends");
    }
    let last = position_after(&moves);
    assert!(last.is_over());
    let finish = robo_events.next_of("gameFinish").await;
    assert_eq!(finish["game"]["gameId"], game.as_str());
    assert_eq!(finish["game"]["status"]["name"], "variantEnd");
    // The stream ended with the game.
    while let Some(line) = robo_game.line().await {
        let v: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
        assert_ne!(v["type"], "gameFull");
    }
    let g = srv.state.rounds().snapshot(&game).await.unwrap();
    assert!(g.people.ratings.change.is_some(), "the game was rated");
}}
