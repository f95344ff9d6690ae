//! `POST /api/position` and `POST /api/position/proof` (issue 13), called through the router:
//! valid and invalid positions with their kinds and numbers, the moves against the rules
//! engine's own play, a proof against the solver, and bad input that changes nothing and never
//! panics.

use anywoli_core::{parse_position, Position, Rules};
use anywoli_engine::endgame::Solver;
use axum::http::StatusCode;
use axum::Router;
use proptest::prelude::*;
use serde_json::{json, Value};

const START: &str = "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0";

use crate::oneshot;
use oneshot::*;

fn router() -> Router {
    router_on(anywoli_server::Store::in_memory().unwrap())
}

/// The answer of `/api/position` for a position string (status 200 asserted).
async fn check(app: &Router, position: &str) -> Value {
    let (s, v) = post(app, "/api/position", json!({ "position": position })).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    v
}

/// The error of an invalid position string.
async fn refusal(app: &Router, position: &str) -> Value {
    let v = check(app, position).await;
    assert_eq!(v["valid"], false, "{position} was accepted: {v}");
    let e = v["error"].clone();
    assert!(e["message"].as_str().is_some_and(|m| !m.is_empty()), "{e}");
    e
}

#[tokio::test]
async fn a_valid_position_with_every_move_as_the_rules_engine_plays_it() {
    let app = router();
    let v = check(&app, START).await;
    assert_eq!(v["valid"], true);
    assert_eq!(v["position"], START);
    assert_eq!(v["rules"], "anywoli");
    assert_eq!(v["holes"], json!(vec![4; 24]));
    assert_eq!(v["stores"], json!([0, 0]));
    assert_eq!(v["to_move"], "south");
    assert_eq!(v["over"], false);
    assert_eq!(v["winner"], Value::Null);
    assert_eq!((v["quiet"].clone(), v["ply"].clone()), (json!(0), json!(0)));
    assert_eq!(v["in_play"], 96);
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 12);
    let start = Position::start(Rules::Anywoli);
    for (m, letter) in moves.iter().zip('a'..='l') {
        assert_eq!(m["move"], letter.to_string());
        let mut p = start;
        p.play(letter.to_string().parse().unwrap()).unwrap();
        assert_eq!(m["position"], p.to_string());
        let t = &m["trace"];
        assert_eq!(t["move"], letter.to_string());
        assert_eq!(t["mover"], "south");
        assert_eq!(t["before"], START);
        assert_eq!(t["after"], p.to_string());
        assert!(t["events"].as_array().is_some_and(|e| !e.is_empty()));
    }

    // Leading and trailing spaces are read; the answer gives the canonical string.
    let v = check(&app, &format!("  {START}  ")).await;
    assert_eq!(v["position"], START);

    // A position in play with North to move: only North's non-empty holes.
    let p = "5,5,5,5,1,5,5,5,0,5,5,5/5,0,5,5,5,5,0,5,5,5,5,0 n 0 0 - - 1 1";
    let v = check(&app, p).await;
    let letters: Vec<&str> = v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["move"].as_str().unwrap())
        .collect();
    assert_eq!(letters, ["A", "C", "D", "E", "F", "H", "I", "J", "K"]);
    let pos = parse_position(p, Rules::Anywoli).unwrap();
    for m in v["moves"].as_array().unwrap() {
        let mut q = pos;
        q.play(m["move"].as_str().unwrap().parse().unwrap())
            .unwrap();
        assert_eq!(m["position"], q.to_string());
    }

    // A finished game: no moves, and its winner.
    let over = "0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 x 52 44 s s 0 120";
    let v = check(&app, over).await;
    assert_eq!(v["valid"], true, "{v}");
    assert_eq!(
        (v["over"].clone(), v["to_move"].clone()),
        (json!(true), Value::Null)
    );
    assert_eq!(v["winner"], "south");
    assert_eq!(v["moves"], json!([]));
    assert_eq!(v["last_capturer"], "south");

    // Rules: 8 in play is a game under anywoli, not under anywoli-it.
    let eight = "0,0,0,0,0,0,0,0,0,0,4,4/0,0,0,0,0,0,0,0,0,0,0,0 s 44 44 s - 0 90";
    assert_eq!(check(&app, eight).await["valid"], true);
    let (s, v) = post(
        &app,
        "/api/position",
        json!({"position": eight, "rules": "anywoli-it"}),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["error"]["kind"], "too_few_in_play", "{v}");
    assert_eq!(v["error"]["threshold"], 8);
    assert_eq!(v["error"]["rules"], "anywoli-it");
    let (_, v) = post(
        &app,
        "/api/position",
        json!({"position": START, "rules": "anywoli-lottery", "seed": 7}),
    )
    .await;
    assert_eq!(
        (v["rules"].clone(), v["seed"].clone()),
        (json!("anywoli-lottery"), json!(7))
    );
}

