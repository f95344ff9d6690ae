//! Puzzle ratings over HTTP (docs/api.md, "Puzzle ratings"): who the solver is, rating a
//! first attempt, and choosing the next puzzle near the solver's rating.
//!
//! A solver is the logged-in account (its requests carry the session's CSRF token, as every
//! cookie-authenticated change does), or else a browser, known by a random token it keeps and
//! sends as `solver`; the store keeps only the token's SHA-256. A request with neither is
//! judged as before and rates nothing.

use anywoli_engine::puzzles::{self, Puzzle};
use axum::extract::State;
use axum::http::HeaderMap;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use super::Asked;
use crate::account::session::{check_csrf, token_of};
use crate::api::extract::Viewer;
use crate::app::AppState;
use crate::error::{ApiError, ApiResult};
use crate::rating::Rating;
use crate::store::{Attempt, PuzzleRatingRow, Rated};

/// How many of the unattempted puzzles nearest the solver's rating the next one is drawn
/// from: a little variety, so that solvers of one rating do not all walk the same path.
pub const NEAREST: usize = 5;
/// Community puzzles the next puzzle may be drawn from: the newest this many.
pub const COMMUNITY_CANDIDATES: i64 = 500;

/// The rating a puzzle starts from, from its grade (1 to 5): 1200 to 1800 in steps of 150, so
/// that a new solver (1500) starts at grade 3. Uncertain (the widest deviation): the first
/// attempts place it.
pub fn start_rating(grade: u8) -> Rating {
    Rating {
        rating: 1200.0 + 150.0 * f64::from(grade.clamp(1, 5) - 1),
        ..Rating::DEFAULT
    }
}

/// The solver a request speaks for: `a:NAME` for a logged-in account, `b:SHA256` for a
/// browser's token (32 hexadecimal digits), `None` for neither.
pub fn solver_key(
    viewer: &Viewer,
    headers: &HeaderMap,
    token: Option<&str>,
) -> ApiResult<Option<String>> {
    if let Some(session) = &viewer.0 {
        check_csrf(headers, session)?;
        return Ok(Some(format!("a:{}", session.name)));
    }
    match token {
        None => Ok(None),
        Some(t) if t.len() == 32 && t.bytes().all(|b| b.is_ascii_hexdigit()) => {
            Ok(Some(format!("b:{}", token_of(&t.to_ascii_lowercase()))))
        }
        Some(_) => Err(ApiError::malformed(
            "solver: expected the browser's token, 32 hexadecimal digits",
        )),
    }
}

fn rating_json(r: &Rating) -> Value {
    json!({"rating": r.rounded(), "deviation": r.deviation.round(), "provisional": r.is_provisional()})
}

fn change_json(r: &Rated) -> Value {
    json!({
        "solver": {"before": r.solver[0].rounded(), "after": r.solver[1].rounded(),
                   "provisional": r.solver[1].is_provisional()},
        "puzzle": {"before": r.puzzle[0].rounded(), "after": r.puzzle[1].rounded()},
    })
}

/// Rates the solver's attempt at puzzle `key` (won or not) if it is the first: the change, or
/// `null` when it was rated before (or nobody is rated).
pub async fn rate(
    st: &AppState,
    solver: Option<String>,
    key: String,
    grade: u8,
    won: bool,
) -> ApiResult<Value> {
    let Some(solver) = solver else {
        return Ok(Value::Null);
    };
    let attempt = Attempt {
        puzzle: key,
        solver,
        won,
        at: crate::dates::now_ms(),
        start: start_rating(grade),
    };
    let r = st.db(move |db| db.rate_puzzle(attempt)).await?;
    Ok(r.as_ref().map_or(Value::Null, change_json))
}

