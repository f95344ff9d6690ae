//! Blocks (issue 38): `POST /api/players/{name}/block` and `…/unblock`, `GET
//! /api/account/blocks`. A block keeps two accounts apart: no challenges, no seeks, no chat
//! between them, and the blocked one may not watch the blocker's games. Checked where each of
//! those happens (lobby, chat, events), from the store, so that it holds on every instance.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use serde_json::{json, Value};

use crate::api::client::ClientIp;
use crate::api::extract::{Authed, Viewer};
use crate::app::AppState;
use crate::error::{ApiError, ApiResult, ErrorCode};

/// Accounts one account may block: more than anyone needs, few enough to read at once.
pub const BLOCKS_MAX: usize = 500;

/// Whether either of accounts `a`, `b` blocks the other.
pub async fn between(st: &AppState, a: &str, b: &str) -> ApiResult<bool> {
    let (a, b) = (a.to_string(), b.to_string());
    st.db(move |s| s.blocked_between(&a, &b)).await
}

/// The account `name` names (any case), as typed at signup.
async fn account_named(st: &AppState, name: &str) -> ApiResult<String> {
    Ok(crate::api::players::name_of(st, name).await?.0)
}

/// `POST /api/players/{name}/block`.
async fn block(
    State(st): State<AppState>,
    Authed(me): Authed,
    client: ClientIp,
    Path(name): Path<String>,
) -> ApiResult<Json<Value>> {
    client.check(&st.limiters().blocks, "blocks and unblocks")?;
    let other = account_named(&st, &name).await?;
    if other == me.name {
        return Err(ApiError::not_allowed("you cannot block yourself"));
    }
    let (who, them) = (me.name.clone(), other.clone());
    let new = st
        .db(move |s| {
            if s.blocks_of(&who, BLOCKS_MAX)?.len() >= BLOCKS_MAX {
                return Ok(None);
            }
            s.block(&who, &them).map(Some)
        })
        .await?;
    if new.is_none() {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            ErrorCode::OutOfRange,
            format!("at most {BLOCKS_MAX} blocks: unblock someone first"),
        ));
    }
    Ok(Json(json!({ "blocked": other })))
}

/// `POST /api/players/{name}/unblock`.
async fn unblock(
    State(st): State<AppState>,
    Authed(me): Authed,
    client: ClientIp,
    Path(name): Path<String>,
) -> ApiResult<Json<Value>> {
    client.check(&st.limiters().blocks, "blocks and unblocks")?;
    let other = account_named(&st, &name).await?;
    let (who, them) = (me.name.clone(), other.clone());
    st.db(move |s| s.unblock(&who, &them)).await?;
    Ok(Json(json!({ "unblocked": other })))
}

/// `GET /api/account/blocks`: the accounts the logged-in one blocks, newest first.
async fn list(State(st): State<AppState>, viewer: Viewer) -> ApiResult<Json<Value>> {
    let name = viewer
        .name()
        .ok_or_else(crate::api::extract::not_logged_in)?
        .to_string();
    let rows = st.db(move |s| s.blocks_of(&name, BLOCKS_MAX)).await?;
    let blocks: Vec<Value> = rows
        .into_iter()
        .map(|b| json!({ "name": b.blocked, "at": b.at }))
        .collect();
    Ok(Json(json!({ "blocks": blocks })))
}

/// The routes of blocks (under /api).
pub fn router() -> axum::Router<AppState> {
    use axum::routing::{get, post};
    axum::Router::new()
        .route("/players/{name}/block", post(block))
        .route("/players/{name}/unblock", post(unblock))
        .route("/account/blocks", get(list))
}
