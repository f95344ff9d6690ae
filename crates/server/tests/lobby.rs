// The lobby on a real port (docs/api-players.md, "The lobby" and "Challenges"): seeks over
// WebSockets, challenges over HTTP, and the games they start, played to a rated finish.
// Every wait is for a named message, with a generous timeout; nothing depends on timing.
// (Plain comments: `lobby_postgres.rs` includes this file.)

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anywoli_server::{start, Config, Server, Think};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

pub(crate) type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Long enough for a slow CI machine, short enough that a hang fails instead of blocking.
const PATIENCE: Duration = Duration::from_secs(30);

pub(crate) fn config(db: PathBuf) -> Config {
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

// A new SQLite file here; `lobby_postgres.rs` defines a `fresh_db` of its own, which shadows
// this glob-imported one.
#[allow(unused_imports)]
use sqlite_db::*;
#[allow(dead_code)]
mod sqlite_db {
    use std::path::PathBuf;

    pub fn fresh_db(name: &str) -> PathBuf {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("lobby-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("games.sqlite")
    }
}

async fn serve(name: &str) -> Server {
    start(&config(fresh_db(name))).await.unwrap()
}

/// A signed-up account: its name, session cookie and CSRF token.
pub(crate) struct Account {
    pub(crate) name: String,
    pub(crate) cookie: String,
    pub(crate) csrf: String,
}

/// How a request is sent: anonymously, with a session cookie only, or as a page of the
/// server sends a change (cookie and `X-CSRF-Token`).
#[derive(Clone, Copy)]
pub(crate) enum As<'a> {
    Nobody,
    CookieOnly(&'a Account),
    Authed(&'a Account),
}

/// A minimal HTTP/1.1 client: one request per connection, JSON in and out. The status, the
/// JSON body and the head (for `Set-Cookie`).
async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<Value>,
    who: As<'_>,
) -> (u16, Value, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let mut extra = String::new();
    if method == "POST" {
        // As the server's own pages send it.
        extra.push_str(&format!("Origin: http://{addr}\r\n"));
    }
    match who {
        As::Nobody => {}
        As::CookieOnly(a) => extra.push_str(&format!("Cookie: anywoli_session={}\r\n", a.cookie)),
        As::Authed(a) => extra.push_str(&format!(
            "Cookie: anywoli_session={}\r\nX-CSRF-Token: {}\r\n",
            a.cookie, a.csrf
        )),
    }
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{extra}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut buf = Vec::new();
    tokio::time::timeout(PATIENCE, s.read_to_end(&mut buf))
        .await
        .expect("an answer in time")
        .unwrap();
    let text = String::from_utf8(buf).unwrap();
    let (head, rest) = text.split_once("\r\n\r\n").unwrap();
    let status: u16 = head.split(' ').nth(1).unwrap().parse().unwrap();
    let json_text = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(rest)
    } else {
        rest.to_string()
    };
    (
        status,
        serde_json::from_str(&json_text).unwrap_or(Value::Null),
        head.to_string(),
    )
}

/// The body of a `Transfer-Encoding: chunked` answer.
fn dechunk(mut rest: &str) -> String {
    let mut out = String::new();
    loop {
        let (size, after) = rest.split_once("\r\n").expect("a chunk size");
        let size = usize::from_str_radix(size.split(';').next().unwrap().trim(), 16).unwrap();
        if size == 0 {
            return out;
        }
        out.push_str(&after[..size]);
        rest = &after[size + 2..];
    }
}

pub(crate) async fn call(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<Value>,
    who: As<'_>,
) -> (u16, Value) {
    let (status, body, _) = request(addr, method, path, body, who).await;
    (status, body)
}

pub(crate) async fn signup(addr: SocketAddr, name: &str) -> Account {
    let (status, v, head) = request(
        addr,
        "POST",
        "/api/account/signup",
        Some(json!({"name": name, "password": "correct horse battery"})),
        As::Nobody,
    )
    .await;
    assert_eq!(status, 201, "{v}");
    let cookie = head
        .lines()
        .filter_map(|l| l.split_once(':'))
        .filter(|(k, _)| k.eq_ignore_ascii_case("set-cookie"))
        .find_map(|(_, v)| v.trim().strip_prefix("anywoli_session="))
        .and_then(|v| v.split(';').next())
        .expect("signing up sets the session cookie")
        .to_string();
    Account {
        name: v["account"]["name"].as_str().unwrap().to_string(),
        cookie,
        csrf: v["account"]["csrf"].as_str().unwrap().to_string(),
    }
}

/// Opens a lobby connection, as `who` (the cookie on the upgrade request, with the `Origin`
/// a page of the server sends) or anonymously (no cookie, no `Origin`), and reads its
/// `lobby` message.
pub(crate) async fn lobby(addr: SocketAddr, who: Option<&Account>) -> (Ws, Value) {
    let mut req = format!("ws://{addr}/api/lobby")
        .into_client_request()
        .unwrap();
    if let Some(a) = who {
        let h = req.headers_mut();
        h.insert(
            "cookie",
            format!("anywoli_session={}", a.cookie).parse().unwrap(),
        );
        h.insert("origin", format!("http://{addr}").parse().unwrap());
    }
    let (mut ws, _) = tokio_tungstenite::connect_async(req).await.unwrap();
    let hello = next(&mut ws).await;
    assert_eq!(
        hello["type"], "lobby",
        "the first message is `lobby`: {hello}"
    );
    let you = who.map_or(Value::Null, |a| json!(a.name));
    assert_eq!(hello["you"], you, "{hello}");
    (ws, hello)
}

pub(crate) async fn send(ws: &mut Ws, m: Value) {
    ws.send(Message::Text(m.to_string().into())).await.unwrap();
}

/// The next JSON message, whatever it is.
pub(crate) async fn next(ws: &mut Ws) -> Value {
    loop {
        let msg = tokio::time::timeout(PATIENCE, ws.next())
            .await
            .expect("a lobby message in time")
            .expect("the socket is open")
            .unwrap();
        if let Message::Text(t) = msg {
            return serde_json::from_str(&t).unwrap();
        }
    }
}

/// The next message, which must be of `kind`.
async fn expect(ws: &mut Ws, kind: &str) -> Value {
    let m = next(ws).await;
    assert_eq!(m["type"], kind, "expected `{kind}`, got {m}");
    m
}

/// The next message, which must be the error `code`.
async fn expect_error(ws: &mut Ws, code: &str) {
    let m = expect(ws, "error").await;
    assert_eq!(m["error"], code, "{m}");
    assert!(
        m["message"].as_str().is_some_and(|s| !s.is_empty()),
        "an error says why: {m}"
    );
}

/// The next `n` messages, in whatever order they come.
async fn next_n(ws: &mut Ws, n: usize) -> Vec<Value> {
    let mut out = Vec::new();
    for _ in 0..n {
        out.push(next(ws).await);
    }
    out
}

fn of_type<'a>(ms: &'a [Value], kind: &str) -> &'a Value {
    let found: Vec<&Value> = ms.iter().filter(|m| m["type"] == kind).collect();
    assert_eq!(found.len(), 1, "one `{kind}` among {ms:?}");
    found[0]
}

