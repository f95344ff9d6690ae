//! `POST /api/board/seek`: a seek in the lobby for as long as the request stays open, as
//! lichess's Board API makes one (docs/api-bots.md, "Seeks"). The terms come as a form or flat
//! JSON — `time` (minutes) and `increment` (seconds), or `days`, `rated`, `variant`, `color`,
//! `ratingRange` (`1500-1800`) — and are the lobby's own seek (crate::api::lobby), with all its
//! checks. The answer is a stream of empty lines while the seek waits, then `{"id": GAME}` once
//! someone accepts it (the game also starts on the event stream); closing it takes the seek
//! away.

use axum::extract::State;
use axum::response::Response;
use serde_json::json;

use super::form::Flat;
use super::stream::{self, Kind};
use crate::account::token::Scope;
use crate::api::bearer::Bearer;
use crate::api::client::ClientIp;
use crate::app::AppState;
use crate::error::{ApiError, ApiResult};
use crate::lobby::message::{SeekRequest, SideChoice};

/// The lobby's seek a form asks for.
fn request_of(form: &Flat) -> ApiResult<SeekRequest> {
    let clock = match (form.get("time"), form.int("days")?) {
        (Some(t), None) => format!("{t}+{}", form.int("increment")?.unwrap_or(0)),
        (None, Some(d)) => format!("{d}d"),
        _ => {
            return Err(ApiError::malformed(
                "a seek needs time (minutes) and increment (seconds), or days",
            ))
        }
    };
    let rules = match form.get("variant") {
        None | Some("standard") => "anywoli".to_string(),
        Some(v) => v.to_string(),
    };
    let side = match form.get("color") {
        None | Some("random") => SideChoice::Random,
        Some("white") => SideChoice::South,
        Some("black") => SideChoice::North,
        Some(c) => {
            return Err(ApiError::malformed(format!(
                "color '{}' is none of white, black, random",
                c.chars().take(20).collect::<String>()
            )))
        }
    };
    let range = match form.get("ratingRange") {
        None => None,
        Some(r) => {
            let bad = || ApiError::malformed("ratingRange is LOW-HIGH, as 1500-1800");
            let (lo, hi) = r.split_once('-').ok_or_else(bad)?;
            Some([
                lo.trim().parse().map_err(|_| bad())?,
                hi.trim().parse().map_err(|_| bad())?,
            ])
        }
    };
    Ok(SeekRequest {
        rules,
        clock,
        rated: form.bool("rated")?.unwrap_or(false),
        side,
        range,
    })
}

/// `POST /api/board/seek` (`board:play` or `bot:play`).
pub async fn seek(
    State(st): State<AppState>,
    client: ClientIp,
    bearer: Bearer,
    form: Flat,
) -> ApiResult<Response> {
    bearer.require_any(&[Scope::BoardPlay, Scope::BotPlay])?;
    let req = request_of(&form)?;
    crate::api::moderation::refuse_closed(&st, Some(&bearer.name)).await?;
    let place = st.streams().take(&bearer.name, Kind::Seek)?;
    let permit = st.stream_caps().admit(client.0)?;
    let (_, _, mut own, member) = st.lobby().join(Some(bearer.name.clone()), client.0);
    // Every refusal of the lobby's (a wait, a mark, a full lobby) comes before the stream.
    crate::api::lobby::seek(&st, &member, req).await?;
    let (writer, resp) = stream::open((place, permit));
    tokio::spawn(async move {
        // Dropping the membership when this ends takes the seek out of the lobby.
        let _member = member;
        loop {
            let alive = tokio::select! {
                m = own.recv() => match m {
                    Some(text) => {
                        let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
                        if v["type"] == "started" {
                            let _ = writer.line(&json!({"id": v["game"]})).await;
                            return;
                        }
                        true
                    }
                    None => false,
                },
                _ = tokio::time::sleep(stream::KEEP_ALIVE) => writer.keep_alive().await,
                _ = writer.closed() => false,
            };
            if !alive {
                return;
            }
        }
    });
    Ok(resp)
}
