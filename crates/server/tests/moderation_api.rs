// The moderators' API and the community's routes (issue 38) in process: 403 for everyone but a
// moderator, the CSRF token on writes and a recent login, reports with their evidence and the
// flood refused, actions landing in the log, a closed account's login refused, and a reset
// link that works once and not late.
// (Plain comments: `moderation_api_postgres.rs` includes this file.)

use anywoli_server::account::reset::new_reset_token;
use anywoli_server::account::session::{new_session, token_of};
use anywoli_server::dates::now_ms;
use anywoli_server::store::{AccountOp, Act, Moderate, ADMIN_CLI, RESET_MS};
use anywoli_server::Store;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt;
use serde_json::{json, Value};
use tower::ServiceExt;

#[allow(unused_imports)]
use sqlite_store::*;
#[allow(dead_code)]
mod sqlite_store {
    pub fn fresh_store() -> anywoli_server::Store {
        anywoli_server::Store::in_memory().unwrap()
    }
}

const PW: &str = "long-enough-pw";

/// A logged-in client: its cookie and CSRF token.
#[derive(Clone)]
pub(crate) struct Who {
    cookie: String,
    csrf: String,
}

pub(crate) async fn req(
    app: &Router,
    method: &str,
    uri: &str,
    who: Option<&Who>,
    body: Option<Value>,
) -> (StatusCode, Value, Option<String>) {
    let mut r = Request::builder()
        .method(method)
        .uri(uri)
        .header("content-type", "application/json");
    if let Some(w) = who {
        r = r
            .header("cookie", format!("anywoli_session={}", w.cookie))
            .header("x-csrf-token", &w.csrf);
    }
    let body = body.map_or(Body::empty(), |b| Body::from(b.to_string()));
    let resp = app.clone().oneshot(r.body(body).unwrap()).await.unwrap();
    let status = resp.status();
    let cookie = resp
        .headers()
        .get("set-cookie")
        .map(|v| v.to_str().unwrap().to_string());
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    let v = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    (status, v, cookie)
}

fn who_from(v: &Value, cookie: Option<String>) -> Who {
    let cookie = cookie.unwrap();
    let value = cookie.split(';').next().unwrap().split_once('=').unwrap().1;
    Who {
        cookie: value.to_string(),
        csrf: v["account"]["csrf"].as_str().unwrap().to_string(),
    }
}

pub(crate) async fn signup(app: &Router, name: &str) -> Who {
    let body = json!({"name": name, "password": PW});
    let (s, v, c) = req(app, "POST", "/api/account/signup", None, Some(body)).await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    who_from(&v, c)
}

async fn login(app: &Router, name: &str, password: &str) -> (StatusCode, Value) {
    let body = json!({"name": name, "password": password});
    let (s, v, _) = req(app, "POST", "/api/account/login", None, Some(body)).await;
    (s, v)
}

fn admin(store: &Store, act: Act, name: &str, at: i64) {
    let m = Moderate {
        act,
        moderator: ADMIN_CLI.into(),
        target: name.into(),
        reason: String::new(),
        detail: json!({}),
        at,
    };
    assert!(store.moderate(m).unwrap());
}

/// A router on a fresh store, and the store, which the test keeps to act as `anywoli admin`
/// does.
fn app_and_store() -> (Router, std::sync::Arc<Store>) {
    let state = anywoli_server::AppState::new(fresh_store(), crate::oneshot::think());
    let store = state.store().clone();
    (anywoli_server::app(state), store)
}

/// A read of the store off the async threads (PostgreSQL's client blocks).
async fn read<T: Send + 'static>(
    store: &std::sync::Arc<Store>,
    f: impl FnOnce(&Store) -> anywoli_server::store::StoreResult<T> + Send + 'static,
) -> T {
    let store = store.clone();
    tokio::task::spawn_blocking(move || f(&store).unwrap())
        .await
        .unwrap()
}

