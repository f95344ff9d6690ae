//! `anywoli tournament pair`: the contract of issue 39, JSON on standard input, JSON out.

use assert_cmd::Command;
use serde_json::{json, Value};

fn pair(system: &str, input: &str) -> (bool, Value, String) {
    let out = Command::cargo_bin("anywoli")
        .unwrap()
        .args(["tournament", "pair", "--system", system])
        .write_stdin(input)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let value = serde_json::from_str(&stdout).unwrap_or(Value::Null);
    (
        out.status.success(),
        value,
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn a_swiss_round_as_the_issue_spells_it() {
    let (ok, out, err) = pair(
        "swiss",
        r#"{"round": 3, "players": [
            {"id": "ana", "score": 2.0, "rating": 1612, "sides": "SN", "opponents": ["ben", "eva"], "byes": 0},
            {"id": "ben", "score": 1.0, "rating": 1500, "sides": "NS", "opponents": ["ana", "cai"], "byes": 0},
            {"id": "cai", "score": 1.5, "rating": 1550, "sides": "SN", "opponents": ["eva", "ben"], "byes": 0},
            {"id": "eva", "score": 0.5, "rating": 1400, "sides": "NS", "opponents": ["cai", "ana"], "byes": 0, "club": "x"}
        ]}"#,
    );
    assert!(ok, "{err}");
    // The only pairing without a rematch: ana-cai and ben-eva. ana and cai are both due South
    // (each last played North), ben and eva both due North: the higher-ranked gets it.
    assert_eq!(
        out,
        json!({"pairs": [["ana", "cai"], ["eva", "ben"]], "bye": null})
    );
}

#[test]
fn an_arena_wave_pairs_who_waits() {
    let (ok, out, err) = pair(
        "arena",
        r#"{"now": 60000, "players": [
            {"id": "a", "waiting_since": 50000, "rank": 1, "last_opponent": "b"},
            {"id": "b", "waiting_since": 50000, "rank": 2, "last_opponent": "a"},
            {"id": "c", "waiting_since": 59000, "rank": 3, "last_opponent": null}
        ]}"#,
    );
    assert!(ok, "{err}");
    let pairs = out["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 1, "{out}");
    assert!(pairs[0].as_array().unwrap().contains(&json!("c")), "{out}");
}

#[test]
fn a_round_robin_table() {
    let (ok, out, err) = pair("round-robin", r#"{"players": ["a", "b", "c"]}"#);
    assert!(ok, "{err}");
    let rounds = out["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 3);
    assert!(rounds
        .iter()
        .all(|r| r["pairs"].as_array().unwrap().len() == 1 && r["bye"].is_string()));
}

#[test]
fn bad_input_says_what_is_wrong() {
    let (ok, _, err) = pair("swiss", "{\"players\": [{\"id\": \"a\"}]}");
    assert!(!ok);
    assert!(err.contains("swiss") && err.contains("score"), "{err}");
    let (ok, _, err) = pair(
        "swiss",
        r#"{"players": [{"id": "a", "score": 0}, {"id": "a", "score": 1}]}"#,
    );
    assert!(!ok);
    assert!(err.contains("\"a\" is listed twice"), "{err}");
}
