//! A game's events over a WebSocket (docs/api.md, "Events"): the whole state first, then one
//! message per change, from the game's round. Watching keeps the round in memory.

use std::sync::Arc;

use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{Path, State};
use axum::response::Response;
use serde_json::json;
use tokio::sync::broadcast;

use crate::api::client::ClientIp;
use crate::app::AppState;
use crate::error::{ApiError, ApiResult};
use crate::round::view::event_message;
use crate::round::{game::Event, Command, Rounds};
use crate::trace_json::side_name;
use crate::ws::{Bounds, Channel};

/// What a watcher may send: pings and one hello with its seat's secret, well under 4 KiB; the
/// page pings every 15 s, so 20 in 10 s is a client gone wrong.
const BOUNDS: Bounds = Bounds {
    max_message: 4096,
    max_messages: 20,
    window: std::time::Duration::from_secs(10),
};

/// `GET /api/games/{id}/events`.
pub async fn events(
    State(st): State<AppState>,
    Path(id): Path<String>,
    client: ClientIp,
    ws: Result<WebSocketUpgrade, axum::extract::ws::rejection::WebSocketUpgradeRejection>,
) -> ApiResult<Response> {
    let permit = match st.sockets().admit(client.0) {
        Ok(p) => p,
        Err(e) => return Ok(crate::ws::caps::refused(e)),
    };
    // Subscribing in the round means no event can fall between the state and the stream.
    let (first, rx) = st.rounds().call(&id, Command::Watch).await?;
    let ws = ws.map_err(|e| {
        ApiError::malformed(format!("this endpoint takes a WebSocket connection: {e}"))
    })?;
    let channel = Watcher {
        rx,
        rounds: st.rounds().clone(),
        id,
        presence: None,
        lagged: false,
    };
    let limits = st.sockets().limits();
    Ok(BOUNDS.upgrade(ws).on_upgrade(move |socket| async move {
        crate::ws::serve(socket, channel, Some(first), BOUNDS, limits, permit).await;
    }))
}

/// One watcher of a game: the round's events go out, pings and the hello come in.
struct Watcher {
    rx: broadcast::Receiver<Arc<str>>,
    rounds: Arc<Rounds>,
    id: String,
    presence: Option<Presence>,
    /// Fell behind the round's events: the next push is the whole state. Kept across a
    /// cancelled push, so that the state still goes out.
    lagged: bool,
}

impl Channel for Watcher {
    async fn next(&mut self) -> Option<String> {
        loop {
            if self.lagged {
                let g = self.rounds.snapshot(&self.id).await.ok()?;
                self.lagged = false;
                return Some(event_message(&Event::State, &g));
            }
            match self.rx.recv().await {
                Ok(t) => return Some(t.to_string()),
                // Too slow to follow every event: the current state replaces them.
                Err(broadcast::error::RecvError::Lagged(_)) => self.lagged = true,
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }

    async fn answer(&mut self, text: String) -> Option<String> {
        Some(
            answer(&text, &self.rounds, &self.id, &mut self.presence)
                .await
                .to_string(),
        )
    }
}

/// A player's connection to the game (after its `hello`): when it closes, however it does,
/// the round hears that the player left.
struct Presence {
    rounds: Arc<Rounds>,
    id: String,
    secret: String,
}

impl Drop for Presence {
    fn drop(&mut self) {
        let (rounds, id, secret) = (self.rounds.clone(), self.id.clone(), self.secret.clone());
        tokio::spawn(async move {
            let _ = rounds
                .call(&id, |reply| Command::Present {
                    secret: secret.clone(),
                    here: false,
                    reply,
                })
                .await;
        });
    }
}

/// Answers a client's message: a ping, or the `hello` that says whose connection this is.
async fn answer(
    text: &str,
    rounds: &Arc<Rounds>,
    id: &str,
    presence: &mut Option<Presence>,
) -> serde_json::Value {
    let msg: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
    match msg["type"].as_str() {
        Some("ping") => json!({"type": "pong"}),
        Some("hello") if presence.is_none() => {
            let Some(secret) = msg["secret"].as_str().map(str::to_string) else {
                return json!({"type": "error", "error": "malformed", "message": "hello needs the seat's secret"});
            };
            let r = rounds
                .call(id, |reply| Command::Present {
                    secret: secret.clone(),
                    here: true,
                    reply,
                })
                .await;
            match r.and_then(|r| r) {
                Ok(seats) => {
                    *presence = Some(Presence {
                        rounds: rounds.clone(),
                        id: id.to_string(),
                        secret,
                    });
                    let seats: Vec<&str> = seats.into_iter().map(side_name).collect();
                    json!({"type": "hello", "seats": seats})
                }
                Err(e) => json!({"type": "error", "error": e.code, "message": e.message}),
            }
        }
        Some("hello") => {
            json!({"type": "error", "error": "malformed", "message": "this connection has said hello already"})
        }
        _ => {
            json!({"type": "error", "error": "malformed", "message": "a client sends {\"type\":\"ping\"} or {\"type\":\"hello\",\"secret\":…}"})
        }
    }
}