/// Makes a seek on `ws` and reads what its creator hears: `seeking`, then the lobby's `seek`
/// with the same id. The seek.
async fn seek(ws: &mut Ws, m: Value) -> Value {
    send(ws, json!({"type": "seek"}).merged(m)).await;
    let seeking = expect(ws, "seeking").await;
    let seek = expect(ws, "seek").await;
    assert_eq!(seek["seek"]["id"], seeking["id"], "{seeking} then {seek}");
    seek["seek"].clone()
}

/// Reads the lobby's `seek` of `id` on `ws`.
async fn hears_seek(ws: &mut Ws, id: &Value) -> Value {
    let m = expect(ws, "seek").await;
    assert_eq!(&m["seek"]["id"], id, "{m}");
    m["seek"].clone()
}

/// Reads the lobby's `unseek` of `id` on `ws`.
async fn hears_unseek(ws: &mut Ws, id: &Value) {
    let m = expect(ws, "unseek").await;
    assert_eq!(&m["id"], id, "{m}");
}

trait Merge {
    fn merged(self, other: Value) -> Value;
}

impl Merge for Value {
    fn merged(mut self, other: Value) -> Value {
        if let (Some(a), Value::Object(b)) = (self.as_object_mut(), other) {
            a.extend(b);
        }
        self
    }
}

async fn close(mut ws: Ws) {
    let _ = ws.close(None).await;
}

store_test! {
    #[tokio::test]
    async fn seeks_come_and_go_for_everyone() {
        let server = serve("seeks").await;
        let addr = server.addr;
        let abula = signup(addr, "Abula").await;
        let (mut a, hello) = lobby(addr, Some(&abula)).await;
        assert_eq!(hello["seeks"], json!([]));
        let (mut b, hello) = lobby(addr, None).await;
        assert_eq!(hello["seeks"], json!([]));

        // A page of another site may not open the lobby with the visitor's cookie.
        let mut req = format!("ws://{addr}/api/lobby")
            .into_client_request()
            .unwrap();
        req.headers_mut()
            .insert("origin", "https://evil.example.com".parse().unwrap());
        match tokio_tungstenite::connect_async(req).await {
            Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => {
                assert_eq!(resp.status(), 403)
            }
            other => panic!("a cross-site upgrade is refused: {other:?}"),
        }

        let s = seek(&mut a, json!({"clock": "1+0", "side": "south"})).await;
        assert_eq!(s["by"], "Abula");
        assert_eq!(s["rating"], json!(1500.0));
        assert_eq!(s["provisional"], true);
        assert_eq!(s["rules"], "anywoli");
        assert_eq!(s["clock"], "1+0");
        assert_eq!(s["category"], "bullet");
        assert_eq!(s["rated"], false);
        assert_eq!(s["side"], "south");
        assert_eq!(s["range"], Value::Null);
        let id = s["id"].clone();
        assert_eq!(
            hears_seek(&mut b, &id).await,
            s,
            "everyone sees the same seek"
        );

        // Whoever comes later finds it in the list.
        let (c, hello) = lobby(addr, None).await;
        assert_eq!(hello["seeks"], json!([s]));
        close(c).await;

        // Pings are answered.
        send(&mut b, json!({"type": "ping"})).await;
        expect(&mut b, "pong").await;

        send(&mut a, json!({"type": "cancel", "id": id})).await;
        hears_unseek(&mut a, &id).await;
        hears_unseek(&mut b, &id).await;
        let (c, hello) = lobby(addr, None).await;
        assert_eq!(hello["seeks"], json!([]));
        close(c).await;

        // An anonymous player's seek has no name or rating.
        let s = seek(&mut b, json!({"clock": "5+3"})).await;
        assert_eq!(s["by"], Value::Null);
        assert_eq!(s["rating"], Value::Null);
        assert_eq!(s["side"], "random");
        assert_eq!(s["category"], "blitz");
        hears_seek(&mut a, &s["id"]).await;
        send(&mut b, json!({"type": "cancel", "id": s["id"]})).await;
        hears_unseek(&mut b, &s["id"]).await;
        hears_unseek(&mut a, &s["id"]).await;

        close(a).await;
        close(b).await;
        server.stop().await;
    }
}

