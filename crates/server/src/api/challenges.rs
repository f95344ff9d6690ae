//! Challenges over HTTP (docs/api-players.md): the page's `/api/challenges` and, on the same
//! three cores ([`send`], [`accept`], [`decline`]), the lichess-shaped `/api/challenge/…` of
//! programs (crate::api::bot). The lobby keeps them (crate::lobby::challenges).

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::account::key_of;
use crate::api::extract::{Authed, Viewer};
use crate::api::lobby::{refuse_marked, terms};
use crate::api::waits::{refuse_waiting, Whose};
use crate::app::AppState;
use crate::dates::now_ms;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::ids::new_id;
use crate::lobby::message::{default_rules, Challenge, GoneReason, ServerMessage, SideChoice};
use crate::lobby::start::start;
use crate::lobby::start::Pairing;
use crate::trace_json::side_name;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChallengeRequest {
    pub to: String,
    #[serde(default = "default_rules")]
    pub rules: String,
    pub clock: Option<String>,
    #[serde(default)]
    pub rated: bool,
    #[serde(default)]
    pub side: SideChoice,
}

/// `from` challenges `req.to`: the challenge, waiting for its player.
pub async fn send(st: &AppState, from: &str, req: ChallengeRequest) -> ApiResult<Challenge> {
    let (rules, clock) = terms(&req.rules, req.clock.as_deref())?;
    refuse_waiting(st, Some(from), Whose::Mine).await?;
    if req.rated && clock.is_none() {
        return Err(ApiError::malformed(
            "a rated game needs a clock (its rating category comes from it)",
        ));
    }
    let key = key_of(&req.to);
    let to = st
        .rounds()
        .db(move |s| s.account(&key))
        .await?
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::NOT_FOUND,
                ErrorCode::UnknownPlayer,
                format!(
                    "no player is called '{}'",
                    req.to.chars().take(40).collect::<String>()
                ),
            )
        })?;
    if to.name == from {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            ErrorCode::OwnSeek,
            "you cannot challenge yourself",
        ));
    }
    if req.rated {
        refuse_marked(st, [Some(from), Some(&to.name)]).await?;
    }
    let c = Challenge {
        id: new_id(),
        from: from.to_string(),
        to: to.name,
        rules: rules.name().to_string(),
        clock: clock.map(|c| c.name()),
        category: clock.map(|c| c.category()),
        rated: req.rated,
        side: req.side,
        at: now_ms(),
    };
    st.lobby().challenge(c.clone()).await?;
    // A house bot answers at once (crate::house).
    crate::house::answer(st, &c).await;
    Ok(c)
}

/// `POST /api/challenges`.
pub async fn create(
    State(st): State<AppState>,
    Authed(me): Authed,
    crate::api::JsonBody(req): crate::api::JsonBody<ChallengeRequest>,
) -> ApiResult<Response> {
    let c = send(&st, &me.name, req).await?;
    Ok((StatusCode::CREATED, Json(json!({ "challenge": c }))).into_response())
}

/// `GET /api/challenges`: the logged-in player's, both ways.
pub async fn list(viewer: Viewer, State(st): State<AppState>) -> ApiResult<Json<Value>> {
    let name = viewer
        .name()
        .ok_or_else(crate::api::extract::not_logged_in)?;
    let (incoming, outgoing) = st.lobby().challenges_of(name).await?;
    Ok(Json(json!({"incoming": incoming, "outgoing": outgoing})))
}

/// What accepting made: the game, and the acceptor's seat and secret.
pub struct Accepted {
    pub game: String,
    pub seat: anywoli_core::Side,
    pub secret: String,
}

