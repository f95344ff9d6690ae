// Waits before the next game (issue 38), on a server on a real port: a first move never made
// aborts the game and earns only that player a 10-minute wait; while it runs their challenges,
// seeks' kin and friend games are refused with `play_wait` (its `until` and Retry-After) and
// change nothing; it ends on time; a player who leaves and loses by a claim earns the next,
// longer step; a moderator (only) lifts it, and the log shows the lift. The server's time is
// moved forward (`shift_for_tests`) for the whole binary: one test, holding the whole process.
// (Plain comments: `waits_postgres.rs` includes this file.)

use crate::support;

use std::sync::Arc;

use crate::clocks::{both_sides_move_once, next_of, seat_socket};
use anywoli_server::dates::{now_ms, shift_for_tests};
use anywoli_server::store::OffenceKind;
use anywoli_server::{Server, Store};
use serde_json::{json, Value};
use support::*;

/// A logged-in client: its session cookie and CSRF token.
struct Who {
    cookie: String,
    csrf: String,
}

/// A request as `who` (or no one): (status, the response's head, its JSON).
async fn call(
    server: &Server,
    method: &str,
    path: &str,
    who: Option<&Who>,
    body: Value,
) -> (u16, String, Value) {
    let auth = who.map_or(String::new(), |w| {
        format!(
            "Cookie: anywoli_session={}\r\nX-CSRF-Token: {}\r\n",
            w.cookie, w.csrf
        )
    });
    let body = Some(body).filter(|b| !b.is_null());
    http_with(server, method, path, &auth, body).await
}

async fn signup(server: &Server, name: &str) -> Who {
    let body = json!({"name": name, "password": "long-enough-pw"});
    let (s, head, v) = call(server, "POST", "/api/account/signup", None, body).await;
    assert_eq!(s, 201, "{v}");
    let line = head
        .lines()
        .find(|l| {
            l.to_ascii_lowercase()
                .starts_with("set-cookie: anywoli_session=")
        })
        .unwrap();
    let cookie = line.split_once('=').unwrap().1.split(';').next().unwrap();
    Who {
        cookie: cookie.to_string(),
        csrf: v["account"]["csrf"].as_str().unwrap().to_string(),
    }
}

/// A friend game on a 3+2 clock made by `a` and joined by `b`: (id, `a`'s seat and secret,
/// `b`'s secret), or the refusal of either step.
async fn friends(
    server: &Server,
    a: &Who,
    b: &Who,
) -> Result<(String, String, String, String), Value> {
    let body = json!({"mode": "friend", "clock": "3+2"});
    let (s, _, v) = call(server, "POST", "/api/games", Some(a), body).await;
    if s != 201 {
        return Err(v);
    }
    let id = v["game"]["id"].as_str().unwrap().to_string();
    let join = json!({"invite": v["invite"]});
    let (s, _, j) = call(
        server,
        "POST",
        &format!("/api/games/{id}/join"),
        Some(b),
        join,
    )
    .await;
    if s != 200 {
        return Err(j);
    }
    let text = |x: &Value| x.as_str().unwrap().to_string();
    Ok((id, text(&v["seat"]), text(&v["secret"]), text(&j["secret"])))
}

async fn game(server: &Server, id: &str) -> Value {
    let (s, _, g) = call(
        server,
        "GET",
        &format!("/api/games/{id}"),
        None,
        Value::Null,
    )
    .await;
    assert_eq!(s, 200, "{g}");
    g
}

async fn wait_of(server: &Server, who: &Who) -> Value {
    call(server, "GET", "/api/account/wait", Some(who), Value::Null)
        .await
        .2
}

async fn offences(store: &Arc<Store>, name: &str) -> Vec<OffenceKind> {
    let (store, name) = (store.clone(), name.to_string());
    tokio::task::spawn_blocking(move || store.offences(&name).unwrap())
        .await
        .unwrap()
        .into_iter()
        .map(|o| o.kind)
        .collect()
}

