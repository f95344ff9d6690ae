//! The course over HTTP (docs/api.md, "Lessons"): the lessons with their positions and goals,
//! and the judgement of a learner's moves, with the traces to animate and, for a miss, the
//! reason as a kind with its data, which the page puts in the reader's words.

use anywoli_core::{Position, Side};
use anywoli_engine::lessons::{self, Ending, Exercise, Goal, Step, Why};
use axum::extract::Path;
use axum::http::StatusCode;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::api::JsonBody;
use crate::error::{ApiError, ApiResult};
use crate::puzzles::board;
use crate::trace_json::JsonTrace;

fn goal_json(g: Goal) -> Value {
    match g {
        Goal::EndIn(h) => json!({"kind": "end_in", "hole": h.to_string()}),
        Goal::Laps(n) => json!({"kind": "laps", "laps": n}),
        Goal::MidSowCapture => json!({"kind": "midsow_capture"}),
        Goal::GiveNothing => json!({"kind": "give_nothing"}),
        Goal::LastSeedCaptures(n) => json!({"kind": "last_seed_captures", "count": n}),
        Goal::OpponentPasses => json!({"kind": "opponent_passes"}),
        Goal::WinNow => json!({"kind": "win_now"}),
        Goal::NoCaptureForOpponent => json!({"kind": "no_capture_for_opponent"}),
    }
}

fn ending_json(e: Ending) -> Value {
    match e {
        Ending::Stopped(h) => json!({"kind": "stopped", "hole": h.to_string()}),
        Ending::Extra(h) => json!({"kind": "extra", "hole": h.to_string()}),
        Ending::GameOver => json!({"kind": "game_over"}),
    }
}

/// A miss as the page words it: `kind` and its data.
fn why_json(w: Why) -> Value {
    match w {
        Why::EndedElsewhere { ending, want } => {
            json!({"kind": "ended_elsewhere", "ending": ending_json(ending), "want": want.to_string()})
        }
        Why::TooFewLaps { laps, want, ending } => {
            json!({"kind": "too_few_laps", "laps": laps, "want": want, "ending": ending_json(ending)})
        }
        Why::NoMidSowCapture { ending } => {
            json!({"kind": "no_midsow_capture", "ending": ending_json(ending)})
        }
        Why::GaveFour { hole } => json!({"kind": "gave_four", "hole": hole.to_string()}),
        Why::NoLastSeedCapture { ending } => {
            json!({"kind": "no_last_seed_capture", "ending": ending_json(ending)})
        }
        Why::OpponentPlays { ending } => {
            json!({"kind": "opponent_plays", "ending": ending_json(ending)})
        }
        Why::GameGoesOn { ending } => {
            json!({"kind": "game_goes_on", "ending": ending_json(ending)})
        }
        Why::NotAhead { south, north } => {
            json!({"kind": "not_ahead", "stores": [south, north]})
        }
        Why::OpponentCaptures { reply, hole } => {
            json!({"kind": "opponent_captures", "reply": reply.to_string(), "hole": hole.to_string()})
        }
    }
}

fn side_name(s: Side) -> &'static str {
    crate::trace_json::side_name(s)
}

fn exercise_json(e: &Exercise) -> Value {
    let mut v = board(&e.position);
    v["goal"] = goal_json(e.goal);
    v["side"] = json!(side_name(e.side()));
    v
}

/// `GET /api/lessons`: the course, every exercise's board and goal (not its solution).
pub async fn list() -> Json<Value> {
    let lessons: Vec<Value> = lessons::all()
        .iter()
        .map(|l| {
            json!({
                "id": l.id,
                "exercises": l.exercises.iter().map(exercise_json).collect::<Vec<_>>(),
            })
        })
        .collect();
    Json(json!({ "lessons": lessons }))
}

fn find(id: &str, n: &str) -> ApiResult<&'static Exercise> {
    let unknown = || {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "unknown_lesson",
            format!(
                "there is no exercise {} of lesson '{}'",
                n.chars().take(6).collect::<String>(),
                id.chars().take(20).collect::<String>()
            ),
        )
    };
    let lesson = lessons::by_id(id).ok_or_else(unknown)?;
    let i: usize = n.parse().map_err(|_| unknown())?;
    i.checked_sub(1)
        .and_then(|i| lesson.exercises.get(i))
        .ok_or_else(unknown)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MovesRequest {
    moves: Vec<String>,
}

/// `POST /api/lessons/{id}/{n}/moves` with `{"moves": [...]}`: the learner's moves in exercise
/// `n` (from 1), the newest last. `step` is `done`, `continue` (the learner moves again) or
/// `wrong` (with `why`); the board after the newest move and its trace come with it.
pub async fn moves(
    Path((id, n)): Path<(String, String)>,
    JsonBody(req): JsonBody<MovesRequest>,
) -> ApiResult<Json<Value>> {
    let e = find(&id, &n)?;
    if req.moves.len() > 20 {
        return Err(ApiError::malformed("moves: at most 20 in an exercise"));
    }
    let moves = crate::api::parse_moves(&req.moves)?;
    let step = e.judge(&moves);
    let (name, why) = match step {
        Step::Done => ("done", Value::Null),
        Step::Continue => ("continue", Value::Null),
        Step::Wrong(w) => ("wrong", why_json(w)),
        Step::Illegal(msg) => {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "illegal_move",
                msg,
            ))
        }
        Step::Invalid(msg) => return Err(ApiError::new(StatusCode::CONFLICT, "off_line", msg)),
    };
    // Judged moves can all be played: the board before and after the newest.
    let mut p: Position = e.position;
    let (&newest, earlier) = moves.split_last().expect("judged moves are not empty");
    for &m in earlier {
        p.play(m)
            .map_err(|err| ApiError::storage(err.to_string()))?;
    }
    let trace = p
        .trace(newest)
        .map_err(|err| ApiError::storage(err.to_string()))?;
    let json_trace = JsonTrace::new(&p, &trace);
    let after = trace.after;
    let mut v = board(&after);
    if name != "continue" {
        // Nothing more to play in this exercise.
        v["legal"] = json!([]);
    }
    v["step"] = json!(name);
    v["why"] = why;
    v["traces"] = json!([json_trace]);
    Ok(Json(v))
}
