// Chat lines, blocks and mutes (issue 38): the store's side, on every store.
// (Plain comments: `chat_postgres.rs` includes this file.)

use anywoli_server::store::{AccountOp, AccountRow, ChatLine, Pace, Room, Said, SessionRow};
use anywoli_server::Store;

// The store every test starts with: SQLite in memory here; `chat_postgres.rs` defines a
// `fresh_store` of its own, which shadows this glob-imported one.
#[allow(unused_imports)]
use sqlite_store::*;
#[allow(dead_code)]
mod sqlite_store {
    pub fn fresh_store() -> anywoli_server::Store {
        anywoli_server::Store::in_memory().unwrap()
    }
}

/// Makes accounts `names` (blocks and mutes refer to accounts).
fn with_accounts(s: &Store, names: &[&str]) {
    for n in names {
        let made = s
            .account_op(AccountOp::Create {
                account: AccountRow {
                    key: n.to_lowercase(),
                    name: n.to_string(),
                    hash: "x".into(),
                    created: 1,
                },
                session: SessionRow {
                    token: format!("t-{n}"),
                    name: n.to_string(),
                    csrf: "c".into(),
                    created: 1,
                },
            })
            .unwrap();
        assert!(made, "{n}");
    }
}

fn line(game: &str, room: Room, author: &str, text: &str, at: i64) -> ChatLine {
    ChatLine {
        id: format!("{game}-{at}-{author}"),
        game: game.into(),
        room,
        author: Some(author.into()),
        side: None,
        text: text.into(),
        preset: None,
        at,
    }
}

store_test! {
    #[test]
    fn a_room_s_lines_come_back_in_order_and_bounded() {
        let s = fresh_store();
        for i in 0..5 {
            s.save_chat_line(line("g1", Room::Players, "Abula", &format!("p{i}"), 100 + i))
                .unwrap();
        }
        s.save_chat_line(line("g1", Room::Spectators, "Cabo", "hi", 101)).unwrap();
        s.save_chat_line(line("g2", Room::Players, "Abula", "other", 50)).unwrap();
        let texts = |v: Vec<ChatLine>| v.into_iter().map(|l| l.text).collect::<Vec<_>>();
        assert_eq!(
            texts(s.chat_lines("g1", Room::Players, 100).unwrap()),
            ["p0", "p1", "p2", "p3", "p4"]
        );
        assert_eq!(texts(s.chat_lines("g1", Room::Players, 2).unwrap()), ["p3", "p4"]);
        let spect = s.chat_lines("g1", Room::Spectators, 100).unwrap();
        assert_eq!(spect, vec![line("g1", Room::Spectators, "Cabo", "hi", 101)]);
        assert!(s.chat_lines("g3", Room::Players, 100).unwrap().is_empty());
        // A moderator reads an account's lines across games, newest first.
        let by: Vec<String> = s
            .chat_lines_by("Abula", 3)
            .unwrap()
            .into_iter()
            .map(|l| l.text)
            .collect();
        assert_eq!(by, ["p4", "p3", "p2"]);
        assert!(s.chat_lines_by("Nobody", 3).unwrap().is_empty());
    }
}

store_test! {
    #[test]
    fn the_store_holds_an_account_to_its_pace() {
        let s = fresh_store();
        with_accounts(&s, &["Abula", "Bao"]);
        let pace = Pace { lines: 5, window_ms: 10_000 };
        let say = |who: &str, text: &str, at: i64| {
            let mut l = line("g1", Room::Spectators, who, text, at);
            l.id = format!("{who}-{text}-{at}");
            s.say_chat_line(l, pace).unwrap()
        };
        for i in 0..5 {
            assert_eq!(say("Abula", &format!("l{i}"), 1_000 + i), Said::Saved);
        }
        assert_eq!(say("Abula", "l9", 1_100), Said::TooMany);
        assert_eq!(say("Bao", "l9", 1_100), Said::Saved, "each account its own pace");
        // The window passed: a new line, but not one of the last two again.
        assert_eq!(say("Abula", "l4", 11_004), Said::Repeated);
        assert_eq!(say("Abula", "l3", 11_004), Said::Repeated);
        assert_eq!(say("Abula", "l2", 11_004), Said::Saved);
        let by = s.chat_lines_by("Abula", 100).unwrap();
        assert_eq!(by.len(), 6, "refused lines are not written");
    }
}

