//! Play in a game: moves, taking the free seat, take-backs, resigning, rematches and hints.
//! Each asks the game's round (crate::round::actor), which makes the change whether or not
//! the request is still there to hear the answer.

use crate::api::extract::Acting;
use crate::api::waits::{refuse_waiting, Whose};
use anywoli_core::Move;
use anywoli_engine::{Engine, Limits};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::api::client::ClientIp;
use crate::api::{seat_name, JsonBody};
use crate::app::AppState;
use crate::engine_queue::{Priority, QueueError};
use crate::error::{ApiError, ApiResult};
use crate::round::game::OfferKind;
use crate::round::view::GameView;
use crate::round::Command;
use crate::trace_json::side_name;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveRequest {
    #[serde(rename = "move")]
    mv: String,
    secret: String,
    /// The number of moves the client saw before this one; a different number means the
    /// client is behind, and the move is refused rather than played in a position its sender
    /// did not see.
    ply: Option<usize>,
    /// The client's network round trip in milliseconds (its WebSocket's), taken off the
    /// move's time on a clock, at most crate::round::clock::LAG_CAP_MS.
    lag: Option<u32>,
}

/// `POST /api/games/{id}/moves`.
pub async fn moves(
    State(st): State<AppState>,
    Path(id): Path<String>,
    JsonBody(req): JsonBody<MoveRequest>,
) -> ApiResult<Json<Value>> {
    let mv: Move = req
        .mv
        .trim()
        .parse()
        .map_err(|e: anywoli_core::ParseMoveError| ApiError::malformed(e.to_string()))?;
    let (view, trace) = st
        .rounds()
        .call(&id, |reply| Command::Play {
            secret: req.secret.clone(),
            mv,
            ply: req.ply,
            lag_ms: i64::from(req.lag.unwrap_or(0)),
            reply,
        })
        .await??;
    Ok(Json(json!({"game": view, "trace": trace})))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SecretRequest {
    secret: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JoinRequest {
    /// The token of the invite link; without it, the seat of a friend game made with one
    /// stays closed.
    invite: Option<String>,
}

/// `POST /api/games/{id}/join`: the free seat of a friend game, for the holder of its invite.
pub async fn join(
    State(st): State<AppState>,
    Path(id): Path<String>,
    viewer: Acting,
    JsonBody(req): JsonBody<JoinRequest>,
) -> ApiResult<Json<Value>> {
    refuse_waiting(&st, viewer.name(), Whose::Mine).await?;
    let account = viewer.name().map(str::to_string);
    let (view, seat, secret) = st
        .rounds()
        .call(&id, |reply| Command::Join {
            invite: req.invite.clone(),
            account: account.clone(),
            reply,
        })
        .await??;
    Ok(Json(
        json!({"game": view, "seat": side_name(seat), "secret": secret}),
    ))
}

/// `POST /api/games/{id}/takeback`.
pub async fn takeback(
    State(st): State<AppState>,
    Path(id): Path<String>,
    JsonBody(req): JsonBody<SecretRequest>,
) -> ApiResult<Json<Value>> {
    with_secret(&st, &id, &req.secret, |secret, reply| Command::TakeBack {
        secret,
        reply,
    })
    .await
}

/// Asks the game's round for a change made with the caller's seat secret; answers
/// `{"game"}` as it then stands.
async fn with_secret(
    st: &AppState,
    id: &str,
    secret: &str,
    make: impl Fn(String, tokio::sync::oneshot::Sender<ApiResult<GameView>>) -> Command,
) -> ApiResult<Json<Value>> {
    let view = st
        .rounds()
        .call(id, |reply| make(secret.to_string(), reply))
        .await??;
    Ok(Json(json!({ "game": view })))
}

/// `POST /api/games/{id}/resign`.
pub async fn resign(
    State(st): State<AppState>,
    Path(id): Path<String>,
    JsonBody(req): JsonBody<SecretRequest>,
) -> ApiResult<Json<Value>> {
    with_secret(&st, &id, &req.secret, |secret, reply| Command::Resign {
        secret,
        reply,
    })
    .await
}

/// `POST /api/games/{id}/berserk`: in an arena's game, before one's first move, half one's
/// clock and no increment, for a point more on a win (docs/tournaments.md).
pub async fn berserk(
    State(st): State<AppState>,
    Path(id): Path<String>,
    JsonBody(req): JsonBody<SecretRequest>,
) -> ApiResult<Json<Value>> {
    with_secret(&st, &id, &req.secret, |secret, reply| Command::Berserk {
        secret,
        reply,
    })
    .await
}

/// `POST /api/games/{id}/abort`: call the game off before each side has moved once.
pub async fn abort(
    State(st): State<AppState>,
    Path(id): Path<String>,
    JsonBody(req): JsonBody<SecretRequest>,
) -> ApiResult<Json<Value>> {
    with_secret(&st, &id, &req.secret, |secret, reply| Command::Abort {
        secret,
        reply,
    })
    .await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OfferRequest {
    secret: String,
    /// `draw` or `takeback`.
    offer: String,
}

/// `POST /api/games/{id}/offer`: offer a draw or ask to take a move back; the other player
/// answers. The same offer from both sides is agreed.
pub async fn offer(
    State(st): State<AppState>,
    Path(id): Path<String>,
    JsonBody(req): JsonBody<OfferRequest>,
) -> ApiResult<Json<Value>> {
    let kind = OfferKind::from_name(&req.offer).ok_or_else(|| {
        ApiError::malformed(format!(
            "offer '{}' is neither draw nor takeback",
            req.offer.chars().take(20).collect::<String>()
        ))
    })?;
    with_secret(&st, &id, &req.secret, |secret, reply| Command::Offer {
        secret,
        kind,
        reply,
    })
    .await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PublicRequest {
    secret: String,
    public: bool,
}

/// `POST /api/games/{id}/public`: list the game while it is played, or stop listing it.
pub async fn public(
    State(st): State<AppState>,
    Path(id): Path<String>,
    JsonBody(req): JsonBody<PublicRequest>,
) -> ApiResult<Json<Value>> {
    let public = req.public;
    with_secret(&st, &id, &req.secret, |secret, reply| Command::Publish {
        secret,
        public,
        reply,
    })
    .await
}

/// `POST /api/games/{id}/claim`: the win, from an opponent away too long.
pub async fn claim(
    State(st): State<AppState>,
    Path(id): Path<String>,
    JsonBody(req): JsonBody<SecretRequest>,
) -> ApiResult<Json<Value>> {
    with_secret(&st, &id, &req.secret, |secret, reply| Command::Claim {
        secret,
        reply,
    })
    .await
}

/// `POST /api/games/{id}/offer/accept` and `…/offer/decline`.
pub async fn accept(
    State(st): State<AppState>,
    Path(id): Path<String>,
    JsonBody(req): JsonBody<SecretRequest>,
) -> ApiResult<Json<Value>> {
    answer(st, id, req, true).await
}

pub async fn decline(
    State(st): State<AppState>,
    Path(id): Path<String>,
    JsonBody(req): JsonBody<SecretRequest>,
) -> ApiResult<Json<Value>> {
    answer(st, id, req, false).await
}

async fn answer(
    st: AppState,
    id: String,
    req: SecretRequest,
    accept: bool,
) -> ApiResult<Json<Value>> {
    with_secret(&st, &id, &req.secret, |secret, reply| Command::Answer {
        secret,
        accept,
        reply,
    })
    .await
}

/// `POST /api/games/{id}/rematch`: `201` when it was made now, `200` when it existed.
pub async fn rematch(
    State(st): State<AppState>,
    Path(id): Path<String>,
    JsonBody(req): JsonBody<SecretRequest>,
) -> ApiResult<Response> {
    let (next, created, seats) = st
        .rounds()
        .call(&id, |reply| Command::Rematch {
            secret: req.secret.clone(),
            reply,
        })
        .await??;
    let g = st.rounds().snapshot(&next).await?;
    let status = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((
        status,
        Json(json!({"game": GameView::of(&g), "seat": seat_name(&seats), "secret": req.secret})),
    )
        .into_response())
}

/// `POST /api/games/{id}/hint`: the engine's choice for the side to move, for the player whose
/// turn it is. Hints are help, so between two people they are given only where both agreed.
pub async fn hint(
    State(st): State<AppState>,
    Path(id): Path<String>,
    client: ClientIp,
    JsonBody(req): JsonBody<SecretRequest>,
) -> ApiResult<Json<Value>> {
    client.check(&st.limiters().hints, "hints")?;
    let (pos, ply) = st
        .rounds()
        .call(&id, |reply| Command::HintPosition {
            secret: req.secret.clone(),
            reply,
        })
        .await??;
    let think = st.think();
    let job = move || {
        let mut engine = Engine::new(think.hash_mib, 1);
        engine.set_tablebase(anywoli_engine::endgame::shared());
        let stop = std::sync::atomic::AtomicBool::new(false);
        let limits = Limits {
            depth: Some(24),
            movetime: Some(think.movetime),
            nodes: None,
        };
        engine.search(&pos, &limits, &stop, &mut |_| {}).best
    };
    // A hint waits behind every computer's move, and is refused when too many wait already.
    let best = match st.engine().run(Priority::Hint, job).await {
        Ok(best) => best,
        Err(QueueError::Full { retry_after }) => {
            return Err(ApiError::busy(
                "the engine is busy with other hints; try again",
                retry_after.as_secs(),
            ))
        }
        Err(e) => return Err(ApiError::busy(e.to_string(), 5)),
    };
    let best = best.ok_or_else(|| ApiError::storage("the engine found no move"))?;
    Ok(Json(json!({"move": best.to_string(), "ply": ply})))
}

/// The routes of playing in a game: moves, seats, take-backs, offers, claims, rematches and hints (under /api).
pub fn router() -> axum::Router<AppState> {
    use axum::routing::post;
    axum::Router::new()
        .route("/games/{id}/moves", post(moves))
        .route("/games/{id}/join", post(join))
        .route("/games/{id}/takeback", post(takeback))
        .route("/games/{id}/resign", post(resign))
        .route("/games/{id}/abort", post(abort))
        .route("/games/{id}/berserk", post(berserk))
        .route("/games/{id}/offer", post(offer))
        .route("/games/{id}/claim", post(claim))
        .route("/games/{id}/public", post(public))
        .route("/games/{id}/offer/accept", post(accept))
        .route("/games/{id}/offer/decline", post(decline))
        .route("/games/{id}/rematch", post(rematch))
        .route("/games/{id}/hint", post(hint))
}