/// What the lobby answers `who`'s seek (on a connection of its own, as a page opens it).
async fn seek_answer(server: &Server, who: &Who) -> Value {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    use tokio_tungstenite::tungstenite::Message;
    let addr = server.addr;
    let mut req = format!("ws://{addr}/api/lobby")
        .into_client_request()
        .unwrap();
    let h = req.headers_mut();
    h.insert(
        "cookie",
        format!("anywoli_session={}", who.cookie).parse().unwrap(),
    );
    h.insert("origin", format!("http://{addr}").parse().unwrap());
    let (mut ws, _) = tokio_tungstenite::connect_async(req).await.unwrap();
    let seek = json!({"type": "seek", "clock": "3+2"}).to_string();
    ws.send(Message::Text(seek.into())).await.unwrap();
    loop {
        let msg = tokio::time::timeout(std::time::Duration::from_secs(30), ws.next()).await;
        if let Message::Text(t) = msg.expect("an answer in time").unwrap().unwrap() {
            let m: Value = serde_json::from_str(&t).unwrap();
            if m["type"] == "error" || m["type"] == "seeking" {
                return m;
            }
        }
    }
}

/// Checks a `play_wait` refusal: 429, `until` as the wait says, and a Retry-After.
fn refused_for_waiting(r: (u16, String, Value), until: &Value) {
    let (s, head, v) = r;
    assert_eq!((s, v["error"].as_str()), (429, Some("play_wait")), "{v}");
    assert_eq!(&v["until"], until, "{v}");
    assert!(
        head.to_ascii_lowercase().contains("retry-after: "),
        "{head}"
    );
}

