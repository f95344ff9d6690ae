// Follows, presence and leaderboards in the store (issue 38), on both stores: a follow is kept
// once, the limit holds, presence leases run out, and a followed player's public game in play
// is found. (Plain comments: `follows_postgres.rs` includes this file.)

use anywoli_server::rating::Rating;
use anywoli_server::store::{AccountOp, AccountRow, Followed, RatingRow, SessionRow};
use anywoli_server::{start, Store};
use serde_json::{json, Value};

use crate::lobby::{call, config, Account, As};

// The store every test starts with: SQLite in memory here; `follows_postgres.rs` defines a
// `fresh_store` of its own, which shadows this glob-imported one.
#[allow(unused_imports)]
use sqlite_store::*;
#[allow(dead_code)]
mod sqlite_store {
    pub fn fresh_store() -> anywoli_server::Store {
        anywoli_server::Store::in_memory().unwrap()
    }

    pub fn fresh_db(name: &str) -> std::path::PathBuf {
        crate::support::sqlite_db(&format!("follows-{name}"))
    }
}

/// Accounts `names`, made straight in the store (no password is ever checked here), each
/// with a session whose cookie and CSRF token [`who`] gives.
fn accounts(s: &Store, names: &[&str]) {
    for n in names {
        let made = s
            .account_op(AccountOp::Create {
                account: AccountRow {
                    key: n.to_lowercase(),
                    name: n.to_string(),
                    hash: "x".to_string(),
                    created: 1,
                },
                session: SessionRow {
                    token: anywoli_server::account::session::token_of(&who(n).cookie),
                    name: n.to_string(),
                    csrf: who(n).csrf,
                    created: anywoli_server::dates::now_ms(),
                },
            })
            .unwrap();
        assert!(made, "{n}");
    }
}

/// The session [`accounts`] made for `name`.
fn who(name: &str) -> Account {
    Account {
        name: name.to_string(),
        // The shape of a real one (43 characters of base64url), which the server checks.
        cookie: format!("{:_<43}", format!("cookie-of-{name}")),
        csrf: format!("csrf-of-{name}"),
    }
}

fn names(s: &Store, who: &str) -> Vec<String> {
    let now = anywoli_server::dates::now_ms();
    s.following(who, now)
        .unwrap()
        .into_iter()
        .map(|f| f.name)
        .collect()
}

store_test! {
    #[test]
    fn a_follow_is_kept_once_and_the_limit_holds() {
        let s = fresh_store();
        accounts(&s, &["Abula", "Kofi", "Ama", "Yaw"]);
        assert_eq!(s.follow("Abula", "Kofi", 2).unwrap(), Followed::New);
        assert_eq!(s.follow("Abula", "Kofi", 2).unwrap(), Followed::Already);
        assert_eq!(s.follow("Abula", "Ama", 2).unwrap(), Followed::New);
        assert_eq!(s.follow("Abula", "Yaw", 2).unwrap(), Followed::TooMany { max: 2 });
        let mut got = names(&s, "Abula");
        got.sort();
        assert_eq!(got, ["Ama", "Kofi"]);
        assert!(s.follows("Abula", "Kofi").unwrap());
        assert!(!s.follows("Kofi", "Abula").unwrap(), "a follow goes one way");
        assert!(s.unfollow("Abula", "Kofi").unwrap());
        assert!(!s.unfollow("Abula", "Kofi").unwrap(), "already gone: nothing to do");
        assert_eq!(names(&s, "Abula"), ["Ama"]);
        assert_eq!(s.follow("Abula", "Yaw", 2).unwrap(), Followed::New, "room again");
    }
}

store_test! {
    #[test]
    fn a_block_ends_follows_both_ways_and_refuses_new_ones() {
        let s = fresh_store();
        accounts(&s, &["Abula", "Kofi", "Ama"]);
        s.follow("Abula", "Kofi", 10).unwrap();
        s.follow("Kofi", "Abula", 10).unwrap();
        s.follow("Abula", "Ama", 10).unwrap();
        assert!(s.block("Kofi", "Abula").unwrap());
        // Abula no longer sees Kofi come online or which game Kofi plays, and the other way.
        assert_eq!(names(&s, "Abula"), ["Ama"]);
        assert!(names(&s, "Kofi").is_empty());
        assert_eq!(s.follow("Abula", "Kofi", 10).unwrap(), Followed::Blocked);
        assert_eq!(s.follow("Kofi", "Abula", 10).unwrap(), Followed::Blocked, "both ways");
        assert_eq!(names(&s, "Abula"), ["Ama"], "nothing changed");
        assert!(s.unblock("Kofi", "Abula").unwrap());
        assert_eq!(s.follow("Abula", "Kofi", 10).unwrap(), Followed::New, "after the unblock");
    }
}