store_test! {
    #[tokio::test]
    async fn a_seek_dies_with_its_connection() {
        let server = serve("dies").await;
        let addr = server.addr;
        let abula = signup(addr, "Abula").await;
        let (mut a, _) = lobby(addr, Some(&abula)).await;
        let (mut b, _) = lobby(addr, None).await;
        let s = seek(&mut a, json!({"clock": "1+0", "side": "south"})).await;
        hears_seek(&mut b, &s["id"]).await;
        // A second seek of another connection stays.
        let (mut c, _) = lobby(addr, None).await;
        let other = seek(&mut c, json!({"clock": "3+2"})).await;
        hears_seek(&mut a, &other["id"]).await;
        hears_seek(&mut b, &other["id"]).await;

        close(a).await;
        hears_unseek(&mut b, &s["id"]).await;
        hears_unseek(&mut c, &s["id"]).await;
        let (d, hello) = lobby(addr, None).await;
        assert_eq!(
            hello["seeks"],
            json!([other]),
            "only the other seek is left"
        );
        close(d).await;

        // A connection dropped without a close frame takes its seeks too.
        drop(c);
        hears_unseek(&mut b, &other["id"]).await;
        let (d, hello) = lobby(addr, None).await;
        assert_eq!(hello["seeks"], json!([]));
        close(d).await;
        close(b).await;
        server.stop().await;
    }
}

store_test! {
    #[tokio::test]
    async fn accepting_a_seek_starts_the_game_for_both() {
        let server = serve("accept").await;
        let addr = server.addr;
        let abula = signup(addr, "Abula").await;
        let (mut a, _) = lobby(addr, Some(&abula)).await;
        let (mut b, _) = lobby(addr, None).await;
        let s = seek(&mut a, json!({"clock": "1+0", "side": "south"})).await;
        let id = s["id"].clone();
        hears_seek(&mut b, &id).await;

        send(&mut b, json!({"type": "accept", "id": id})).await;
        // Each hears the seek go and the game start (the two come by different ways, in either
        // order).
        let heard_a = next_n(&mut a, 2).await;
        let heard_b = next_n(&mut b, 2).await;
        for heard in [&heard_a, &heard_b] {
            assert_eq!(of_type(heard, "unseek")["id"], id);
        }
        let (sa, sb) = (of_type(&heard_a, "started"), of_type(&heard_b, "started"));
        assert_eq!(sa["game"], sb["game"], "{sa} {sb}");
        assert_eq!(sa["seat"], "south", "the creator asked for South");
        assert_eq!(sb["seat"], "north");
        let (secret_a, secret_b) = (
            sa["secret"].as_str().unwrap().to_string(),
            sb["secret"].as_str().unwrap().to_string(),
        );
        assert_ne!(secret_a, secret_b, "each has a secret of their own");
        let game = sa["game"].as_str().unwrap().to_string();

        let (status, g) = call(addr, "GET", &format!("/api/games/{game}"), None, As::Nobody).await;
        assert_eq!(status, 200, "{g}");
        assert_eq!(g["status"], "playing");
        assert_eq!(g["seats"]["south"]["taken"], true);
        assert_eq!(g["seats"]["north"]["taken"], true);
        assert_eq!(g["seats"]["south"]["kind"], "human");
        assert_eq!(g["seats"]["north"]["kind"], "human");
        assert_eq!(g["seats"]["south"]["player"], "Abula");
        assert_eq!(g["seats"]["north"]["player"], Value::Null);
        assert_eq!(g["public"], true, "lobby games are public from the start");
        assert_eq!(g["rated"], false);
        assert_eq!(g["clock"]["control"], "1+0");
        assert_eq!(g["category"], "bullet");
        assert_eq!(g["rules"], "anywoli");
        assert!(
            !g.to_string().contains(&secret_a) && !g.to_string().contains(&secret_b),
            "the view carries no secret"
        );
        assert_eq!(g["to_move"], "south");

        // Each secret plays its own side only.
        let moves = format!("/api/games/{game}/moves");
        let first = g["legal"][0].clone();
        let (status, e) = call(
            addr,
            "POST",
            &moves,
            Some(json!({"move": first, "secret": secret_b})),
            As::Nobody,
        )
        .await;
        assert_eq!(
            (status, e["error"].as_str()),
            (409, Some("not_your_turn")),
            "{e}"
        );
        let (status, g) = call(
            addr,
            "POST",
            &moves,
            Some(json!({"move": first, "secret": secret_a})),
            As::Nobody,
        )
        .await;
        assert_eq!(status, 200, "{g}");
        let g = if g["game"].is_object() {
            g["game"].clone()
        } else {
            g
        };
        assert_eq!(g["to_move"], "north", "{g}");
        let reply = g["legal"][0].clone();
        let (status, e) = call(
            addr,
            "POST",
            &moves,
            Some(json!({"move": reply, "secret": secret_a})),
            As::Nobody,
        )
        .await;
        assert_eq!(
            (status, e["error"].as_str()),
            (409, Some("not_your_turn")),
            "{e}"
        );
        let (status, g) = call(
            addr,
            "POST",
            &moves,
            Some(json!({"move": reply, "secret": secret_b})),
            As::Nobody,
        )
        .await;
        assert_eq!(status, 200, "{g}");

        // The game is the account's: it can fetch its seat with the cookie.
        let (status, seat) = call(
            addr,
            "POST",
            &format!("/api/games/{game}/seat"),
            None,
            As::Authed(&abula),
        )
        .await;
        assert_eq!(status, 200, "{seat}");
        assert_eq!(seat["secret"], secret_a);

        // The seek is gone: accepting it again is refused.
        let (mut c, hello) = lobby(addr, None).await;
        assert_eq!(hello["seeks"], json!([]));
        send(&mut c, json!({"type": "accept", "id": id})).await;
        expect_error(&mut c, "unknown_seek").await;
        close(c).await;
        close(a).await;
        close(b).await;
        server.stop().await;
    }
}