store_test! {
    #[test]
    fn a_block_holds_both_ways_until_lifted() {
        let s = fresh_store();
        with_accounts(&s, &["Abula", "Bao", "Cabo"]);
        assert!(!s.blocked_between("Abula", "Bao").unwrap());
        assert!(s.block("Abula", "Bao").unwrap());
        assert!(!s.block("Abula", "Bao").unwrap(), "a second block changes nothing");
        assert!(s.blocked_between("Abula", "Bao").unwrap());
        assert!(s.blocked_between("Bao", "Abula").unwrap());
        assert!(!s.blocked_between("Abula", "Cabo").unwrap());
        assert!(s.block("Abula", "Cabo").unwrap());
        let listed: Vec<String> = s
            .blocks_of("Abula", 10)
            .unwrap()
            .into_iter()
            .map(|b| b.blocked)
            .collect();
        assert_eq!(listed.len(), 2);
        assert!(listed.contains(&"Bao".to_string()) && listed.contains(&"Cabo".to_string()));
        assert!(s.blocks_of("Bao", 10).unwrap().is_empty(), "stored one way");
        assert_eq!(s.blocked_with("Bao", 10).unwrap(), ["Abula"], "but heard both ways");
        assert_eq!(s.blocked_with("Abula", 10).unwrap(), ["Bao", "Cabo"]);
        assert!(s.unblock("Abula", "Bao").unwrap());
        assert!(!s.unblock("Abula", "Bao").unwrap());
        assert!(!s.blocked_between("Bao", "Abula").unwrap());
        assert!(s.block("Abula", "Nobody").is_err(), "only accounts are blocked");
    }
}

store_test! {
    #[test]
    fn a_mute_holds_until_its_time_and_a_new_one_replaces_it() {
        let s = fresh_store();
        with_accounts(&s, &["Abula", "Mod"]);
        assert!(s.muted("Abula", 1000).unwrap().is_none());
        s.mute("Abula", 5000, "Mod", "abusive chat").unwrap();
        let m = s.muted("Abula", 1000).unwrap().expect("muted");
        assert_eq!((m.until, m.by.as_str(), m.reason.as_str()), (5000, "Mod", "abusive chat"));
        assert!(s.muted("Abula", 5000).unwrap().is_none(), "over at its time");
        s.mute("Abula", 9000, "Mod", "again").unwrap();
        assert_eq!(s.muted("Abula", 6000).unwrap().unwrap().reason, "again");
        s.mute("Abula", 0, "Mod", "lifted").unwrap();
        assert!(s.muted("Abula", 6000).unwrap().is_none(), "lifted");
    }
}

// ---- Chat over the game's socket ----

// Also `blocks.rs`'s helpers: unused in some of the modules that include this file.
#[allow(dead_code)]
pub mod socket {
    use std::net::SocketAddr;
    use std::time::Duration;

    use anywoli_core::{BySide, Position, Rules};
    use anywoli_server::account::session::token_of;
    use anywoli_server::rating::GameRatings;
    use anywoli_server::round::game::{Game, Mode, NewGame, People, Player};
    use anywoli_server::round::Command;
    use anywoli_server::store::{AccountOp, AccountRow, Room, SessionRow};
    use anywoli_server::{app, AppState, Options, SiteView, Store, Think};
    use futures_util::{SinkExt, StreamExt};
    use serde_json::{json, Value};
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    use tokio_tungstenite::tungstenite::Message;

    pub type Ws = tokio_tungstenite::WebSocketStream<
        tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
    >;
    const PATIENCE: Duration = Duration::from_secs(30);

    /// A server on a port of its own, and its state (the store, the rounds).
    pub struct Srv {
        pub addr: SocketAddr,
        pub state: AppState,
    }

    pub async fn start(store: Store) -> Srv {
        start_with(store, |_| {}).await
    }

    /// [`start`] with options of the test's own.
    pub async fn start_with(store: Store, set: impl FnOnce(&mut Options)) -> Srv {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let think = Think {
            movetime: Duration::from_millis(200),
            hash_mib: 1,
        };
        let mut options = Options::new(think, SiteView::new(addr, None));
        set(&mut options);
        let state = AppState::with_options(store, options);
        state.start_background().unwrap();
        let router = app(state.clone());
        tokio::spawn(async move {
            let _ = axum::serve(
                listener,
                router.into_make_service_with_connect_info::<SocketAddr>(),
            )
            .await;
        });
        Srv { addr, state }
    }