store_test! {
    #[tokio::test]
    async fn only_a_recently_logged_in_moderator_with_the_token_reaches_the_mod_api() {
        let (app, store) = app_and_store();
        let abula = signup(&app, "Abula").await;
        let bao = signup(&app, "Bao").await;
        let (s, v, _) = req(&app, "GET", "/api/mod/reports", None, None).await;
        assert_eq!((s, v["error"].as_str()), (StatusCode::FORBIDDEN, Some("not_moderator")));
        let (s, _, _) = req(&app, "GET", "/api/mod/log", Some(&abula), None).await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let warn = "/api/mod/players/Bao/warn";
        let (s, _, _) = req(&app, "POST", warn, Some(&abula), Some(json!({}))).await;
        assert_eq!(s, StatusCode::FORBIDDEN);

        // Granted while the server runs: the next request has the role.
        admin(&store, Act::GrantModerator, "Abula", now_ms());
        let (s, v, _) = req(&app, "GET", "/api/mod/reports", Some(&abula), None).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let no_token = Who { csrf: "0".repeat(32), ..abula.clone() };
        let (s, v, _) = req(&app, "POST", warn, Some(&no_token), Some(json!({}))).await;
        assert_eq!((s, v["error"].as_str()), (StatusCode::FORBIDDEN, Some("csrf")));
        let (s, v, _) = req(&app, "POST", warn, Some(&abula), Some(json!({"reason": "rude"}))).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let (_, v, _) = req(&app, "GET", "/api/mod/log", Some(&abula), None).await;
        assert_eq!(v["log"][0]["action"], "warn");
        assert_eq!(v["log"][0]["moderator"], "Abula");
        assert_eq!(v["log"][0]["reason"], "rude");
        // A mute, given for a time (with its log line) and lifted; its length is bounded.
        let mute = "/api/mod/players/Bao/mute";
        let (s, v, _) = req(&app, "POST", mute, Some(&abula), Some(json!({"reason": "spam", "minutes": 60}))).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let until = read(&store, |s| s.muted("Bao", now_ms())).await.expect("muted").until;
        assert!((until - now_ms() - 3_600_000).abs() < 60_000, "{until}");
        let (_, v, _) = req(&app, "GET", "/api/mod/log", Some(&abula), None).await;
        let line = v["log"].as_array().unwrap().iter().find(|l| l["action"] == "mute").cloned();
        let line = line.expect("the mute logged");
        assert_eq!((line["target"].as_str(), line["reason"].as_str()), (Some("Bao"), Some("spam")));
        for bad in [json!({"reason": "x"}), json!({"minutes": 50_000}), json!({"minutes": -1})] {
            let (s, v, _) = req(&app, "POST", mute, Some(&abula), Some(bad)).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        }
        let (s, _, _) = req(&app, "POST", mute, Some(&abula), Some(json!({"minutes": 0}))).await;
        assert_eq!(s, StatusCode::OK);
        assert!(read(&store, |s| s.muted("Bao", now_ms() + 1)).await.is_none());
        // Anything else is no action.
        let (s, _, _) = req(&app, "POST", "/api/mod/players/Bao/ban", Some(&abula), Some(json!({}))).await;
        assert_eq!(s, StatusCode::NOT_FOUND);

        // A session of 13 hours ago holds the role but not the right to use it.
        let (cookie, mut old) = new_session("Abula", now_ms() - 13 * 3600 * 1000);
        old.token = token_of(&cookie);
        let csrf = old.csrf.clone();
        store.account_op(AccountOp::AddSession(old)).unwrap();
        let stale = Who { cookie, csrf };
        let (s, v, _) = req(&app, "GET", "/api/mod/reports", Some(&stale), None).await;
        assert_eq!((s, v["error"].as_str()), (StatusCode::FORBIDDEN, Some("login_again")));

        admin(&store, Act::RevokeModerator, "Abula", now_ms());
        let (s, _, _) = req(&app, "GET", "/api/mod/reports", Some(&abula), None).await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        // The warned player is told when, and why, not by whom.
        let (_, me, _) = req(&app, "GET", "/api/account", Some(&bao), None).await;
        assert!(me["account"]["warned"].as_i64().is_some(), "{me}");
        assert_eq!(me["account"]["moderator"], false);
        let (_, w, _) = req(&app, "GET", "/api/account/warnings", Some(&bao), None).await;
        assert_eq!(w["warnings"][0]["reason"], "rude");
        assert!(!w.to_string().contains("Abula"), "{w}");
        let (_, me, _) = req(&app, "GET", "/api/account", Some(&abula), None).await;
        assert!(me["account"]["warned"].is_null());
    }
}