store_test! {
    #[tokio::test]
    async fn seeks_and_accepts_that_are_refused() {
        let server = serve("refused").await;
        let addr = server.addr;
        let abula = signup(addr, "Abula").await;
        let chidi = signup(addr, "Chidi").await;
        let (mut a, _) = lobby(addr, Some(&abula)).await;
        let (mut b, _) = lobby(addr, None).await;
        let (mut c, _) = lobby(addr, Some(&chidi)).await;

        // Rated seeks need an account.
        send(
            &mut b,
            json!({"type": "seek", "clock": "1+0", "rated": true}),
        )
        .await;
        expect_error(&mut b, "rated_needs_account").await;

        // So does accepting one; and nobody accepts their own.
        let rated = seek(&mut a, json!({"clock": "1+0", "rated": true})).await;
        assert_eq!(rated["rated"], true);
        let id = rated["id"].clone();
        hears_seek(&mut b, &id).await;
        hears_seek(&mut c, &id).await;
        send(&mut b, json!({"type": "accept", "id": id})).await;
        expect_error(&mut b, "rated_needs_account").await;
        send(&mut a, json!({"type": "accept", "id": id})).await;
        expect_error(&mut a, "own_seek").await;
        // Not from another tab of the same account either.
        let (mut a2, hello) = lobby(addr, Some(&abula)).await;
        assert_eq!(hello["seeks"], json!([rated]));
        send(&mut a2, json!({"type": "accept", "id": id})).await;
        expect_error(&mut a2, "own_seek").await;
        close(a2).await;
        // Nor cancels another's.
        send(&mut c, json!({"type": "cancel", "id": id})).await;
        expect_error(&mut c, "unknown_seek").await;
        // The seek is still open after all that.
        let (d, hello) = lobby(addr, None).await;
        assert_eq!(hello["seeks"], json!([rated]));
        close(d).await;
        send(&mut a, json!({"type": "cancel", "id": id})).await;
        for ws in [&mut a, &mut b, &mut c] {
            hears_unseek(ws, &id).await;
        }

        // A range leaves out a new player (1500) and anyone without a rating.
        let ranged = seek(&mut a, json!({"clock": "3+2", "range": [1600, 1700]})).await;
        assert_eq!(ranged["range"], json!([1600, 1700]));
        let id = ranged["id"].clone();
        hears_seek(&mut b, &id).await;
        hears_seek(&mut c, &id).await;
        send(&mut c, json!({"type": "accept", "id": id})).await;
        expect_error(&mut c, "out_of_range").await;
        send(&mut b, json!({"type": "accept", "id": id})).await;
        expect_error(&mut b, "out_of_range").await;
        // One that takes them in can be accepted.
        let wide = seek(&mut a, json!({"clock": "3+2", "range": [1400, 1600]})).await;
        hears_seek(&mut b, &wide["id"]).await;
        hears_seek(&mut c, &wide["id"]).await;
        send(&mut c, json!({"type": "accept", "id": wide["id"]})).await;
        let heard = next_n(&mut c, 2).await;
        assert_eq!(of_type(&heard, "unseek")["id"], wide["id"]);
        assert!(of_type(&heard, "started")["game"].is_string());
        let heard = next_n(&mut a, 2).await;
        assert_eq!(of_type(&heard, "unseek")["id"], wide["id"]);
        of_type(&heard, "started");
        hears_unseek(&mut b, &wide["id"]).await;

        // Seeks that are gone, or never were.
        send(&mut b, json!({"type": "accept", "id": "nosuchseek00"})).await;
        expect_error(&mut b, "unknown_seek").await;
        send(&mut b, json!({"type": "cancel", "id": "nosuchseek00"})).await;
        expect_error(&mut b, "unknown_seek").await;
        send(&mut b, json!({"type": "accept", "id": wide["id"]})).await;
        expect_error(&mut b, "unknown_seek").await;

        // Messages that are not lobby messages.
        for bad in [
            "not json".to_string(),
            "[]".to_string(),
            json!({"type": "hello"}).to_string(),
            json!({"type": "seek"}).to_string(),
            json!({"type": "seek", "clock": "7 minutes"}).to_string(),
            json!({"type": "seek", "clock": "1+0", "side": "east"}).to_string(),
            json!({"type": "seek", "clock": "1+0", "rules": "chess"}).to_string(),
            json!({"type": "seek", "clock": "1+0", "range": [1700, 1600]}).to_string(),
            json!({"type": "seek", "clock": "1+0", "range": [1700]}).to_string(),
            json!({"type": "seek", "clock": "1+0", "colour": "white"}).to_string(),
            json!({"type": "accept"}).to_string(),
            json!({"type": "cancel", "id": 5}).to_string(),
        ] {
            b.send(Message::Text(bad.clone().into())).await.unwrap();
            let m = expect(&mut b, "error").await;
            assert_eq!(m["error"], "malformed", "{bad} → {m}");
        }
        // None of them made a seek: the ranged one is still the only one.
        let (d, hello) = lobby(addr, None).await;
        assert_eq!(hello["seeks"], json!([ranged]));
        close(d).await;

        // At most three open seeks per connection; cancelling one makes room again.
        let (mut e, _) = lobby(addr, None).await;
        let mut mine = Vec::new();
        for _ in 0..3 {
            mine.push(seek(&mut e, json!({"clock": "10+5"})).await["id"].clone());
        }
        send(&mut e, json!({"type": "seek", "clock": "10+5"})).await;
        expect_error(&mut e, "rate_limited").await;
        send(&mut e, json!({"type": "ping"})).await;
        expect(&mut e, "pong").await;
        send(&mut e, json!({"type": "cancel", "id": mine[0]})).await;
        hears_unseek(&mut e, &mine[0]).await;
        seek(&mut e, json!({"clock": "10+5"})).await;
        // Others may still seek.
        let (d, hello) = lobby(addr, None).await;
        assert_eq!(hello["seeks"].as_array().unwrap().len(), 4, "{hello}");
        close(d).await;

        // A connection that floods the lobby is cut off, and its seek goes with it.
        let (mut f, _) = lobby(addr, None).await;
        let flooded = seek(&mut f, json!({"clock": "10+5"})).await;
        hears_seek(&mut e, &flooded["id"]).await;
        for _ in 0..40 {
            if f.send(Message::Text(r#"{"type":"ping"}"#.into()))
                .await
                .is_err()
            {
                break;
            }
        }
        let mut closed = false;
        while let Ok(Some(m)) = tokio::time::timeout(PATIENCE, f.next()).await {
            match m {
                Ok(Message::Close(frame)) => {
                    assert_eq!(frame.unwrap().reason.as_str(), "too many messages");
                    closed = true;
                    break;
                }
                Ok(_) => continue,
                Err(_) => {
                    closed = true;
                    break;
                }
            }
        }
        assert!(closed, "the flooding socket was closed");
        hears_unseek(&mut e, &flooded["id"]).await;

        for ws in [a, b, c, e] {
            close(ws).await;
        }
        server.stop().await;
    }
}

store_test! {
    #[tokio::test]
    async fn challenges_by_name() {
        let server = serve("challenges").await;
        let addr = server.addr;
        let abula = signup(addr, "Abula").await;
        let bako = signup(addr, "Bako").await;
        let chidi = signup(addr, "Chidi").await;
        let (mut a, _) = lobby(addr, Some(&abula)).await;
        let (mut b, _) = lobby(addr, Some(&bako)).await;

        // The name is found whatever its case.
        let (status, v) = call(
            addr,
            "POST",
            "/api/challenges",
            Some(json!({"to": "bAKO", "clock": "5+3"})),
            As::Authed(&abula),
        )
        .await;
        assert_eq!(status, 201, "{v}");
        let ch = v["challenge"].clone();
        assert_eq!(ch["from"], "Abula");
        assert_eq!(ch["to"], "Bako");
        assert_eq!(ch["clock"], "5+3");
        assert_eq!(ch["category"], "blitz");
        assert_eq!(ch["rated"], false);
        assert_eq!(ch["side"], "random");
        assert_eq!(ch["rules"], "anywoli");
        let id = ch["id"].clone();
        let m = expect(&mut b, "challenge").await;
        assert_eq!(m["challenge"], ch);
        // One waiting challenge from one player to another (issue 36: one stranger could fill
        // all of a player's places); nothing changes.
        let (status, v) = call(
            addr,
            "POST",
            "/api/challenges",
            Some(json!({"to": "Bako", "clock": "3+2"})),
            As::Authed(&abula),
        )
        .await;
        assert_eq!(
            (status, v["error"].as_str()),
            (409, Some("already_challenged")),
            "{v}"
        );

        let (status, v) = call(addr, "GET", "/api/challenges", None, As::CookieOnly(&bako)).await;
        assert_eq!(status, 200, "{v}");
        assert_eq!(v["incoming"], json!([ch]));
        assert_eq!(v["outgoing"], json!([]));
        let (_, v) = call(addr, "GET", "/api/challenges", None, As::CookieOnly(&abula)).await;
        assert_eq!(v["incoming"], json!([]));
        assert_eq!(v["outgoing"], json!([ch]));
        let (_, v) = call(addr, "GET", "/api/challenges", None, As::CookieOnly(&chidi)).await;
        assert_eq!((&v["incoming"], &v["outgoing"]), (&json!([]), &json!([])));
        let (status, v) = call(addr, "GET", "/api/challenges", None, As::Nobody).await;
        assert_eq!((status, v["error"].as_str()), (401, Some("not_logged_in")));

        // A third player can neither accept nor decline it; nor can the challenger accept it.
        for path in ["accept", "decline"] {
            let (status, v) = call(
                addr,
                "POST",
                &format!("/api/challenges/{}/{path}", id.as_str().unwrap()),
                None,
                As::Authed(&chidi),
            )
            .await;
            assert_eq!(
                (status, v["error"].as_str()),
                (404, Some("unknown_challenge")),
                "{v}"
            );
        }
        let (status, v) = call(
            addr,
            "POST",
            &format!("/api/challenges/{}/accept", id.as_str().unwrap()),
            None,
            As::Authed(&abula),
        )
        .await;
        assert_eq!(
            (status, v["error"].as_str()),
            (404, Some("unknown_challenge")),
            "{v}"
        );
        // Without the CSRF token, or with another session's, nothing happens.
        for who in [As::CookieOnly(&bako), As::Nobody] {
            let (status, v) = call(
                addr,
                "POST",
                &format!("/api/challenges/{}/accept", id.as_str().unwrap()),
                None,
                who,
            )
            .await;
            assert!(
                matches!(
                    (status, v["error"].as_str()),
                    (403, Some("csrf")) | (401, Some("not_logged_in"))
                ),
                "{status} {v}"
            );
        }
        let forged = Account {
            name: bako.name.clone(),
            cookie: bako.cookie.clone(),
            csrf: abula.csrf.clone(),
        };
        let (status, v) = call(
            addr,
            "POST",
            &format!("/api/challenges/{}/decline", id.as_str().unwrap()),
            None,
            As::Authed(&forged),
        )
        .await;
        assert_eq!((status, v["error"].as_str()), (403, Some("csrf")), "{v}");
        let (_, v) = call(addr, "GET", "/api/challenges", None, As::CookieOnly(&bako)).await;
        assert_eq!(v["incoming"], json!([ch]), "still waiting");

        // Declined: both hear it go.
        let (status, v) = call(
            addr,
            "POST",
            &format!("/api/challenges/{}/decline", id.as_str().unwrap()),
            None,
            As::Authed(&bako),
        )
        .await;
        assert_eq!(status, 200, "{v}");
        for ws in [&mut a, &mut b] {
            let m = expect(ws, "challenge_gone").await;
            assert_eq!((&m["id"], &m["reason"]), (&id, &json!("declined")), "{m}");
        }
        let (_, v) = call(addr, "GET", "/api/challenges", None, As::CookieOnly(&bako)).await;
        assert_eq!(v["incoming"], json!([]));

        // Taken back by the challenger: cancelled.
        let (status, v) = call(
            addr,
            "POST",
            "/api/challenges",
            Some(json!({"to": "Bako"})),
            As::Authed(&abula),
        )
        .await;
        assert_eq!(status, 201, "{v}");
        assert_eq!(v["challenge"]["clock"], Value::Null, "an untimed challenge");
        let id = v["challenge"]["id"].clone();
        expect(&mut b, "challenge").await;
        let (status, _) = call(
            addr,
            "POST",
            &format!("/api/challenges/{}/decline", id.as_str().unwrap()),
            None,
            As::Authed(&abula),
        )
        .await;
        assert_eq!(status, 200);
        for ws in [&mut a, &mut b] {
            let m = expect(ws, "challenge_gone").await;
            assert_eq!((&m["id"], &m["reason"]), (&id, &json!("cancelled")), "{m}");
        }

        // Accepted: the challenged player gets the seat from the answer, the challenger from the
        // lobby.
        let (status, v) = call(
            addr,
            "POST",
            "/api/challenges",
            Some(json!({"to": "Bako", "clock": "1+0", "side": "north"})),
            As::Authed(&abula),
        )
        .await;
        assert_eq!(status, 201, "{v}");
        let id = v["challenge"]["id"].clone();
        expect(&mut b, "challenge").await;
        let (status, won) = call(
            addr,
            "POST",
            &format!("/api/challenges/{}/accept", id.as_str().unwrap()),
            None,
            As::Authed(&bako),
        )
        .await;
        assert_eq!(status, 200, "{won}");
        assert_eq!(won["seat"], "south");
        let started = expect(&mut a, "started").await;
        assert_eq!(started["game"], won["game"]);
        assert_eq!(started["seat"], "north", "the challenger asked for North");
        assert_ne!(started["secret"], won["secret"]);
        for ws in [&mut a, &mut b] {
            let m = expect(ws, "challenge_gone").await;
            assert_eq!((&m["id"], &m["reason"]), (&id, &json!("accepted")), "{m}");
        }
        let game = won["game"].as_str().unwrap();
        let (_, g) = call(addr, "GET", &format!("/api/games/{game}"), None, As::Nobody).await;
        assert_eq!(g["seats"]["south"]["player"], "Bako");
        assert_eq!(g["seats"]["north"]["player"], "Abula");
        assert_eq!(g["clock"]["control"], "1+0");
        assert_eq!(g["public"], true);
        // Answered once only.
        let (status, v) = call(
            addr,
            "POST",
            &format!("/api/challenges/{}/accept", id.as_str().unwrap()),
            None,
            As::Authed(&bako),
        )
        .await;
        assert_eq!(
            (status, v["error"].as_str()),
            (404, Some("unknown_challenge")),
            "{v}"
        );

        // Refused challenges: oneself, nobody, no token, no account, rated without a clock.
        let refusals = [
            (json!({"to": "abula"}), As::Authed(&abula), 409, "own_seek"),
            (
                json!({"to": "Nobody"}),
                As::Authed(&abula),
                404,
                "unknown_player",
            ),
            (json!({"to": "Bako"}), As::CookieOnly(&abula), 403, "csrf"),
            (json!({"to": "Bako"}), As::Nobody, 401, "not_logged_in"),
            (
                json!({"to": "Bako", "rated": true}),
                As::Authed(&abula),
                400,
                "malformed",
            ),
            (
                json!({"to": "Bako", "clock": "soon"}),
                As::Authed(&abula),
                400,
                "malformed",
            ),
        ];
        for (body, who, status, code) in refusals {
            let (s, v) = call(addr, "POST", "/api/challenges", Some(body.clone()), who).await;
            assert_eq!(
                (s, v["error"].as_str()),
                (status, Some(code)),
                "{body}: {v}"
            );
        }
        let (_, v) = call(addr, "GET", "/api/challenges", None, As::CookieOnly(&bako)).await;
        assert_eq!(
            v["incoming"],
            json!([]),
            "no refused challenge reached Bako"
        );
        // And Bako's lobby heard nothing more: the next message is the answer to a ping.
        send(&mut b, json!({"type": "ping"})).await;
        expect(&mut b, "pong").await;

        close(a).await;
        close(b).await;
        server.stop().await;
    }
}

store_test! {
    #[tokio::test]
    async fn a_rated_lobby_game_changes_both_ratings() {
        let server = serve("rated").await;
        let addr = server.addr;
        let abula = signup(addr, "Abula").await;
        let bako = signup(addr, "Bako").await;
        let (mut a, _) = lobby(addr, Some(&abula)).await;
        let (mut b, _) = lobby(addr, Some(&bako)).await;
        let s = seek(&mut a, json!({"clock": "1+0", "rated": true})).await;
        assert_eq!(s["side"], "random");
        hears_seek(&mut b, &s["id"]).await;
        send(&mut b, json!({"type": "accept", "id": s["id"]})).await;
        let heard_a = next_n(&mut a, 2).await;
        let heard_b = next_n(&mut b, 2).await;
        let (sa, sb) = (of_type(&heard_a, "started"), of_type(&heard_b, "started"));
        assert_eq!(sa["game"], sb["game"]);
        assert_ne!(sa["seat"], sb["seat"], "{sa} {sb}");
        let game = sa["game"].as_str().unwrap().to_string();
        let seat_a = sa["seat"].as_str().unwrap().to_string();
        let seat_b = sb["seat"].as_str().unwrap().to_string();
        let secret_of = |seat: &str| {
            if seat == seat_a {
                sa["secret"].clone()
            } else {
                sb["secret"].clone()
            }
        };

        let (_, g) = call(addr, "GET", &format!("/api/games/{game}"), None, As::Nobody).await;
        assert_eq!(g["rated"], true);
        assert_eq!(g["category"], "bullet");
        assert_eq!(g["seats"][&seat_a]["player"], "Abula");
        assert_eq!(g["seats"][&seat_b]["player"], "Bako");
        for seat in ["south", "north"] {
            assert_eq!(g["seats"][seat]["rating"]["rating"], json!(1500.0), "{g}");
            assert_eq!(g["seats"][seat]["rating"]["provisional"], true, "{g}");
        }
        assert_eq!(g["rating_change"], Value::Null, "not before the end");

        // Four plies (a game resigned sooner is not rated), then South resigns.
        let moves = format!("/api/games/{game}/moves");
        let mut g = g;
        for _ in 0..4 {
            let seat = g["to_move"].as_str().unwrap().to_string();
            let seat = seat.as_str();
            let mv = g["legal"][0].clone();
            let (status, v) = call(
                addr,
                "POST",
                &moves,
                Some(json!({"move": mv, "secret": secret_of(seat)})),
                As::Nobody,
            )
            .await;
            assert_eq!(status, 200, "{v}");
            g = if v["game"].is_object() {
                v["game"].clone()
            } else {
                v
            };
        }
        let (status, v) = call(
            addr,
            "POST",
            &format!("/api/games/{game}/resign"),
            Some(json!({"secret": secret_of("south")})),
            As::Nobody,
        )
        .await;
        assert_eq!(status, 200, "{v}");

        let (_, g) = call(addr, "GET", &format!("/api/games/{game}"), None, As::Nobody).await;
        assert_eq!(g["status"], "over", "{g}");
        assert_eq!(g["termination"], "resignation", "{g}");
        let change = &g["rating_change"];
        let (south, north) = (&change["south"], &change["north"]);
        assert_eq!(south["before"], json!(1500.0), "{change}");
        assert_eq!(north["before"], json!(1500.0), "{change}");
        let (ds, dn) = (
            south["diff"].as_i64().unwrap(),
            north["diff"].as_i64().unwrap(),
        );
        assert!(ds < 0 && dn > 0, "South lost, North won: {change}");
        assert_eq!(ds, -dn, "two new players move by as much: {change}");
        assert!(south["after"].as_f64().unwrap() < 1500.0, "{change}");
        assert!(north["after"].as_f64().unwrap() > 1500.0, "{change}");

        // Each player's profile has one rating, in bullet, from this game.
        let loser = if seat_a == "south" { "Abula" } else { "Bako" };
        let winner = if seat_a == "south" { "Bako" } else { "Abula" };
        for (name, side, won) in [(loser, south, false), (winner, north, true)] {
            let (status, p) = call(
                addr,
                "GET",
                &format!("/api/players/{name}"),
                None,
                As::Nobody,
            )
            .await;
            assert_eq!(status, 200, "{p}");
            let ratings = p["ratings"].as_array().unwrap();
            assert_eq!(ratings.len(), 1, "{p}");
            assert_eq!(ratings[0]["category"], "bullet");
            assert_eq!(ratings[0]["rules"], "anywoli");
            assert_eq!(ratings[0]["games"], 1);
            assert_eq!(ratings[0]["rating"], side["after"], "{p} {change}");
            assert_eq!(p["counts"]["games"], 1, "{p}");
            assert_eq!(p["counts"]["wins"], i32::from(won), "{p}");
            assert_eq!(p["counts"]["losses"], i32::from(!won), "{p}");
        }

        // A new seek of Abula's shows the new rating.
        let again = seek(&mut a, json!({"clock": "1+0", "rated": true})).await;
        let abula_after = if seat_a == "south" { south } else { north };
        assert_eq!(again["rating"], abula_after["after"], "{again}");
        hears_seek(&mut b, &again["id"]).await;

        close(a).await;
        close(b).await;
        server.stop().await;
    }
}

postgres_test! {
    /// Two instances on one PostgreSQL database (only with `ANYWOLI_TEST_POSTGRES`): one lobby for
    /// the players of both. A seek made through one is seen, and accepted, through the other; it
    /// goes with its connection everywhere; a challenge and its answer, and a correspondence
    /// move's `your_move`, reach a player connected to the other instance.
    #[tokio::test]
    async fn one_lobby_across_two_instances() {
        let url = anywoli_server::Store::test_postgres_url("one lobby, two instances");
        let one = start(&config(PathBuf::from(&url))).await.unwrap();
        let two = start(&config(PathBuf::from(&url))).await.unwrap();
        let alice = signup(one.addr, "Alice").await;
        let bob = signup(two.addr, "Bob").await;
        let (mut wa, _) = lobby(one.addr, Some(&alice)).await;
        let (mut wb, _) = lobby(two.addr, Some(&bob)).await;

        // Alice's seek, through instance one, reaches Bob's lobby on instance two.
        let s = seek(&mut wa, json!({"clock": "3+2", "side": "south"})).await;
        let heard = hears_seek(&mut wb, &s["id"]).await;
        assert_eq!(heard, s);
        // A lobby connection opened later on instance two lists it too.
        let (late, hello) = lobby(two.addr, None).await;
        assert_eq!(hello["seeks"], json!([s.clone()]), "{hello}");
        close(late).await;

        // Bob accepts through instance two: both get `started`, Alice through instance one.
        send(&mut wb, json!({"type": "accept", "id": s["id"]})).await;
        let got_b = next_n(&mut wb, 2).await;
        assert_eq!(of_type(&got_b, "unseek")["id"], s["id"]);
        let started_b = of_type(&got_b, "started").clone();
        let got_a = next_n(&mut wa, 2).await;
        assert_eq!(of_type(&got_a, "unseek")["id"], s["id"]);
        let started_a = of_type(&got_a, "started").clone();
        assert_eq!(started_a["game"], started_b["game"]);
        assert_eq!(
            (started_a["seat"].as_str(), started_b["seat"].as_str()),
            (Some("south"), Some("north"))
        );
        assert_ne!(started_a["secret"], started_b["secret"]);
        // Accepting it again, through either instance, finds it gone.
        send(&mut wa, json!({"type": "accept", "id": s["id"]})).await;
        expect_error(&mut wa, "unknown_seek").await;

        // A seek goes with its connection, for the other instance's lobby too.
        let (mut wa2, _) = lobby(one.addr, Some(&alice)).await;
        let s2 = seek(&mut wa2, json!({"clock": "1+0"})).await;
        hears_seek(&mut wb, &s2["id"]).await;
        hears_seek(&mut wa, &s2["id"]).await;
        close(wa2).await;
        hears_unseek(&mut wb, &s2["id"]).await;
        hears_unseek(&mut wa, &s2["id"]).await;

        // A challenge made through instance one reaches Bob on instance two; his decline, through
        // instance two, reaches Alice on instance one.
        let (status, c) = call(
            one.addr,
            "POST",
            "/api/challenges",
            Some(json!({"to": "bob", "clock": "1d", "side": "north"})),
            As::Authed(&alice),
        )
        .await;
        assert_eq!(status, 201, "{c}");
        let id = &c["challenge"]["id"];
        assert_eq!(&expect(&mut wb, "challenge").await["challenge"]["id"], id);
        let (status, listed) = call(
            two.addr,
            "GET",
            "/api/challenges",
            None,
            As::CookieOnly(&bob),
        )
        .await;
        assert_eq!(
            (status, &listed["incoming"][0]["id"]),
            (200, id),
            "{listed}"
        );
        let (status, v) = call(
            two.addr,
            "POST",
            &format!("/api/challenges/{}/decline", id.as_str().unwrap()),
            None,
            As::Authed(&bob),
        )
        .await;
        assert_eq!(status, 200, "{v}");
        let gone = expect(&mut wa, "challenge_gone").await;
        assert_eq!((&gone["id"], &gone["reason"]), (id, &json!("declined")));
        expect(&mut wb, "challenge_gone").await;

        // Another, accepted through instance two: a correspondence game with Bob as South. His
        // move through instance two tells Alice, on instance one, that it is her move.
        let (_, c) = call(
            one.addr,
            "POST",
            "/api/challenges",
            Some(json!({"to": "Bob", "clock": "1d", "side": "north"})),
            As::Authed(&alice),
        )
        .await;
        let id = c["challenge"]["id"].as_str().unwrap().to_string();
        expect(&mut wb, "challenge").await;
        let (status, game) = call(
            two.addr,
            "POST",
            &format!("/api/challenges/{id}/accept"),
            None,
            As::Authed(&bob),
        )
        .await;
        assert_eq!(
            (status, game["seat"].as_str()),
            (200, Some("south")),
            "{game}"
        );
        let got_a = next_n(&mut wa, 2).await;
        assert_eq!(of_type(&got_a, "started")["game"], game["game"]);
        assert_eq!(of_type(&got_a, "challenge_gone")["reason"], "accepted");
        expect(&mut wb, "challenge_gone").await;
        let (status, v) = call(
            two.addr,
            "POST",
            &format!("/api/games/{}/moves", game["game"].as_str().unwrap()),
            Some(json!({"move": "a", "secret": game["secret"], "ply": 0})),
            As::Nobody,
        )
        .await;
        assert_eq!(status, 200, "{v}");
        let m = expect(&mut wa, "your_move").await;
        assert_eq!(
            (&m["game"], &m["opponent"]),
            (&game["game"], &json!("Bob")),
            "{m}"
        );

        close(wa).await;
        close(wb).await;
        two.stop().await;
        one.stop().await;
    }
}

store_test! {
    #[tokio::test]
    async fn a_lobby_socket_of_an_account_closed_since_cannot_seek() {
        let db = fresh_db("closed-since");
        let server = start(&config(db.clone())).await.unwrap();
        let addr = server.addr;
        let abula = signup(addr, "Abula").await;
        let (mut a, _) = lobby(addr, Some(&abula)).await;
        seek(&mut a, json!({"clock": "1+0", "rated": false})).await;
        // What `anywoli admin close` does, on the running server's database.
        let closing = anywoli_server::store::Moderate {
            act: anywoli_server::store::Act::Close,
            moderator: anywoli_server::store::ADMIN_CLI.into(),
            target: "Abula".into(),
            reason: String::new(),
            detail: json!({}),
            at: anywoli_server::dates::now_ms(),
        };
        let closed = tokio::task::spawn_blocking(move || {
            anywoli_server::Store::open_db(&db).unwrap().moderate(closing).unwrap()
        });
        assert!(closed.await.unwrap());
        send(&mut a, json!({"type": "seek", "clock": "1+0", "rated": false})).await;
        expect_error(&mut a, "account_closed").await;
        close(a).await;
        server.stop().await;
    }
}

store_test! {
    /// A marked account (docs/community.md, "Marks") plays casual games only: its rated seek,
    /// and its accepting a rated seek opened before the mark, are refused; a casual seek is not.
    #[tokio::test]
    async fn a_marked_account_seeks_and_accepts_casual_games_only() {
        use anywoli_server::store::{Act, MarkKind, Moderate, ADMIN_CLI};
        let db = fresh_db("marked");
        let server = start(&config(db.clone())).await.unwrap();
        let addr = server.addr;
        let abula = signup(addr, "Abula").await;
        let chidi = signup(addr, "Chidi").await;
        let (mut a, _) = lobby(addr, Some(&abula)).await;
        let (mut c, _) = lobby(addr, Some(&chidi)).await;
        let rated = seek(&mut c, json!({"clock": "1+0", "rated": true})).await;
        let id = rated["id"].clone();
        hears_seek(&mut a, &id).await;
        tokio::task::spawn_blocking(move || {
            let store = anywoli_server::Store::open_db(&db).unwrap();
            let m = Moderate {
                act: Act::Mark { kind: MarkKind::Computer },
                moderator: ADMIN_CLI.into(),
                target: "Abula".into(),
                reason: String::new(),
                detail: json!({}),
                at: anywoli_server::dates::now_ms(),
            };
            assert!(store.moderate(m).unwrap());
        })
        .await
        .unwrap();

        send(&mut a, json!({"type": "seek", "clock": "1+0", "rated": true})).await;
        expect_error(&mut a, "marked").await;
        send(&mut a, json!({"type": "accept", "id": id})).await;
        expect_error(&mut a, "marked").await;
        let casual = seek(&mut a, json!({"clock": "1+0"})).await;
        assert_eq!(casual["rated"], false);
        close(a).await;
        close(c).await;
        server.stop().await;
    }
}