#[tokio::test]
async fn an_invalid_position_says_what_is_wrong_with_its_numbers() {
    let app = router();
    // 97 seeds: one too many.
    let e = refusal(
        &app,
        "5,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0",
    )
    .await;
    assert_eq!(e["field"], "position");
    assert_eq!(e["kind"], "seed_total");
    assert_eq!(
        (e["found"].clone(), e["expected"].clone()),
        (json!(97), json!(96))
    );
    assert_eq!(e["in_play"], 97);
    assert_eq!(e["stores"], json!([0, 0]));
    assert_eq!(
        e["message"],
        "holes and stores hold 97 seeds (97 in holes, 0 and 0 in the stores), not 96"
    );
    // A seed too many in a store; 95 seeds: one short.
    let e = refusal(
        &app,
        "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 1 - - 0 0",
    )
    .await;
    assert_eq!(e["kind"], "seed_total");
    assert_eq!(e["found"], 97);
    let e = refusal(
        &app,
        "3,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0",
    )
    .await;
    assert_eq!(
        (e["kind"].clone(), e["found"].clone()),
        (json!("seed_total"), json!(95))
    );
    // 10 seeds in play: not a multiple of 4.
    let e = refusal(
        &app,
        "0,0,0,0,0,0,0,0,0,3,3,4/0,0,0,0,0,0,0,0,0,0,0,0 s 43 43 s - 0 90",
    )
    .await;
    assert_eq!(e["kind"], "in_play_not_multiple_of_4");
    assert_eq!(e["in_play"], 10);
    // A row of 11 holes.
    let e = refusal(
        &app,
        "4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0",
    )
    .await;
    assert_eq!(e["field"], "south-row");
    assert_eq!(e["kind"], "row_length");
    assert_eq!(
        (e["found"].clone(), e["expected"].clone()),
        (json!(11), json!(12))
    );
    // A hole that is not a number, and one over 96: the hole is named.
    let e = refusal(
        &app,
        "4,4,4,4,4,4,4,4,4,4,4,4/4,4,x,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0",
    )
    .await;
    assert_eq!(
        (
            e["field"].clone(),
            e["kind"].clone(),
            e["hole"].clone(),
            e["text"].clone()
        ),
        (
            json!("north-row"),
            json!("not_a_number"),
            json!("C"),
            json!("x")
        )
    );
    let e = refusal(
        &app,
        "200,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0",
    )
    .await;
    assert_eq!(
        (
            e["kind"].clone(),
            e["hole"].clone(),
            e["found"].clone(),
            e["max"].clone()
        ),
        (json!("count_too_large"), json!("a"), json!(200), json!(96))
    );
    // The other fields.
    let cases = [
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - -",
            "position",
            "field_count",
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0",
            "south-row",
            "no_slash",
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 w 0 0 - - 0 0",
            "to-move",
            "bad_to_move",
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s a 0 - - 0 0",
            "south-store",
            "not_a_number",
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 x - 0 0",
            "last-capturer",
            "bad_side",
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - S 0 0",
            "first-final-capturer",
            "bad_side",
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 5 3",
            "quiet-plies",
            "quiet_above_ply",
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 100 100",
            "quiet-plies",
            "quiet_at_limit",
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 99999999999",
            "ply",
            "number_too_large",
        ),
        (
            "0,0,0,0,0,0,0,0,0,0,0,4/0,0,0,0,0,0,0,0,0,0,0,0 x 48 44 s - 0 90",
            "to-move",
            "over_with_seeds",
        ),
        (
            "0,0,0,0,0,0,0,0,0,0,0,0/4,4,0,0,0,0,0,0,0,0,0,0 s 44 44 s - 0 90",
            "to-move",
            "no_seeds_to_move",
        ),
        (
            "0,0,0,0,0,0,0,0,0,0,0,4/0,0,0,0,0,0,0,0,0,0,0,0 s 48 44 s - 0 90",
            "position",
            "too_few_in_play",
        ),
    ];
    for (p, field, kind) in cases {
        let e = refusal(&app, p).await;
        assert_eq!(
            (e["field"].as_str(), e["kind"].as_str()),
            (Some(field), Some(kind)),
            "{p}: {e}"
        );
    }
    let e = refusal(&app, &"4".repeat(300)).await;
    assert_eq!(
        (e["kind"].clone(), e["found"].clone(), e["max"].clone()),
        (json!("too_long"), json!(300), json!(256))
    );
}

