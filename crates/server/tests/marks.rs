// Marks (issue 38): a booster or computer-assisted mark gives the opponents back the points
// they lost to the marked account lately (exact figures on a worked example), once per game
// whatever the marks after, and leaves the account off the leaderboards; over the API only a
// moderator marks, and a marked account's rated challenge is refused.
// (Plain comments: `marks_postgres.rs` includes this file.)

use crate::support::marks::worked_example;
use anywoli_server::store::{Act, MarkKind, Moderate, RatingPoint, ADMIN_CLI, REFUND_PREFIX};
use anywoli_server::Store;
use serde_json::{json, Value};

#[allow(unused_imports)]
use sqlite_store::*;
#[allow(dead_code)]
mod sqlite_store {
    pub fn fresh_store() -> anywoli_server::Store {
        anywoli_server::Store::in_memory().unwrap()
    }
}

/// A router on a fresh store (this module's: SQLite or PostgreSQL), and the store.
fn app_and_store() -> (axum::Router, std::sync::Arc<Store>) {
    let state = anywoli_server::AppState::new(fresh_store(), crate::oneshot::think());
    let store = state.store().clone();
    (anywoli_server::app(state), store)
}

fn mark(store: &Store, act: Act, name: &str, at: i64) {
    let m = Moderate {
        act,
        moderator: ADMIN_CLI.into(),
        target: name.into(),
        reason: "boosting".into(),
        detail: json!({}),
        at,
    };
    assert!(store.moderate(m).unwrap());
}

fn rating(store: &Store, name: &str) -> f64 {
    store.ratings(name).unwrap()[0].rating.rating
}

fn leaders(store: &Store) -> Vec<String> {
    let rows = store.leaders("blitz", "anywoli", 10).unwrap();
    rows.into_iter().map(|r| r.name).collect()
}

fn last_detail(store: &Store, name: &str) -> (String, Value) {
    let line = store.mod_log(Some(name), 1).unwrap().remove(0);
    (line.action, serde_json::from_str(&line.detail).unwrap())
}

store_test! {
    #[test]
    fn a_booster_mark_gives_back_exactly_what_the_opponents_lost_and_only_once() {
        let store = fresh_store();
        let now = 1_800_000_000_000;
        worked_example(&store, now);
        assert_eq!(leaders(&store), ["Boost", "Kofi", "Ama"]);

        mark(&store, Act::Mark { kind: MarkKind::Booster }, "Boost", now);
        assert_eq!(rating(&store, "Kofi"), 1545.0);
        assert_eq!(rating(&store, "Ama"), 1490.0);
        assert_eq!(rating(&store, "Boost"), 1575.0, "the marked account's own rating stays");
        let (action, detail) = last_detail(&store, "Boost");
        assert_eq!(action, "mark_booster");
        assert_eq!(detail, json!({"kind": "booster", "games": 4, "refunds": 3, "points": 105.0}));
        // The profile's graph shows the refund as one point, at the mark's time, named after
        // the newest game refunded.
        let points = store.rating_history("Kofi", 100).unwrap();
        let refunds: Vec<&RatingPoint> =
            points.iter().filter(|p| p.game.starts_with(REFUND_PREFIX)).collect();
        assert_eq!(refunds.len(), 1, "{points:?}");
        assert_eq!((refunds[0].at, refunds[0].rating), (now, 1545.0));
        assert_eq!(refunds[0].game, format!("{REFUND_PREFIX}g3"));
        assert_eq!(points.last().unwrap().rating, 1545.0);
        // Off the leaderboard; marked.
        assert_eq!(leaders(&store), ["Kofi", "Ama"]);
        assert_eq!(store.marks("Boost").unwrap()[0].kind, MarkKind::Booster);
        assert!(store.marks("Kofi").unwrap().is_empty());

        // Marked again, unmarked, marked the other way: nothing is given twice.
        mark(&store, Act::Mark { kind: MarkKind::Booster }, "Boost", now + 1);
        assert_eq!(last_detail(&store, "Boost").1["refunds"], 0);
        mark(&store, Act::Unmark { kind: MarkKind::Booster }, "Boost", now + 2);
        assert_eq!(last_detail(&store, "Boost").0, "unmark_booster");
        assert!(store.marks("Boost").unwrap().is_empty());
        assert_eq!(leaders(&store), ["Boost", "Kofi", "Ama"], "back once unmarked");
        assert_eq!(rating(&store, "Kofi"), 1545.0, "an unmark takes nothing back");
        mark(&store, Act::Mark { kind: MarkKind::Computer }, "Boost", now + 3);
        assert_eq!(last_detail(&store, "Boost").1["points"], 0.0);
        assert_eq!((rating(&store, "Kofi"), rating(&store, "Ama")), (1545.0, 1490.0));
        assert_eq!(leaders(&store), ["Kofi", "Ama"]);
    }
}

