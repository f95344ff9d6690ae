//! Accounts over HTTP (docs/api-players.md): signing up, logging in and out, the password,
//! and bringing seats into an account. Passwords go only to `account::password`; no answer,
//! log line or error carries one.

use crate::error::ErrorCode;
use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::account::session::{clear_cookie, new_session, set_cookie};
use crate::account::{check_name, check_password, key_of, password};
use crate::api::client::ClientIp;
use crate::api::extract::{Authed, Viewer};
use crate::api::JsonBody;
use crate::app::AppState;
use crate::dates::now_ms;
use crate::error::{ApiError, ApiResult};
use crate::round::Command;
use crate::store::{AccountOp, AccountRow, SessionRow};
use crate::trace_json::side_name;

/// Most seats one request brings into an account.
pub const MAX_SEATS: usize = 200;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeatProof {
    game: String,
    secret: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignupRequest {
    name: String,
    password: String,
    #[serde(default)]
    seats: Vec<SeatProof>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoginRequest {
    name: String,
    password: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PasswordRequest {
    old: String,
    new: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimRequest {
    seats: Vec<SeatProof>,
}

fn account_json(s: &SessionRow) -> Value {
    json!({"name": s.name, "csrf": s.csrf})
}

/// Whether cookies must be `Secure`: the page is served over TLS (`--public-url https://…`).
pub(crate) fn secure(st: &AppState) -> bool {
    st.site()
        .public_url
        .as_deref()
        .is_some_and(|u| u.starts_with("https://"))
}

/// `GET /api/account`: with `moderator` (read at each request) for the page's /mod link, and
/// `warned`, when a moderator last warned the account (the page says so once).
/// With a token (`Authorization: Bearer`), lichess's shape instead: `{id, username, title}`.
pub async fn me(
    State(st): State<AppState>,
    bearer: Option<crate::api::bearer::Bearer>,
    viewer: Viewer,
) -> ApiResult<Json<Value>> {
    if let Some(b) = bearer {
        return crate::api::bot::token_account(&st, &b).await;
    }
    let Some(s) = viewer.0 else {
        return Ok(Json(json!({ "account": null })));
    };
    let name = s.name.clone();
    let (standing, warned) = st
        .db(move |db| {
            let warned = db.warnings(&name)?.first().map(|w| w.0);
            Ok((db.standing(&name)?, warned))
        })
        .await?;
    let mut account = account_json(&s);
    account["moderator"] = json!(standing.moderator);
    account["warned"] = json!(warned);
    Ok(Json(json!({ "account": account })))
}

/// `POST /api/account/signup`.
pub async fn signup(
    State(st): State<AppState>,
    client: ClientIp,
    JsonBody(req): JsonBody<SignupRequest>,
) -> ApiResult<Response> {
    client.check(&st.limiters().logins, "signups and logins")?;
    check_name(&req.name)?;
    check_password(&req.password)?;
    too_many_seats(req.seats.len())?;
    let hash = password::hash(req.password).await?;
    let at = now_ms();
    let (cookie, session) = new_session(&req.name, at);
    let account = AccountRow {
        key: key_of(&req.name),
        name: req.name.clone(),
        hash,
        created: at,
    };
    let op = AccountOp::Create {
        account,
        session: session.clone(),
    };
    if !st.db(move |s| s.account_op(op)).await? {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            ErrorCode::NameTaken,
            format!("the name '{}' is taken", req.name),
        ));
    }
    seen_from(&st, &req.name, &client).await;
    let claimed = claim_seats(&st, &req.name, &req.seats).await;
    let mut resp = (
        StatusCode::CREATED,
        Json(json!({"account": account_json(&session), "claimed": claimed})),
    )
        .into_response();
    resp.headers_mut()
        .insert(header::SET_COOKIE, set_cookie(&cookie, secure(&st)));
    Ok(resp)
}

/// `POST /api/account/login`. An unknown name and a wrong password are the same refusal,
/// and take as long.
pub async fn login(
    State(st): State<AppState>,
    client: ClientIp,
    JsonBody(req): JsonBody<LoginRequest>,
) -> ApiResult<Response> {
    client.check(&st.limiters().logins, "signups and logins")?;
    let key = key_of(&req.name);
    let attempt = attempt_key(&key, &client);
    not_locked(&st, &attempt)?;
    let lookup = key.clone();
    let account = st.db(move |s| s.account(&lookup)).await?;
    let stored = account
        .as_ref()
        .map_or(password::NOBODY.to_string(), |a| a.hash.clone());
    let right = password::verify(req.password, stored).await?;
    let Some(account) = account.filter(|_| right) else {
        st.attempts().failed(&attempt);
        return Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            ErrorCode::BadLogin,
            "no account has this name and password",
        ));
    };
    // Said only to whoever knows the password: a guesser learns nothing of the account.
    let name = account.name.clone();
    let standing = st.db(move |s| s.standing(&name)).await?;
    if standing.closed.is_some() {
        return Err(crate::api::moderation::account_closed());
    }
    let (cookie, session) = new_session(&account.name, now_ms());
    let op = AccountOp::AddSession(session.clone());
    st.db(move |s| s.account_op(op)).await?;
    seen_from(&st, &account.name, &client).await;
    let mut shown = account_json(&session);
    shown["moderator"] = json!(standing.moderator);
    let mut resp = Json(json!({ "account": shown })).into_response();
    resp.headers_mut()
        .insert(header::SET_COOKIE, set_cookie(&cookie, secure(&st)));
    Ok(resp)
}