    impl Srv {
        /// Runs `f` on the store, off the async threads (PostgreSQL's client blocks).
        pub async fn db<T: Send + 'static>(
            &self,
            f: impl FnOnce(&Store) -> T + Send + 'static,
        ) -> T {
            let store = self.state.store().clone();
            tokio::task::spawn_blocking(move || f(&store))
                .await
                .unwrap()
        }

        /// An account with a session whose cookie is `c-NAME`.
        pub async fn account(&self, name: &str) {
            let op = AccountOp::Create {
                account: AccountRow {
                    key: name.to_lowercase(),
                    name: name.into(),
                    hash: "x".into(),
                    created: 1,
                },
                session: SessionRow {
                    token: token_of(&cookie(name)),
                    name: name.into(),
                    csrf: "csrf".into(),
                    created: anywoli_server::dates::now_ms(),
                },
            };
            assert!(self.db(|s| s.account_op(op)).await.unwrap());
        }

        /// A game between `seats` (accounts, or `None` for anonymous players): its seats'
        /// secrets are `ID-south` and `ID-north`.
        pub async fn game(&self, id: &str, seats: [Option<&str>; 2]) {
            let rules = Rules::from_name("anywoli", 0).unwrap();
            let game = Game::new(NewGame {
                id: id.to_string(),
                at: anywoli_server::dates::now_ms(),
                mode: Mode::Friend,
                rules,
                players: BySide::both(Player::Human),
                secrets: BySide::from([format!("{id}-south"), format!("{id}-north")]).map(Some),
                start: Position::start(rules),
                hints: false,
                invite: None,
                clock: None,
                people: People {
                    accounts: BySide::from(seats).map(|n| n.map(str::to_string)),
                    rated: false,
                    public: true,
                    ratings: GameRatings::default(),
                },
            });
            self.state.rounds().create(game).await.unwrap();
        }

        /// Ends game `id` (aborted by South).
        pub async fn end(&self, id: &str) {
            let secret = format!("{id}-south");
            self.state
                .rounds()
                .call(id, |reply| Command::Abort {
                    secret: secret.clone(),
                    reply,
                })
                .await
                .unwrap()
                .unwrap();
        }

        /// Opens the lobby as account `who`, past its first message.
        pub async fn lobby_as(&self, who: &str) -> Ws {
            let mut req = format!("ws://{}/api/lobby", self.addr)
                .into_client_request()
                .unwrap();
            let h = req.headers_mut();
            h.insert(
                "cookie",
                format!("anywoli_session={}", cookie(who)).parse().unwrap(),
            );
            h.insert("origin", format!("http://{}", self.addr).parse().unwrap());
            let (mut ws, _) = tokio_tungstenite::connect_async(req).await.unwrap();
            assert_eq!(next(&mut ws).await["type"], "lobby");
            ws
        }

