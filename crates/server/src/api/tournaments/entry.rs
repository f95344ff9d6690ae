//! Entering and leaving a tournament, and its organiser's start: `POST /api/tournaments/{id}/
//! join`, `…/withdraw`, `…/start` (docs/tournaments.md, "The API").

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{closed, open_to_join, state_of};
use crate::api::client::ClientIp;
use crate::api::extract::Authed;
use crate::api::JsonBody;
use crate::app::AppState;
use crate::dates::now_ms;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::round::clock::TimeControl;
use crate::store::{Entry, MissedRow, TournamentState};
use crate::tournaments::cache::Cached;
use crate::tournaments::settings::{Settings, System};

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct JoinRequest {
    #[serde(default)]
    password: Option<String>,
}

fn me_of(c: &Cached, name: &str) -> Value {
    let e = c.state.entries.iter().find(|e| e.account == name);
    let s = c.standings.iter().find(|s| s.id == name);
    match (e, s) {
        (Some(e), Some(s)) => json!({
            "state": e.state,
            "playing": e.playing,
            "rank": s.rank,
            "score": s.score,
            "games": s.games,
        }),
        _ => Value::Null,
    }
}

/// `POST /api/tournaments/{id}/join`.
pub async fn join(
    State(st): State<AppState>,
    Path(id): Path<String>,
    client: ClientIp,
    caller: crate::api::bearer::Caller,
    JsonBody(req): JsonBody<JoinRequest>,
) -> ApiResult<Json<Value>> {
    client.check(&st.limiters().games, "tournament entries")?;
    caller.require(crate::account::token::Scope::TournamentWrite)?;
    let me = caller.name().to_string();
    let c = state_of(&st, &id).await?;
    let state = &c.state;
    let t = &state.tournament;
    let now = now_ms();
    let already = state.entries.iter().find(|e| e.account == me);
    if already.is_some_and(|e| e.state == "active") {
        return Ok(Json(json!({ "me": me_of(&c, &me) })));
    }
    open_to_join(state, st.minute_ms(), now).map_err(closed)?;
    if let Some(wait) = already.and_then(|e| leader_cooldown(&c, e, now)) {
        let secs = (wait as u64).div_ceil(1000);
        return Err(ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::RateLimited,
            format!("a leader who paused comes back after a minute: in {secs} s"),
        )
        .with_retry_after(secs));
    }
    let settings = Settings::of(t);
    let who = me.clone();
    let bot = st.db(move |db| db.is_bot(&who)).await?;
    if bot && !settings.bots {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            ErrorCode::EntryConditions,
            "this tournament is for people: its organiser did not let BOT accounts in",
        ));
    }
    if !settings.admits(&t.id, req.password.as_deref()) {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            ErrorCode::WrongPassword,
            "this tournament asks for a password, and that is not it",
        ));
    }
    crate::api::waits::refuse_waiting(&st, Some(&me), crate::api::waits::Whose::Mine).await?;
    let clock = TimeControl::parse(&t.clock).map_err(|e| ApiError::storage(e.to_string()))?;
    let (category, rules) = (clock.category().name().to_string(), t.rules.clone());
    let name = me.clone();
    let row = st
        .db(move |db| {
            Ok(db
                .ratings(&name)?
                .into_iter()
                .find(|r| r.category == category && r.rules == rules))
        })
        .await?;
    let (rating, rated_games) = row.map_or((crate::rating::Rating::DEFAULT.rating, 0), |r| {
        (r.rating.rating, r.games)
    });
    let rating = rating.round() as i64;
    if settings.min_rating.is_some_and(|m| rating < m) || rated_games < settings.min_rated_games {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            ErrorCode::EntryConditions,
            format!(
                "this tournament asks for a rating of {} and {} rated games at its speed; you \
                 have {rating} and {rated_games}",
                settings.min_rating.unwrap_or(0),
                settings.min_rated_games
            ),
        ));
    }
    let missed = missed_rounds(state, &me);
    let entry = Entry {
        tournament: t.id.clone(),
        account: me.clone(),
        now,
        rating,
        bot,
        state: "active".to_string(),
        missed,
    };
    st.db(move |db| db.set_entry(entry)).await?;
    let c = state_of(&st, &id).await?;
    Ok(Json(json!({ "me": me_of(&c, &me) })))
}

/// Players among the first this many who pause an arena wait [`LEADER_COOLDOWN_MS`] before
/// they come back, so that a leader cannot sit out to keep their place and rejoin at will.
pub const LEADERS: u32 = 10;
pub const LEADER_COOLDOWN_MS: i64 = 60_000;

/// How long `e`, paused, still waits before coming back (ms), if a leader's cooldown holds.
fn leader_cooldown(c: &Cached, e: &crate::store::EntryRow, now: i64) -> Option<i64> {
    if e.state != "paused" {
        return None;
    }
    let rank = c.standings.iter().find(|s| s.id == e.account)?.rank;
    let left = e.since + LEADER_COOLDOWN_MS - now;
    (rank <= LEADERS && left > 0).then_some(left)
}

/// The rounds of a Swiss that a player joining now has missed: half a point for a missed first
/// round, nothing for later ones (docs/tournaments.md).
fn missed_rounds(state: &TournamentState, name: &str) -> Vec<MissedRow> {
    let t = &state.tournament;
    if System::from_name(&t.system) != Some(System::Swiss) {
        return Vec::new();
    }
    (1..=t.round)
        .filter(|r| {
            !state
                .games
                .iter()
                .any(|g| g.round == *r && (g.south == name || g.north == name))
                && !state
                    .missed
                    .iter()
                    .any(|m| m.round == *r && m.account == name)
        })
        .map(|r| MissedRow {
            account: name.to_string(),
            round: r,
            kind: "absent".to_string(),
            points: if r == 1 { 0.5 } else { 0.0 },
        })
        .collect()
}

/// `POST /api/tournaments/{id}/withdraw`: a pause in an arena, out of the rounds to come in a
/// Swiss or round robin (or out before it starts).
pub async fn withdraw(
    State(st): State<AppState>,
    Path(id): Path<String>,
    Authed(s): Authed,
) -> ApiResult<Json<Value>> {
    let c = state_of(&st, &id).await?;
    let state = &c.state;
    let t = &state.tournament;
    let arena = System::from_name(&t.system) == Some(System::Arena);
    let to = if arena && t.status == "running" {
        "paused"
    } else {
        "withdrawn"
    };
    if state.entries.iter().any(|e| e.account == s.name) {
        let entry = Entry {
            tournament: t.id.clone(),
            account: s.name.clone(),
            now: now_ms(),
            rating: 0,
            bot: false,
            state: to.to_string(),
            missed: Vec::new(),
        };
        st.db(move |db| db.set_entry(entry)).await?;
    }
    let c = state_of(&st, &id).await?;
    Ok(Json(json!({ "me": me_of(&c, &s.name) })))
}

/// `POST /api/tournaments/{id}/start`: its organiser starts it now, or its next round.
pub async fn start(
    State(st): State<AppState>,
    Path(id): Path<String>,
    Authed(s): Authed,
) -> ApiResult<Json<Value>> {
    let c = state_of(&st, &id).await?;
    if c.state.tournament.created_by != s.name {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            ErrorCode::NotAllowed,
            "only the tournament's organiser starts it",
        ));
    }
    let (key, name) = (id.clone(), s.name.clone());
    let started = st
        .db(move |db| db.start_tournament(&key, &name, now_ms()))
        .await?;
    if !started {
        return Err(closed(
            "there is nothing to start: it is running by its own clock, or over",
        ));
    }
    Ok(Json(json!({ "started": true })))
}
