// Blocks (issue 38) over the API and the sockets: a block stops challenges, seeks, chat and
// watching between two accounts, on every store; blocking is bounded and rate-limited.
// (Plain comments: `blocks_postgres.rs` includes this file.)

use crate::chat::socket::*;
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

// The store every test starts with: SQLite in memory here; `blocks_postgres.rs` defines a
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
    async fn a_block_stops_challenges_seeks_chat_and_watching() {
        let srv = start(fresh_store()).await;
        for n in ["Abula", "Bako", "Cabo"] {
            srv.account(n).await;
        }
        let (s, v) = api(&srv, "Abula", "POST", "/api/players/bAKO/block", json!({})).await;
        assert_eq!((s, &v["blocked"]), (200, &json!("Bako")), "{v}");
        let (s, v) = api(&srv, "Abula", "POST", "/api/players/Nobody/block", json!({})).await;
        assert_eq!((s, v["error"].as_str()), (404, Some("unknown_player")), "{v}");
        let (s, v) = api(&srv, "Abula", "POST", "/api/players/Abula/block", json!({})).await;
        assert_eq!((s, v["error"].as_str()), (409, Some("not_allowed")), "{v}");
        let (s, v) = api(&srv, "Abula", "GET", "/api/account/blocks", json!({})).await;
        assert_eq!(s, 200, "{v}");
        assert_eq!(v["blocks"][0]["name"], "Bako", "{v}");
        let (s, v) = api(&srv, "Bako", "GET", "/api/account/blocks", json!({})).await;
        assert_eq!((s, &v["blocks"]), (200, &json!([])), "one's own blocks only: {v}");

        // Challenges, both ways.
        for (from, to) in [("Abula", "Bako"), ("Bako", "Abula")] {
            let body = json!({"to": to, "clock": "5+3"});
            let (s, v) = api(&srv, from, "POST", "/api/challenges", body).await;
            assert_eq!((s, v["error"].as_str()), (403, Some("blocked")), "{v}");
        }
        let body = json!({"to": "Cabo", "clock": "5+3"});
        let (s, v) = api(&srv, "Bako", "POST", "/api/challenges", body).await;
        assert_eq!(s, 201, "others still can: {v}");

        // Watching the blocker's games: refused to the blocked one only.
        srv.game("chatgame8888", [Some("Abula"), Some("Cabo")]).await;
        let url = format!("ws://{}/api/games/chatgame8888/events", srv.addr);
        let mut req = tokio_tungstenite::tungstenite::client::IntoClientRequest::into_client_request(url).unwrap();
        req.headers_mut().insert("cookie", format!("anywoli_session={}", socket_cookie("Bako")).parse().unwrap());
        let refused = tokio_tungstenite::connect_async(req).await.unwrap_err().to_string();
        assert!(refused.contains("403"), "{refused}");
        let _c = srv.watch("chatgame8888", Some("Cabo")).await;

        // Unblocked, all is as before.
        let (s, _) = api(&srv, "Abula", "POST", "/api/players/Bako/unblock", json!({})).await;
        assert_eq!(s, 200);
        let _b = srv.watch("chatgame8888", Some("Bako")).await;
        let body = json!({"to": "Bako", "clock": "5+3"});
        let (s, v) = api(&srv, "Abula", "POST", "/api/challenges", body).await;
        assert_eq!(s, 201, "{v}");

        // Blocking and unblocking in a loop is cut off, with a clear refusal.
        let mut refused = None;
        for _ in 0..40 {
            let (s, v) = api(&srv, "Cabo", "POST", "/api/players/Bako/block", json!({})).await;
            if s != 200 {
                refused = Some((s, v));
                break;
            }
        }
        let (s, v) = refused.expect("a limit on blocks");
        assert_eq!((s, v["error"].as_str()), (429, Some("rate_limited")), "{v}");
    }
}

store_test! {
    #[tokio::test]
    async fn blocked_players_neither_see_nor_accept_each_other_s_seeks() {
        let srv = start(fresh_store()).await;
        for n in ["Abula", "Bako", "Cabo"] {
            srv.account(n).await;
        }
        srv.db(|s| s.block("Bako", "Abula")).await.unwrap();
        let mut a = srv.lobby_as("Abula").await;
        let mut b = srv.lobby_as("Bako").await;
        let mut c = srv.lobby_as("Cabo").await;
        send(&mut a, json!({"type": "seek", "clock": "5+3"})).await;
        let id = loop {
            let m = next(&mut a).await;
            if m["type"] == "seeking" {
                break m["id"].clone();
            }
        };
        let seen = loop {
            let m = next(&mut c).await;
            if m["type"] == "seek" {
                break m;
            }
        };
        assert_eq!(seen["seek"]["id"], id);
        // Bako's socket hears the next seek (Cabo's), not Abula's.
        send(&mut c, json!({"type": "seek", "clock": "3+2"})).await;
        let m = loop {
            let m = next(&mut b).await;
            if m["type"] == "seek" {
                break m;
            }
        };
        assert_eq!(m["seek"]["by"], "Cabo", "{m}");
        refused_as(&mut b, json!({"type": "accept", "id": id}), "blocked").await;
        // A new connection's list leaves it out too.
        let mut req = format!("ws://{}/api/lobby", srv.addr).into_client_request().unwrap();
        let h = req.headers_mut();
        h.insert("cookie", format!("anywoli_session={}", socket_cookie("Bako")).parse().unwrap());
        h.insert("origin", format!("http://{}", srv.addr).parse().unwrap());
        let (mut b2, _) = tokio_tungstenite::connect_async(req).await.unwrap();
        let hello = next(&mut b2).await;
        let ids: Vec<&Value> = hello["seeks"].as_array().unwrap().iter().map(|s| &s["id"]).collect();
        assert!(!ids.contains(&&id), "{hello}");
        assert_eq!(ids.len(), 1, "{hello}");
    }
}