store_test! {
    #[tokio::test]
    async fn a_report_reaches_the_queue_and_the_moderators_actions_land_in_the_log() {
        let (app, store) = app_and_store();
        let abula = signup(&app, "Abula").await;
        let bao = signup(&app, "Bao").await;
        let modo = signup(&app, "Modo").await;
        admin(&store, Act::GrantModerator, "Modo", now_ms());
        let said = anywoli_server::store::ChatLine {
            id: "line1".into(),
            game: "somegame".into(),
            room: anywoli_server::store::Room::Players,
            author: Some("Bao".into()),
            side: Some("north".into()),
            text: "you fool".into(),
            preset: None,
            at: now_ms(),
        };
        store.save_chat_line(said).unwrap();

        let body = json!({"player": "bao", "reason": "abusive_chat", "text": "called me names"});
        let (s, v, _) = req(&app, "POST", "/api/reports", Some(&abula), Some(body.clone())).await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        let id = v["id"].as_str().unwrap().to_string();
        let (s, v, _) = req(&app, "POST", "/api/reports", Some(&abula), Some(body)).await;
        assert_eq!((s, v["error"].as_str()), (StatusCode::CONFLICT, Some("already_reported")));
        for bad in [
            json!({"player": "Bao", "reason": "ugly", "text": ""}),
            json!({"player": "Bao", "reason": "other", "text": "x".repeat(1001)}),
            json!({"player": "Bao", "reason": "other", "text": "a\u{7}b"}),
            json!({"player": "Abula", "reason": "other", "text": ""}),
        ] {
            let (s, _, _) = req(&app, "POST", "/api/reports", Some(&abula), Some(bad)).await;
            assert_eq!(s, StatusCode::BAD_REQUEST);
        }
        let (s, _, _) = req(&app, "POST", "/api/reports", None, Some(json!({"player": "Bao", "reason": "other"}))).await;
        assert_eq!(s, StatusCode::UNAUTHORIZED);

        let (_, q, _) = req(&app, "GET", "/api/mod/reports", Some(&modo), None).await;
        let r = &q["reports"][0];
        assert_eq!((r["id"].as_str(), r["reporter"].as_str()), (Some(id.as_str()), Some("Abula")));
        assert_eq!(r["target"], "Bao");
        assert_eq!(r["evidence"]["games"], json!([]));
        assert_eq!(r["evidence"]["addresses"], json!([]), "no address seen (no socket here)");

        let (s, d, _) = req(&app, "GET", "/api/mod/players/BAO", Some(&modo), None).await;
        assert_eq!(s, StatusCode::OK, "{d}");
        assert_eq!(d["name"], "Bao");
        assert_eq!(d["reports_about"][0]["id"], id.as_str());
        // The player's chat lines, newest first, as the report's evidence carries them too.
        assert_eq!((d["chat"][0]["text"].as_str(), d["chat"][0]["game"].as_str()), (Some("you fool"), Some("somegame")));
        assert_eq!(r["evidence"]["chat"][0]["text"], "you fool");
        assert!(d["games"].is_array() && d["history"].is_array());

        let close = format!("/api/mod/reports/{id}/close");
        let (s, _, _) = req(&app, "POST", &close, Some(&modo), Some(json!({"reason": "warned"}))).await;
        assert_eq!(s, StatusCode::OK);
        let (s, v, _) = req(&app, "POST", &close, Some(&modo), Some(json!({}))).await;
        assert_eq!((s, v["error"].as_str()), (StatusCode::NOT_FOUND, Some("unknown_report")));
        let (s, _, _) = req(&app, "POST", "/api/mod/players/Bao/close", Some(&modo), Some(json!({"reason": "abuse"}))).await;
        assert_eq!(s, StatusCode::OK);
        let (_, me, _) = req(&app, "GET", "/api/account", Some(&bao), None).await;
        assert!(me["account"].is_null(), "the closed account's session ended: {me}");
        let (s, v) = login(&app, "Bao", PW).await;
        assert_eq!((s, v["error"].as_str()), (StatusCode::FORBIDDEN, Some("account_closed")));
        let (s, v) = login(&app, "Bao", "wrong-password").await;
        assert_eq!((s, v["error"].as_str()), (StatusCode::UNAUTHORIZED, Some("bad_login")));
        let (_, v, _) = req(&app, "GET", "/api/mod/log?target=Bao", Some(&modo), None).await;
        let actions: Vec<&str> = v["log"].as_array().unwrap().iter().map(|l| l["action"].as_str().unwrap()).collect();
        assert_eq!(actions, ["close", "close_report"]);
        let (s, _, _) = req(&app, "POST", "/api/mod/players/Bao/reopen", Some(&modo), Some(json!({}))).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(login(&app, "Bao", PW).await.0, StatusCode::OK);

        // A flood: five an hour, then 429 with nothing filed.
        for n in ["P1", "P2", "P3", "P4", "P5"] {
            signup(&app, n).await;
        }
        for n in ["P1", "P2", "P3", "P4"] {
            let body = json!({"player": n, "reason": "other", "text": ""});
            let (s, _, _) = req(&app, "POST", "/api/reports", Some(&abula), Some(body)).await;
            assert_eq!(s, StatusCode::CREATED, "{n}");
        }
        let body = json!({"player": "P5", "reason": "other", "text": ""});
        let (s, v, _) = req(&app, "POST", "/api/reports", Some(&abula), Some(body)).await;
        assert_eq!((s, v["error"].as_str()), (StatusCode::TOO_MANY_REQUESTS, Some("rate_limited")));
        let (_, q, _) = req(&app, "GET", "/api/mod/reports", Some(&modo), None).await;
        assert_eq!(q["reports"].as_array().unwrap().len(), 4);
    }
}

