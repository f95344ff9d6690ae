// The course over the API: every lesson's exercises as the engine has them, each solution
// judged `done` (with `continue` between the moves of a chain), a miss answered with its reason
// and data, and the errors.

use anywoli_engine::lessons;
use axum::http::StatusCode;
use axum::Router;
use serde_json::json;

use crate::oneshot;
use oneshot::*;

fn router() -> Router {
    router_on(anywoli_server::Store::in_memory().unwrap())
}

#[tokio::test]
async fn the_course_is_listed_and_every_solution_is_done() {
    let app = router();
    let (s, v) = call(&app, "GET", "/api/lessons", None).await;
    assert_eq!(s, StatusCode::OK);
    let listed = v["lessons"].as_array().unwrap();
    assert_eq!(listed.len(), lessons::all().len());
    for (l, lv) in lessons::all().iter().zip(listed) {
        assert_eq!(lv["id"], l.id);
        let exs = lv["exercises"].as_array().unwrap();
        assert_eq!(exs.len(), l.exercises.len());
        for (i, (e, ev)) in l.exercises.iter().zip(exs).enumerate() {
            assert_eq!(ev["position"], e.position.to_string());
            assert_eq!(ev["side"], "south");
            assert!(ev["goal"]["kind"].is_string());
            assert!(ev.get("solution").is_none(), "no solution in the list");
            // The line as the page sends it: the learner's moves and the answers it was given.
            let mut played: Vec<String> = Vec::new();
            let mut k = 0;
            while k < e.solution.len() {
                let m = e.solution[k].to_string();
                played.push(m.clone());
                k += 1;
                let uri = format!("/api/lessons/{}/{}/moves", l.id, i + 1);
                let (s, r) = call(&app, "POST", &uri, Some(json!({ "moves": played }))).await;
                assert_eq!(s, StatusCode::OK, "{r}");
                let reply: Vec<String> = r["reply"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_str().unwrap().to_string())
                    .collect();
                let want: Vec<String> = e.solution[k..(k + reply.len()).min(e.solution.len())]
                    .iter()
                    .map(|m| m.to_string())
                    .collect();
                assert_eq!(reply, want, "{}: the answer is the solution's", l.id);
                k += reply.len();
                let last = k == e.solution.len();
                let step = match (last, reply.is_empty()) {
                    (true, _) => "done",
                    (false, true) => "continue",
                    (false, false) => "reply",
                };
                assert_eq!(r["step"], step, "{}: {r}", l.id);
                let traces = r["traces"].as_array().unwrap();
                assert_eq!(traces.len(), 1 + reply.len());
                assert_eq!(traces[0]["move"], m);
                played.extend(reply);
                if last {
                    assert_eq!(r["legal"], json!([]));
                } else {
                    assert!(!r["legal"].as_array().unwrap().is_empty());
                }
            }
        }
    }
}

#[tokio::test]
async fn a_miss_says_why_and_errors_are_named() {
    let app = router();
    let (_, r) = call(
        &app,
        "POST",
        "/api/lessons/relay/1/moves",
        Some(json!({"moves": ["e"]})),
    )
    .await;
    assert_eq!(r["step"], "wrong");
    assert_eq!(
        r["why"],
        json!({"kind": "too_few_laps", "laps": 1, "want": 3,
               "ending": {"kind": "stopped", "hole": "f"}})
    );
    let (_, r) = call(
        &app,
        "POST",
        "/api/lessons/threes/1/moves",
        Some(json!({"moves": ["f"]})),
    )
    .await;
    assert_eq!(
        r["why"],
        json!({"kind": "opponent_captures", "reply": "L", "hole": "a"})
    );
    let (_, r) = call(
        &app,
        "POST",
        "/api/lessons/quiet/1/moves",
        Some(json!({"moves": ["l"]})),
    )
    .await;
    assert_eq!(r["why"], json!({"kind": "not_ahead", "stores": [47, 49]}));

    // Forcing a capture: a move North can parry, then the answer and a capture missed.
    let (_, r) = call(
        &app,
        "POST",
        "/api/lessons/force/1/moves",
        Some(json!({"moves": ["i"]})),
    )
    .await;
    assert_eq!(r["why"], json!({"kind": "parried", "reply": "C"}));
    let (_, r) = call(
        &app,
        "POST",
        "/api/lessons/force/1/moves",
        Some(json!({"moves": ["f"]})),
    )
    .await;
    assert_eq!((&r["step"], &r["reply"]), (&json!("reply"), &json!(["C"])));
    assert_eq!(r["to_move"], "south", "{r}");
    let (_, r) = call(
        &app,
        "POST",
        "/api/lessons/force/1/moves",
        Some(json!({"moves": ["f", "C", "i"]})),
    )
    .await;
    assert_eq!(
        r["why"],
        json!({"kind": "missed_capture", "ending": {"kind": "stopped", "hole": "l"}})
    );
    // An answer the opponent was not given is off the line.
    let (s, r) = call(
        &app,
        "POST",
        "/api/lessons/force/1/moves",
        Some(json!({"moves": ["f", "K", "h"]})),
    )
    .await;
    assert_eq!((s.as_u16(), &r["error"]), (409, &json!("off_line")));

    for (uri, body, status, code) in [
        (
            "/api/lessons/chess/1/moves",
            json!({"moves": ["a"]}),
            404,
            "unknown_lesson",
        ),
        (
            "/api/lessons/relay/0/moves",
            json!({"moves": ["c"]}),
            404,
            "unknown_lesson",
        ),
        (
            "/api/lessons/relay/2/moves",
            json!({"moves": ["c"]}),
            404,
            "unknown_lesson",
        ),
        (
            "/api/lessons/relay/1/moves",
            json!({"moves": ["z"]}),
            400,
            "malformed",
        ),
        (
            "/api/lessons/relay/1/moves",
            json!({"move": "c"}),
            400,
            "malformed",
        ),
        (
            "/api/lessons/relay/1/moves",
            json!({"moves": ["a"]}),
            422,
            "illegal_move",
        ),
        (
            "/api/lessons/relay/1/moves",
            json!({"moves": []}),
            409,
            "off_line",
        ),
        (
            "/api/lessons/relay/1/moves",
            json!({"moves": ["c", "B"]}),
            409,
            "off_line",
        ),
    ] {
        let (s, v) = call(&app, "POST", uri, Some(body)).await;
        assert_eq!(
            (s.as_u16(), v["error"].as_str()),
            (status, Some(code)),
            "{uri}: {v}"
        );
    }
}