/// `me` accepts challenge `id`: the game starts, and the challenger hears it.
pub async fn accept(st: &AppState, me: &str, id: &str) -> ApiResult<Accepted> {
    refuse_waiting(st, Some(me), Whose::Mine).await?;
    let c = st.lobby().take_challenge(id, me, true).await?;
    if let Err(e) = refuse_waiting(st, Some(&c.from), Whose::Theirs).await {
        // The challenger must wait since sending it: it goes, as if declined (or, if the
        // store failed, waits to be accepted again).
        if e.code == ErrorCode::PlayWait {
            declined(st, &c);
        } else {
            st.lobby().put_back_challenge(c).await;
        }
        return Err(e);
    }
    let refused = if crate::api::blocks::between(st, &c.from, &c.to).await? {
        Err(ApiError::blocked("accept this challenge"))
    } else if c.rated {
        refuse_marked(st, [Some(&c.from), Some(&c.to)]).await
    } else {
        Ok(())
    };
    if let Err(e) = refused {
        // Blocked or marked since it was sent: it goes, as if declined.
        declined(st, &c);
        return Err(e);
    }
    let (rules, clock) = terms(&c.rules, c.clock.as_deref())?;
    let made = start(
        st.rounds(),
        Pairing {
            rules,
            clock,
            rated: c.rated,
            side: c.side,
            creator: Some(c.from.clone()),
            joiner: Some(me.to_string()),
        },
    )
    .await;
    let s = match made {
        Ok(s) => s,
        Err(e) => {
            // The database could not take the game: the challenge waits to be accepted again.
            st.lobby().put_back_challenge(c).await;
            return Err(e);
        }
    };
    let gone = ServerMessage::ChallengeGone {
        id: c.id.clone(),
        reason: GoneReason::Accepted,
    };
    st.lobby().tell(
        &c.from,
        &ServerMessage::Started {
            game: s.game.clone(),
            seat: side_name(s.creator.0),
            secret: s.creator.1.clone(),
        },
    );
    st.lobby().tell(&c.from, &gone);
    st.lobby().tell(&c.to, &gone);
    Ok(Accepted {
        game: s.game,
        seat: s.joiner.0,
        secret: s.joiner.1,
    })
}

/// `POST /api/challenges/{id}/accept`.
pub async fn accept_challenge(
    State(st): State<AppState>,
    Path(id): Path<String>,
    Authed(me): Authed,
) -> ApiResult<Json<Value>> {
    let a = accept(&st, &me.name, &id).await?;
    Ok(Json(json!({
        "game": a.game, "seat": side_name(a.seat), "secret": a.secret,
    })))
}

/// Tells the challenger that challenge `c`, taken off the list, went as if declined.
fn declined(st: &AppState, c: &Challenge) {
    let gone = ServerMessage::ChallengeGone {
        id: c.id.clone(),
        reason: GoneReason::Declined,
    };
    st.lobby().tell(&c.from, &gone);
}

/// `me` declines challenge `id` (its player), or takes it back (its sender).
pub async fn decline(st: &AppState, me: &str, id: &str) -> ApiResult<()> {
    let c = st.lobby().take_challenge(id, me, false).await?;
    let reason = if c.to == me {
        GoneReason::Declined
    } else {
        GoneReason::Cancelled
    };
    let gone = ServerMessage::ChallengeGone {
        id: c.id.clone(),
        reason,
    };
    st.lobby().tell(&c.from, &gone);
    st.lobby().tell(&c.to, &gone);
    Ok(())
}

/// `POST /api/challenges/{id}/decline`: by the challenged player, or the challenger taking it
/// back.
pub async fn decline_challenge(
    State(st): State<AppState>,
    Path(id): Path<String>,
    Authed(me): Authed,
) -> ApiResult<Json<Value>> {
    decline(&st, &me.name, &id).await?;
    Ok(Json(json!({})))
}

/// The routes of the page's challenges (under /api).
pub fn router() -> axum::Router<AppState> {
    use axum::routing::{get, post};
    axum::Router::new()
        .route("/challenges", get(list).post(create))
        .route("/challenges/{id}/accept", post(accept_challenge))
        .route("/challenges/{id}/decline", post(decline_challenge))
}
