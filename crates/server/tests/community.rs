// Composing puzzles and the community's puzzles over the API, checked against the composer
// itself: a proven puzzle, the refusals with their reasons, keeping a puzzle once, listing
// and searching by theme, and solving a kept puzzle through its moves.
// (Plain comments: `community_postgres.rs` includes this file.)

use anywoli_core::{parse_position, Rules};
use anywoli_engine::compose::{compose, ComposeLimits};
use axum::http::StatusCode;
use axum::Router;
use serde_json::{json, Value};

// The store every test starts with: SQLite in memory here; `community_postgres.rs` defines a
// `fresh_store` of its own, which shadows this glob-imported one.
#[allow(unused_imports)]
use sqlite_store::*;
#[allow(dead_code)]
mod sqlite_store {
    pub fn fresh_store() -> anywoli_server::Store {
        anywoli_server::Store::in_memory().unwrap()
    }
}

/// South forces the capture along d C e D f F g (7 quiet plies left).
const SEVEN_PLIES: &str = "0,0,0,1,0,0,0,0,0,0,2,2/0,0,2,0,0,0,0,0,0,1,0,0 s 44 44 - - 93 93";
/// Two first moves win (e and j).
const TWO_WINNERS: &str = "0,0,0,0,1,0,0,0,3,1,0,0/0,0,1,1,0,0,0,0,0,0,0,1 s 44 44 - - 89 89";
/// One move wins: k.
const ONE_MOVE: &str = "0,0,0,0,0,0,0,1,0,0,2,0/3,0,0,1,0,0,0,0,0,0,0,1 s 44 44 - - 92 92";
const START: &str = "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0";

use crate::oneshot;
use oneshot::*;

fn router() -> Router {
    router_on(fresh_store())
}

fn letters(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("not a list: {v}"))
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect()
}