store_test! {
    #[test]
    fn presence_is_a_lease_that_runs_out_or_ends() {
        let s = fresh_store();
        accounts(&s, &["Abula", "Kofi", "Ama"]);
        s.follow("Abula", "Kofi", 10).unwrap();
        s.follow("Abula", "Ama", 10).unwrap();
        let now = anywoli_server::dates::now_ms();
        s.renew_presence(vec!["Kofi".into(), "Ama".into()], vec![], now + 30_000)
            .unwrap();
        let online = |at: i64| -> Vec<(String, bool)> {
            let mut v: Vec<_> = s
                .following("Abula", at)
                .unwrap()
                .into_iter()
                .map(|f| (f.name, f.online))
                .collect();
            v.sort();
            v
        };
        assert_eq!(online(now), [("Ama".into(), true), ("Kofi".into(), true)]);
        assert_eq!(
            online(now + 31_000),
            [("Ama".into(), false), ("Kofi".into(), false)],
            "a lease not renewed runs out"
        );
        s.renew_presence(vec![], vec!["Kofi".into()], now + 30_000).unwrap();
        assert_eq!(online(now), [("Ama".into(), true), ("Kofi".into(), false)]);
        assert!(s.following("Abula", now).unwrap().iter().all(|f| f.playing.is_none()));
    }
}

/// The names `who` follows, through the API.
async fn listed(addr: std::net::SocketAddr, me: &Account) -> Value {
    let (s, v) = call(
        addr,
        "GET",
        "/api/account/following",
        None,
        As::CookieOnly(me),
    )
    .await;
    assert_eq!(s, 200, "{v}");
    v["following"].clone()
}

store_test! {
    #[tokio::test]
    async fn following_over_the_api_is_bounded_and_needs_the_account() {
        let db = fresh_db("api");
        let others: Vec<String> = (0..400).map(|i| format!("P{i:03}")).collect();
        {
            let s = Store::open_db(&db).unwrap();
            accounts(&s, &["Abula", "Kofi"]);
            let refs: Vec<&str> = others.iter().map(String::as_str).collect();
            accounts(&s, &refs);
            for o in &others[..399] {
                assert_eq!(s.follow("Abula", o, 400).unwrap(), Followed::New);
            }
        }
        let server = start(&config(db)).await.unwrap();
        let addr = server.addr;
        let (a, k) = (who("Abula"), who("Kofi"));
        let follow = |name: &str| format!("/api/players/{name}/follow");

        // Without an account, without the CSRF token: refused, nothing changes.
        let (s, v) = call(addr, "POST", &follow("kofi"), None, As::Nobody).await;
        assert_eq!((s, v["error"].as_str()), (401, Some("not_logged_in")), "{v}");
        let (s, v) = call(addr, "POST", &follow("kofi"), None, As::CookieOnly(&a)).await;
        assert_eq!((s, v["error"].as_str()), (403, Some("csrf")), "{v}");
        let (s, v) = call(addr, "POST", &follow("nobody-here"), None, As::Authed(&a)).await;
        assert_eq!((s, v["error"].as_str()), (404, Some("unknown_player")), "{v}");
        let (s, v) = call(addr, "POST", &follow("ABULA"), None, As::Authed(&a)).await;
        assert_eq!((s, v["error"].as_str()), (409, Some("not_allowed")), "{v}");
        assert_eq!(listed(addr, &a).await.as_array().unwrap().len(), 399);

        // The 400th is taken (by any spelling of the name), the 401st refused.
        let (s, v) = call(addr, "POST", &follow("kOFI"), None, As::Authed(&a)).await;
        assert_eq!((s, &v), (200, &json!({"following": true})));
        let (s, v) = call(addr, "POST", &follow("P399"), None, As::Authed(&a)).await;
        assert_eq!((s, v["error"].as_str()), (409, Some("too_many_follows")), "{v}");
        let list = listed(addr, &a).await;
        assert_eq!(list.as_array().unwrap().len(), 400);
        assert_eq!(
            list[0],
            json!({"name": "Kofi", "since": list[0]["since"], "online": false, "playing": null}),
            "the latest first"
        );
        // Following again changes nothing; unfollowing makes room.
        let (s, _) = call(addr, "POST", &follow("Kofi"), None, As::Authed(&a)).await;
        assert_eq!(s, 200);
        let (s, v) = call(addr, "POST", "/api/players/P000/unfollow", None, As::Authed(&a)).await;
        assert_eq!((s, &v), (200, &json!({"following": false})));
        let (s, _) = call(addr, "POST", &follow("P399"), None, As::Authed(&a)).await;
        assert_eq!(s, 200);
        assert!(listed(addr, &k).await.as_array().unwrap().is_empty(), "one way");
        let (s, v) = call(addr, "GET", "/api/account/following", None, As::Nobody).await;
        assert_eq!((s, v["error"].as_str()), (401, Some("not_logged_in")));

        // A burst of follows and unfollows from one account is stopped.
        let mut refused = 0;
        for _ in 0..12 {
            let (s, v) = call(addr, "POST", "/api/players/P001/unfollow", None, As::Authed(&k)).await;
            if s == 429 {
                assert_eq!(v["error"], "rate_limited", "{v}");
                refused += 1;
            }
        }
        assert!(refused > 0, "12 at once go past the burst of 10");
        server.stop().await;
    }
}