store_test! {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn leaving_or_never_moving_earns_a_wait_that_climbs_ends_and_is_lifted() {
        let _all = support::whole_process().await;
        let db = fresh_db("waits");
        let server = serve_on("127.0.0.1", None, db.clone()).await;
        let store = Arc::new(Store::open_db(&db).unwrap());
        let (ann, bo, modo) = (signup(&server, "Ann").await, signup(&server, "Bo").await, signup(&server, "Modo").await);
        grant_moderator(&store, "Modo");

        // South never moves: the game is aborted, and only South is at fault.
        let (id, ann_seat, _, _) = friends(&server, &ann, &bo).await.unwrap();
        let (late, on_time, late_who, other_who) = if ann_seat == "south" {
            ("Ann", "Bo", &ann, &bo)
        } else {
            ("Bo", "Ann", &bo, &ann)
        };
        shift_for_tests(31_000);
        assert_eq!(game(&server, &id).await["status"], "aborted");
        assert_eq!(offences(&store, late).await, [OffenceKind::NoFirstMove]);
        assert_eq!(offences(&store, on_time).await, []);
        assert_eq!(wait_of(&server, other_who).await, json!({"until": null}));
        let w = wait_of(&server, late_who).await;
        assert_eq!(w["offences"], 1, "{w}");
        let until = w["until"].clone();
        let left = until.as_i64().unwrap() - now_ms();
        assert!((590_000..=600_000).contains(&left), "10 minutes: {left}");
        assert!((590_000..=600_000).contains(&w["left"].as_i64().unwrap()), "{w}");

        // While it runs: no challenge sent or accepted, no friend game, and nothing changes.
        let ch = json!({"to": on_time, "clock": "3+2"});
        refused_for_waiting(call(&server, "POST", "/api/challenges", Some(late_who), ch).await, &until);
        let (_, _, mine) = call(&server, "GET", "/api/challenges", Some(late_who), Value::Null).await;
        assert_eq!(mine["outgoing"], json!([]), "{mine}");
        let ch = json!({"to": late, "clock": "3+2"});
        let (s, _, c) = call(&server, "POST", "/api/challenges", Some(other_who), ch).await;
        assert_eq!(s, 201, "{c}");
        let accept = format!("/api/challenges/{}/accept", c["challenge"]["id"].as_str().unwrap());
        refused_for_waiting(call(&server, "POST", &accept, Some(late_who), Value::Null).await, &until);
        let (_, _, theirs) = call(&server, "GET", "/api/challenges", Some(other_who), Value::Null).await;
        assert_eq!(theirs["outgoing"].as_array().unwrap().len(), 1, "still waiting: {theirs}");
        let m = seek_answer(&server, late_who).await;
        assert_eq!((m["type"].as_str(), m["error"].as_str()), (Some("error"), Some("play_wait")), "{m}");
        let refused = friends(&server, late_who, other_who).await.unwrap_err();
        assert_eq!(refused["error"], "play_wait", "{refused}");
        let refused = friends(&server, other_who, late_who).await.unwrap_err();
        assert_eq!(refused["error"], "play_wait", "{refused}");

        // It ends on time (the challenge sent meanwhile has expired too): a challenge goes now,
        // and is taken back.
        shift_for_tests(600_000);
        assert_eq!(wait_of(&server, late_who).await, json!({"until": null}));
        let ch = json!({"to": on_time, "clock": "3+2"});
        let (s, _, c) = call(&server, "POST", "/api/challenges", Some(late_who), ch).await;
        assert_eq!(s, 201, "{c}");
        let back = format!("/api/challenges/{}/decline", c["challenge"]["id"].as_str().unwrap());
        let (s, _, r) = call(&server, "POST", &back, Some(late_who), Value::Null).await;
        assert_eq!(s, 200, "{r}");

        // The same player leaves a game: the opponent claims it, and the wait is the next step.
        let (id, ann_seat, ann_secret, bo_secret) = friends(&server, &ann, &bo).await.unwrap();
        let (south, north) = if ann_seat == "south" { (&ann_secret, &bo_secret) } else { (&bo_secret, &ann_secret) };
        both_sides_move_once(&server, &id, south, north).await;
        let (stays, leaves) = if late == "Ann" { (&bo_secret, &ann_secret) } else { (&ann_secret, &bo_secret) };
        let mut stays_ws = seat_socket(&server, &id, stays).await;
        drop(seat_socket(&server, &id, leaves).await);
        next_of(&mut stays_ws, "left").await;
        shift_for_tests(41_000);
        let claim = json!({"secret": stays});
        let (s, _, r) = call(&server, "POST", &format!("/api/games/{id}/claim"), None, claim).await;
        assert_eq!((s, r["game"]["termination"].as_str()), (200, Some("abandoned")), "{r}");
        assert_eq!(offences(&store, late).await, [OffenceKind::Left, OffenceKind::NoFirstMove]);
        assert_eq!(offences(&store, on_time).await, []);
        let w = wait_of(&server, late_who).await;
        assert_eq!(w["offences"], 2, "{w}");
        let left = w["until"].as_i64().unwrap() - now_ms();
        assert!((3_590_000..=3_600_000).contains(&left), "an hour: {left}");

        // Only a moderator lifts it; the log shows who, when and why.
        let lift = format!("/api/mod/players/{late}/lift-wait");
        let why = json!({"reason": "server restarted under them"});
        let (s, _, _) = call(&server, "POST", &lift, Some(other_who), why.clone()).await;
        assert_eq!(s, 403);
        assert_eq!(wait_of(&server, late_who).await["offences"], 2);
        let (s, _, d) = call(&server, "GET", &format!("/api/mod/players/{late}"), Some(&modo), Value::Null).await;
        assert_eq!(s, 200, "{d}");
        assert_eq!(d["wait"]["offences"], 2, "{d}");
        let kinds: Vec<&str> = d["offences"].as_array().unwrap().iter().map(|o| o["kind"].as_str().unwrap()).collect();
        assert_eq!(kinds, ["left", "no_first_move"]);
        let (s, _, r) = call(&server, "POST", &lift, Some(&modo), why).await;
        assert_eq!(s, 200, "{r}");
        assert_eq!(wait_of(&server, late_who).await, json!({"until": null}));
        let (_, _, d) = call(&server, "GET", &format!("/api/mod/players/{late}"), Some(&modo), Value::Null).await;
        assert_eq!(d["wait"], Value::Null, "{d}");
        let (_, _, log) = call(&server, "GET", &format!("/api/mod/log?target={late}"), Some(&modo), Value::Null).await;
        let line = &log["log"][0];
        assert_eq!(
            (line["action"].as_str(), line["moderator"].as_str(), line["reason"].as_str()),
            (Some("lift_wait"), Some("Modo"), Some("server restarted under them")),
            "{log}"
        );
        let ch = json!({"to": on_time, "clock": "3+2"});
        let (s, _, r) = call(&server, "POST", "/api/challenges", Some(late_who), ch).await;
        assert_eq!(s, 201, "{r}");
        drop(stays_ws);
        server.stop().await;
    }
}