store_test! {
    #[tokio::test]
    async fn a_reset_link_works_once_and_not_late() {
        let (app, store) = app_and_store();
        let abula = signup(&app, "Abula").await;
        let (token, hash) = new_reset_token();
        admin(&store, Act::ResetLink { hash }, "Abula", now_ms());
        let body = json!({"token": token, "password": "short"});
        let (s, v, _) = req(&app, "POST", "/api/account/reset", None, Some(body)).await;
        assert_eq!((s, v["error"].as_str()), (StatusCode::BAD_REQUEST, Some("bad_password")));
        let body = json!({"token": token, "password": "a-brand-new-pw"});
        let (s, v, _) = req(&app, "POST", "/api/account/reset", None, Some(body.clone())).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(v["name"], "Abula");
        let (_, me, _) = req(&app, "GET", "/api/account", Some(&abula), None).await;
        assert!(me["account"].is_null(), "the sessions ended");
        assert_eq!(login(&app, "Abula", "a-brand-new-pw").await.0, StatusCode::OK);
        let again = json!({"token": token, "password": "a-third-password"});
        let (s, v, _) = req(&app, "POST", "/api/account/reset", None, Some(again)).await;
        assert_eq!((s, v["error"].as_str()), (StatusCode::GONE, Some("reset_link_invalid")));
        assert_eq!(login(&app, "Abula", "a-brand-new-pw").await.0, StatusCode::OK);

        let (late, hash) = new_reset_token();
        admin(&store, Act::ResetLink { hash }, "Abula", now_ms() - RESET_MS - 1000);
        let body = json!({"token": late, "password": "a-late-password"});
        let (s, _, _) = req(&app, "POST", "/api/account/reset", None, Some(body)).await;
        assert_eq!(s, StatusCode::GONE);
        let body = json!({"token": "not-a-token", "password": "a-late-password"});
        let (s, _, _) = req(&app, "POST", "/api/account/reset", None, Some(body)).await;
        assert_eq!(s, StatusCode::GONE);
        assert_eq!(login(&app, "Abula", "a-brand-new-pw").await.0, StatusCode::OK);
    }
}