store_test! {
    #[tokio::test]
    async fn a_proven_puzzle_is_the_composers() {
        let app = router();
        let (s, v) = post(
            &app,
            "/api/puzzles/compose",
            json!({ "position": SEVEN_PLIES }),
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let want = compose(
            &parse_position(SEVEN_PLIES, Rules::Anywoli).unwrap(),
            None,
            ComposeLimits::nodes(anywoli_server::COMPOSE_NODES),
        )
        .unwrap();
        assert_eq!(v["puzzle"], true, "{v}");
        assert_eq!(v["side"], "south");
        assert_eq!(v["first_move"], want.line[0].to_string());
        let line: Vec<String> = want.line.iter().map(|m| m.to_string()).collect();
        assert_eq!(letters(&v["line"]), line);
        assert_eq!(v["plies"], want.plies);
        assert_eq!(v["grade"], want.grade);
        assert_eq!(v["solver_moves"], 4);
        assert_eq!(v["position"], SEVEN_PLIES);
        assert!(v["themes"].is_array(), "{v}");
        assert!(v.get("id").is_none(), "not kept yet: {v}");
    }
}

store_test! {
    #[tokio::test]
    async fn refusals_say_why() {
        let app = router();
        let (s, v) = post(
            &app,
            "/api/puzzles/compose",
            json!({ "position": TWO_WINNERS }),
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(v["puzzle"], false, "{v}");
        assert_eq!(v["reason"], "several_winning_first_moves");
        assert_eq!(letters(&v["moves"]), ["e", "j"]);
        assert_eq!(
            v["message"],
            "2 first moves win (e, j): a puzzle needs exactly one"
        );

        let (_, v) = post(&app, "/api/puzzles/compose", json!({ "position": START })).await;
        assert_eq!(
            (v["reason"].clone(), v["in_play"].clone(), v["max"].clone()),
            (json!("too_many_seeds"), json!(96), json!(16)),
            "{v}"
        );

        let over = "0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 x 52 44 s - 0 10";
        let (_, v) = post(&app, "/api/puzzles/compose", json!({ "position": over })).await;
        assert_eq!(v["reason"], "game_over", "{v}");

        // Not a win: North leads, and the quiet rule's split cannot change that.
        let behind = "0,0,0,2,0,0,0,1,0,0,0,0/1,0,0,0,1,0,1,0,0,2,0,0 s 44 44 - - 81 81";
        let (_, v) = post(&app, "/api/puzzles/compose", json!({ "position": behind })).await;
        assert_eq!(v["reason"], "not_a_win", "{v}");
        assert!(v["margin"].as_i64().unwrap() <= 0, "{v}");

        // An invalid position is the request's fault, and names the field.
        let bad = SEVEN_PLIES.replacen("0,0,0,1", "0,0,0,2", 1);
        let (s, v) = post(&app, "/api/puzzles/compose", json!({ "position": bad })).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(v["error"], "malformed");
        assert!(v["message"].as_str().unwrap().contains("97"), "{v}");
        let (s, v) = post(
            &app,
            "/api/puzzles/compose",
            json!({ "position": SEVEN_PLIES, "rules": "chess" }),
        )
        .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert!(v["message"].as_str().unwrap().starts_with("rules:"), "{v}");
        let (s, v) = post(&app, "/api/puzzles/compose", json!({ "pos": SEVEN_PLIES })).await;
        assert_eq!(
            (s, v["error"].clone()),
            (StatusCode::BAD_REQUEST, json!("malformed"))
        );
    }
}

store_test! {
    #[tokio::test]
    async fn a_puzzle_is_kept_once_listed_and_solved_through_its_moves() {
        let app = router();
        // A refused position is not kept.
        let (s, v) = post(
            &app,
            "/api/puzzles/community",
            json!({ "position": TWO_WINNERS }),
        )
        .await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
        assert_eq!(v["error"], "not_a_puzzle");
        assert!(v["message"].as_str().unwrap().contains("(e, j)"), "{v}");
        let (_, list) = get(&app, "/api/puzzles/community").await;
        assert_eq!(list["total"], 0, "{list}");

        let (s, v) = post(
            &app,
            "/api/puzzles/community",
            json!({ "position": SEVEN_PLIES }),
        )
        .await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        let id = v["puzzle"]["id"].as_str().unwrap().to_string();
        assert_eq!(id.len(), 12, "{v}");
        assert!(
            v["puzzle"].get("line").is_none(),
            "no solution in the view: {v}"
        );
        assert_eq!(v["puzzle"]["community"], true);
        assert_eq!(v["puzzle"]["author"], Value::Null);
        // Again: the same puzzle, not a second one.
        let (s, again) = post(
            &app,
            "/api/puzzles/community",
            json!({ "position": SEVEN_PLIES }),
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{again}");
        assert_eq!(again["puzzle"]["id"], id.as_str());
        // Composing it now says where it is kept.
        let (_, c) = post(
            &app,
            "/api/puzzles/compose",
            json!({ "position": SEVEN_PLIES }),
        )
        .await;
        assert_eq!(c["id"], id.as_str(), "{c}");

        let (s, one) = post(
            &app,
            "/api/puzzles/community",
            json!({ "position": ONE_MOVE }),
        )
        .await;
        assert_eq!(s, StatusCode::CREATED, "{one}");
        let one_id = one["puzzle"]["id"].as_str().unwrap().to_string();
        assert!(letters(&one["puzzle"]["themes"]).contains(&"short".to_string()));

        let (_, list) = get(&app, "/api/puzzles/community").await;
        assert_eq!(list["total"], 2, "{list}");
        let ids: Vec<&str> = list["puzzles"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["id"].as_str().unwrap())
            .collect();
        assert!(
            ids.contains(&id.as_str()) && ids.contains(&one_id.as_str()),
            "{list}"
        );
        let (_, short) = get(&app, "/api/puzzles/community?theme=short").await;
        let short_ids: Vec<&str> = short["puzzles"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["id"].as_str().unwrap())
            .collect();
        assert_eq!(short_ids, [one_id.as_str()], "{short}");
        for bad in ["theme=boring", "page=0", "page=x", "sort=new"] {
            let (s, v) = get(&app, &format!("/api/puzzles/community?{bad}")).await;
            assert_eq!(
                (s, v["error"].clone()),
                (StatusCode::BAD_REQUEST, json!("malformed")),
                "{bad}: {v}"
            );
        }

        // Solved as the collection's are: a wrong first move, then the line.
        let base = format!("/api/puzzles/community/{id}");
        let (s, v) = get(&app, &base).await;
        assert_eq!(
            (s, v["side"].clone()),
            (StatusCode::OK, json!("south")),
            "{v}"
        );
        let (_, v) = post(&app, &format!("{base}/moves"), json!({"moves": ["k"]})).await;
        assert_eq!(
            (v["result"].clone(), v["expected"].clone()),
            (json!("wrong"), json!("d")),
            "{v}"
        );
        let mut played: Vec<String> = Vec::new();
        for mv in ["d", "e", "f", "g"] {
            played.push(mv.to_string());
            let (s, v) = post(&app, &format!("{base}/moves"), json!({ "moves": played })).await;
            assert_eq!(s, StatusCode::OK, "{v}");
            let want = if mv == "g" { "solved" } else { "right" };
            assert_eq!(v["result"], want, "{mv}: {v}");
            played.extend(letters(&v["replies"]));
        }
        assert_eq!(played, ["d", "C", "e", "D", "f", "F", "g"]);
        let (_, v) = get(&app, &format!("{base}/solution")).await;
        assert_eq!(letters(&v["solution"]), played);

        for missing in ["aaaaaaaaaaaa", "nope", "1"] {
            let (s, v) = get(&app, &format!("/api/puzzles/community/{missing}")).await;
            assert_eq!(
                (s, v["error"].clone()),
                (StatusCode::NOT_FOUND, json!("unknown_puzzle")),
                "{v}"
            );
        }
    }
}

store_test! {
    #[tokio::test]
    async fn the_collection_is_searchable_by_theme() {
        let app = router();
        let (_, all) = get(&app, "/api/puzzles").await;
        let all = all["puzzles"].as_array().unwrap().clone();
        assert!(all.len() >= 100);
        assert!(all.iter().all(|p| p["themes"].is_array()));
        let (_, race) = get(&app, "/api/puzzles?theme=race").await;
        let race = race["puzzles"].as_array().unwrap();
        let want: Vec<&Value> = all
            .iter()
            .filter(|p| letters(&p["themes"]).contains(&"race".to_string()))
            .collect();
        assert_eq!(race.len(), want.len());
        assert!(!race.is_empty() && race.len() < all.len(), "{}", race.len());
        let (s, _) = get(&app, "/api/puzzles?page=2").await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
    }
}

/// A browser's solver token (32 hexadecimal digits).
const TOKEN: &str = "0123456789abcdef0123456789abcdef";

store_test! {
    #[tokio::test]
    async fn a_first_attempt_rates_the_solver_and_the_puzzle() {
        use anywoli_server::rating::{after_rated_game, Rating};
        let app = router();
        let (s, v) = post(&app, "/api/puzzles/rating", json!({ "solver": TOKEN })).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(
            v["solver"],
            json!({"rating": 1500, "deviation": 350.0, "provisional": true, "attempts": 0})
        );

        // A wrong first move loses: the ratings move as Glicko-2 says.
        let (_, p1) = get(&app, "/api/puzzles/1").await;
        let grade = p1["grade"].as_u64().unwrap() as u8;
        let start = anywoli_server::puzzle_start_rating(grade);
        assert_eq!(p1["rating"]["rating"], start.rating.round() as i64, "{p1}");
        assert_eq!(p1["rating"]["attempts"], 0);
        let (_, sol) = get(&app, "/api/puzzles/1/solution").await;
        let first = letters(&sol["solution"])[0].clone();
        let wrong = letters(&p1["legal"])
            .into_iter()
            .find(|m| *m != first)
            .expect("another legal move");
        let body = json!({ "moves": [wrong], "solver": TOKEN });
        let (s, v) = post(&app, "/api/puzzles/1/moves", body.clone()).await;
        assert_eq!(
            (s, v["result"].clone()),
            (StatusCode::OK, json!("wrong")),
            "{v}"
        );
        let want = after_rated_game([Rating::DEFAULT, start], [0, 0], 0.0);
        assert_eq!(
            v["rating"],
            json!({
                "solver": {"before": 1500, "after": want[0].rounded(), "provisional": true},
                "puzzle": {"before": start.rounded(), "after": want[1].rounded()},
            })
        );
        assert!(want[0].rating < 1500.0 && want[1].rating > start.rating);
        // Only the first attempt counts.
        let (_, again) = post(&app, "/api/puzzles/1/moves", body).await;
        assert_eq!(again["rating"], Value::Null, "{again}");
        let (_, p1) = get(&app, "/api/puzzles/1").await;
        assert_eq!(
            (
                p1["rating"]["attempts"].clone(),
                p1["rating"]["solved"].clone()
            ),
            (json!(1), json!(0))
        );
        assert_eq!(p1["rating"]["rating"], want[1].rounded());

        // Solving puzzle 2 without a mistake wins.
        let (_, sol) = get(&app, "/api/puzzles/2/solution").await;
        let line = letters(&sol["solution"]);
        let mut played: Vec<String> = Vec::new();
        let mut last = Value::Null;
        while played.len() < line.len() {
            played.push(line[played.len()].clone());
            let (s, v) = post(
                &app,
                "/api/puzzles/2/moves",
                json!({ "moves": played, "solver": TOKEN }),
            )
            .await;
            assert_eq!(s, StatusCode::OK, "{v}");
            played.extend(letters(&v["replies"]));
            last = v;
        }
        assert_eq!(last["result"], "solved", "{last}");
        let change = &last["rating"]["solver"];
        assert_eq!(change["before"], want[0].rounded());
        assert!(
            change["after"].as_i64() > change["before"].as_i64(),
            "{last}"
        );

        // Looking at the solution gives up: a loss, once.
        let (s, v) = post(&app, "/api/puzzles/3/solution", json!({ "solver": TOKEN })).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert!(!letters(&v["solution"]).is_empty());
        let after_give_up = v["rating"]["solver"]["after"].as_i64().unwrap();
        assert!(after_give_up < change["after"].as_i64().unwrap(), "{v}");
        let (_, v) = post(&app, "/api/puzzles/3/solution", json!({ "solver": TOKEN })).await;
        assert_eq!(v["rating"], Value::Null);

        let (_, v) = post(&app, "/api/puzzles/rating", json!({ "solver": TOKEN })).await;
        assert_eq!(v["solver"]["attempts"], 3, "{v}");
        assert_eq!(v["solver"]["rating"], after_give_up);

        // The next puzzle: one not attempted, near the solver's rating.
        for _ in 0..5 {
            let (s, v) = post(&app, "/api/puzzles/next", json!({ "solver": TOKEN })).await;
            assert_eq!(s, StatusCode::OK, "{v}");
            let id = v["puzzle"].as_str().unwrap();
            assert!(!["1", "2", "3"].contains(&id), "{v}");
            assert_eq!(v["path"], format!("/puzzles/{id}"));
            assert_eq!(v["solver"]["rating"], after_give_up);
            let gap = (v["rating"].as_f64().unwrap() - after_give_up as f64).abs();
            assert!(gap <= 150.0, "{v}");
        }

        // Unrated without a solver; a malformed token is refused and changes nothing.
        let (_, v) = post(&app, "/api/puzzles/4/moves", json!({ "moves": [first] })).await;
        assert_eq!(v["rating"], Value::Null, "{v}");
        let (s, v) = post(
            &app,
            "/api/puzzles/4/moves",
            json!({ "moves": [first], "solver": "not-a-token" }),
        )
        .await;
        assert_eq!(
            (s, v["error"].clone()),
            (StatusCode::BAD_REQUEST, json!("malformed")),
            "{v}"
        );
        let (_, p4) = get(&app, "/api/puzzles/4").await;
        assert_eq!(p4["rating"]["attempts"], 0);
    }
}

store_test! {
    #[tokio::test]
    async fn a_community_puzzle_is_rated_too() {
        let app = router();
        let (_, v) = post(
            &app,
            "/api/puzzles/community",
            json!({ "position": SEVEN_PLIES }),
        )
        .await;
        let id = v["puzzle"]["id"].as_str().unwrap().to_string();
        assert_eq!(
            v["puzzle"]["rating"],
            Value::Null,
            "the save answers the view alone"
        );
        let base = format!("/api/puzzles/community/{id}");
        let (_, p) = get(&app, &base).await;
        assert_eq!(p["rating"]["attempts"], 0, "{p}");
        let (_, v) = post(
            &app,
            &format!("{base}/moves"),
            json!({"moves": ["k"], "solver": TOKEN}),
        )
        .await;
        assert_eq!(v["result"], "wrong");
        assert!(
            v["rating"]["solver"]["after"].as_i64().unwrap() < 1500,
            "{v}"
        );
        let (_, p) = get(&app, &base).await;
        assert_eq!(p["rating"]["attempts"], 1, "{p}");
    }
}
