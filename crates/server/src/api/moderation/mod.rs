//! The moderators' API, `/api/mod/` (issue 38, docs/api-players.md): the report queue, a
//! player's dossier, actions on an account and the moderation log. Every request passes
//! [`guard::Moderator`]; every action is one store change with its log line.

mod guard;
mod signals;
mod views;

pub use guard::{account_closed, refuse_closed, Moderator};

use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::account::key_of;
use crate::api::players::{profile, unknown_player};
use crate::api::JsonBody;
use crate::app::AppState;
use crate::dates::now_ms;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::round::view::SummaryView;
use crate::store::{Act, Listing, MarkKind, Moderate, PlayerGames, ReportsOf};
use views::{log_lines_json, reports_json};

/// Most characters of a moderator's reason.
pub const REASON_MAX: usize = 500;
/// Reports and log lines one answer lists.
const LISTED: usize = 200;
/// Games a dossier lists.
const DOSSIER_GAMES: usize = 50;
/// The player's chat lines the dossier shows, newest first (as many as a report attaches).
const DOSSIER_CHAT: usize = 50;

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct ActRequest {
    #[serde(default)]
    reason: String,
    /// For `mute`: how long, in minutes (0 lifts a mute; at most [`MUTE_MAX_MINUTES`]).
    #[serde(default)]
    minutes: Option<u32>,
}

/// The longest mute a moderator gives at once: 30 days (closing the account is the step after).
pub const MUTE_MAX_MINUTES: u32 = 30 * 24 * 60;

fn check_reason(reason: &str) -> ApiResult<String> {
    if reason.chars().count() > REASON_MAX {
        return Err(ApiError::malformed(format!(
            "reason: at most {REASON_MAX} characters"
        )));
    }
    if reason.chars().any(|c| c.is_control() && c != '\n') {
        return Err(ApiError::malformed("reason: no control characters"));
    }
    Ok(reason.trim().to_string())
}

/// `GET /api/mod/reports`: the open queue, oldest first, each with its evidence.
pub async fn queue(State(st): State<AppState>, _m: Moderator) -> ApiResult<Json<Value>> {
    let open = st.db(|db| db.reports(ReportsOf::Open, LISTED)).await?;
    Ok(Json(json!({ "reports": reports_json(&open) })))
}

/// `GET /api/mod/log?target=NAME`: the newest lines, newest first.
pub async fn log(
    State(st): State<AppState>,
    _m: Moderator,
    RawQuery(query): RawQuery,
) -> ApiResult<Json<Value>> {
    let target = match query.as_deref().unwrap_or("").split_once('=') {
        Some(("target", name)) => Some(name.to_string()),
        None if query.as_deref().unwrap_or("").is_empty() => None,
        _ => return Err(ApiError::malformed("the only query parameter is target")),
    };
    let lines = st
        .db(move |db| db.mod_log(target.as_deref(), LISTED))
        .await?;
    Ok(Json(json!({ "log": log_lines_json(&lines) })))
}

/// `GET /api/mod/players/{name}`: the profile (ratings, history, counts), the account's
/// standing, its games, reports about it and by it, the other accounts seen from its addresses
/// (`store/addresses.rs`) and the log about it.
pub async fn dossier(
    State(st): State<AppState>,
    _m: Moderator,
    Path(name): Path<String>,
) -> ApiResult<Json<Value>> {
    let Json(mut v) = profile(State(st.clone()), Path(name)).await?;
    let name = v["name"].as_str().unwrap_or_default().to_string();
    let lookup = name.clone();
    let (standing, games, about, by, log, marks, shared) = st
        .db(move |db| {
            let listing = Listing::Player(PlayerGames::new(name.clone(), true, DOSSIER_GAMES));
            Ok((
                db.standing(&name)?,
                db.list(&listing)?,
                db.reports(ReportsOf::About(&name), LISTED)?,
                db.reports(ReportsOf::By(&name), LISTED)?,
                db.mod_log(Some(&name), LISTED)?,
                db.marks(&name)?,
                db.shared_address(&name)?,
            ))
        })
        .await?;
    let (offences, wait, chat) = st
        .db(move |db| {
            Ok((
                db.offences(&lookup)?,
                db.play_wait(&lookup, now_ms())?,
                db.chat_lines_by(&lookup, DOSSIER_CHAT)?,
            ))
        })
        .await?;
    v["chat"] = json!(chat);
    v["offences"] = views::offences_json(&offences);
    v["wait"] = json!(wait.map(|w| json!({ "until": w.until, "offences": w.offences })));
    let games: Vec<SummaryView> = games.into_iter().map(SummaryView::from).collect();
    v["moderator"] = json!(standing.moderator);
    v["closed"] = json!(standing.closed);
    v["marks"] = json!(views::marks_json(&marks));
    v["games"] = json!(games);
    v["reports_about"] = json!(reports_json(&about));
    v["reports_by"] = json!(reports_json(&by));
    v["shared_address"] = json!(shared);
    v["signals"] = signals::player_signals(&st, v["name"].as_str().unwrap_or_default()).await?;
    v["log"] = json!(log_lines_json(&log));
    Ok(Json(v))
}