store_test! {
    #[tokio::test]
    async fn account_care_exports_lists_and_ends_sessions_and_closes_ones_own_account() {
        let (app, store) = app_and_store();
        let (s, _, _) = req(&app, "GET", "/api/account/export", None, None).await;
        assert_eq!(s, StatusCode::UNAUTHORIZED);
        let first = signup(&app, "Abula").await;
        let body = json!({"name": "abula", "password": PW});
        let (s, v, c) = req(&app, "POST", "/api/account/login", None, Some(body)).await;
        assert_eq!(s, StatusCode::OK);
        let second = who_from(&v, c);

        let (s, v, _) = req(&app, "GET", "/api/account/export", Some(&first), None).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(v["account"]["name"], "Abula");
        assert_eq!(v["sessions"].as_array().unwrap().len(), 2);
        assert!(v["games"].is_array() && v["ratings"].is_array() && v["rating_history"].is_array());
        let text = v.to_string();
        let hash = read(&store, |s| s.account("abula")).await.unwrap().hash;
        for secret in [hash.as_str(), PW, &first.cookie, &first.csrf, &token_of(&first.cookie)] {
            assert!(!text.contains(secret), "the export holds no secret");
        }

        let (_, v, _) = req(&app, "GET", "/api/account/sessions", Some(&second), None).await;
        let sessions = v["sessions"].as_array().unwrap().clone();
        assert_eq!(sessions.len(), 2);
        let other = sessions.iter().find(|s| s["current"] == false).unwrap();
        let id = other["id"].as_str().unwrap();
        assert_eq!(id.len(), 12);
        let (s, _, _) = req(&app, "POST", "/api/account/sessions/nope/end", Some(&second), Some(json!({}))).await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let end = format!("/api/account/sessions/{id}/end");
        let (s, _, _) = req(&app, "POST", &end, Some(&second), Some(json!({}))).await;
        assert_eq!(s, StatusCode::OK);
        let (_, me, _) = req(&app, "GET", "/api/account", Some(&first), None).await;
        assert!(me["account"].is_null(), "the first session ended");
        let (_, me, _) = req(&app, "GET", "/api/account", Some(&second), None).await;
        assert_eq!(me["account"]["name"], "Abula");

        let wrong = json!({"password": "not-the-password"});
        let (s, v, _) = req(&app, "POST", "/api/account/close", Some(&second), Some(wrong)).await;
        assert_eq!((s, v["error"].as_str()), (StatusCode::FORBIDDEN, Some("bad_login")));
        let (s, _, _) = req(&app, "POST", "/api/account/close", Some(&second), Some(json!({"password": PW}))).await;
        assert_eq!(s, StatusCode::OK);
        let (_, me, _) = req(&app, "GET", "/api/account", Some(&second), None).await;
        assert!(me["account"].is_null());
        let (s, v) = login(&app, "Abula", PW).await;
        assert_eq!((s, v["error"].as_str()), (StatusCode::FORBIDDEN, Some("account_closed")));
        let log = read(&store, |s| s.mod_log(Some("Abula"), 5)).await;
        assert_eq!((log[0].action.as_str(), log[0].moderator.as_str()), ("close", "Abula"));
    }
}

