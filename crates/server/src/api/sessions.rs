//! An account's sessions as its owner sees them (issue 38): each under a short handle that
//! is not the secret (the store's SHA-256 of the cookie, hashed again and cut to 12 hex
//! characters), so a list shown on a screen or in an export opens nothing.

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::api::account::cleared;
use crate::api::client::ClientIp;
use crate::api::extract::{not_logged_in, Authed, Viewer};
use crate::app::AppState;
use crate::dates::now_ms;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::store::{AccountOp, SessionRow};

/// A session's handle: 12 hex characters, not the secret nor reversible to it.
pub fn handle(s: &SessionRow) -> String {
    Sha256::digest(format!("session handle {}", s.token).as_bytes())
        .iter()
        .take(6)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The sessions of `me`'s account as listed: handle, created, last seen (not kept: `null`)
/// and whether it is `me`.
pub async fn sessions_json(st: &AppState, me: &SessionRow) -> ApiResult<Vec<Value>> {
    let name = me.name.clone();
    let all = st.db(move |db| db.sessions_of(&name, now_ms())).await?;
    Ok(all
        .iter()
        .map(|s| {
            json!({
                "id": handle(s), "created": s.created, "last_seen": Value::Null,
                "current": s.token == me.token,
            })
        })
        .collect())
}

/// `GET /api/account/sessions`.
pub async fn list(State(st): State<AppState>, Viewer(me): Viewer) -> ApiResult<Json<Value>> {
    let me = me.ok_or_else(not_logged_in)?;
    Ok(Json(json!({ "sessions": sessions_json(&st, &me).await? })))
}

/// `POST /api/account/sessions/{id}/end`: that session ends (this one too, if named: the
/// cookie is then cleared).
pub async fn end(
    State(st): State<AppState>,
    client: ClientIp,
    Authed(me): Authed,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    client.check(&st.limiters().care, "account requests")?;
    let name = me.name.clone();
    let all = st.db(move |db| db.sessions_of(&name, now_ms())).await?;
    let Some(target) = all.into_iter().find(|s| handle(s) == id) else {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            ErrorCode::NotFound,
            "your account has no session with this id",
        ));
    };
    let this_one = target.token == me.token;
    let op = AccountOp::EndSession {
        token: target.token,
    };
    st.db(move |db| db.account_op(op)).await?;
    if this_one {
        return Ok(cleared(&st));
    }
    let mut resp = Json(json!({})).into_response();
    resp.headers_mut()
        .insert(header::CACHE_CONTROL, "no-store".parse().expect("a header"));
    Ok(resp)
}
