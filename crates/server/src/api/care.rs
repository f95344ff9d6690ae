//! Account care (issue 38): setting a new password with a reset link (`anywoli admin
//! reset-link`). Passwords go only to `account::password`; no answer or log line carries one,
//! nor a token.

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::account::reset::is_reset_token;
use crate::account::session::token_of;
use crate::account::{check_password, password};
use crate::api::client::ClientIp;
use crate::api::JsonBody;
use crate::app::AppState;
use crate::dates::now_ms;
use crate::error::{ApiError, ApiResult, ErrorCode};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResetRequest {
    token: String,
    password: String,
}

fn link_invalid() -> ApiError {
    ApiError::new(
        StatusCode::GONE,
        ErrorCode::ResetLinkInvalid,
        "this reset link was used, replaced by a newer one or has expired: ask for a new one",
    )
}

/// `POST /api/account/reset {"token", "password"}`: the account's password becomes
/// `password` and every session of the account ends; `{"name"}`, to log in with.
pub async fn reset(
    State(st): State<AppState>,
    client: ClientIp,
    JsonBody(req): JsonBody<ResetRequest>,
) -> ApiResult<Json<Value>> {
    // Held back like logins: each try costs a password hash.
    client.check(&st.limiters().logins, "signups and logins")?;
    check_password(&req.password)?;
    if !is_reset_token(&req.token) {
        return Err(link_invalid());
    }
    let hash = token_of(&req.token);
    let new = password::hash(req.password).await?;
    let now = now_ms();
    let name = st.db(move |s| s.redeem_reset(&hash, now, &new)).await?;
    let name = name.ok_or_else(link_invalid)?;
    Ok(Json(json!({ "name": name })))
}

/// The routes of account care (under /api).
pub fn router() -> axum::Router<AppState> {
    use axum::routing::post;
    axum::Router::new().route("/account/reset", post(reset))
}