/// Records the client's address (IPv4, or its IPv6 /64) for the account that signed up or
/// logged in, for moderators' shared-address links (`store/addresses.rs`). Its session is
/// made already: a failure here is logged (without the address), not the login's failure.
async fn seen_from(st: &AppState, name: &str, client: &ClientIp) {
    let Some(ip) = client.0 else { return };
    let (who, address) = (
        name.to_string(),
        crate::rate_limit::client_key(ip).to_string(),
    );
    if let Err(e) = st.db(move |s| s.seen_from(&who, &address, now_ms())).await {
        tracing::warn!("the address of {name}'s login was not kept: {}", e.message);
    }
}

/// What failed passwords are counted under: the name *and* the client's address (issue 36:
/// counted by name alone, five wrong passwords from anyone locked the owner out for 15
/// minutes). A guesser is held back on their own address; the owner elsewhere is not.
pub(crate) fn attempt_key(name_key: &str, client: &ClientIp) -> String {
    match client.0 {
        Some(ip) => format!("{name_key} {}", crate::rate_limit::client_key(ip)),
        None => name_key.to_string(),
    }
}

/// Refuses a password check for a name with too many wrong passwords lately.
pub(crate) fn not_locked(st: &AppState, key: &str) -> ApiResult<()> {
    st.attempts().check(key).map_err(|wait| {
        ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::RateLimited,
            format!(
                "too many failed attempts for this name from your address; try again in {} s",
                wait.as_secs()
            ),
        )
        .with_retry_after(wait.as_secs())
    })
}

/// `POST /api/account/logout`: this session ends. A cookie that opens no session any more
/// (ended elsewhere, run out) is cleared all the same: there is nothing to protect.
pub async fn logout(
    State(st): State<AppState>,
    headers: axum::http::HeaderMap,
    Viewer(session): Viewer,
) -> ApiResult<Response> {
    if let Some(s) = session {
        crate::account::session::check_csrf(&headers, &s)?;
        let op = AccountOp::EndSession { token: s.token };
        st.db(move |st| st.account_op(op)).await?;
    }
    Ok(cleared(&st))
}

/// `POST /api/account/logout-all`: every session of the account ends, this one too.
pub async fn logout_all(State(st): State<AppState>, Authed(s): Authed) -> ApiResult<Response> {
    let op = AccountOp::EndSessions {
        name: s.name,
        except: None,
    };
    st.db(move |st| st.account_op(op)).await?;
    Ok(cleared(&st))
}

pub(crate) fn cleared(st: &AppState) -> Response {
    let mut resp = Json(json!({})).into_response();
    resp.headers_mut()
        .insert(header::SET_COOKIE, clear_cookie(secure(st)));
    resp
}