#[tokio::test]
async fn malformed_requests_are_api_errors() {
    let app = router();
    let (s, v) = post(
        &app,
        "/api/position",
        json!({"position": START, "rules": "chess"}),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert_eq!(v["error"], "malformed");
    assert!(v["message"].as_str().unwrap().starts_with("rules:"), "{v}");
    for body in [
        json!({}),
        json!({"position": 4}),
        json!({"position": START, "colour": "red"}),
    ] {
        for uri in ["/api/position", "/api/position/proof"] {
            let (s, v) = post(&app, uri, body.clone()).await;
            assert_eq!(
                (s, v["error"].as_str()),
                (StatusCode::BAD_REQUEST, Some("malformed")),
                "{body}"
            );
        }
    }
    // Over 4 KiB.
    let big = json!({"position": "x".repeat(5000)});
    for uri in ["/api/position", "/api/position/proof"] {
        let (s, v) = post(&app, uri, big.clone()).await;
        assert_eq!(
            (s, v["error"].as_str()),
            (StatusCode::PAYLOAD_TOO_LARGE, Some("too_large"))
        );
        let (s, v) = json(
            send(
                &app,
                "POST",
                uri,
                Some("text/plain"),
                Some(json!({"position": START}).to_string()),
            )
            .await,
        );
        assert_eq!(
            (s, v["error"].as_str()),
            (
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                Some("unsupported_media_type")
            )
        );
    }
    // A proof of an invalid position is a bad request; the message names the field.
    let (s, v) = post(
        &app,
        "/api/position/proof",
        json!({"position": "5,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0"}),
    )
    .await;
    assert_eq!(
        (s, v["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("malformed"))
    );
    assert!(v["message"].as_str().unwrap().contains("97 seeds"), "{v}");
    // Nothing of it made a game, and the endpoint still answers.
    let (_, games) = json(send(&app, "GET", "/api/games", None, None).await);
    assert_eq!(games["games"], json!([]));
    assert_eq!(check(&app, START).await["valid"], true);
}

/// The solver's own answer, with the node budget of a command line.
fn solve(p: &str) -> anywoli_engine::endgame::Solution {
    let pos = parse_position(p, Rules::Anywoli).unwrap();
    Solver::new(None, 20_000_000).solve(&pos).unwrap()
}

#[tokio::test]
async fn a_proof_agrees_with_the_solver() {
    let app = router();
    let no_db = anywoli_engine::endgame::shared().is_none();
    // South forces the next capture in 5 plies (docs/tablebase.md), 10 quiet plies left.
    let p = "0,0,0,0,1,0,0,3,0,0,0,0/0,0,1,0,0,1,0,0,2,0,0,0 s 44 44 - - 90 90";
    let t0 = std::time::Instant::now();
    let (s, v) = post(&app, "/api/position/proof", json!({ "position": p })).await;
    eprintln!("8-seed proof: {:?}, {}", t0.elapsed(), v["nodes"]);
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["proven"], true, "{v}");
    let want = solve(p);
    assert_eq!(v["side"], "south");
    assert_eq!(v["value"], want.value);
    assert_eq!(v["margin"], want.margin);
    assert_eq!(
        (v["outcome"].clone(), v["winner"].clone()),
        (json!("win"), json!("south"))
    );
    assert_eq!(v["final"], json!([52, 44]));
    let moves: Vec<(String, i64, String)> = v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["move"].as_str().unwrap().to_string(),
                m["margin"].as_i64().unwrap(),
                m["outcome"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let expected: Vec<(String, i64, String)> = want
        .moves
        .iter()
        .map(|&(m, val)| {
            let outcome = match val.cmp(&0) {
                std::cmp::Ordering::Greater => "win",
                std::cmp::Ordering::Equal => "draw",
                std::cmp::Ordering::Less => "loss",
            };
            (m.to_string(), val as i64, outcome.to_string())
        })
        .collect();
    assert_eq!(moves, expected);
    assert_eq!(moves[0].0, "e");
    // The line plays out to the proven result.
    let mut end = parse_position(p, Rules::Anywoli).unwrap();
    for m in v["line"].as_array().unwrap() {
        end.play(m.as_str().unwrap().parse().unwrap()).unwrap();
    }
    assert!(end.is_over());
    assert_eq!(v["plies"], v["line"].as_array().unwrap().len());
    assert_eq!(
        json!([
            end.store(anywoli_core::Side::South),
            end.store(anywoli_core::Side::North)
        ]),
        v["final"]
    );
    if no_db {
        assert_eq!(v["capture_in"], Value::Null);
    }

    // North to move, losing: outcome and winner from North's side.
    let p = "0,0,0,0,0,0,0,0,0,0,1,3/0,0,0,1,0,0,0,0,0,0,3,0 n 44 44 s - 95 95";
    let (_, v) = post(&app, "/api/position/proof", json!({ "position": p })).await;
    assert_eq!(v["proven"], true, "{v}");
    let want = solve(p);
    assert_eq!(
        (v["side"].clone(), v["margin"].clone()),
        (json!("north"), json!(want.margin))
    );
    let winner = match want.margin.cmp(&0) {
        std::cmp::Ordering::Greater => "north",
        std::cmp::Ordering::Equal => "draw",
        std::cmp::Ordering::Less => "south",
    };
    assert_eq!(v["winner"], winner);

    // A finished game is its stores.
    let over = "0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 x 40 56 n n 0 120";
    let (_, v) = post(&app, "/api/position/proof", json!({ "position": over })).await;
    assert_eq!(
        (v["proven"].clone(), v["winner"].clone(), v["final"].clone()),
        (json!(true), json!("north"), json!([40, 56]))
    );
}

#[tokio::test]
async fn no_proof_above_the_seed_cutoff_or_past_the_node_limit() {
    let app = router();
    let (s, v) = post(&app, "/api/position/proof", json!({ "position": START })).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(
        v,
        json!({"proven": false, "reason": "too_many_seeds", "nodes": 0, "in_play": 96, "max": 16})
    );
    if anywoli_engine::endgame::shared().is_some() {
        return;
    }
    // A 16-seed ending far from the quiet rule's end: the solver runs out of nodes (a 12-seed
    // one no longer does once its captures reach the solver's own 8-seed layer).
    let p = "2,1,0,3,0,1,0,2,0,0,1,0/1,0,2,0,0,1,0,0,1,0,1,0 s 40 40 - - 0 40";
    let t0 = std::time::Instant::now();
    let (s, v) = post(&app, "/api/position/proof", json!({ "position": p })).await;
    eprintln!("16-seed proof out of nodes: {:?}", t0.elapsed());
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["proven"], false, "{v}");
    assert_eq!(v["reason"], "node_limit");
    assert_eq!(v["nodes"], anywoli_server::PROOF_NODES);
    assert!(v["lower"].as_i64().unwrap() <= v["upper"].as_i64().unwrap());
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Any string: an answer (valid, or invalid with a kind), never a panic or a 500.
    #[test]
    fn any_string_gets_an_answer(text in "\\PC{0,300}", rules in 0usize..5) {
        let names = ["anywoli", "anywoli-it", "anywoli-first-final", "anywoli-lottery", "nope"];
        let app = router();
        let (s, v) = runtime().block_on(post(&app, "/api/position", json!({"position": text, "rules": names[rules]})));
        if rules == 4 {
            prop_assert_eq!(s, StatusCode::BAD_REQUEST);
        } else {
            prop_assert_eq!(s, StatusCode::OK);
            prop_assert!(v["valid"] == true || v["error"]["kind"].is_string(), "{}", v);
        }
        let (s, _) = runtime().block_on(post(&app, "/api/position/proof", json!({"position": text})));
        prop_assert!(s == StatusCode::OK || s == StatusCode::BAD_REQUEST, "{}", s);
    }

    /// Strings close to valid ones: a few characters of a real position changed.
    #[test]
    fn mangled_positions_get_an_answer(
        edits in prop::collection::vec((0usize..64, "[0-9,/ snx\\-]"), 1..4),
    ) {
        let mut chars: Vec<String> = START.chars().map(|c| c.to_string()).collect();
        for (i, c) in edits {
            let i = i % chars.len();
            chars[i] = c;
        }
        let text: String = chars.concat();
        let app = router();
        let (s, v) = runtime().block_on(post(&app, "/api/position", json!({"position": text})));
        prop_assert_eq!(s, StatusCode::OK);
        match parse_position(&text, Rules::Anywoli) {
            Ok(p) => {
                prop_assert_eq!(&v["valid"], &json!(true));
                prop_assert_eq!(&v["position"], &json!(p.to_string()));
            }
            Err(e) => {
                prop_assert_eq!(&v["error"]["kind"], &json!(e.kind.code()));
                prop_assert_eq!(&v["error"]["message"], &json!(e.message));
            }
        }
    }
}
