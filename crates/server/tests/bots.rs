// The API of programs (docs/api-bots.md): tokens and their scopes, BOT accounts, the event
// stream, challenges as lichess's clients send them, a game's stream, and a whole rated game
// played through it by a BOT and a person's program, with chat and a draw declined.

use std::time::Duration;

use anywoli_core::{Move, Position, Rules};
use anywoli_server::account::token::new_token;
use anywoli_server::store::TokenRow;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

use crate::chat::socket::{api, start, Srv};

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

const PATIENCE: Duration = Duration::from_secs(30);

/// A token of `name` with `scopes`, made in the store.
async fn token(srv: &Srv, name: &str, scopes: &str) -> String {
    let (text, hash) = new_token();
    let row = TokenRow {
        id: anywoli_server::ids::new_id(),
        account: name.to_string(),
        description: "test".to_string(),
        scopes: scopes.to_string(),
        created: 1,
        used: None,
    };
    let minted = srv.db(move |s| s.mint_token(row, hash, 20)).await.unwrap();
    assert_eq!(minted, anywoli_server::store::Minted::New);
    text
}

/// A request with `Authorization: Bearer TOKEN` and a form body (or none): status and JSON.
async fn bearer(srv: &Srv, token: &str, method: &str, path: &str, form: &str) -> (u16, Value) {
    let mut s = tokio::net::TcpStream::connect(srv.addr).await.unwrap();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {token}\r\n\
         Connection: close\r\nContent-Type: application/x-www-form-urlencoded\r\n\
         Content-Length: {}\r\n\r\n{form}",
        srv.addr,
        form.len()
    );
    s.write_all(head.as_bytes()).await.unwrap();
    let mut buf = String::new();
    s.read_to_string(&mut buf).await.unwrap();
    let (head, body) = buf.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

/// An open NDJSON stream, read chunk by chunk.
struct Stream {
    r: BufReader<tokio::net::TcpStream>,
    pending: String,
}

impl Stream {
    /// Opens `path` with `token`: the stream, or the refusal's status and body.
    async fn open(srv: &Srv, token: &str, path: &str) -> Result<Stream, (u16, Value)> {
        Stream::open_with(srv, token, "GET", path, "").await
    }

    /// Opens `path` by `method` with a form.
    async fn open_with(
        srv: &Srv,
        token: &str,
        method: &str,
        path: &str,
        form: &str,
    ) -> Result<Stream, (u16, Value)> {
        let mut s = tokio::net::TcpStream::connect(srv.addr).await.unwrap();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {token}\r\n\
             Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{form}",
            srv.addr,
            form.len()
        );
        s.write_all(head.as_bytes()).await.unwrap();
        let mut r = BufReader::new(s);
        let mut status_line = String::new();
        r.read_line(&mut status_line).await.unwrap();
        let status: u16 = status_line.split(' ').nth(1).unwrap().parse().unwrap();
        let mut length = None;
        loop {
            let mut line = String::new();
            r.read_line(&mut line).await.unwrap();
            if line == "\r\n" {
                break;
            }
            let lower = line.to_ascii_lowercase();
            if let Some(v) = lower.strip_prefix("content-length:") {
                length = v.trim().parse::<usize>().ok();
            }
            if status == 200 && lower.starts_with("content-type:") {
                assert!(lower.contains("application/x-ndjson"), "{line}");
            }
        }
        if status != 200 {
            let mut body = vec![0; length.unwrap_or(0)];
            r.read_exact(&mut body).await.unwrap();
            return Err((status, serde_json::from_slice(&body).unwrap_or(Value::Null)));
        }
        Ok(Stream {
            r,
            pending: String::new(),
        })
    }

    /// The next line (an empty one is a keep-alive), or `None` once the stream ended.
    async fn line(&mut self) -> Option<String> {
        loop {
            if let Some(i) = self.pending.find('\n') {
                let line = self.pending[..i].to_string();
                self.pending.drain(..=i);
                return Some(line);
            }
            let mut size = String::new();
            let n = tokio::time::timeout(PATIENCE, self.r.read_line(&mut size))
                .await
                .expect("a chunk in time")
                .unwrap();
            let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
            if n == 0 || size == 0 {
                return None;
            }
            let mut chunk = vec![0; size + 2];
            self.r.read_exact(&mut chunk).await.unwrap();
            self.pending
                .push_str(std::str::from_utf8(&chunk[..size]).unwrap());
        }
    }

    /// The next object, past keep-alive lines.
    async fn next(&mut self) -> Value {
        loop {
            let line = self.line().await.expect("the stream is open");
            if !line.is_empty() {
                return serde_json::from_str(&line).unwrap();
            }
        }
    }

    /// The next object of type `kind`, past others.
    async fn next_of(&mut self, kind: &str) -> Value {
        loop {
            let v = self.next().await;
            if v["type"] == kind {
                return v;
            }
        }
    }
}

async fn server() -> Srv {
    let srv = start(fresh_store()).await;
    for name in ["Robo", "Ana", "Okello"] {
        srv.account(name).await;
    }
    srv
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

/// The position after `moves` (space-separated) from the start.
fn position_after(moves: &str) -> Position {
    let mut p = Position::start(Rules::from_name("anywoli", 0).unwrap());
    for m in moves.split_whitespace() {
        p.play(m.parse::<Move>().unwrap()).unwrap();
    }
    p
}

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
    let srv = server().await;
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
