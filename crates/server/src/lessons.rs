//! The course over HTTP (docs/api.md, "Lessons"): the lessons with their positions and goals,
//! and the judgement of a learner's moves, with the traces to animate and, for a miss, the
//! reason as a kind with its data, which the page puts in the reader's words.

use crate::error::ErrorCode;
use anywoli_core::{Line, Position, Side};
use anywoli_engine::lessons::{self, Ending, Exercise, Goal, Step, Why};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::api::extract::{not_logged_in, Authed, Viewer};
use crate::api::JsonBody;
use crate::app::AppState;
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
        Goal::ForceCapture => json!({"kind": "force_capture"}),
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
        Why::OpponentPlays { ending, fed } => {
            json!({"kind": "opponent_plays", "ending": ending_json(ending), "fed": fed})
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
        Why::Parried { reply } => json!({"kind": "parried", "reply": reply.to_string()}),
        Why::MissedCapture { ending } => {
            json!({"kind": "missed_capture", "ending": ending_json(ending)})
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
            ErrorCode::UnknownLesson,
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
/// `n` (from 1), the newest last, with the opponent's answers where the exercise has them.
/// `step` is `done`, `continue` (the learner moves again), `reply` (the opponent answers with
/// `reply`, which the next request's line carries) or `wrong` (with `why`); the board after
/// the moves and their traces come with it.
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
    let mut reply = Vec::new();
    let (name, why) = match step {
        Step::Done => ("done", Value::Null),
        Step::Continue => ("continue", Value::Null),
        Step::Reply(r) => {
            reply = r;
            ("reply", Value::Null)
        }
        Step::Wrong(w) => ("wrong", why_json(w)),
        Step::Illegal(msg) => {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                ErrorCode::IllegalMove,
                msg,
            ))
        }
        Step::Invalid(msg) => {
            return Err(ApiError::new(StatusCode::CONFLICT, ErrorCode::OffLine, msg))
        }
    };
    // Judged moves can all be played: the board before the newest, then the newest and the
    // opponent's answer, each traced to animate.
    let (&newest, earlier) = moves.split_last().expect("judged moves are not empty");
    let mut p: Position = Line::new(e.position, earlier)
        .end()
        .map_err(|err| ApiError::storage(err.error.to_string()))?;
    let mut traces = Vec::new();
    for &m in std::iter::once(&newest).chain(&reply) {
        let trace = p
            .trace(m)
            .map_err(|err| ApiError::storage(err.to_string()))?;
        traces.push(JsonTrace::new(&p, &trace));
        p = trace.after;
    }
    let mut v = board(&p);
    if !matches!(name, "continue" | "reply") {
        // Nothing more to play in this exercise.
        v["legal"] = json!([]);
    }
    v["step"] = json!(name);
    v["why"] = why;
    v["reply"] = json!(reply.iter().map(|m| m.to_string()).collect::<Vec<_>>());
    v["traces"] = json!(traces);
    Ok(Json(v))
}

/// Most exercise keys one request may carry: the whole course, with room to grow.
const MAX_PROGRESS: usize = 200;

/// Whether `key` names an exercise of the course: `lesson#n`, `n` from 1 in its plain form
/// (not `01` or `+1`, so that one exercise has one key).
fn is_exercise(key: &str) -> bool {
    let Some((id, n)) = key.split_once('#') else {
        return false;
    };
    let count = lessons::by_id(id).map_or(0, |l| l.exercises.len());
    n.parse::<usize>()
        .is_ok_and(|k| (1..=count).contains(&k) && k.to_string() == n)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProgressRequest {
    done: Vec<String>,
}

/// `GET /api/lessons/progress`: the exercises the logged-in account has done.
pub async fn progress(State(st): State<AppState>, viewer: Viewer) -> ApiResult<Json<Value>> {
    let name = viewer.name().ok_or_else(not_logged_in)?.to_string();
    let done = st.db(move |db| db.lesson_progress(&name)).await?;
    Ok(Json(json!({ "done": done })))
}

/// `POST /api/lessons/progress` with `{"done": ["relay#1", …]}` (logged in, with the CSRF
/// token): marks those exercises done for the account, as the page does after each one and
/// when a browser's progress meets the account; the answer is everything done since.
pub async fn record_progress(
    State(st): State<AppState>,
    Authed(session): Authed,
    JsonBody(req): JsonBody<ProgressRequest>,
) -> ApiResult<Json<Value>> {
    if req.done.len() > MAX_PROGRESS {
        return Err(ApiError::malformed(format!(
            "done: at most {MAX_PROGRESS} exercises"
        )));
    }
    if let Some((i, bad)) = req.done.iter().enumerate().find(|(_, k)| !is_exercise(k)) {
        return Err(ApiError::malformed(format!(
            "done[{i}]: '{}' is not an exercise of the course (lesson#n, as in relay#1)",
            bad.chars().take(40).collect::<String>()
        )));
    }
    let name = session.name.clone();
    let done = req.done;
    let all = st
        .rounds()
        .db(move |db| {
            if !done.is_empty() {
                db.lessons_done(&name, done)?;
            }
            db.lesson_progress(&name)
        })
        .await?;
    Ok(Json(json!({ "done": all })))
}

/// The routes of the lessons and the progress through them (under /api).
pub fn router() -> axum::Router<AppState> {
    use axum::routing::{get, post};
    axum::Router::new()
        .route("/lessons", get(list))
        .route("/lessons/progress", get(progress).post(record_progress))
        .route("/lessons/{id}/{n}/moves", post(moves))
}
