//! Tournaments over HTTP and a WebSocket (issue 39, docs/tournaments.md "The API"): lists,
//! creation, one tournament's page, standings by page and games by round (here), entering and
//! leaving (`entry.rs`), the exports (`exports.rs`) and the change signal with the chat
//! (`events.rs`). The director (crate::tournaments) pairs and settles; these handlers only
//! read, and record what a person asks.

mod entry;
mod events;
mod exports;

pub use events::events;

use std::sync::Arc;

use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::Json;
use serde_json::{json, Value};

use crate::api::client::ClientIp;
use crate::api::extract::{Authed, Viewer};
use crate::api::JsonBody;
use crate::app::AppState;
use crate::dates::now_ms;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::store::TournamentState;
use crate::tournaments::cache::Cached;
use crate::tournaments::plan::{arena_end, ARENA_LAST_PAIRING_MS};
use crate::tournaments::settings::{CreateRequest, System, MAX_ENTRANTS, PER_ORGANISER};
use crate::tournaments::view;

/// Tournaments each list holds.
const LISTED: usize = 50;

pub(super) fn unknown(id: &str) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        ErrorCode::UnknownTournament,
        format!(
            "there is no tournament '{}'",
            id.chars().take(20).collect::<String>()
        ),
    )
}

pub(super) fn closed(why: &str) -> ApiError {
    ApiError::new(StatusCode::CONFLICT, ErrorCode::TournamentClosed, why)
}

/// Tournament `id` as stored now, with its standings: from this instance's copy when it is
/// current, else read (by one request at a time; the others wait and share it).
pub(super) async fn state_of(st: &AppState, id: &str) -> ApiResult<Arc<Cached>> {
    if !crate::ids::valid_id(id) {
        return Err(unknown(id));
    }
    let key = id.to_string();
    let version = st
        .db(move |s| s.tournament_version(&key))
        .await?
        .ok_or_else(|| unknown(id))?;
    let cache = st.tournament_cache();
    if let Some(c) = cache.get(id, version) {
        return Ok(c);
    }
    let loading = cache.loading(id);
    let _one = loading.lock().await;
    if let Some(c) = cache.get(id, version) {
        return Ok(c);
    }
    let key = id.to_string();
    let store = st.store().clone();
    let read = tokio::task::spawn_blocking(move || {
        store
            .tournament_state(&key)
            .map(|s| s.map(|s| Arc::new(Cached::new(s))))
    })
    .await
    .map_err(|e| ApiError::storage(format!("the tournament's read failed: {e}")))?;
    let c = read?.ok_or_else(|| unknown(id))?;
    cache.put(id, c.clone());
    Ok(c)
}

/// `GET /api/tournaments`.
pub async fn list(State(st): State<AppState>) -> ApiResult<Json<Value>> {
    let m = st.minute_ms();
    let lists = st
        .db(|s| {
            Ok((
                s.tournaments("upcoming", LISTED)?,
                s.tournaments("running", LISTED)?,
                s.tournaments("finished", LISTED)?,
            ))
        })
        .await?;
    let show = |v: Vec<crate::store::TournamentRow>| -> Vec<Value> {
        v.iter().map(|t| view::tournament(t, m)).collect()
    };
    Ok(Json(json!({
        "upcoming": show(lists.0),
        "running": show(lists.1),
        "finished": show(lists.2),
    })))
}

/// `POST /api/tournaments`: 201 `{"tournament": T}`.
pub async fn create(
    State(st): State<AppState>,
    client: ClientIp,
    Authed(s): Authed,
    JsonBody(req): JsonBody<CreateRequest>,
) -> ApiResult<(StatusCode, Json<Value>)> {
    client.check(&st.limiters().games, "tournaments")?;
    let row = req.into_row(crate::ids::new_id(), &s.name, now_ms())?;
    let name = s.name.clone();
    let organised = st.db(move |db| db.tournaments_organised(&name)).await?;
    if organised >= PER_ORGANISER as i64 {
        return Err(ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::RateLimited,
            format!("you organise {PER_ORGANISER} tournaments already: let one finish first"),
        ));
    }
    let out = view::tournament(&row, st.minute_ms());
    st.db(move |db| db.create_tournament(row)).await?;
    Ok((StatusCode::CREATED, Json(json!({ "tournament": out }))))
}