store_test! {
    #[tokio::test]
    async fn only_a_moderator_marks_and_a_marked_account_plays_casual_only() {
        use crate::moderation_api::{req, signup};
        use anywoli_server::dates::now_ms;
        use axum::http::StatusCode;
        let (app, store) = app_and_store();
        let modo = signup(&app, "Modo").await;
        let bao = signup(&app, "Bao").await;
        {
            let store = store.clone();
            tokio::task::spawn_blocking(move || {
                worked_example(&store, now_ms());
                mark(&store, Act::GrantModerator, "Modo", now_ms());
            })
            .await
            .unwrap();
        }
        let url = "/api/mod/players/boost/mark-booster";
        let (s, v, _) = req(&app, "POST", url, Some(&bao), Some(json!({"reason": "x"}))).await;
        assert_eq!((s, v["error"].as_str()), (StatusCode::FORBIDDEN, Some("not_moderator")));
        let (_, v, _) = req(&app, "GET", "/api/players/Kofi", None, None).await;
        assert_eq!(v["ratings"][0]["rating"], 1480.0, "nothing given back: {v}");

        let (s, v, _) = req(&app, "POST", url, Some(&modo), Some(json!({"reason": "boosting"}))).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let (_, v, _) = req(&app, "GET", "/api/players/Kofi", None, None).await;
        assert_eq!(v["ratings"][0]["rating"], 1545.0, "{v}");
        assert_eq!(v["marked"], false);
        let (_, v, _) = req(&app, "GET", "/api/players/Boost", None, None).await;
        assert_eq!(v["marked"], true, "{v}");
        let (_, v, _) = req(&app, "GET", "/api/mod/players/Boost", Some(&modo), None).await;
        assert_eq!(v["marks"][0]["kind"], "booster", "{v}");
        assert_eq!(v["log"][0]["action"], "mark_booster", "{v}");
        assert_eq!(v["log"][0]["detail"]["refunds"], 3, "{v}");
        let (_, v, _) = req(&app, "GET", "/api/leaderboards?category=blitz", None, None).await;
        let names: Vec<&str> =
            v["players"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["Kofi", "Ama"], "{v}");

        // Rated games with the marked account are refused; casual ones are not.
        let body = json!({"to": "Boost", "clock": "5+3", "rated": true});
        let (s, v, _) = req(&app, "POST", "/api/challenges", Some(&bao), Some(body)).await;
        assert_eq!((s, v["error"].as_str()), (StatusCode::FORBIDDEN, Some("marked")), "{v}");
        let body = json!({"to": "Boost", "clock": "5+3"});
        let (s, v, _) = req(&app, "POST", "/api/challenges", Some(&bao), Some(body)).await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        for bad in ["mark-everyone", "unmark"] {
            let url = format!("/api/mod/players/Boost/{bad}");
            let (s, _, _) = req(&app, "POST", &url, Some(&modo), Some(json!({}))).await;
            assert_eq!(s, StatusCode::NOT_FOUND, "{bad}");
        }
        let url = "/api/mod/players/Boost/unmark-booster";
        let (s, _, _) = req(&app, "POST", url, Some(&modo), Some(json!({}))).await;
        assert_eq!(s, StatusCode::OK);
        let (_, v, _) = req(&app, "GET", "/api/players/Boost", None, None).await;
        assert_eq!(v["marked"], false, "{v}");
    }
}

store_test! {
    #[tokio::test]
    async fn a_marked_players_game_leaves_tv_and_their_rated_challenge_cannot_be_accepted() {
        use crate::moderation_api::{req, signup};
        use anywoli_server::dates::now_ms;
        use axum::http::StatusCode;
        let (app, store) = app_and_store();
        let (modo, bao, cheat) = (signup(&app, "Modo").await, signup(&app, "Bao").await, signup(&app, "Cheat").await);
        let tv = |store: &std::sync::Arc<Store>| {
            let store = store.clone();
            async move { tokio::task::spawn_blocking(move || store.tv_game(0).unwrap()).await.unwrap() }
        };
        {
            let store = store.clone();
            tokio::task::spawn_blocking(move || mark(&store, Act::GrantModerator, "Modo", now_ms())).await.unwrap();
        }
        // A public game of Cheat's, on TV; a rated challenge from Bao, waiting.
        let (s, g, _) = req(&app, "POST", "/api/games", Some(&cheat), Some(json!({"mode": "friend"}))).await;
        assert_eq!(s, StatusCode::CREATED, "{g}");
        let id = g["game"]["id"].as_str().unwrap().to_string();
        let (s, v, _) = req(&app, "POST", &format!("/api/games/{id}/join"), Some(&bao), Some(json!({"invite": g["invite"]}))).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let public = json!({"secret": g["secret"], "public": true});
        let (s, v, _) = req(&app, "POST", &format!("/api/games/{id}/public"), Some(&cheat), Some(public)).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(tv(&store).await, Some(id), "on TV before the mark");
        let body = json!({"to": "Cheat", "clock": "5+3", "rated": true});
        let (s, v, _) = req(&app, "POST", "/api/challenges", Some(&bao), Some(body)).await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        let challenge = v["challenge"]["id"].as_str().unwrap().to_string();

        let url = "/api/mod/players/Cheat/mark-computer";
        let (s, v, _) = req(&app, "POST", url, Some(&modo), Some(json!({"reason": "engine moves"}))).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(tv(&store).await, None, "a marked player's game is not on TV");
        let accept = format!("/api/challenges/{challenge}/accept");
        let (s, v, _) = req(&app, "POST", &accept, Some(&cheat), None).await;
        assert_eq!((s, v["error"].as_str()), (StatusCode::FORBIDDEN, Some("marked")), "{v}");
        let (_, v, _) = req(&app, "GET", "/api/challenges", Some(&bao), None).await;
        assert_eq!(v["outgoing"], json!([]), "the challenge went: {v}");
    }
}

store_test! {
    #[test]
    fn a_marked_opponent_gets_nothing_back() {
        let store = fresh_store();
        let now = 1_800_000_000_000;
        worked_example(&store, now);
        // Ama won nothing off anyone, so her own mark gives nothing back either.
        mark(&store, Act::Mark { kind: MarkKind::Computer }, "Ama", now - 1);
        assert_eq!(last_detail(&store, "Ama").1["refunds"], 0);
        mark(&store, Act::Mark { kind: MarkKind::Booster }, "Boost", now);
        assert_eq!(last_detail(&store, "Boost").1["points"], 65.0);
        assert_eq!((rating(&store, "Kofi"), rating(&store, "Ama")), (1545.0, 1450.0));
    }
}