/// `POST /api/account/password`: the other sessions end (whoever else held one is out).
pub async fn change_password(
    State(st): State<AppState>,
    client: ClientIp,
    Authed(s): Authed,
    JsonBody(req): JsonBody<PasswordRequest>,
) -> ApiResult<Json<Value>> {
    client.check(&st.limiters().logins, "signups and logins")?;
    check_password(&req.new)?;
    let key = key_of(&s.name);
    // Guessing the password through this form is held back as through the login form.
    let attempt = attempt_key(&key, &client);
    not_locked(&st, &attempt)?;
    let account = st
        .rounds()
        .db(move |db| db.account(&key))
        .await?
        .ok_or_else(crate::api::extract::not_logged_in)?;
    if !password::verify(req.old, account.hash).await? {
        st.attempts().failed(&attempt);
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            ErrorCode::BadLogin,
            "the current password is not right",
        ));
    }
    let hash = password::hash(req.new).await?;
    let (name, token) = (s.name.clone(), s.token.clone());
    st.rounds()
        .db(move |db| {
            db.account_op(AccountOp::SetPassword {
                name: name.clone(),
                hash,
            })?;
            db.account_op(AccountOp::EndSessions {
                name,
                except: Some(token),
            })
        })
        .await?;
    Ok(Json(json!({})))
}

/// `POST /api/account/claim`.
pub async fn claim(
    State(st): State<AppState>,
    Authed(s): Authed,
    JsonBody(req): JsonBody<ClaimRequest>,
) -> ApiResult<Json<Value>> {
    too_many_seats(req.seats.len())?;
    let claimed = claim_seats(&st, &s.name, &req.seats).await;
    Ok(Json(json!({ "claimed": claimed })))
}

fn too_many_seats(n: usize) -> ApiResult<()> {
    if n > MAX_SEATS {
        return Err(ApiError::malformed(format!(
            "at most {MAX_SEATS} seats at once"
        )));
    }
    Ok(())
}

/// Brings each seat whose secret is right and that belongs to nobody into `name`'s account;
/// how many did. A seat that cannot be brought in (a wrong secret, a game gone) is skipped:
/// the others still count.
async fn claim_seats(st: &AppState, name: &str, seats: &[SeatProof]) -> usize {
    let mut claimed = 0;
    for p in seats {
        let r = st
            .rounds()
            .call(&p.game, |reply| Command::Own {
                secret: p.secret.clone(),
                name: name.to_string(),
                reply,
            })
            .await;
        if let Ok(Ok(n)) = r {
            claimed += n;
        }
    }
    claimed
}

/// `POST /api/games/{id}/seat`: the logged-in account's seat in the game, with its secret, for
/// playing it on another device.
pub async fn seat(
    State(st): State<AppState>,
    Path(id): Path<String>,
    Authed(s): Authed,
) -> ApiResult<Json<Value>> {
    let g = st.rounds().snapshot(&id).await?;
    let mine: Vec<anywoli_core::Side> = anywoli_core::Side::ALL
        .into_iter()
        .filter(|side| g.people.accounts[*side].as_deref() == Some(s.name.as_str()))
        .collect();
    let secret = mine
        .first()
        .and_then(|side| g.secrets()[*side].clone())
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::FORBIDDEN,
                ErrorCode::NotYourSeat,
                "no seat of this game belongs to your account",
            )
        })?;
    Ok(Json(json!({
        "seat": crate::api::seat_name(&mine),
        "secret": secret,
        "side": side_name(mine[0]),
    })))
}

/// The routes of accounts: signing up and in and out, passwords, claims, and taking a seat with one (under /api).
pub fn router() -> axum::Router<AppState> {
    use axum::routing::{get, post};
    axum::Router::new()
        .route("/games/{id}/seat", post(seat))
        .route("/account", get(me))
        .route("/account/signup", post(signup))
        .route("/account/login", post(login))
        .route("/account/logout", post(logout))
        .route("/account/logout-all", post(logout_all))
        .route("/account/password", post(change_password))
        .route("/account/claim", post(claim))
}