/// Whether `name` may join `state` now (conditions aside): `Err` says why not.
pub(super) fn open_to_join(
    state: &TournamentState,
    minute_ms: i64,
    now: i64,
) -> Result<(), &'static str> {
    let t = &state.tournament;
    let system = System::from_name(&t.system);
    match t.status.as_str() {
        "finished" | "cancelled" => return Err("the tournament is over"),
        "running" if system == Some(System::RoundRobin) => {
            return Err("a round robin takes no players once it has started")
        }
        "running" if system == Some(System::Swiss) && t.round * 2 > t.rounds.unwrap_or(0) => {
            return Err("a Swiss takes no players past half its rounds")
        }
        "running" if system == Some(System::Swiss) => {}
        "running" => {
            let last = ARENA_LAST_PAIRING_MS.min(minute_ms / 2);
            if now >= arena_end(state, minute_ms) - last {
                return Err("the arena is about to end");
            }
        }
        _ => {}
    }
    let max = if system == Some(System::RoundRobin) {
        anywoli_tournament::robin::MAX_PLAYERS as i64
    } else {
        MAX_ENTRANTS
    };
    if t.players >= max {
        return Err("the tournament is full");
    }
    Ok(())
}

/// `GET /api/tournaments/{id}`.
pub async fn one(
    State(st): State<AppState>,
    Path(id): Path<String>,
    viewer: Viewer,
) -> ApiResult<Json<Value>> {
    let c = state_of(&st, &id).await?;
    let (state, standings) = (&c.state, &c.standings);
    let me = viewer.name();
    let active = me.is_some_and(|n| {
        state
            .entries
            .iter()
            .any(|e| e.account == n && e.state == "active")
    });
    let can_join = me.is_some() && !active && open_to_join(state, st.minute_ms(), now_ms()).is_ok();
    Ok(Json(view::page(
        state,
        standings,
        me,
        can_join,
        st.minute_ms(),
    )))
}

/// Query parameter `name` of `query` as a whole number, if given: anything else there is a
/// clear `malformed` error (as every list of the API answers), never a bare rejection.
fn number_param(query: Option<&str>, name: &str) -> ApiResult<Option<i64>> {
    let value = query
        .unwrap_or("")
        .split('&')
        .filter_map(|p| p.split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v);
    value
        .map(|v| {
            v.parse::<i64>()
                .map_err(|_| ApiError::malformed(format!("{name} must be a whole number")))
        })
        .transpose()
}

/// `GET /api/tournaments/{id}/standings?page=P`.
pub async fn standings(
    State(st): State<AppState>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> ApiResult<Json<Value>> {
    let asked = number_param(query.as_deref(), "page")?;
    let c = state_of(&st, &id).await?;
    let (state, rows) = (&c.state, &c.standings);
    let pages = rows.len().div_ceil(view::PER_PAGE).max(1);
    let page = usize::try_from(asked.unwrap_or(1).max(1))
        .unwrap_or(usize::MAX)
        .min(pages);
    let players: Vec<Value> = rows
        .iter()
        .skip((page - 1) * view::PER_PAGE)
        .take(view::PER_PAGE)
        .map(|s| view::standing(s, view::state_of(state, &s.id)))
        .collect();
    Ok(Json(json!({
        "page": page,
        "pages": pages,
        "total": rows.len(),
        "players": players,
    })))
}

/// `GET /api/tournaments/{id}/games?round=R`.
pub async fn games(
    State(st): State<AppState>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> ApiResult<Json<Value>> {
    let round = number_param(query.as_deref(), "round")?;
    let c = state_of(&st, &id).await?;
    let games: Vec<Value> = c
        .state
        .games
        .iter()
        .filter(|g| match round {
            Some(r) => g.round == r,
            None => g.result.is_none(),
        })
        .map(|g| {
            json!({
                "game": g.game,
                "round": g.round,
                "south": g.south,
                "north": g.north,
                "result": g.result,
                "plies": g.plies,
            })
        })
        .collect();
    Ok(Json(json!({ "round": round, "games": games })))
}

/// The routes of tournaments (under /api; the events socket is in crate::WEBSOCKET_ROUTES).
pub fn router() -> axum::Router<AppState> {
    use axum::routing::{get, post};
    axum::Router::new()
        .route("/tournaments", get(list).post(create))
        .route("/tournaments/{id}", get(one))
        .route("/tournaments/{id}/standings", get(standings))
        .route("/tournaments/{id}/games", get(games))
        .route(
            "/tournaments/{id}/standings.csv",
            get(exports::standings_csv),
        )
        .route("/tournaments/{id}/games.txt", get(exports::games_records))
        .route("/tournaments/{id}/join", post(entry::join))
        .route("/tournaments/{id}/withdraw", post(entry::withdraw))
        .route("/tournaments/{id}/start", post(entry::start))
}
