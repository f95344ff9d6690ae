//! Personal API tokens over HTTP (docs/api-bots.md, "Tokens"): made by a logged-in session
//! (the account page, or `POST /api/tokens`), listed without their text, revoked. A token's
//! text is in the answer that makes it and nowhere else, ever.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::account::token::{new_token, Scopes, TOKENS_PER_ACCOUNT};
use crate::api::client::ClientIp;
use crate::api::extract::{not_logged_in, Authed, Viewer};
use crate::api::JsonBody;
use crate::app::AppState;
use crate::dates::now_ms;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::store::{Minted, TokenRow};

/// Longest description, in characters.
pub const DESCRIPTION_MAX: usize = 100;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewToken {
    #[serde(default)]
    description: String,
    scopes: Vec<String>,
}

/// What a token is, as its account sees it (never its text).
pub fn token_json(t: &TokenRow) -> Value {
    json!({
        "id": t.id,
        "description": t.description,
        "scopes": Scopes::stored(&t.scopes).names(),
        "created": t.created,
        "used": t.used,
    })
}

/// Checks a new token's description and scopes.
pub fn checked(description: &str, scopes: &[String]) -> ApiResult<(String, Scopes)> {
    let description = description.trim();
    if description.chars().count() > DESCRIPTION_MAX || description.chars().any(char::is_control) {
        return Err(ApiError::malformed(format!(
            "description: at most {DESCRIPTION_MAX} characters, on one line"
        )));
    }
    let scopes = Scopes::parse(scopes.iter().map(String::as_str))
        .map_err(|e| ApiError::malformed(format!("scopes: {e}")))?;
    if scopes.names().is_empty() {
        return Err(ApiError::malformed(
            "scopes: name at least one (bot:play, board:play, challenge:read, challenge:write, \
             game:read, tournament:write)",
        ));
    }
    Ok((description.to_string(), scopes))
}

/// Makes a token of `account`: its text, and its row.
pub async fn mint(
    st: &AppState,
    account: &str,
    description: String,
    scopes: &Scopes,
) -> ApiResult<(String, TokenRow)> {
    let (text, hash) = new_token();
    let row = TokenRow {
        id: crate::ids::new_id(),
        account: account.to_string(),
        description,
        scopes: scopes.text(),
        created: now_ms(),
        used: None,
    };
    let stored = row.clone();
    match st
        .db(move |s| s.mint_token(stored, hash, TOKENS_PER_ACCOUNT))
        .await?
    {
        Minted::New => Ok((text, row)),
        Minted::TooMany { max } => Err(ApiError::new(
            StatusCode::CONFLICT,
            ErrorCode::TooManyTokens,
            format!("an account holds at most {max} tokens: revoke one first"),
        )),
    }
}

/// `POST /api/tokens`: `{"description", "scopes": [...]}` → `{"token", …}`, the text shown
/// once.
pub async fn create(
    State(st): State<AppState>,
    client: ClientIp,
    Authed(me): Authed,
    JsonBody(req): JsonBody<NewToken>,
) -> ApiResult<Response> {
    client.check(&st.limiters().care, "account changes")?;
    let (description, scopes) = checked(&req.description, &req.scopes)?;
    crate::api::moderation::refuse_closed(&st, Some(&me.name)).await?;
    let (text, row) = mint(&st, &me.name, description, &scopes).await?;
    let mut body = token_json(&row);
    body["token"] = json!(text);
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

/// `GET /api/tokens`: the logged-in account's tokens, newest first, without their text.
pub async fn list(State(st): State<AppState>, viewer: Viewer) -> ApiResult<Json<Value>> {
    let name = viewer.name().ok_or_else(not_logged_in)?.to_string();
    let rows = st.db(move |s| s.tokens(&name)).await?;
    let tokens: Vec<Value> = rows.iter().map(token_json).collect();
    Ok(Json(json!({ "tokens": tokens })))
}

/// `DELETE /api/tokens/{id}`: revokes one of the account's tokens; it opens nothing from then
/// on, on every instance (each request looks its token up).
pub async fn revoke(
    State(st): State<AppState>,
    Path(id): Path<String>,
    Authed(me): Authed,
) -> ApiResult<Json<Value>> {
    let gone = st.db(move |s| s.revoke_token(&me.name, &id)).await?;
    if !gone {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            ErrorCode::NotFound,
            "you have no token with that id (revoked already?)",
        ));
    }
    Ok(Json(json!({"revoked": true})))
}

pub fn router() -> axum::Router<AppState> {
    use axum::routing::{delete, get};
    axum::Router::new()
        .route("/tokens", get(list).post(create))
        .route("/tokens/{id}", delete(revoke))
}
