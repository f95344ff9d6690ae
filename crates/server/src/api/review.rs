//! A game's review (issue 13): `POST /api/games/{id}/review` asks the engine to judge every
//! move (in the background, on the engine queue like a hint, bounded by [`REVIEW_DEPTH`]);
//! `GET` says how far it is, or gives it. The result is stored with the moves it judged, so
//! that every later visitor gets it at once and a game that moved on is judged again.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use anywoli_engine::review::{rescore, review, Review, VERSION};
use anywoli_engine::{Engine, Limits};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

use crate::api::client::ClientIp;
use crate::app::AppState;
use crate::dates::now_ms;
use crate::engine_queue::{Priority, QueueError};
use crate::error::{ApiError, ApiResult};
use crate::round::game::Game;
use crate::store::ReviewRow;

/// Each position is searched this deep: the same review on every machine, and a 160-ply game
/// judged in about 2 s of one core (docs/decisions.md, "Game review").
pub const REVIEW_DEPTH: u32 = 10;
/// Table size of a review's engine.
const REVIEW_HASH_MIB: usize = 8;

pub(crate) fn moves_of(g: &Game) -> String {
    g.moves
        .iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// What is known of the game's review: done (the stored one judged these very moves),
/// running here, or none.
async fn status(st: &AppState, g: &Game) -> ApiResult<Option<Value>> {
    let id = g.id.clone();
    let stored = st.db(move |s| s.review(&id)).await?;
    if let Some(r) = stored.filter(|r| r.moves == moves_of(g)) {
        let mut review: Review = serde_json::from_str(&r.body)
            .map_err(|e| ApiError::storage(format!("stored review: {e}")))?;
        // A review stored before expected scores is judged again from its scores.
        if review.version < VERSION {
            review = rescore(&g.start, review);
        }
        let body = serde_json::to_value(&review).map_err(ApiError::storage)?;
        return Ok(Some(
            json!({"status": "done", "review": body, "depth": REVIEW_DEPTH}),
        ));
    }
    Ok(st.reviews().lock().get(&g.id).map(|(done, total)| {
        json!({"status": "running", "done": done.load(Ordering::Relaxed), "total": total})
    }))
}

/// `GET /api/games/{id}/review`.
pub async fn get(State(st): State<AppState>, Path(id): Path<String>) -> ApiResult<Json<Value>> {
    let g = st.rounds().snapshot(&id).await?;
    Ok(Json(
        status(&st, &g).await?.unwrap_or(json!({"status": "none"})),
    ))
}

/// `POST /api/games/{id}/review`: `200` with the review when it is there, else `202` once it
/// is running.
pub async fn start(
    State(st): State<AppState>,
    Path(id): Path<String>,
    client: ClientIp,
) -> ApiResult<Response> {
    let g = st.rounds().snapshot(&id).await?;
    if g.moves.is_empty() {
        return Err(ApiError::not_allowed("the game has no move to review yet"));
    }
    if let Some(s) = status(&st, &g).await? {
        let code = if s["status"] == "done" {
            StatusCode::OK
        } else {
            StatusCode::ACCEPTED
        };
        return Ok((code, Json(s)).into_response());
    }
    let done = Arc::new(AtomicUsize::new(0));
    let total = g.moves.len();
    // Only a review that will run counts: a stored or running one costs nothing more.
    if !st.reviews().lock().contains_key(&id) {
        client.check(&st.limiters().reviews, "game reviews")?;
    }
    {
        let mut running = st.reviews().lock();
        if running.contains_key(&id) {
            return Ok((
                StatusCode::ACCEPTED,
                Json(json!({"status": "running", "done": 0, "total": total})),
            )
                .into_response());
        }
        running.insert(id.clone(), (done.clone(), total));
    }
    // Runs whether or not the request that asked is still there.
    let task_st = st.clone();
    tokio::spawn(async move {
        if let Err(e) = judge(&task_st, &g, done).await {
            tracing::warn!("the review of game {} failed: {}", g.id, e.message);
        }
        task_st.reviews().lock().remove(&g.id);
    });
    Ok((
        StatusCode::ACCEPTED,
        Json(json!({"status": "running", "done": 0, "total": total})),
    )
        .into_response())
}

pub(crate) async fn judge(st: &AppState, g: &Game, done: Arc<AtomicUsize>) -> ApiResult<()> {
    let (start, moves) = (g.start, g.moves.clone());
    let job = move || {
        let mut engine = Engine::new(REVIEW_HASH_MIB, 1);
        engine.set_tablebase(anywoli_engine::endgame::shared());
        let stop = std::sync::atomic::AtomicBool::new(false);
        review(
            &mut engine,
            &start,
            &moves,
            &Limits::depth(REVIEW_DEPTH),
            &stop,
            &mut |d, _| done.store(d, Ordering::Relaxed),
        )
    };
    let r = match st.engine().run(Priority::Hint, job).await {
        Ok(r) => r.map_err(ApiError::storage)?,
        Err(QueueError::Full { retry_after }) => {
            return Err(ApiError::busy("the engine is busy", retry_after.as_secs()))
        }
        Err(e) => return Err(ApiError::busy(e.to_string(), 5)),
    };
    let row = ReviewRow {
        game: g.id.clone(),
        moves: moves_of(g),
        body: serde_json::to_string(&r).map_err(ApiError::storage)?,
        at: now_ms(),
    };
    st.db(move |s| s.save_review(row)).await
}

/// The routes of a game's review (under /api).
pub fn router() -> axum::Router<AppState> {
    use axum::routing::get;
    axum::Router::new().route("/games/{id}/review", get(self::get).post(start))
}
