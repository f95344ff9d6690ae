//! `POST /api/reports`: a logged-in player reports another (issue 38). The store attaches the
//! evidence and refuses a flood (5 an hour per account, one open report per target) in the
//! transaction that files it; the address is held back by its own limiter before that.

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::account::key_of;
use crate::api::client::ClientIp;
use crate::api::extract::Authed;
use crate::api::JsonBody;
use crate::app::AppState;
use crate::dates::now_ms;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::store::{Filed, ReportReason, ReportRow, REPORTS_PER_WINDOW, REPORT_TEXT_MAX};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReportRequest {
    player: String,
    reason: ReportReason,
    #[serde(default)]
    text: String,
}

/// The text as stored: at most [`REPORT_TEXT_MAX`] characters, no control characters but
/// line breaks and tabs (it is shown to moderators as text, never as HTML).
fn check_text(text: &str) -> ApiResult<String> {
    if text.chars().count() > REPORT_TEXT_MAX {
        return Err(ApiError::malformed(format!(
            "text: at most {REPORT_TEXT_MAX} characters"
        )));
    }
    if text
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return Err(ApiError::malformed("text: no control characters"));
    }
    Ok(text.trim().to_string())
}

/// `POST /api/reports {"player", "reason", "text"}`: 201 `{"id"}`.
pub async fn report(
    State(st): State<AppState>,
    client: ClientIp,
    Authed(s): Authed,
    JsonBody(req): JsonBody<ReportRequest>,
) -> ApiResult<(StatusCode, Json<Value>)> {
    client.check(&st.limiters().reports, "reports")?;
    let text = check_text(&req.text)?;
    let key = key_of(&req.player);
    let target = st
        .db(move |db| db.account(&key))
        .await?
        .ok_or_else(|| crate::api::players::unknown_player(&req.player))?;
    if target.name == s.name {
        return Err(ApiError::malformed("you cannot report yourself"));
    }
    let row = ReportRow {
        id: crate::ids::new_id(),
        at: now_ms(),
        reporter: s.name,
        target: target.name,
        reason: req.reason,
        text,
        evidence: String::new(),
        open: true,
        closed_by: None,
        closed_at: None,
    };
    let id = row.id.clone();
    match st.db(move |db| db.file_report(row)).await? {
        Filed::Filed => Ok((StatusCode::CREATED, Json(json!({ "id": id })))),
        Filed::AlreadyOpen => Err(ApiError::new(
            StatusCode::CONFLICT,
            ErrorCode::AlreadyReported,
            "you have an open report about this player already; a moderator will read it",
        )),
        Filed::TooMany => Err(ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::RateLimited,
            format!("at most {REPORTS_PER_WINDOW} reports an hour; try again later"),
        )
        .with_retry_after(600)),
    }
}

/// The route of reports (under /api).
pub fn router() -> axum::Router<AppState> {
    axum::Router::new().route("/reports", axum::routing::post(report))
}