/// A puzzle's rating for its view: the stored one, or the one its grade starts it from.
pub async fn puzzle_rating(st: &AppState, key: String, grade: u8) -> ApiResult<Value> {
    let rows = st
        .rounds()
        .db(move |db| db.puzzle_ratings(std::slice::from_ref(&key)))
        .await?;
    Ok(match rows.first() {
        Some((_, r)) => {
            json!({"rating": r.rating.rounded(), "attempts": r.attempts, "solved": r.solved})
        }
        None => json!({"rating": start_rating(grade).rounded(), "attempts": 0, "solved": 0}),
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SolverRequest {
    pub solver: Option<String>,
}

impl Asked<SolverRequest> {
    /// The solver this request names ([`solver_key`]).
    pub fn solver(&self) -> ApiResult<Option<String>> {
        solver_key(&self.viewer, &self.headers, self.body.solver.as_deref())
    }
}

async fn solver_rating(st: &AppState, solver: &Option<String>) -> ApiResult<PuzzleRatingRow> {
    let stored = match solver.clone() {
        Some(s) => st.db(move |db| db.solver_rating(&s)).await?,
        None => None,
    };
    Ok(stored.unwrap_or(PuzzleRatingRow {
        rating: Rating::DEFAULT,
        attempts: 0,
        solved: 0,
    }))
}

fn solver_json(r: &PuzzleRatingRow) -> Value {
    let mut v = rating_json(&r.rating);
    v["attempts"] = json!(r.attempts);
    v
}

/// `POST /api/puzzles/rating` with `{"solver"}` (or a session): the solver's rating (a new
/// solver's when it has none yet).
pub async fn mine(
    State(st): State<AppState>,
    asked: Asked<SolverRequest>,
) -> ApiResult<Json<Value>> {
    let solver = asked.solver()?;
    Ok(Json(
        json!({"solver": solver_json(&solver_rating(&st, &solver).await?)}),
    ))
}

/// A candidate for the next puzzle: its key, its path on the page and its rating.
struct Candidate {
    key: String,
    path: String,
    rating: f64,
}

/// `POST /api/puzzles/next` with `{"solver"}` (or a session): a puzzle the solver has not
/// attempted, drawn from the [`NEAREST`] nearest its rating, from the collection and the newest
/// community puzzles (all of them again once every one was attempted).
pub async fn next(
    State(st): State<AppState>,
    asked: Asked<SolverRequest>,
) -> ApiResult<Json<Value>> {
    let solver = asked.solver()?;
    let mine = solver_rating(&st, &solver).await?;
    let done = match solver.clone() {
        Some(s) => st.db(move |db| db.attempted(&s)).await?,
        None => Vec::new(),
    };
    let (community, _) = st
        .rounds()
        .db(|db| db.puzzles(None, COMMUNITY_CANDIDATES, 0))
        .await?;
    let mut candidates: Vec<(Candidate, u8)> = puzzles::all()
        .iter()
        .map(|p: &Puzzle| {
            (
                Candidate {
                    key: p.id.to_string(),
                    path: format!("/puzzles/{}", p.id),
                    rating: 0.0,
                },
                p.grade,
            )
        })
        .collect();
    candidates.extend(community.iter().map(|r| {
        (
            Candidate {
                key: r.id.clone(),
                path: format!("/puzzles/community/{}", r.id),
                rating: 0.0,
            },
            r.grade.clamp(1, 5) as u8,
        )
    }));
    let keys: Vec<String> = candidates.iter().map(|c| c.0.key.clone()).collect();
    let stored = st.db(move |db| db.puzzle_ratings(&keys)).await?;
    let stored: std::collections::HashMap<String, PuzzleRatingRow> = stored.into_iter().collect();
    let mut list: Vec<Candidate> = candidates
        .into_iter()
        .map(|(mut c, grade)| {
            c.rating = stored
                .get(&c.key)
                .map_or(start_rating(grade).rating, |r| r.rating.rating);
            c
        })
        .collect();
    let fresh: Vec<usize> = (0..list.len())
        .filter(|&i| !done.contains(&list[i].key))
        .collect();
    let pool: Vec<usize> = if fresh.is_empty() {
        (0..list.len()).collect()
    } else {
        fresh
    };
    let target = mine.rating.rating;
    let mut near = pool;
    near.sort_by(|&a, &b| {
        let da = (list[a].rating - target).abs();
        let db = (list[b].rating - target).abs();
        da.total_cmp(&db).then(a.cmp(&b))
    });
    near.truncate(NEAREST);
    if near.is_empty() {
        return Err(ApiError::storage("there are no puzzles to choose from"));
    }
    let pick = near[crate::ids::random_bytes::<1>()[0] as usize % near.len()];
    let chosen = list.swap_remove(pick);
    Ok(Json(json!({
        "path": chosen.path,
        "puzzle": chosen.key,
        "rating": chosen.rating.round(),
        "solver": solver_json(&mine),
    })))
}

/// The routes of the rated puzzles: the next one and the solver's rating (under /api).
pub fn router() -> axum::Router<AppState> {
    use axum::routing::post;
    axum::Router::new()
        .route("/puzzles/next", post(next))
        .route("/puzzles/rating", post(mine))
}