        /// Watches game `id` as account `who` (or anonymously), past its first state.
        pub async fn watch(&self, id: &str, who: Option<&str>) -> Ws {
            let mut req = format!("ws://{}/api/games/{id}/events", self.addr)
                .into_client_request()
                .unwrap();
            if let Some(n) = who {
                let h = req.headers_mut();
                h.insert(
                    "cookie",
                    format!("anywoli_session={}", cookie(n)).parse().unwrap(),
                );
                h.insert("origin", format!("http://{}", self.addr).parse().unwrap());
            }
            let (mut ws, _) = tokio_tungstenite::connect_async(req).await.unwrap();
            assert_eq!(next(&mut ws).await["type"], "state");
            ws
        }
    }

    /// Account `name`'s session cookie (43 characters, as the server's are).
    pub fn socket_cookie(name: &str) -> String {
        cookie(name)
    }

    fn cookie(name: &str) -> String {
        format!("{:x<43}", format!("c-{name}"))
    }

    /// A request as account `who`'s page sends it (cookie, CSRF token, Origin): the status
    /// and the JSON answer.
    pub async fn api(srv: &Srv, who: &str, method: &str, path: &str, body: Value) -> (u16, Value) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut s = tokio::net::TcpStream::connect(srv.addr).await.unwrap();
        let (addr, body) = (srv.addr, body.to_string());
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nOrigin: http://{addr}\r\n\
             Cookie: anywoli_session={}\r\nX-CSRF-Token: csrf\r\nConnection: close\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            cookie(who),
            body.len()
        );
        s.write_all(format!("{head}{body}").as_bytes())
            .await
            .unwrap();
        let mut text = String::new();
        s.read_to_string(&mut text).await.unwrap();
        let (head, rest) = text.split_once("\r\n\r\n").unwrap();
        let status = head.split(' ').nth(1).unwrap().parse().unwrap();
        // Small answers: one chunk when chunked.
        let json = match rest.split_once("\r\n") {
            Some((_, r)) if head.to_ascii_lowercase().contains("chunked") => {
                r.split("\r\n").next().unwrap_or("")
            }
            _ => rest,
        };
        (status, serde_json::from_str(json).unwrap_or(Value::Null))
    }

    pub async fn send(ws: &mut Ws, m: Value) {
        ws.send(Message::Text(m.to_string().into())).await.unwrap();
    }

    /// The next JSON message, or `None` when the socket closed.
    pub async fn next_or_end(ws: &mut Ws) -> Option<Value> {
        loop {
            let msg = tokio::time::timeout(PATIENCE, ws.next())
                .await
                .expect("a message in time");
            match msg {
                Some(Ok(Message::Text(t))) => return Some(serde_json::from_str(&t).unwrap()),
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => return None,
                Some(Ok(_)) => {}
            }
        }
    }

    pub async fn next(ws: &mut Ws) -> Value {
        next_or_end(ws).await.expect("the socket is open")
    }

    /// The next chat line (skipping the game's events), as (room, author, text or preset).
    pub async fn heard(ws: &mut Ws) -> (String, String, String) {
        loop {
            let m = next(ws).await;
            assert_ne!(m["type"], "error", "{m}");
            if m["type"] == "chat" {
                let s = |k: &str| m[k].as_str().unwrap_or("").to_string();
                let said = if m["text"].is_string() {
                    s("text")
                } else {
                    s("preset")
                };
                let who = if m["author"].is_string() {
                    s("author")
                } else {
                    s("side")
                };
                return (s("room"), who, said);
            }
        }
    }

    /// Says `text` in `room` and expects the refusal `code`.
    pub async fn refused(ws: &mut Ws, room: &str, text: &str, code: &str) {
        refused_as(
            ws,
            json!({"type": "chat", "room": room, "text": text}),
            code,
        )
        .await;
    }

    /// Sends `m` and expects the refusal `code` (lines heard before it are the history).
    pub async fn refused_as(ws: &mut Ws, m: Value, code: &str) {
        send(ws, m).await;
        loop {
            let m = next(ws).await;
            if m["type"] == "error" {
                assert_eq!(m["error"], code, "{m}");
                assert!(m["message"].is_string(), "{m}");
                return;
            }
        }
    }

    pub fn said(room: &str, who: &str, text: &str) -> (String, String, String) {
        (room.into(), who.into(), text.into())
    }

    pub async fn lines_in(srv: &Srv, id: &'static str, room: Room) -> Vec<String> {
        srv.db(move |s| s.chat_lines(id, room, 100).unwrap())
            .await
            .into_iter()
            .map(|l| l.text)
            .collect()
    }
}

use serde_json::json;
use socket::*;