/// Signs `name` up (or logs it in) as a client at `ip` (a socket's peer, which no proxy
/// stands in front of).
async fn from_address(app: &Router, path: &str, name: &str, ip: &str) -> Who {
    let addr = std::net::SocketAddr::new(ip.parse().unwrap(), 40_000);
    let r = Request::builder()
        .method("POST")
        .uri(path)
        .header("content-type", "application/json")
        .extension(axum::extract::ConnectInfo(addr))
        .body(Body::from(
            json!({"name": name, "password": PW}).to_string(),
        ))
        .unwrap();
    let resp = app.clone().oneshot(r).await.unwrap();
    assert!(
        resp.status().is_success(),
        "{path} {name}: {}",
        resp.status()
    );
    let cookie = resp
        .headers()
        .get("set-cookie")
        .map(|v| v.to_str().unwrap().to_string());
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    who_from(&serde_json::from_slice(&bytes).unwrap(), cookie)
}

store_test! {
    #[tokio::test]
    async fn accounts_sharing_an_address_show_in_each_others_dossier_and_in_a_report() {
        let (app, store) = app_and_store();
        let signup_at = |n: &'static str, ip: &'static str| from_address(&app, "/api/account/signup", n, ip);
        let cleo = signup_at("Cleo", "203.0.113.7").await;
        signup_at("Dara", "198.51.100.1").await;
        let gus = signup_at("Gus", "192.0.2.9").await;
        signup_at("Eve", "2001:db8:1:2::1").await;
        // Another address of the same IPv6 /64 is the same address.
        signup_at("Fay", "2001:db8:1:2:aaaa::9").await;
        let modo = signup(&app, "Modo").await;
        admin(&store, Act::GrantModerator, "Modo", now_ms());
        // Dara logs in from Cleo's address.
        from_address(&app, "/api/account/login", "Dara", "203.0.113.7").await;

        let dossier = |name: &str| format!("/api/mod/players/{name}");
        let (s, d, _) = req(&app, "GET", &dossier("Cleo"), Some(&modo), None).await;
        assert_eq!(s, StatusCode::OK, "{d}");
        let shared = d["shared_address"].as_array().unwrap().clone();
        assert_eq!(shared.len(), 1, "{d}");
        assert_eq!((shared[0]["name"].as_str(), shared[0]["address"].as_str()), (Some("Dara"), Some("203.0.113.7")));
        assert!(shared[0]["last_seen"].as_i64().unwrap() >= shared[0]["first_seen"].as_i64().unwrap());
        let (_, d, _) = req(&app, "GET", &dossier("Dara"), Some(&modo), None).await;
        assert_eq!(d["shared_address"][0]["name"], "Cleo", "{d}");
        assert_eq!(d["shared_address"].as_array().unwrap().len(), 1);
        let (_, d, _) = req(&app, "GET", &dossier("Fay"), Some(&modo), None).await;
        assert_eq!((d["shared_address"][0]["name"].as_str(), d["shared_address"][0]["address"].as_str()), (Some("Eve"), Some("2001:db8:1:2::")));
        let (_, d, _) = req(&app, "GET", &dossier("Gus"), Some(&modo), None).await;
        assert_eq!(d["shared_address"], json!([]));

        // A report about Dara carries the link to Cleo.
        let body = json!({"player": "Dara", "reason": "rating_manipulation", "text": ""});
        let (s, v, _) = req(&app, "POST", "/api/reports", Some(&gus), Some(body)).await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        let (_, q, _) = req(&app, "GET", "/api/mod/reports", Some(&modo), None).await;
        let links = &q["reports"][0]["evidence"]["addresses"];
        assert_eq!((links[0]["name"].as_str(), links[0]["address"].as_str()), (Some("Cleo"), Some("203.0.113.7")), "{q}");

        // Nobody else sees addresses: not the dossier, not a public profile.
        let (s, _, _) = req(&app, "GET", &dossier("Dara"), Some(&cleo), None).await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let (_, p, _) = req(&app, "GET", "/api/players/Dara", Some(&cleo), None).await;
        assert!(!p.to_string().contains("203.0.113.7"), "{p}");
        // Cleo's export holds her own address, not who shares it.
        let (_, x, _) = req(&app, "GET", "/api/account/export", Some(&cleo), None).await;
        assert_eq!(x["addresses"][0]["address"], "203.0.113.7", "{x}");
        assert!(!x.to_string().contains("Dara"), "{x}");
    }
}
