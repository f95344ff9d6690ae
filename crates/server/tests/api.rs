// The HTTP API, called through the router itself: every error the API promises, and that an
// error changes nothing. (Plain comments: `api_postgres.rs` includes this file.)

use std::time::Duration;

use anywoli_server::{app, AppState, Think, BODY_LIMIT};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt;
use serde_json::{json, Value};
use tower::ServiceExt;

// The store every test starts with: SQLite in memory here. `api_postgres.rs` includes this
// file and defines a `fresh_store` of its own, which shadows this glob-imported one.
#[allow(unused_imports)]
use sqlite_store::*;
#[allow(dead_code)]
mod sqlite_store {
    pub fn fresh_store() -> anywoli_server::Store {
        anywoli_server::Store::in_memory().unwrap()
    }
}

use crate::oneshot;
use oneshot::*;

fn router() -> Router {
    router_on(fresh_store())
}

fn assert_error(got: (StatusCode, Value), status: StatusCode, code: &str, needle: &str) {
    assert_eq!(got.0, status, "{}", got.1);
    assert_eq!(got.1["error"], code, "{}", got.1);
    let msg = got.1["message"].as_str().unwrap();
    assert!(
        msg.contains(needle),
        "message {msg:?} should contain {needle:?}"
    );
}

/// A friend game with both seats taken: (id, south secret, north secret).
/// The side to move in game `g` (`id`) plays its first legal move with its secret (`secrets`:
/// South's, North's); the side that moved and the game after it.
async fn play_first_legal(
    app: &Router,
    id: &str,
    g: &Value,
    secrets: [&str; 2],
) -> (String, Value) {
    let side = g["to_move"].as_str().unwrap().to_string();
    let secret = if side == "south" {
        secrets[0]
    } else {
        secrets[1]
    };
    let (s, r) = post(
        app,
        &format!("/api/games/{id}/moves"),
        json!({"move": g["legal"][0], "secret": secret, "ply": g["ply"]}),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{r}");
    (side, r["game"].clone())
}

async fn friend_game(app: &Router) -> (String, String, String) {
    let (s, v) = post(
        app,
        "/api/games",
        json!({"mode": "friend", "side": "south"}),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    assert_eq!(v["seat"], "south");
    let id = v["game"]["id"].as_str().unwrap().to_string();
    let south = v["secret"].as_str().unwrap().to_string();
    assert_eq!(v["game"]["seats"]["north"]["taken"], false);
    let invite = v["invite"].as_str().unwrap().to_string();
    assert_eq!(invite.len(), 32);
    assert!(
        !v["game"].to_string().contains(&invite),
        "the invite token is not part of the game everyone sees"
    );
    // Knowing the game's id is not enough: the free seat is for the invite's holder.
    for wrong in [
        json!({}),
        json!({"invite": "0".repeat(32)}),
        json!({"invite": null}),
    ] {
        assert_error(
            post(app, &format!("/api/games/{id}/join"), wrong).await,
            StatusCode::FORBIDDEN,
            "wrong_invite",
            "invite link",
        );
    }
    assert_error(
        post(
            app,
            &format!("/api/games/{id}/join"),
            json!({"invite": invite, "extra": 1}),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "malformed",
        "unknown field",
    );
    let (s, j) = post(
        app,
        &format!("/api/games/{id}/join"),
        json!({ "invite": invite }),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{j}");
    assert_eq!(j["seat"], "north");
    assert_eq!(j["game"]["seats"]["north"]["taken"], true);
    let north = j["secret"].as_str().unwrap().to_string();
    assert_ne!(south, north);
    (id, south, north)
}

store_test! {
    #[tokio::test]
    async fn a_friend_game_goes_on_move_by_move() {
        let app = router();
        let (id, south, north) = friend_game(&app).await;
        let (s, v) = post(
            &app,
            &format!("/api/games/{id}/moves"),
            json!({"move": "e", "secret": south, "ply": 0}),
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        // The first worked example of docs/rules.md ("Example 1").
        assert_eq!(
            v["game"]["position"],
            "5,5,5,5,1,5,5,5,0,5,5,5/5,0,5,5,5,5,0,5,5,5,5,0 n 0 0 - - 1 1"
        );
        assert_eq!(v["trace"]["move"], "e");
        assert_eq!(
            v["trace"]["before"],
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0"
        );
        assert_eq!(
            v["trace"]["events"][0],
            json!({"type": "lap", "lap": 1, "hole": "e", "seeds": 4})
        );
        let (s, v) = post(
            &app,
            &format!("/api/games/{id}/moves"),
            json!({"move": "F", "secret": north}),
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let (s, g) = get(&app, &format!("/api/games/{id}")).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(g["moves"], json!(["e", "F"]));
        assert_eq!(g["ply"], 2);
        assert_eq!(g["to_move"], "south");
        assert_eq!(
            g["position"],
            "8,8,8,1,1,7,1,7,2,7,0,7/1,2,7,7,7,0,1,0,1,8,2,3 s 0 0 - - 2 2"
        );
        assert!(g.get("secret").is_none() && !g.to_string().contains(&south));
        let (_, p) = get(&app, &format!("/api/games/{id}/positions")).await;
        assert_eq!(p["positions"].as_array().unwrap().len(), 3);
        let (s, t) = get(&app, &format!("/api/games/{id}/moves/2/trace")).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(t["move"], "F");
        assert_eq!(t["mover"], "north");
        let (_, rec) = call_text(&app, "GET", &format!("/api/games/{id}/record"), None).await;
        assert!(rec.contains("[Rules \"anywoli\"]"), "{rec}");
        assert!(rec.contains("\ne F *\n"), "{rec}");
    }
}

store_test! {
    #[tokio::test]
    async fn every_promised_error_is_json_and_changes_nothing() {
        let app = router();
        let (id, south, north) = friend_game(&app).await;
        let moves = format!("/api/games/{id}/moves");
        let (_, before) = get(&app, &format!("/api/games/{id}")).await;

        // Illegal move: North's hole on South's turn, and an empty hole later.
        assert_error(
            post(&app, &moves, json!({"move": "A", "secret": south})).await,
            StatusCode::UNPROCESSABLE_ENTITY,
            "illegal_move",
            "North's",
        );
        // Not your turn.
        assert_error(
            post(&app, &moves, json!({"move": "A", "secret": north})).await,
            StatusCode::CONFLICT,
            "not_your_turn",
            "South's turn",
        );
        // Wrong seat secret.
        assert_error(
            post(
                &app,
                &moves,
                json!({"move": "e", "secret": "0123456789abcdef0123456789abcdef"}),
            )
            .await,
            StatusCode::FORBIDDEN,
            "wrong_secret",
            "secret",
        );
        // Unknown game, both a well-formed id and nonsense.
        assert_error(
            post(
                &app,
                "/api/games/abcdefghijkm/moves",
                json!({"move": "e", "secret": south}),
            )
            .await,
            StatusCode::NOT_FOUND,
            "unknown_game",
            "abcdefghijkm",
        );
        assert_error(
            get(&app, "/api/games/..%2f..%2fetc").await,
            StatusCode::NOT_FOUND,
            "unknown_game",
            "no game",
        );
        // Malformed: not JSON, wrong types, unknown fields, no such move letter.
        for body in [
            "{".to_string(),
            "[1,2]".to_string(),
            json!({"move": 4, "secret": south}).to_string(),
            json!({"move": "e", "secret": south, "extra": 1}).to_string(),
            json!({"secret": south}).to_string(),
        ] {
            assert_error(
                call_raw(&app, "POST", &moves, Some(body)).await,
                StatusCode::BAD_REQUEST,
                "malformed",
                "JSON",
            );
        }
        assert_error(
            post(&app, &moves, json!({"move": "z", "secret": south})).await,
            StatusCode::BAD_REQUEST,
            "malformed",
            "not a move",
        );
        // Oversized.
        let big = json!({"move": "e", "secret": "x".repeat(BODY_LIMIT)}).to_string();
        assert_error(
            call_raw(&app, "POST", &moves, Some(big)).await,
            StatusCode::PAYLOAD_TOO_LARGE,
            "too_large",
            "larger",
        );
        // A move sent for a position the client no longer sees.
        assert_error(
            post(
                &app,
                &moves,
                json!({"move": "e", "secret": south, "ply": 3}),
            )
            .await,
            StatusCode::CONFLICT,
            "stale",
            "move 0",
        );
        // Creation errors.
        for (body, needle) in [
            (json!({"rules": "chess"}), "unknown rules"),
            (json!({"mode": "online"}), "mode"),
            (json!({"level": 11}), "level 11"),
            (json!({"side": "east"}), "east"),
            (json!({"position": "1,2/3"}), "position"),
            (json!({"mode": "friend", "level": 3}), "level"),
            (json!({"seed": -1}), "seed"),
        ] {
            assert_error(
                post(&app, "/api/games", body).await,
                StatusCode::BAD_REQUEST,
                "malformed",
                needle,
            );
        }
        // Nothing above changed the game.
        let (_, after) = get(&app, &format!("/api/games/{id}")).await;
        assert_eq!(before, after);
        // Routes and methods that do not exist.
        assert_error(
            get(&app, "/api/nothing").await,
            StatusCode::NOT_FOUND,
            "not_found",
            "endpoint",
        );
        assert_error(
            call_raw(&app, "DELETE", &format!("/api/games/{id}"), None).await,
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
            "method",
        );
        // An empty hole, after some moves, is an illegal move too.
        post(&app, &moves, json!({"move": "e", "secret": south})).await;
        post(&app, &moves, json!({"move": "F", "secret": north})).await;
        let (_, g) = get(&app, &format!("/api/games/{id}")).await;
        assert_eq!(g["holes"][10], 0, "k is empty after e F");
        assert_error(
            post(&app, &moves, json!({"move": "k", "secret": south})).await,
            StatusCode::UNPROCESSABLE_ENTITY,
            "illegal_move",
            "empty",
        );
        let (_, again) = get(&app, &format!("/api/games/{id}")).await;
        assert_eq!(g, again);
        // A third person cannot join; resignation ends it and further moves are refused.
        assert_error(
            post(&app, &format!("/api/games/{id}/join"), json!({})).await,
            StatusCode::CONFLICT,
            "seat_taken",
            "watch",
        );
        assert_error(
            post(
                &app,
                &format!("/api/games/{id}/takeback"),
                json!({"secret": south}),
            )
            .await,
            StatusCode::CONFLICT,
            "not_allowed",
            "computer",
        );
        let (s, r) = post(
            &app,
            &format!("/api/games/{id}/resign"),
            json!({"secret": north}),
        )
        .await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(r["game"]["result"], "1-0");
        assert_eq!(r["game"]["termination"], "resignation");
        assert_error(
            post(&app, &moves, json!({"move": "a", "secret": south})).await,
            StatusCode::CONFLICT,
            "game_over",
            "over",
        );
    }
}

store_test! {
    #[tokio::test]
    async fn the_computer_answers_and_a_takeback_undoes_both_moves() {
        let app = router();
        let (s, v) = post(
            &app,
            "/api/games",
            json!({"mode": "computer", "level": 1, "side": "south"}),
        )
        .await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        let id = v["game"]["id"].as_str().unwrap().to_string();
        let secret = v["secret"].as_str().unwrap().to_string();
        assert_eq!(
            v["game"]["seats"]["north"],
            json!({"kind": "computer", "level": 1, "taken": false, "player": null})
        );
        let (s, _) = post(
            &app,
            &format!("/api/games/{id}/moves"),
            json!({"move": "a", "secret": secret}),
        )
        .await;
        assert_eq!(s, StatusCode::OK);
        // The engine moves on a blocking thread; wait (bounded) until South is to move again.
        let mut g = Value::Null;
        for _ in 0..200 {
            g = get(&app, &format!("/api/games/{id}")).await.1;
            if g["to_move"] == "south" && !g["thinking"].as_bool().unwrap() || g["status"] == "over" {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(g["to_move"], "south", "{g}");
        assert!(g["ply"].as_u64().unwrap() >= 2);
        // Not your turn is impossible to provoke by waiting; a wrong secret is.
        let (s, t) = post(
            &app,
            &format!("/api/games/{id}/takeback"),
            json!({"secret": secret}),
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{t}");
        assert_eq!(t["game"]["ply"], 0);
        assert_eq!(t["game"]["moves"], json!([]));
        assert_error(
            post(
                &app,
                &format!("/api/games/{id}/takeback"),
                json!({"secret": secret}),
            )
            .await,
            StatusCode::CONFLICT,
            "not_allowed",
            "no move",
        );
        let (s, h) = post(
            &app,
            &format!("/api/games/{id}/hint"),
            json!({"secret": secret}),
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{h}");
        let hint = h["move"].as_str().unwrap();
        assert!(("a".."m").contains(&hint), "{hint}");
    }
}

store_test! {
    #[tokio::test]
    async fn hints_need_the_secret_of_the_side_to_move_and_friends_consent() {
        let app = router();
        // Between friends, hints are off unless the game was made with them.
        let (id, south, north) = friend_game(&app).await;
        let (_, g) = get(&app, &format!("/api/games/{id}")).await;
        assert_eq!(g["hints"], false);
        for secret in [&south, &north] {
            assert_error(
                post(
                    &app,
                    &format!("/api/games/{id}/hint"),
                    json!({"secret": secret}),
                )
                .await,
                StatusCode::FORBIDDEN,
                "hints_off",
                "without them",
            );
        }
        // Nobody gets one without a seat, and the old anonymous GET is gone.
        assert_error(
            post(
                &app,
                &format!("/api/games/{id}/hint"),
                json!({"secret": "0".repeat(32)}),
            )
            .await,
            StatusCode::FORBIDDEN,
            "wrong_secret",
            "no seat",
        );
        assert_error(
            post(&app, &format!("/api/games/{id}/hint"), json!({})).await,
            StatusCode::BAD_REQUEST,
            "malformed",
            "secret",
        );
        assert_error(
            get(&app, &format!("/api/games/{id}/hint")).await,
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
            "method",
        );

        // Made with hints: both see it, and only the player to move gets one.
        let (s, v) = post(
            &app,
            "/api/games",
            json!({"mode": "friend", "side": "south", "hints": true}),
        )
        .await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        assert_eq!(v["game"]["hints"], true);
        let id = v["game"]["id"].as_str().unwrap().to_string();
        let south = v["secret"].as_str().unwrap().to_string();
        let (_, j) = post(
            &app,
            &format!("/api/games/{id}/join"),
            json!({"invite": v["invite"]}),
        )
        .await;
        assert_eq!(j["game"]["hints"], true);
        let north = j["secret"].as_str().unwrap().to_string();
        assert_error(
            post(
                &app,
                &format!("/api/games/{id}/hint"),
                json!({"secret": north}),
            )
            .await,
            StatusCode::CONFLICT,
            "not_your_turn",
            "South's turn",
        );
        let (s, h) = post(
            &app,
            &format!("/api/games/{id}/hint"),
            json!({"secret": south}),
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{h}");
        assert_eq!(h["ply"], 0);

        // Against the computer and on one screen, hints stay on by default.
        for mode in ["computer", "local"] {
            let (_, v) = post(&app, "/api/games", json!({"mode": mode})).await;
            assert_eq!(v["game"]["hints"], true, "{mode}");
        }
        let (_, v) = post(&app, "/api/games", json!({"mode": "hints"})).await;
        assert_eq!(v["error"], "malformed");
        let (_, v) = post(&app, "/api/games", json!({"mode": "local", "hints": "yes"})).await;
        assert_eq!(v["error"], "malformed");
    }
}

store_test! {
    #[tokio::test]
    async fn both_players_see_who_takes_the_last_seeds_when_the_rules_fix_it() {
        let app = router();
        for seed in 0u64..16 {
            let (s, v) = post(
                &app,
                "/api/games",
                json!({"mode": "local", "rules": "anywoli-lottery", "seed": seed}),
            )
            .await;
            assert_eq!(s, StatusCode::CREATED, "{v}");
            let want = match anywoli_core::lottery_draw(seed) {
                anywoli_core::Side::South => "south",
                anywoli_core::Side::North => "north",
            };
            assert_eq!(v["game"]["last_seeds_to"], want, "seed {seed}");
            let id = v["game"]["id"].as_str().unwrap();
            let (_, rec) = call_text(&app, "GET", &format!("/api/games/{id}/record"), None).await;
            let tag = format!("[LastSeeds \"{}{}\"]", want[..1].to_uppercase(), &want[1..]);
            assert!(rec.contains(&tag), "{rec}");
        }
        let (_, v) = post(
            &app,
            "/api/games",
            json!({"mode": "local", "rules": "anywoli-it"}),
        )
        .await;
        assert_eq!(v["game"]["last_seeds_to"], "south");
        let (_, v) = post(&app, "/api/games", json!({"mode": "local"})).await;
        assert_eq!(v["game"]["last_seeds_to"], Value::Null);
    }
}

store_test! {
    #[tokio::test]
    async fn a_mistyped_page_address_gets_the_page_and_a_404() {
        let app = router();
        for path in ["/g/abcdefghijkm/", "/g/nosuchgame", "/games", "/g/"] {
            let (s, text) = call_text(&app, "GET", path, None).await;
            assert_eq!(s, StatusCode::NOT_FOUND, "{path}");
            assert!(text.contains("<title>Anywoli</title>"), "{path}: {text}");
        }
        // Programs still get JSON.
        assert_error(
            call_raw(&app, "POST", "/games", None).await,
            StatusCode::NOT_FOUND,
            "not_found",
            "endpoint",
        );
        assert_error(
            get(&app, "/api/nosuch").await,
            StatusCode::NOT_FOUND,
            "not_found",
            "endpoint",
        );
    }
}

store_test! {
    #[tokio::test]
    async fn the_site_says_how_it_is_reached() {
        let (s, v) = get(&router(), "/api/site").await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(v["loopback_only"], true);
        assert_eq!(v["public_url"], Value::Null);
        assert_eq!(v["network_urls"], json!([]));
    }
}

store_test! {
    #[tokio::test]
    async fn the_computer_moves_first_when_the_player_takes_north() {
        let app = router();
        let (_, v) = post(
            &app,
            "/api/games",
            json!({"mode": "computer", "level": 2, "side": "north"}),
        )
        .await;
        let id = v["game"]["id"].as_str().unwrap().to_string();
        let secret = v["secret"].as_str().unwrap().to_string();
        // South's hole while South (the computer) is to move, or once it has moved: refused
        // either way (a level-2 reply can be stored before this request arrives).
        let (s, e) = post(
            &app,
            &format!("/api/games/{id}/moves"),
            json!({"move": "a", "secret": secret}),
        )
        .await;
        match e["error"].as_str() {
            Some("not_your_turn") => assert_eq!(s, StatusCode::CONFLICT),
            Some("illegal_move") => assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY),
            _ => panic!("{s} {e}"),
        }
        let mut g = Value::Null;
        for _ in 0..200 {
            g = get(&app, &format!("/api/games/{id}")).await.1;
            if g["to_move"] == "north" {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(g["to_move"], "north", "{g}");
        let first = g["moves"][0].as_str().unwrap();
        assert!(first.chars().all(|c| c.is_ascii_lowercase()));
    }
}

store_test! {
    #[tokio::test]
    async fn local_games_resign_rematch_and_archive() {
        let app = router();
        let (_, v) = post(
            &app,
            "/api/games",
            json!({"mode": "local", "rules": "anywoli-lottery", "seed": "18446744073709551615"}),
        )
        .await;
        assert_eq!(v["seat"], "both");
        assert_eq!(v["game"]["seed"], "18446744073709551615");
        let id = v["game"]["id"].as_str().unwrap().to_string();
        let secret = v["secret"].as_str().unwrap().to_string();
        for mv in ["e", "F"] {
            let (s, r) = post(
                &app,
                &format!("/api/games/{id}/moves"),
                json!({"move": mv, "secret": secret}),
            )
            .await;
            assert_eq!(s, StatusCode::OK, "{r}");
        }
        // On one screen a take-back undoes one move.
        let (_, t) = post(
            &app,
            &format!("/api/games/{id}/takeback"),
            json!({"secret": secret}),
        )
        .await;
        assert_eq!(t["game"]["moves"], json!(["e"]));
        assert_error(
            post(
                &app,
                &format!("/api/games/{id}/rematch"),
                json!({"secret": secret}),
            )
            .await,
            StatusCode::CONFLICT,
            "not_allowed",
            "still going on",
        );
        // North is to move, so North resigns.
        let (_, r) = post(
            &app,
            &format!("/api/games/{id}/resign"),
            json!({"secret": secret}),
        )
        .await;
        assert_eq!(r["game"]["result"], "1-0");
        // A finished game is final: no take-back reopens it (issue 36), and nothing changed.
        assert_error(
            post(
                &app,
                &format!("/api/games/{id}/takeback"),
                json!({"secret": secret}),
            )
            .await,
            StatusCode::CONFLICT,
            "not_allowed",
            "analysis board",
        );
        let (_, g) = get(&app, &format!("/api/games/{id}")).await;
        assert_eq!(
            (g["result"].as_str(), g["moves"].clone()),
            (Some("1-0"), json!(["e"]))
        );
        let (s, m) = post(
            &app,
            &format!("/api/games/{id}/rematch"),
            json!({"secret": secret}),
        )
        .await;
        assert_eq!(s, StatusCode::CREATED, "{m}");
        let next = m["game"]["id"].as_str().unwrap().to_string();
        assert_ne!(next, id);
        assert_eq!(m["game"]["rules"], "anywoli-lottery");
        // Asking again gives the same rematch.
        let (_, m2) = post(
            &app,
            &format!("/api/games/{id}/rematch"),
            json!({"secret": secret}),
        )
        .await;
        assert_eq!(m2["game"]["id"], next.as_str());
        let (_, old) = get(&app, &format!("/api/games/{id}")).await;
        assert_eq!(old["rematch"], next.as_str());
        let (s, list) = get(&app, "/api/games?limit=10").await;
        assert_eq!(s, StatusCode::OK);
        let ids: Vec<&str> = list["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["id"].as_str().unwrap())
            .collect();
        assert!(
            ids.contains(&id.as_str()) && ids.contains(&next.as_str()),
            "{list}"
        );
        assert_error(
            get(&app, "/api/games?limit=0").await,
            StatusCode::BAD_REQUEST,
            "malformed",
            "limit",
        );
        assert_error(
            get(&app, "/api/games?sort=x").await,
            StatusCode::BAD_REQUEST,
            "malformed",
            "sort",
        );
    }
}

store_test! {
    #[tokio::test]
    async fn records_export_and_import() {
        let app = router();
        let text =
            "[Event \"Club\"]\n[South \"Ojulu\"]\n[Rules \"anywoli\"]\n[Result \"*\"]\n\ne F a\n";
        let (s, v) = post(&app, "/api/import", json!({"record": text})).await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        assert_eq!(v["game"]["moves"], json!(["e", "F", "a"]));
        assert_eq!(v["game"]["status"], "playing");
        assert_eq!(v["game"]["mode"], "local");
        let id = v["game"]["id"].as_str().unwrap();
        let (_, out) = call_text(&app, "GET", &format!("/api/games/{id}/record"), None).await;
        assert!(
            out.contains("[Event \"Club\"]") && out.contains("[South \"Ojulu\"]"),
            "{out}"
        );
        let back = anywoli_core::Record::parse(&out).unwrap();
        assert_eq!(back.moves.len(), 3);
        // A record with an illegal move, or none at all, is refused.
        assert_error(
            post(&app, "/api/import", json!({"record": "e e"})).await,
            StatusCode::UNPROCESSABLE_ENTITY,
            "bad_record",
            "move 2 is illegal",
        );
        assert_error(
            post(&app, "/api/import", json!({"record": ""})).await,
            StatusCode::UNPROCESSABLE_ENTITY,
            "bad_record",
            "no game",
        );
        // A resigned game comes back resigned.
        let (_, v) = post(
            &app,
            "/api/import",
            json!({"record": "[Result \"0-1\"]\n[Termination \"resignation\"]\ne 0-1"}),
        )
        .await;
        assert_eq!(v["game"]["status"], "over");
        assert_eq!(v["game"]["result"], "0-1");
        assert_eq!(v["game"]["termination"], "resignation");
        // The import limit is larger than the others, but a limit all the same.
        let huge = json!({"record": "e ".repeat(2 * 1024 * 1024)}).to_string();
        assert_error(
            call_raw(&app, "POST", "/api/import", Some(huge)).await,
            StatusCode::PAYLOAD_TOO_LARGE,
            "too_large",
            "larger",
        );
    }
}

store_test! {
    #[tokio::test]
    async fn the_page_and_its_files_are_served() {
        let app = router();
        for path in ["/", "/g/abcdefghijkm", "/archive", "/rules", "/new"] {
            let (s, body) = call_text(&app, "GET", path, None).await;
            assert_eq!(s, StatusCode::OK);
            assert!(body.contains("<script type=\"module\""), "{path}");
        }
        for f in [
            "app.js",
            "board.js",
            "i18n.js",
            "api.js",
            "rules.js",
            "style.css",
            "icon.svg",
        ] {
            let (s, body) = call_text(&app, "GET", &format!("/assets/{f}"), None).await;
            assert_eq!(s, StatusCode::OK, "{f}");
            assert!(!body.is_empty(), "{f}");
        }
        let (s, _) = call_text(&app, "GET", "/assets/../Cargo.toml", None).await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let (s, v) = get(&app, "/api/rules").await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(v["rules"].as_array().unwrap().len(), 4);
    }
}

store_test! {
    #[tokio::test]
    async fn a_new_player_meets_the_default_level() {
        let (s, v) = post(&router(), "/api/games", json!({"side": "north"})).await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        assert_eq!(v["game"]["mode"], "computer");
        assert_eq!(
            v["game"]["seats"]["south"]["level"],
            anywoli_server::DEFAULT_LEVEL
        );
        assert_eq!(
            anywoli_server::DEFAULT_LEVEL,
            2,
            "docs/decisions.md names level 2"
        );
    }
}

fn router_with(options: impl FnOnce(&mut anywoli_server::Options)) -> (Router, AppState) {
    let site = anywoli_server::SiteView::new(([127, 0, 0, 1], 8080).into(), None);
    let mut o = anywoli_server::Options::new(think(), site);
    options(&mut o);
    let state = AppState::with_options(fresh_store(), o);
    (app(state.clone()), state)
}

async fn raw(app: &Router, req: Request<Body>) -> (StatusCode, axum::http::HeaderMap, String) {
    let resp = app.clone().oneshot(req).await.unwrap();
    let (status, headers) = (resp.status(), resp.headers().clone());
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    (status, headers, String::from_utf8_lossy(&bytes).to_string())
}

store_test! {
    #[tokio::test]
    async fn posts_need_json_and_a_page_of_ours() {
        let app = router();
        // A plain form post from another site (no JSON type) makes nothing.
        for ty in [
            None,
            Some("text/plain"),
            Some("application/x-www-form-urlencoded"),
        ] {
            let mut req = Request::builder().method("POST").uri("/api/games");
            if let Some(t) = ty {
                req = req.header("content-type", t);
            }
            let (s, h, body) = raw(&app, req.body(Body::from("{}")).unwrap()).await;
            assert_eq!(s, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{ty:?}: {body}");
            assert!(h["content-type"]
                .to_str()
                .unwrap()
                .starts_with("application/json"));
            assert!(body.contains("\"unsupported_media_type\""), "{body}");
        }
        let (_, list) = get(&app, "/api/games").await;
        assert_eq!(list["games"], json!([]), "nothing was made");
        // Another site's page, even with the right type, and another host name (DNS rebinding).
        let req = Request::builder()
            .method("POST")
            .uri("/api/games")
            .header("content-type", "application/json")
            .header("origin", "https://evil.example.com")
            .body(Body::from("{}"))
            .unwrap();
        let (s, _, body) = raw(&app, req).await;
        assert_eq!(s, StatusCode::FORBIDDEN, "{body}");
        assert!(body.contains("wrong_origin"));
        let req = Request::builder()
            .uri("/api/rules")
            .header("host", "evil.example.com:8080")
            .body(Body::empty())
            .unwrap();
        let (s, h, body) = raw(&app, req).await;
        assert_eq!(s, StatusCode::MISDIRECTED_REQUEST, "{body}");
        assert!(body.contains("wrong_host") && body.contains("--allowed-host"));
        assert_eq!(h["x-content-type-options"], "nosniff");
        // Our own page, by address or by name, is fine; every answer says nosniff.
        for (host, origin) in [
            ("127.0.0.1:8080", "http://127.0.0.1:8080"),
            ("localhost:8080", "http://localhost:8080"),
            ("192.168.1.5:8080", "http://192.168.1.5:8080"),
        ] {
            let req = Request::builder()
                .method("POST")
                .uri("/api/games")
                .header("host", host)
                .header("origin", origin)
                .header("content-type", "application/json")
                .body(Body::from(r#"{"mode":"local"}"#))
                .unwrap();
            let (s, h, body) = raw(&app, req).await;
            assert_eq!(s, StatusCode::CREATED, "{host}: {body}");
            assert_eq!(h["x-content-type-options"], "nosniff");
        }
        let (app, _) = router_with(|o| o.allowed_hosts = vec!["anywoli.example.org".into()]);
        let req = Request::builder()
            .uri("/api/rules")
            .header("host", "anywoli.example.org")
            .body(Body::empty())
            .unwrap();
        assert_eq!(raw(&app, req).await.0, StatusCode::OK);
    }
}

store_test! {
    #[tokio::test]
    async fn every_api_error_is_json_even_before_a_handler() {
        let app = router();
        for (method, uri) in [
            ("GET", "/api/games/%FF%FE/moves/1/trace"),
            ("GET", "/api/games/abcdefghijkm/moves/x/trace"),
            ("DELETE", "/api/games"),
            ("GET", "/api/nothing/here"),
            ("GET", "/api/puzzles/daily?date=2026-02-31"),
            ("GET", "/api/puzzles/daily?date=2026-13-01"),
        ] {
            let req = Request::builder()
                .method(method)
                .uri(uri)
                .body(Body::empty())
                .unwrap();
            let (s, h, body) = raw(&app, req).await;
            assert!(s.is_client_error(), "{uri}: {s}");
            assert!(
                h["content-type"]
                    .to_str()
                    .unwrap()
                    .starts_with("application/json"),
                "{uri}: {body}"
            );
            let v: Value = serde_json::from_str(&body).unwrap();
            assert!(
                v["error"].is_string() && v["message"].is_string(),
                "{uri}: {body}"
            );
        }
    }
}

store_test! {
    #[tokio::test]
    async fn each_client_is_held_to_its_rates() {
        use axum::extract::ConnectInfo;
        let (app, _) = router_with(|o| {
            o.rates = anywoli_server::RateLimits {
                games_per_minute: 6,
                hints_per_minute: 6,
                imports_per_minute: 6,
                logins_per_minute: 6,
            }
        });
        let from = |ip: &str| {
            let addr: std::net::SocketAddr = format!("{ip}:5000").parse().unwrap();
            Request::builder()
                .method("POST")
                .uri("/api/games")
                .header("content-type", "application/json")
                .extension(ConnectInfo(addr))
                .body(Body::from(r#"{"mode":"local"}"#))
                .unwrap()
        };
        let mut made = 0;
        let mut refused = None;
        for _ in 0..15 {
            let (s, h, body) = raw(&app, from("203.0.113.7")).await;
            match s {
                StatusCode::CREATED => made += 1,
                StatusCode::TOO_MANY_REQUESTS => {
                    assert!(body.contains("rate_limited"), "{body}");
                    refused = Some(h["retry-after"].to_str().unwrap().parse::<u64>().unwrap());
                    break;
                }
                other => panic!("{other}: {body}"),
            }
        }
        assert_eq!(made, 10, "the burst");
        assert!(
            refused.is_some_and(|s| (1..=10).contains(&s)),
            "{refused:?}"
        );
        // Another client is not held back by the first.
        assert_eq!(raw(&app, from("198.51.100.9")).await.0, StatusCode::CREATED);
    }
}

store_test! {
    #[tokio::test]
    async fn games_not_in_play_are_not_kept_in_memory() {
        // Idle long enough that making 20 games under load (a busy CI machine, PostgreSQL's
        // commits) never outlasts it: with 100 ms, some rounds rested before the count.
        let (app, state) = router_with(|o| o.idle = Duration::from_secs(3));
        let mut ids = Vec::new();
        for _ in 0..20 {
            let (_, v) = post(&app, "/api/games", json!({"mode": "local"})).await;
            ids.push((
                v["game"]["id"].as_str().unwrap().to_string(),
                v["secret"].as_str().unwrap().to_string(),
            ));
        }
        assert_eq!(state.games_in_memory(), 20, "new games are in play");
        for _ in 0..500 {
            if state.games_in_memory() == 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(state.games_in_memory(), 0, "idle rounds rest");
        // Reading games does not bring them back into memory.
        for (id, _) in &ids {
            let (s, _) = get(&app, &format!("/api/games/{id}")).await;
            assert_eq!(s, StatusCode::OK);
            let (s, _) = call_text(&app, "GET", &format!("/api/games/{id}/record"), None).await;
            assert_eq!(s, StatusCode::OK);
        }
        assert_eq!(state.games_in_memory(), 0, "reads load no round");
        // Playing brings one back, from the store, with nothing lost.
        let (id, secret) = &ids[3];
        let (s, v) = post(
            &app,
            &format!("/api/games/{id}/moves"),
            json!({"move": "e", "secret": secret, "ply": 0}),
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(state.games_in_memory(), 1);
    }
}

/// The position after `k A` with its counters at 0: outside level 10's opening book, so level 10
/// searches for its whole movetime here (from the start it answers from the book at once), and
/// no reply of North to `e` or `a` gives it an extra move: the reply is one ply.
const OUT_OF_BOOK: &str = "1,6,6,6,6,1,5,5,5,5,1,5/0,6,1,6,6,0,6,1,6,6,6,0 s 0 0 - - 0 0";

store_test! {
    #[tokio::test]
    async fn the_engines_move_is_stored_once_the_database_takes_writes_again() {
        let (app, state) = router_with(|o| {
            o.think = Think {
                movetime: Duration::from_millis(400),
                hash_mib: 1,
            }
        });
        let (_, v) = post(
            &app,
            "/api/games",
            json!({"mode": "computer", "level": 10, "position": OUT_OF_BOOK}),
        )
        .await;
        let id = v["game"]["id"].as_str().unwrap().to_string();
        let secret = v["secret"].as_str().unwrap().to_string();
        let (s, _) = post(
            &app,
            &format!("/api/games/{id}/moves"),
            json!({"move": "e", "secret": secret}),
        )
        .await;
        assert_eq!(s, StatusCode::OK);
        // The engine thinks for 400 ms; meanwhile the database stops taking writes.
        let store = state.rounds().ctx.store.clone();
        store.set_read_only(true).unwrap();
        tokio::time::sleep(Duration::from_millis(1200)).await;
        let (_, g) = get(&app, &format!("/api/games/{id}")).await;
        assert_eq!(g["ply"], 1, "the engine's move could not be stored");
        assert_eq!(
            g["thinking"], true,
            "and the game says the engine is still at it"
        );
        store.set_read_only(false).unwrap();
        let mut g = Value::Null;
        for _ in 0..150 {
            g = get(&app, &format!("/api/games/{id}")).await.1;
            if g["ply"] == 2 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(g["ply"], 2, "the move was stored on a later try: {g}");
        assert_eq!(g["thinking"], false);
        assert_eq!(g["to_move"], "south");
    }
}

store_test! {
    #[tokio::test]
    async fn a_take_back_while_the_engines_move_waits_to_be_stored_frees_the_game() {
        let (app, state) = router_with(|o| {
            o.think = Think {
                movetime: Duration::from_millis(300),
                hash_mib: 1,
            }
        });
        let (_, v) = post(
            &app,
            "/api/games",
            json!({"mode": "computer", "level": 10, "position": OUT_OF_BOOK}),
        )
        .await;
        let id = v["game"]["id"].as_str().unwrap().to_string();
        let secret = v["secret"].as_str().unwrap().to_string();
        let moves = format!("/api/games/{id}/moves");
        assert_eq!(
            post(&app, &moves, json!({"move": "e", "secret": secret}))
                .await
                .0,
            StatusCode::OK
        );
        let store = state.rounds().ctx.store.clone();
        store.set_read_only(true).unwrap();
        // The engine's move is chosen but cannot be stored; its first retry is 2 s away.
        tokio::time::sleep(Duration::from_millis(900)).await;
        store.set_read_only(false).unwrap();
        let (s, t) = post(
            &app,
            &format!("/api/games/{id}/takeback"),
            json!({ "secret": secret }),
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{t}");
        assert_eq!(t["game"]["ply"], 0);
        let (_, g) = get(&app, &format!("/api/games/{id}")).await;
        assert_eq!(
            g["thinking"], false,
            "the engine is not at work any more: {g}"
        );
        // The game goes on: a move, and the engine's reply.
        assert_eq!(
            post(&app, &moves, json!({"move": "a", "secret": secret}))
                .await
                .0,
            StatusCode::OK
        );
        let mut g = Value::Null;
        for _ in 0..100 {
            g = get(&app, &format!("/api/games/{id}")).await.1;
            if g["ply"] == 2 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(g["ply"], 2, "{g}");
        assert_eq!(g["moves"][0], "a");
    }
}

store_test! {
    /// A database that takes no changes for a while (read-only for maintenance, or unreachable):
    /// a move is answered 503 `busy`, saying why, and changes nothing; once it takes changes
    /// again, the same move is played.
    #[tokio::test]
    async fn a_database_taking_no_changes_answers_busy_and_changes_nothing() {
        let (app, state) = router_with(|_| {});
        let (_, v) = post(&app, "/api/games", json!({"mode": "local"})).await;
        let id = v["game"]["id"].as_str().unwrap().to_string();
        let secret = v["secret"].as_str().unwrap().to_string();
        let moves = format!("/api/games/{id}/moves");
        let store = state.rounds().ctx.store.clone();
        store.set_read_only(true).unwrap();
        let (s, e) = post(
            &app,
            &moves,
            json!({"move": "e", "secret": secret, "ply": 0}),
        )
        .await;
        assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE, "{e}");
        assert_eq!(e["error"], "busy");
        let msg = e["message"].as_str().unwrap();
        assert!(
            msg.contains("nothing changed") && (msg.contains("read") || msg.contains("only")),
            "{msg}"
        );
        assert_eq!(get(&app, &format!("/api/games/{id}")).await.1["ply"], 0);
        store.set_read_only(false).unwrap();
        let (s, g) = post(
            &app,
            &moves,
            json!({"move": "e", "secret": secret, "ply": 0}),
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{g}");
        assert_eq!(g["game"]["ply"], 1);
    }
}

store_test! {
    /// Offers between two people: a draw declined, then agreed by both offering; a take-back asked
    /// for, accepted (the asker's last move and what followed go), and one declined; what may not
    /// be offered or answered is refused with the reason.
    #[tokio::test]
    async fn draws_and_take_backs_need_the_other_players_consent() {
        let (app, _) = router_with(|_| {});
        let (id, south, north) = friend_game(&app).await;
        let path = |p: &str| format!("/api/games/{id}/{p}");
        let offer = |secret: &str, kind: &str| json!({"secret": secret, "offer": kind});
        let mut g = get(&app, &format!("/api/games/{id}")).await.1;
        // Moves until each side has moved (South may earn extra moves).
        let mut movers = Vec::new();
        while movers.len() < 2 || movers.last() != Some(&"north".to_string()) {
            let (side, next) = play_first_legal(&app, &id, &g, [&south, &north]).await;
            movers.push(side);
            g = next;
        }

        // A draw offered on one's turn stands through one's own moves (offer, then move); the
        // opponent's move declines it.
        assert_eq!(g["to_move"], "south");
        let (s, r) = post(&app, &path("offer"), offer(&south, "draw")).await;
        assert_eq!(s, StatusCode::OK, "{r}");
        let mut declined_by_moving = false;
        for _ in 0..8 {
            let (side, next) = play_first_legal(&app, &id, &g, [&south, &north]).await;
            g = next;
            if side == "south" {
                assert_eq!(g["offer"], json!({"kind": "draw", "by": "south"}), "{g}");
            } else {
                assert_eq!(g["offer"], Value::Null, "{g}");
                declined_by_moving = true;
                break;
            }
        }
        assert!(declined_by_moving);

        // A draw offered, seen, declined.
        let (s, r) = post(&app, &path("offer"), offer(&south, "draw")).await;
        assert_eq!(s, StatusCode::OK, "{r}");
        assert_eq!(r["game"]["offer"], json!({"kind": "draw", "by": "south"}));
        let (s, e) = post(&app, &path("offer/accept"), json!({"secret": south})).await;
        assert_eq!(
            (s, e["error"].as_str()),
            (StatusCode::CONFLICT, Some("not_allowed")),
            "{e}"
        );
        let (s, r) = post(&app, &path("offer/decline"), json!({"secret": north})).await;
        assert_eq!(s, StatusCode::OK, "{r}");
        assert_eq!(r["game"]["offer"], Value::Null);
        assert_eq!(r["game"]["status"], "playing");
        // Offered by both: agreed.
        post(&app, &path("offer"), offer(&north, "draw")).await;
        let (s, r) = post(&app, &path("offer"), offer(&south, "draw")).await;
        assert_eq!(s, StatusCode::OK, "{r}");
        assert_eq!(
            (
                r["game"]["status"].as_str(),
                r["game"]["result"].as_str(),
                r["game"]["termination"].as_str()
            ),
            (Some("over"), Some("1/2-1/2"), Some("agreement"))
        );
        let (s, e) = post(&app, &path("offer"), offer(&south, "draw")).await;
        assert_eq!(
            (s, e["error"].as_str()),
            (StatusCode::CONFLICT, Some("game_over"))
        );
        let (_, rec) = call_text(&app, "GET", &path("record"), None).await;
        assert!(rec.contains("[Termination \"agreement\"]"), "{rec}");
    }
}

store_test! {
    /// A take-back asked for between friends: accepted, it undoes the asker's last move and what
    /// followed; declined, nothing changes; offers are for two people only.
    #[tokio::test]
    async fn a_take_back_between_friends_is_asked_for() {
        let (app, _) = router_with(|_| {});
        let (id, south, north) = friend_game(&app).await;
        let path = |p: &str| format!("/api/games/{id}/{p}");
        let (s, e) = post(
            &app,
            &path("offer"),
            json!({"secret": north, "offer": "takeback"}),
        )
        .await;
        assert_eq!(
            (s, e["error"].as_str()),
            (StatusCode::CONFLICT, Some("not_allowed")),
            "{e}"
        );
        let (s, e) = post(
            &app,
            &path("offer"),
            json!({"secret": north, "offer": "undo"}),
        )
        .await;
        assert_eq!(
            (s, e["error"].as_str()),
            (StatusCode::BAD_REQUEST, Some("malformed"))
        );
        let (_, r) = post(
            &app,
            &path("moves"),
            json!({"move": "a", "secret": south, "ply": 0}),
        )
        .await;
        let after_a = r["game"]["ply"].as_u64().unwrap();
        let (s, r) = post(
            &app,
            &path("offer"),
            json!({"secret": south, "offer": "takeback"}),
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{r}");
        let (s, r) = post(&app, &path("offer/decline"), json!({"secret": north})).await;
        assert_eq!(s, StatusCode::OK, "{r}");
        assert_eq!(
            r["game"]["ply"].as_u64(),
            Some(after_a),
            "declined: nothing taken back"
        );
        post(
            &app,
            &path("offer"),
            json!({"secret": south, "offer": "takeback"}),
        )
        .await;
        let (s, r) = post(&app, &path("offer/accept"), json!({"secret": north})).await;
        assert_eq!(s, StatusCode::OK, "{r}");
        assert_eq!(r["game"]["ply"], 0);
        assert_eq!(r["game"]["offer"], Value::Null);
        let (s, e) = post(&app, &path("offer/accept"), json!({"secret": north})).await;
        assert_eq!(
            (s, e["error"].as_str()),
            (StatusCode::CONFLICT, Some("not_allowed"))
        );
        // Against the computer a move is taken back at once, so there is nothing to offer.
        let (_, c) = post(&app, "/api/games", json!({"mode": "computer"})).await;
        let (s, e) = post(
            &app,
            &format!("/api/games/{}/offer", c["game"]["id"].as_str().unwrap()),
            json!({"secret": c["secret"], "offer": "draw"}),
        )
        .await;
        assert_eq!(
            (s, e["error"].as_str()),
            (StatusCode::CONFLICT, Some("not_allowed"))
        );
    }
}

store_test! {
    #[tokio::test]
    async fn a_game_is_reviewed_in_the_background_and_the_review_is_kept() {
        let app = router();
        let (_, v) = post(
            &app,
            "/api/import",
            json!({"record": "[Rules \"anywoli\"]\n[Result \"*\"]\n\ne F a\n"}),
        )
        .await;
        let id = v["game"]["id"].as_str().unwrap().to_string();
        let secret = v["secret"].as_str().unwrap().to_string();
        let uri = format!("/api/games/{id}/review");
        assert_eq!(get(&app, &uri).await.1, json!({"status": "none"}));
        let (s, v) = post(&app, &uri, json!({})).await;
        assert!(s == StatusCode::ACCEPTED || s == StatusCode::OK, "{v}");
        // The review comes (in the background); meanwhile the game answers as usual.
        let mut review = Value::Null;
        for _ in 0..600 {
            let (_, v) = get(&app, &uri).await;
            assert!(v["status"] == "running" || v["status"] == "done", "{v}");
            if v["status"] == "running" {
                assert_eq!(v["total"], 3, "{v}");
            } else {
                review = v;
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let r = &review["review"];
        assert_eq!(r["moves"].as_array().map(Vec::len), Some(3), "{review}");
        assert_eq!(r["evals"].as_array().map(Vec::len), Some(4), "{review}");
        assert_eq!(r["moves"][0]["played"], "e");
        assert_eq!(r["moves"][1]["mover"], "north");
        // Asked again, it is there at once.
        let (s, again) = post(&app, &uri, json!({})).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(again, review);
        // A game that moved on is reviewed again; one with no move has nothing to review.
        let (_, g) = get(&app, &format!("/api/games/{id}")).await;
        let mv = g["legal"][0].as_str().unwrap();
        let (s, _) = post(
            &app,
            &format!("/api/games/{id}/moves"),
            json!({"move": mv, "secret": secret}),
        )
        .await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(get(&app, &uri).await.1, json!({"status": "none"}));
        let (_, v) = post(&app, "/api/games", json!({"mode": "local"})).await;
        let fresh = v["game"]["id"].as_str().unwrap();
        assert_error(
            post(&app, &format!("/api/games/{fresh}/review"), json!({})).await,
            StatusCode::CONFLICT,
            "not_allowed",
            "no move",
        );
        assert_error(
            post(&app, "/api/games/abcdefghijkm/review", json!({})).await,
            StatusCode::NOT_FOUND,
            "unknown_game",
            "",
        );
    }
}