/// `POST /api/mod/reports/{id}/close {"reason"}`.
pub async fn close_report(
    State(st): State<AppState>,
    Moderator(s): Moderator,
    Path(id): Path<String>,
    JsonBody(req): JsonBody<ActRequest>,
) -> ApiResult<Json<Value>> {
    let reason = check_reason(&req.reason)?;
    let lookup = id.clone();
    let report = st
        .db(move |db| db.reports(ReportsOf::One(&lookup), 1))
        .await?
        .into_iter()
        .find(|r| r.open)
        .ok_or_else(unknown_report)?;
    let m = Moderate {
        act: Act::CloseReport { id },
        moderator: s.name,
        target: report.target,
        reason,
        detail: json!({}),
        at: now_ms(),
    };
    if !st.db(move |db| db.moderate(m)).await? {
        return Err(unknown_report());
    }
    Ok(Json(json!({})))
}

fn unknown_report() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        ErrorCode::UnknownReport,
        "there is no open report with this id",
    )
}

/// `POST /api/mod/players/{name}/{action} {"reason"}`: `warn`, `close`, `reopen` or
/// `lift-wait` (the wait before the next game ends, its offences forgiven); `mute` with
/// `"minutes"` too (the chat refuses the player's lines until then; 0 lifts it);
/// `mark-computer`, `mark-booster` (the opponents' lost points given back, in the same
/// transaction) and `unmark-computer`, `unmark-booster`.
pub async fn act(
    State(st): State<AppState>,
    Moderator(s): Moderator,
    Path((name, action)): Path<(String, String)>,
    JsonBody(req): JsonBody<ActRequest>,
) -> ApiResult<Json<Value>> {
    let act = match action.as_str() {
        "warn" => Act::Warn,
        "close" => Act::Close,
        "reopen" => Act::Reopen,
        "mark-computer" => Act::Mark {
            kind: MarkKind::Computer,
        },
        "mark-booster" => Act::Mark {
            kind: MarkKind::Booster,
        },
        "unmark-computer" => Act::Unmark {
            kind: MarkKind::Computer,
        },
        "unmark-booster" => Act::Unmark {
            kind: MarkKind::Booster,
        },
        "lift-wait" => Act::LiftWait,
        "mute" => match req.minutes {
            Some(m) if m <= MUTE_MAX_MINUTES => Act::Mute {
                until: now_ms() + i64::from(m) * 60_000,
            },
            _ => {
                return Err(ApiError::malformed(format!(
                    "minutes: a whole number from 0 to {MUTE_MAX_MINUTES}"
                )))
            }
        },
        _ => return Err(crate::api::not_found().await),
    };
    let reason = check_reason(&req.reason)?;
    let key = key_of(&name);
    let target = st
        .db(move |db| db.account(&key))
        .await?
        .ok_or_else(|| unknown_player(&name))?;
    let m = Moderate {
        act,
        moderator: s.name,
        target: target.name,
        reason,
        detail: json!({}),
        at: now_ms(),
    };
    st.db(move |db| db.moderate(m)).await?;
    Ok(Json(json!({})))
}

/// The moderators' routes (under /api).
pub fn router() -> axum::Router<AppState> {
    use axum::routing::{get, post};
    axum::Router::new()
        .route("/mod/reports", get(queue))
        .route("/mod/reports/{id}/close", post(close_report))
        .route("/mod/players/{name}", get(dossier))
        .route("/mod/players/{name}/{action}", post(act))
        .route("/mod/log", get(log))
        .route("/mod/signals", get(signals::signals_view))
}