store_test! {
    #[tokio::test]
    async fn players_and_spectators_talk_in_their_rooms() {
        let srv = start(fresh_store()).await;
        for n in ["Abula", "Bako", "Cabo"] {
            srv.account(n).await;
        }
        srv.game("chatgame6666", [Some("Abula"), Some("Bako")]).await;
        let mut a = srv.watch("chatgame6666", Some("Abula")).await;
        let mut b = srv.watch("chatgame6666", Some("Bako")).await;
        let mut c = srv.watch("chatgame6666", Some("Cabo")).await;

        send(&mut a, json!({"type": "chat", "room": "players", "text": " <b>good luck</b> "})).await;
        for ws in [&mut a, &mut b, &mut c] {
            assert_eq!(heard(ws).await, said("players", "Abula", "<b>good luck</b>"));
        }
        // The spectators' line reaches spectators only while the game goes on.
        send(&mut c, json!({"type": "chat", "room": "spectators", "text": "nice opening"})).await;
        assert_eq!(heard(&mut c).await, said("spectators", "Cabo", "nice opening"));
        send(&mut b, json!({"type": "chat", "room": "players", "text": "thanks"})).await;
        for ws in [&mut a, &mut b, &mut c] {
            assert_eq!(heard(ws).await, said("players", "Bako", "thanks"), "no spectators' line first");
        }
        // Each writes in its own room only.
        refused(&mut c, "players", "let me in", "not_your_seat").await;
        refused(&mut a, "spectators", "hi all", "not_allowed").await;
        let mut anon = srv.watch("chatgame6666", None).await;
        refused(&mut anon, "spectators", "hi", "not_logged_in").await;

        // A reconnect reads the rooms so far; a player reads the spectators' once it is over.
        let mut c2 = srv.watch("chatgame6666", Some("Cabo")).await;
        assert_eq!(heard(&mut c2).await, said("players", "Abula", "<b>good luck</b>"));
        assert_eq!(heard(&mut c2).await, said("spectators", "Cabo", "nice opening"));
        assert_eq!(heard(&mut c2).await, said("players", "Bako", "thanks"));
        srv.end("chatgame6666").await;
        let mut a2 = srv.watch("chatgame6666", Some("Abula")).await;
        for _ in 0..2 {
            heard(&mut a2).await;
        }
        assert_eq!(heard(&mut a2).await, said("players", "Bako", "thanks"));
        send(&mut c, json!({"type": "chat", "room": "spectators", "text": "well played both"})).await;
        assert_eq!(heard(&mut a).await, said("spectators", "Cabo", "well played both"));
        let players = lines_in(&srv, "chatgame6666", Room::Players).await;
        assert_eq!(players, ["<b>good luck</b>", "thanks"]);
        let spectators = lines_in(&srv, "chatgame6666", Room::Spectators).await;
        assert_eq!(spectators, ["nice opening", "well played both"]);
    }
}

store_test! {
    #[tokio::test]
    async fn bad_lines_are_refused_and_change_nothing() {
        let srv = start(fresh_store()).await;
        for n in ["Abula", "Bako", "Cabo"] {
            srv.account(n).await;
        }
        srv.game("chatgame2222", [Some("Abula"), Some("Bako")]).await;
        let mut a = srv.watch("chatgame2222", Some("Abula")).await;
        refused(&mut a, "players", &"x".repeat(141), "too_large").await;
        refused(&mut a, "players", "ring\u{7}", "bad_text").await;
        refused(&mut a, "players", "two\nlines", "bad_text").await;
        refused(&mut a, "players", "   ", "bad_text").await;
        for i in 0..5 {
            send(&mut a, json!({"type": "chat", "room": "players", "text": format!("line {i}")})).await;
            assert_eq!(heard(&mut a).await.2, format!("line {i}"));
        }
        refused(&mut a, "players", "a sixth", "rate_limited").await;
        let mut b = srv.watch("chatgame2222", Some("Bako")).await;
        for _ in 0..5 {
            heard(&mut b).await;
        }
        send(&mut b, json!({"type": "chat", "room": "players", "text": "same"})).await;
        heard(&mut b).await;
        refused(&mut b, "players", "same", "repeated").await;
        // Muted by a moderator: refused until the mute ends.
        let until = anywoli_server::dates::now_ms() + 60_000;
        srv.db(move |s| s.mute("Bako", until, "Cabo", "abusive chat")).await.unwrap();
        refused(&mut b, "players", "let me speak", "muted").await;
        // Blocked players do not talk to each other (the other's socket hears nothing).
        srv.db(|s| s.block("Abula", "Bako")).await.unwrap();
        srv.db(|s| s.mute("Bako", 0, "Cabo", "lifted")).await.unwrap();
        let mut b = srv.watch("chatgame2222", Some("Bako")).await;
        refused(&mut b, "players", "hello?", "blocked").await;
        // A 100 KB line is beyond the socket's bounds: the socket closes.
        send(&mut b, json!({"type": "chat", "room": "players", "text": "x".repeat(100_000)})).await;
        while let Some(m) = next_or_end(&mut b).await {
            assert_ne!(m["type"], "chat", "{m}");
        }
        let stored = lines_in(&srv, "chatgame2222", Room::Players).await;
        assert_eq!(stored.len(), 6, "{stored:?}");
    }
}

