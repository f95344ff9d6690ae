//! Challenges as lichess's clients make them (`/api/challenge/…`), on the page's cores
//! (crate::api::challenges): a token with `challenge:write` (or `bot:play`, `board:play`) or a
//! logged-in session; the terms as a form or flat JSON — `rated`, `clock.limit` and
//! `clock.increment` in seconds or `days`, `variant`, `color`.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

use super::form::Flat;
use super::lichess;
use crate::account::token::Scope;
use crate::api::bearer::Caller;
use crate::api::challenges::{self, ChallengeRequest};
use crate::app::AppState;
use crate::error::{ApiError, ApiResult};
use crate::lobby::message::SideChoice;

/// The scopes that let a token answer and send challenges.
const SCOPES: [Scope; 3] = [Scope::ChallengeWrite, Scope::BotPlay, Scope::BoardPlay];

fn allowed(caller: &Caller) -> ApiResult<()> {
    match caller {
        Caller::Token(b) => b.require_any(&SCOPES),
        Caller::Session(_) => Ok(()),
    }
}

/// The clock a form names: `clock.limit` and `clock.increment` in seconds, or `days`; none
/// for an untimed game.
pub fn clock_of(form: &Flat) -> ApiResult<Option<String>> {
    let (limit, inc, days) = (
        form.int("clock.limit")?,
        form.int("clock.increment")?,
        form.int("days")?,
    );
    match (limit, inc, days) {
        (None, None, None) => Ok(None),
        (None, None, Some(d)) => Ok(Some(format!("{d}d"))),
        (Some(limit), inc, None) => {
            let minutes = match limit {
                0 => "0".to_string(),
                15 => "0.25".to_string(),
                30 => "0.5".to_string(),
                45 => "0.75".to_string(),
                s if s > 0 && s % 60 == 0 => (s / 60).to_string(),
                _ => {
                    return Err(ApiError::malformed(format!(
                        "clock.limit: {limit} s is not a limit the site plays (0, 15, 30, 45, \
                         or whole minutes)"
                    )))
                }
            };
            Ok(Some(format!("{minutes}+{}", inc.unwrap_or(0))))
        }
        (None, Some(_), _) => Err(ApiError::malformed("clock.increment needs clock.limit")),
        (Some(_), _, Some(_)) => Err(ApiError::malformed(
            "give clock.limit and clock.increment, or days, not both",
        )),
    }
}

/// `variant`: the rules' name; lichess's `standard` is the standard rules.
fn rules_of(form: &Flat) -> String {
    match form.get("variant") {
        None | Some("standard") => "anywoli".to_string(),
        Some(v) => v.to_string(),
    }
}

fn side_of(form: &Flat) -> ApiResult<SideChoice> {
    match form.get("color") {
        None | Some("random") => Ok(SideChoice::Random),
        Some("white") | Some("south") => Ok(SideChoice::South),
        Some("black") | Some("north") => Ok(SideChoice::North),
        Some(c) => Err(ApiError::malformed(format!(
            "color '{}' is none of white, black, random",
            c.chars().take(20).collect::<String>()
        ))),
    }
}

/// `POST /api/challenge/{username}`: answers the challenge as lichess does, with its `id` at
/// the top and again under `challenge`.
pub async fn create(
    State(st): State<AppState>,
    Path(to): Path<String>,
    caller: Caller,
    form: Flat,
) -> ApiResult<Response> {
    allowed(&caller)?;
    let req = ChallengeRequest {
        to,
        rules: rules_of(&form),
        clock: clock_of(&form)?,
        rated: form.bool("rated")?.unwrap_or(false),
        side: side_of(&form)?,
    };
    let me = caller.name().to_string();
    let c = challenges::send(&st, &me, req).await?;
    let names = vec![c.from.clone(), c.to.clone()];
    let bots = st.db(move |s| s.bots_among(&names)).await?;
    let mut v = lichess::challenge(&c, &me, &bots);
    v["challenge"] = v.clone();
    Ok((StatusCode::CREATED, Json(v)).into_response())
}

/// `POST /api/challenge/{id}/accept`: the game starts (`gameStart` on both event streams).
pub async fn accept(
    State(st): State<AppState>,
    Path(id): Path<String>,
    caller: Caller,
) -> ApiResult<Json<Value>> {
    allowed(&caller)?;
    let a = challenges::accept(&st, caller.name(), &id).await?;
    Ok(Json(json!({"ok": true, "game": {"id": a.game}})))
}

/// `POST /api/challenge/{id}/decline` (a form's `reason` is taken and not kept).
pub async fn decline(
    State(st): State<AppState>,
    Path(id): Path<String>,
    caller: Caller,
    _form: Flat,
) -> ApiResult<Json<Value>> {
    allowed(&caller)?;
    challenges::decline(&st, caller.name(), &id).await?;
    Ok(Json(json!({"ok": true})))
}

/// `POST /api/challenge/{id}/cancel`: its sender takes it back.
pub async fn cancel(
    State(st): State<AppState>,
    Path(id): Path<String>,
    caller: Caller,
) -> ApiResult<Json<Value>> {
    allowed(&caller)?;
    challenges::decline(&st, caller.name(), &id).await?;
    Ok(Json(json!({"ok": true})))
}
