//! The wait before the next game (issue 38, docs/community.md, "Waits after leaving, stalling
//! or never moving"): what refuses a waiting account's seek, acceptance, challenge or pairing,
//! and `GET /api/account/wait`, which the page shows where one starts a game.

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use serde_json::{json, Value};

use crate::api::extract::Viewer;
use crate::app::AppState;
use crate::dates::now_ms;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::store::PlayWait;

/// The wait `name` is under now, if any.
pub async fn wait_of(st: &AppState, name: &str) -> ApiResult<Option<PlayWait>> {
    let name = name.to_string();
    st.db(move |s| s.play_wait(&name, now_ms())).await
}

/// The refusal of a game while `wait` runs: 429 with `until` and `Retry-After`.
pub fn play_wait(wait: PlayWait, whose: Whose) -> ApiError {
    let minutes = ((wait.until - now_ms()).max(0) + 59_999) / 60_000;
    let message = match whose {
        Whose::Mine => format!(
            "after leaving, stalling or not moving in recent games you can start a game with \
             another player again in {minutes} min"
        ),
        Whose::Theirs => "this player cannot start a game just now".to_string(),
    };
    let e = ApiError::new(StatusCode::TOO_MANY_REQUESTS, ErrorCode::PlayWait, message);
    let seconds = ((wait.until - now_ms()).max(0) as u64).div_ceil(1000);
    let mut e = e.with_retry_after(seconds);
    // The other player's time is theirs to know.
    if whose == Whose::Mine {
        e.until = Some(wait.until);
    }
    e
}

/// Whose wait refuses the game.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Whose {
    Mine,
    Theirs,
}

/// Refuses (changing nothing) if account `name` (if any) is waiting.
pub async fn refuse_waiting(st: &AppState, name: Option<&str>, whose: Whose) -> ApiResult<()> {
    let Some(name) = name else {
        return Ok(());
    };
    match wait_of(st, name).await? {
        Some(w) => Err(play_wait(w, whose)),
        None => Ok(()),
    }
}

/// `GET /api/account/wait`: `{"until": ms, "left": ms, "offences": n}` while the logged-in
/// account waits,
/// `{"until": null}` otherwise (and for a visitor without an account).
pub async fn mine(viewer: Viewer, State(st): State<AppState>) -> ApiResult<Json<Value>> {
    let Some(name) = viewer.name() else {
        return Ok(Json(json!({ "until": null })));
    };
    Ok(Json(match wait_of(&st, name).await? {
        // `left` too: the page counts down from it, whatever its own clock says.
        Some(w) => json!({ "until": w.until, "left": w.until - now_ms(), "offences": w.offences }),
        None => json!({ "until": null }),
    }))
}

/// The route (under /api).
pub fn router() -> axum::Router<AppState> {
    axum::Router::new().route("/account/wait", axum::routing::get(mine))
}