store_test! {
    #[tokio::test]
    async fn blocked_spectators_do_not_see_each_other() {
        let srv = start(fresh_store()).await;
        for n in ["Abula", "Bako", "Cabo", "Dede"] {
            srv.account(n).await;
        }
        srv.game("chatgame3333", [Some("Abula"), Some("Bako")]).await;
        srv.db(|s| s.block("Dede", "Cabo")).await.unwrap();
        let mut c = srv.watch("chatgame3333", Some("Cabo")).await;
        let mut d = srv.watch("chatgame3333", Some("Dede")).await;
        send(&mut c, json!({"type": "chat", "room": "spectators", "text": "psst"})).await;
        assert_eq!(heard(&mut c).await.2, "psst", "the sender gets no hint");
        send(&mut d, json!({"type": "chat", "room": "spectators", "text": "hello"})).await;
        assert_eq!(heard(&mut d).await, said("spectators", "Dede", "hello"), "not Cabo's line");
        send(&mut c, json!({"type": "chat", "room": "spectators", "text": "anyone?"})).await;
        assert_eq!(heard(&mut c).await.2, "anyone?", "nor Dede's line to Cabo");
    }
}

store_test! {
    #[tokio::test]
    async fn anonymous_players_say_presets_only() {
        let srv = start(fresh_store()).await;
        srv.game("chatgame4444", [None, None]).await;
        let mut s = srv.watch("chatgame4444", None).await;
        let mut n = srv.watch("chatgame4444", None).await;
        for (ws, side) in [(&mut s, "south"), (&mut n, "north")] {
            send(ws, json!({"type": "hello", "secret": format!("chatgame4444-{side}")})).await;
            loop {
                if next(ws).await["type"] == "hello" {
                    break;
                }
            }
        }
        refused(&mut s, "players", "hi", "not_logged_in").await;
        send(&mut s, json!({"type": "chat", "room": "players", "preset": "good_luck"})).await;
        assert_eq!(heard(&mut n).await, said("players", "south", "good_luck"));
        refused_as(&mut n, json!({"type": "chat", "room": "players", "preset": "swear"}), "malformed").await;
        let mut w = srv.watch("chatgame4444", None).await;
        let m = json!({"type": "chat", "room": "players", "preset": "rematch"});
        refused_as(&mut w, m, "not_your_seat").await;
    }
}

postgres_test! {
    /// Two instances on one PostgreSQL database: an account's pace counts the lines said
    /// through both.
    #[test]
    fn the_pace_holds_across_instances() {
        let (sa, sb) = Store::test_postgres_pair("chat pace across instances");
        with_accounts(&sa, &["Abula"]);
        let pace = Pace { lines: 5, window_ms: 10_000 };
        for i in 0..5 {
            let store = if i % 2 == 0 { &sa } else { &sb };
            let l = line("g1", Room::Spectators, "Abula", &format!("l{i}"), 1_000 + i);
            assert_eq!(store.say_chat_line(l, pace).unwrap(), Said::Saved);
        }
        let l = line("g1", Room::Spectators, "Abula", "l9", 1_100);
        assert_eq!(sb.say_chat_line(l.clone(), pace).unwrap(), Said::TooMany);
        assert_eq!(sa.say_chat_line(l, pace).unwrap(), Said::TooMany);
    }
}

postgres_test! {
    /// Two instances on one PostgreSQL database: a line said through one reaches the game's
    /// watchers on the other, and a block made on one holds on the other.
    #[tokio::test]
    async fn a_line_crosses_to_the_other_instance() {
        let (sa, sb) = Store::test_postgres_pair("chat across instances");
        let (a, b) = (start(sa).await, start(sb).await);
        for n in ["Abula", "Bako", "Cabo"] {
            a.account(n).await;
        }
        a.game("chatgame7777", [Some("Abula"), Some("Bako")]).await;
        let mut abula = a.watch("chatgame7777", Some("Abula")).await;
        let mut bako = b.watch("chatgame7777", Some("Bako")).await;
        let mut cabo = b.watch("chatgame7777", Some("Cabo")).await;
        send(&mut abula, json!({"type": "chat", "room": "players", "text": "hello there"})).await;
        for ws in [&mut abula, &mut bako, &mut cabo] {
            assert_eq!(heard(ws).await, said("players", "Abula", "hello there"));
        }
        send(&mut cabo, json!({"type": "chat", "room": "spectators", "text": "from b"})).await;
        assert_eq!(heard(&mut cabo).await, said("spectators", "Cabo", "from b"));
        a.db(|s| s.block("Bako", "Abula")).await.unwrap();
        let mut abula = a.watch("chatgame7777", Some("Abula")).await;
        refused(&mut abula, "players", "still there?", "blocked").await;
        drop(b);
    }
}
