//! Account care (issue 38): setting a new password with a reset link (`anywoli admin
//! reset-link`), exporting one's data, and closing one's own account. (Sessions are
//! `sessions.rs`'s.) Passwords go only to `account::password`; no answer or log line carries
//! one, nor a token or a hash.

use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::account::reset::is_reset_token;
use crate::account::session::token_of;
use crate::account::{check_password, key_of, password};
use crate::api::account::{attempt_key, cleared, not_locked};
use crate::api::client::ClientIp;
use crate::api::extract::{not_logged_in, Authed, Viewer};
use crate::api::sessions::sessions_json;
use crate::api::JsonBody;
use crate::app::AppState;
use crate::dates::now_ms;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::round::view::SummaryView;
use crate::store::{Act, Listing, Moderate, PlayerGames, ReportsOf};

/// Most games and rating-history points an export holds (newest first).
pub const EXPORT_MAX: usize = 10_000;

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

/// `GET /api/account/export`: the account's data as one JSON download: the account, its
/// ratings and their history, its games, its sessions (by handle), the reports it filed and
/// the addresses it was seen from (its own only: never who else shares them).
pub async fn export(
    State(st): State<AppState>,
    client: ClientIp,
    Viewer(me): Viewer,
) -> ApiResult<Response> {
    let me = me.ok_or_else(not_logged_in)?;
    client.check(&st.limiters().care, "account requests")?;
    let sessions = sessions_json(&st, &me).await?;
    let name = me.name.clone();
    let (account, standing, ratings, history, games, reports, addresses) = st
        .db(move |db| {
            let listing = Listing::Player(PlayerGames::new(name.clone(), true, EXPORT_MAX));
            Ok((
                db.account(&key_of(&name))?,
                db.standing(&name)?,
                db.ratings(&name)?,
                db.rating_history(&name, EXPORT_MAX)?,
                db.list(&listing)?,
                db.reports(ReportsOf::By(&name), EXPORT_MAX)?,
                db.addresses(&name)?,
            ))
        })
        .await?;
    let account = account.ok_or_else(not_logged_in)?;
    let games: Vec<SummaryView> = games.into_iter().map(SummaryView::from).collect();
    let body = json!({
        "account": {"name": account.name, "created": account.created,
                    "moderator": standing.moderator},
        "ratings": ratings.iter().map(|r| json!({
            "category": r.category, "rules": r.rules, "rating": r.rating.rating,
            "deviation": r.rating.deviation, "games": r.games, "at": r.at,
        })).collect::<Vec<_>>(),
        "rating_history": history.iter().map(|p| json!({
            "category": p.category, "rules": p.rules, "at": p.at, "rating": p.rating,
            "deviation": p.deviation, "game": p.game,
        })).collect::<Vec<_>>(),
        "games": games,
        "sessions": sessions,
        "reports_filed": reports.iter().map(|r| json!({
            "id": r.id, "at": r.at, "player": r.target, "reason": r.reason, "text": r.text,
            "open": r.open,
        })).collect::<Vec<_>>(),
        "addresses": addresses,
        "exported": now_ms(),
    });
    let mut resp = Json(body).into_response();
    let file = format!("attachment; filename=\"anywoli-{}.json\"", account.name);
    if let Ok(v) = HeaderValue::from_str(&file) {
        resp.headers_mut().insert(header::CONTENT_DISPOSITION, v);
    }
    Ok(resp)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CloseRequest {
    password: String,
}

/// `POST /api/account/close {"password"}`: one's own account closes (its sessions end, it can
/// no longer log in; its games stay, under its name marked closed). A moderator can reopen it.
pub async fn close(
    State(st): State<AppState>,
    client: ClientIp,
    Authed(me): Authed,
    JsonBody(req): JsonBody<CloseRequest>,
) -> ApiResult<Response> {
    client.check(&st.limiters().care, "account requests")?;
    let key = key_of(&me.name);
    // Guessing the password through this form is held back as through the login form.
    let attempt = attempt_key(&key, &client);
    not_locked(&st, &attempt)?;
    let account = st
        .db(move |db| db.account(&key))
        .await?
        .ok_or_else(not_logged_in)?;
    if !password::verify(req.password, account.hash).await? {
        st.attempts().failed(&attempt);
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            ErrorCode::BadLogin,
            "the password is not right",
        ));
    }
    let m = Moderate {
        act: Act::Close,
        moderator: account.name.clone(),
        target: account.name,
        reason: "closed by its owner".into(),
        detail: json!({}),
        at: now_ms(),
    };
    st.db(move |db| db.moderate(m)).await?;
    Ok(cleared(&st))
}

/// `GET /api/account/warnings`: `{"warnings": [{"at", "reason"}]}`, newest first.
pub async fn list_warnings(
    State(st): State<AppState>,
    Viewer(me): Viewer,
) -> ApiResult<Json<Value>> {
    let me = me.ok_or_else(not_logged_in)?;
    let list = st.db(move |db| db.warnings(&me.name)).await?;
    let list: Vec<Value> = list
        .into_iter()
        .map(|(at, reason)| json!({"at": at, "reason": reason}))
        .collect();
    Ok(Json(json!({ "warnings": list })))
}

/// The routes of account care (under /api).
pub fn router() -> axum::Router<AppState> {
    use crate::api::sessions;
    use axum::routing::{get, post};
    axum::Router::new()
        .route("/account/reset", post(reset))
        .route("/account/export", get(export))
        .route("/account/sessions", get(sessions::list))
        .route("/account/sessions/{id}/end", post(sessions::end))
        .route("/account/close", post(close))
        .route("/account/warnings", get(list_warnings))
}
