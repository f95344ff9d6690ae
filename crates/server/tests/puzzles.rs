//! The puzzle API through the router: the collection, the puzzle of the day, judging moves
//! with North's defence and the traces to animate, and every error.

use anywoli_server::Store;
use axum::http::StatusCode;
use axum::Router;
use serde_json::{json, Value};

use crate::oneshot;
use oneshot::*;

fn router() -> Router {
    router_on(Store::in_memory().unwrap())
}

fn moves(line: &[String]) -> Value {
    json!({ "moves": line })
}

#[tokio::test]
async fn list_daily_and_one_puzzle() {
    let app = router();
    let (s, v) = call(&app, "GET", "/api/puzzles", None).await;
    assert_eq!(s, StatusCode::OK);
    let list = v["puzzles"].as_array().unwrap();
    assert_eq!(list.len(), 120);
    assert_eq!(list[0]["id"], 1);
    assert!(list
        .iter()
        .all(|p| (1..=5).contains(&p["grade"].as_u64().unwrap())));

    // The puzzle of a day is the same for everyone that day, and the next day's is another.
    let (_, a) = call(&app, "GET", "/api/puzzles/daily?date=2026-11-30", None).await;
    let (_, b) = call(&app, "GET", "/api/puzzles/daily?date=2026-11-30", None).await;
    let (_, c) = call(&app, "GET", "/api/puzzles/daily?date=2026-12-01", None).await;
    assert_eq!(a["id"], b["id"]);
    assert_ne!(a["id"], c["id"]);
    assert_eq!(a["daily"], true);
    let (s, _) = call(&app, "GET", "/api/puzzles/daily", None).await;
    assert_eq!(s, StatusCode::OK);

    let (s, p) = call(&app, "GET", "/api/puzzles/7", None).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(p["id"], 7);
    assert_eq!(p["to_move"], "south");
    assert_eq!(p["stores"], json!([44, 44]));
    assert_eq!(
        p["holes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h.as_u64().unwrap())
            .sum::<u64>(),
        8
    );
    // No solution in the puzzle itself.
    assert!(p.get("solution").is_none());
}

#[tokio::test]
async fn solving_a_puzzle_move_by_move() {
    let app = router();
    // A puzzle with North replies along the way.
    let (_, sol) = call(&app, "GET", "/api/puzzles/60/solution", None).await;
    let line: Vec<String> = sol["solution"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect();
    assert!(line.len() >= 5);
    let mut played: Vec<String> = Vec::new();
    let mut i = 0;
    loop {
        // The player's move is the next South move of the line.
        let mv = line[i].clone();
        assert!(mv.chars().all(|c| c.is_ascii_lowercase()));
        played.push(mv);
        let (s, v) = call(&app, "POST", "/api/puzzles/60/moves", Some(moves(&played))).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let replies: Vec<String> = v["replies"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap().to_string())
            .collect();
        // North answers with the line's defence, and each move comes with its trace.
        assert_eq!(replies[..], line[i + 1..i + 1 + replies.len()]);
        assert_eq!(v["traces"].as_array().unwrap().len(), 1 + replies.len());
        assert_eq!(v["traces"][0]["move"], line[i]);
        played.extend(replies.iter().cloned());
        i = played.len();
        if v["result"] == "solved" {
            assert_eq!(v["stores"], json!([52, 44]));
            assert_eq!(v["to_move"], Value::Null);
            assert_eq!(i, line.len());
            break;
        }
        assert_eq!(v["result"], "right");
        assert_eq!(v["to_move"], "south");
    }
}

#[tokio::test]
async fn a_wrong_move_and_the_errors() {
    let app = router();
    let (_, p) = call(&app, "GET", "/api/puzzles/30", None).await;
    let (_, sol) = call(&app, "GET", "/api/puzzles/30/solution", None).await;
    let first = sol["solution"][0].as_str().unwrap().to_string();
    let wrong = p["legal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .find(|m| *m != first)
        .expect("puzzle 30 has another legal move");
    let (s, v) = call(
        &app,
        "POST",
        "/api/puzzles/30/moves",
        Some(moves(std::slice::from_ref(&wrong))),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["result"], "wrong");
    assert_eq!(v["expected"], first);
    assert_eq!(v["solution"], sol["solution"]);
    assert_eq!(v["traces"][0]["move"], wrong);

    let err = |v: &Value| v["error"].as_str().unwrap().to_string();
    let (s, v) = call(&app, "GET", "/api/puzzles/0", None).await;
    assert_eq!(
        (s, err(&v)),
        (StatusCode::NOT_FOUND, "unknown_puzzle".into())
    );
    let (s, v) = call(&app, "GET", "/api/puzzles/abc/solution", None).await;
    assert_eq!(
        (s, err(&v)),
        (StatusCode::NOT_FOUND, "unknown_puzzle".into())
    );
    let (s, v) = call(&app, "GET", "/api/puzzles/daily?date=2026-02-31x", None).await;
    assert_eq!((s, err(&v)), (StatusCode::BAD_REQUEST, "malformed".into()));
    let (s, v) = call(&app, "GET", "/api/puzzles/daily?day=1", None).await;
    assert_eq!((s, err(&v)), (StatusCode::BAD_REQUEST, "malformed".into()));
    let (s, v) = call(
        &app,
        "POST",
        "/api/puzzles/30/moves",
        Some(json!({"moves": ["z"]})),
    )
    .await;
    assert_eq!((s, err(&v)), (StatusCode::BAD_REQUEST, "malformed".into()));
    let (s, v) = call(
        &app,
        "POST",
        "/api/puzzles/30/moves",
        Some(json!({"moves": [], "x": 1})),
    )
    .await;
    assert_eq!((s, err(&v)), (StatusCode::BAD_REQUEST, "malformed".into()));
    let (s, v) = call(&app, "POST", "/api/puzzles/30/moves", None).await;
    assert_eq!((s, err(&v)), (StatusCode::BAD_REQUEST, "malformed".into()));
    let (s, v) = call(
        &app,
        "POST",
        "/api/puzzles/30/moves",
        Some(json!({"moves": []})),
    )
    .await;
    assert_eq!((s, err(&v)), (StatusCode::CONFLICT, "off_line".into()));
    // North's hole, or an empty one: the rules say no.
    let (s, v) = call(
        &app,
        "POST",
        "/api/puzzles/30/moves",
        Some(json!({"moves": ["A"]})),
    )
    .await;
    assert_eq!(
        (s, err(&v)),
        (StatusCode::UNPROCESSABLE_ENTITY, "illegal_move".into())
    );
    // Earlier moves that are not the line.
    let (s, v) = call(
        &app,
        "POST",
        "/api/puzzles/30/moves",
        Some(json!({"moves": [wrong, "A", "a"]})),
    )
    .await;
    assert_eq!((s, err(&v)), (StatusCode::CONFLICT, "off_line".into()));
}

#[tokio::test]
async fn a_puzzle_move_is_read_as_json_like_every_post() {
    // Issue 37: the puzzles read their bodies by hand, so a form posted by another site was
    // judged; now they go through the API's one JSON reader.
    let app = router();
    for ty in [
        None,
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
    ] {
        let (s, v) = json(
            send(
                &app,
                "POST",
                "/api/puzzles/1/moves",
                ty,
                Some(json!({"moves": ["a"]}).to_string()),
            )
            .await,
        );
        assert_eq!(
            (s, v["error"].as_str()),
            (
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                Some("unsupported_media_type")
            ),
            "{ty:?}: {v}"
        );
    }
    let (s, v) = call_raw(&app, "POST", "/api/puzzles/1/moves", Some("{".into())).await;
    assert_eq!(
        (s, v["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("malformed"))
    );
}
