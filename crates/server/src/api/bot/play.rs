//! Playing a game with a token (`/api/bot/game/{id}/…` and `/api/board/game/{id}/…`): each
//! call finds the seat the token's account holds and asks the game's round, exactly as the
//! page's calls do with the seat's secret (crate::api::play), so the same rules and refusals
//! hold: a move out of turn, in a game not one's own, or after the end changes nothing.
//! Bodies are ignored but for the chat's form. Answers are `{"ok": true}`, as lichess's.

use anywoli_core::Move;
use axum::extract::{Path, State};
use axum::Json;
use serde_json::{json, Value};

use super::form::Flat;
use super::{seat_of, Api};
use crate::api::bearer::Bearer;
use crate::api::client::ClientIp;
use crate::app::AppState;
use crate::chat::reader::Say;
use crate::error::{ApiError, ApiResult};
use crate::round::game::OfferKind;
use crate::round::Command;
use crate::store::Room;

fn ok() -> Json<Value> {
    Json(json!({"ok": true}))
}

/// The secret of the seat the caller holds in game `id`, after the API's checks.
async fn secret<const BOT: bool>(st: &AppState, bearer: &Bearer, id: &str) -> ApiResult<String> {
    Api::of(BOT).check(st, bearer).await?;
    Ok(seat_of(st, id, &bearer.name).await?.2)
}

/// `POST …/move/{move}`: one hole letter (a player with an extra move sends each).
pub async fn moved<const BOT: bool>(
    State(st): State<AppState>,
    Path((id, mv)): Path<(String, String)>,
    bearer: Bearer,
) -> ApiResult<Json<Value>> {
    let mv: Move = mv
        .trim()
        .parse()
        .map_err(|e: anywoli_core::ParseMoveError| ApiError::malformed(e.to_string()))?;
    let secret = secret::<BOT>(&st, &bearer, &id).await?;
    st.rounds()
        .call(&id, |reply| Command::Play {
            secret: secret.clone(),
            mv,
            ply: None,
            lag_ms: 0,
            reply,
        })
        .await??;
    Ok(ok())
}

/// Asks the game's round for a change by the seat the caller holds.
async fn by_seat<const BOT: bool>(
    st: &AppState,
    bearer: &Bearer,
    id: &str,
    make: impl Fn(String, crate::round::actor::Reply<crate::round::view::GameView>) -> Command,
) -> ApiResult<Json<Value>> {
    let secret = secret::<BOT>(st, bearer, id).await?;
    st.rounds()
        .call(id, |reply| make(secret.clone(), reply))
        .await??;
    Ok(ok())
}

pub async fn resign<const BOT: bool>(
    State(st): State<AppState>,
    Path(id): Path<String>,
    bearer: Bearer,
) -> ApiResult<Json<Value>> {
    by_seat::<BOT>(&st, &bearer, &id, |secret, reply| Command::Resign {
        secret,
        reply,
    })
    .await
}

pub async fn abort<const BOT: bool>(
    State(st): State<AppState>,
    Path(id): Path<String>,
    bearer: Bearer,
) -> ApiResult<Json<Value>> {
    by_seat::<BOT>(&st, &bearer, &id, |secret, reply| Command::Abort {
        secret,
        reply,
    })
    .await
}

/// `POST …/claim-victory`: the opponent has been gone long enough.
pub async fn claim<const BOT: bool>(
    State(st): State<AppState>,
    Path(id): Path<String>,
    bearer: Bearer,
) -> ApiResult<Json<Value>> {
    by_seat::<BOT>(&st, &bearer, &id, |secret, reply| Command::Claim {
        secret,
        reply,
    })
    .await
}

/// `yes` or `no`.
fn answer(word: &str) -> ApiResult<bool> {
    match word {
        "yes" | "true" => Ok(true),
        "no" | "false" => Ok(false),
        _ => Err(ApiError::malformed(format!(
            "'{}' is neither yes nor no",
            word.chars().take(20).collect::<String>()
        ))),
    }
}

/// `yes` offers (or, to the opponent's offer, accepts: the same offer from both sides is
/// agreed); `no` declines the opponent's offer or withdraws one's own.
async fn offer<const BOT: bool>(
    st: &AppState,
    id: &str,
    word: &str,
    bearer: &Bearer,
    kind: OfferKind,
) -> ApiResult<Json<Value>> {
    if answer(word)? {
        return by_seat::<BOT>(st, bearer, id, |secret, reply| Command::Offer {
            secret,
            kind,
            reply,
        })
        .await;
    }
    let g = st.rounds().snapshot(id).await?;
    if !g.offer.is_some_and(|o| o.kind == kind) {
        return Ok(ok());
    }
    by_seat::<BOT>(st, bearer, id, |secret, reply| Command::Answer {
        secret,
        accept: false,
        reply,
    })
    .await
}

pub async fn draw<const BOT: bool>(
    State(st): State<AppState>,
    Path((id, word)): Path<(String, String)>,
    bearer: Bearer,
) -> ApiResult<Json<Value>> {
    offer::<BOT>(&st, &id, &word, &bearer, OfferKind::Draw).await
}

pub async fn takeback<const BOT: bool>(
    State(st): State<AppState>,
    Path((id, word)): Path<(String, String)>,
    bearer: Bearer,
) -> ApiResult<Json<Value>> {
    offer::<BOT>(&st, &id, &word, &bearer, OfferKind::TakeBack).await
}

/// `POST …/chat` with `room` (`player` or `spectator`) and `text`: said as the page's chat
/// says it, with its checks (length, pace, mutes, blocks).
pub async fn chat<const BOT: bool>(
    State(st): State<AppState>,
    Path(id): Path<String>,
    client: ClientIp,
    bearer: Bearer,
    form: Flat,
) -> ApiResult<Json<Value>> {
    let room = match form.get("room").unwrap_or("player") {
        "player" => Room::Players,
        "spectator" => Room::Spectators,
        other => {
            return Err(ApiError::malformed(format!(
                "room '{}' is neither player nor spectator",
                other.chars().take(20).collect::<String>()
            )))
        }
    };
    let text = form
        .get("text")
        .ok_or_else(|| ApiError::malformed("a chat line needs its text"))?
        .to_string();
    Api::of(BOT).check(&st, &bearer).await?;
    let (g, side, _) = seat_of(&st, &id, &bearer.name).await?;
    let mut reader = super::seated_reader(&st, &g, &bearer.name, side, client).await?;
    let say = Say {
        room,
        text: Some(text),
        preset: None,
    };
    reader.say(say).await.map_err(refused)?;
    Ok(ok())
}

/// A chat refusal as the API's error.
fn refused(e: crate::ws::SocketError) -> ApiError {
    use crate::error::ErrorCode;
    let status = match e.error {
        ErrorCode::RateLimited | ErrorCode::Repeated => axum::http::StatusCode::TOO_MANY_REQUESTS,
        ErrorCode::Malformed | ErrorCode::BadText => axum::http::StatusCode::BAD_REQUEST,
        _ => axum::http::StatusCode::FORBIDDEN,
    };
    ApiError::new(status, e.error, e.message)
}