/// An account's rating as `anywoli db migrate` copies it in: 30 games, at `deviation`, the
/// last `days` ago.
fn rated(name: &str, rating: f64, deviation: f64, days: i64) -> AccountOp {
    AccountOp::Import {
        account: AccountRow {
            key: name.to_lowercase(),
            name: name.to_string(),
            hash: "x".to_string(),
            created: 1,
        },
        ratings: vec![RatingRow {
            category: "blitz".to_string(),
            rules: "anywoli".to_string(),
            rating: Rating {
                rating,
                deviation,
                volatility: 0.06,
            },
            games: 30,
            at: anywoli_server::dates::now_ms() - days * 86_400_000,
        }],
        history: vec![],
    }
}

store_test! {
    #[tokio::test]
    async fn leaderboards_leave_out_provisional_ratings() {
        let db = fresh_db("leaders");
        {
            let s = Store::open_db(&db).unwrap();
            for op in [
                rated("Steady", 1700.0, 60.0, 0),
                // Provisional: too few games to say.
                rated("Lucky", 2100.0, 150.0, 0),
                rated("Edge", 1800.0, 109.0, 0),
                rated("Low", 1400.0, 50.0, 3),
                // Established once, provisional again after two years away.
                rated("Gone", 1900.0, 60.0, 730),
            ] {
                assert!(s.account_op(op).unwrap());
            }
        }
        let server = start(&config(db)).await.unwrap();
        let (s, v) = call(server.addr, "GET", "/api/leaderboards?category=blitz", None, As::Nobody).await;
        assert_eq!(s, 200, "{v}");
        let names: Vec<&str> = v["players"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["Edge", "Steady", "Low"], "{v}");
        assert_eq!((&v["players"][0]["rank"], &v["players"][2]["rank"]), (&json!(1), &json!(3)));
        assert_eq!((&v["category"], &v["rules"]), (&json!("blitz"), &json!("anywoli")));
        let (s, v) = call(server.addr, "GET", "/api/leaderboards?category=rapid", None, As::Nobody).await;
        assert_eq!((s, &v["players"]), (200, &json!([])));
        for bad in ["", "?category=fast", "?category=blitz&rules=chess", "?x=1"] {
            let (s, v) = call(server.addr, "GET", &format!("/api/leaderboards{bad}"), None, As::Nobody).await;
            assert_eq!((s, v["error"].as_str()), (400, Some("malformed")), "{bad}: {v}");
        }
        server.stop().await;
    }
}

postgres_test! {
    /// Two instances on one database: a player whose lobby socket is open on one is online to
    /// a follower asking the other, playing their public game, and offline once it closes.
    #[tokio::test]
    async fn online_and_playing_hold_across_two_instances() {
        use crate::lobby::lobby;
        use std::path::PathBuf;
        let url = Store::test_postgres_url("follows across two instances");
        {
            let s = Store::open_db(&PathBuf::from(&url)).unwrap();
            accounts(&s, &["Abula", "Kofi", "Ama"]);
            s.follow("Abula", "Kofi", 10).unwrap();
        }
        let one = start(&config(PathBuf::from(&url))).await.unwrap();
        let two = start(&config(PathBuf::from(&url))).await.unwrap();
        let (k, m) = (who("Kofi"), who("Ama"));
        let state = |addr| async move { listed(addr, &who("Abula")).await[0].clone() };
        assert_eq!(state(two.addr).await["online"], false);

        let (ws, _) = lobby(one.addr, Some(&k)).await;
        wait_for(|| state(two.addr), |f| f["online"] == true, "online through the other").await;

        // Kofi plays Ama a friend game made public: his follower sees it.
        let (s, g) = call(one.addr, "POST", "/api/games", Some(json!({"mode": "friend"})), As::Authed(&k)).await;
        assert_eq!(s, 201, "{g}");
        let id = g["game"]["id"].as_str().unwrap().to_string();
        assert_eq!(state(two.addr).await["playing"], Value::Null, "not public yet");
        let (s, j) = call(two.addr, "POST", &format!("/api/games/{id}/join"), Some(json!({"invite": g["invite"]})), As::Authed(&m)).await;
        assert_eq!(s, 200, "{j}");
        let (s, p) = call(one.addr, "POST", &format!("/api/games/{id}/public"), Some(json!({"secret": g["secret"], "public": true})), As::Authed(&k)).await;
        assert_eq!(s, 200, "{p}");
        assert_eq!(state(two.addr).await["playing"], json!(id));

        drop(ws);
        wait_for(|| state(two.addr), |f| f["online"] == false, "offline once the socket closed").await;
        one.stop().await;
        two.stop().await;
    }
}

/// Polls `get` until `ok` holds of what it answers (10 s at most).
// Only the two-instance test, which the PostgreSQL module leaves out, waits.
#[allow(dead_code)]
async fn wait_for<F, Fut>(get: F, ok: impl Fn(&Value) -> bool, what: &str)
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Value>,
{
    let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let v = get().await;
        if ok(&v) {
            return;
        }
        assert!(std::time::Instant::now() < until, "{what}: {v}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}
