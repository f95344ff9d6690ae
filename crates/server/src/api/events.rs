//! A game's events over a WebSocket (docs/api.md, "Events"): the whole state first, then one
//! message per change, from the game's round. Watching keeps the round in memory.

use std::sync::Arc;

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, State};
use axum::response::Response;
use serde_json::json;
use tokio::sync::broadcast;

use crate::api::AppState;
use crate::error::{ApiError, ApiResult};
use crate::round::view::event_message;
use crate::round::{game::Event, Command, Rounds};
use crate::trace_json::side_name;

/// The largest message a client may send (a ping, or a hello with its seat's secret).
const MAX_MESSAGE: usize = 4096;
/// Messages a client may send per [`RATE_WINDOW`]; the page pings every 15 s. More closes
/// the socket (the page reconnects by itself, so a mistake costs a reconnect, not the game).
const MAX_MESSAGES: u32 = 20;
const RATE_WINDOW: std::time::Duration = std::time::Duration::from_secs(10);

/// `GET /api/games/{id}/events`.
pub async fn events(
    State(st): State<AppState>,
    Path(id): Path<String>,
    ws: Result<WebSocketUpgrade, axum::extract::ws::rejection::WebSocketUpgradeRejection>,
) -> ApiResult<Response> {
    // Subscribing in the round means no event can fall between the state and the stream.
    let (first, rx) = st.rounds().call(&id, Command::Watch).await?;
    let ws = ws.map_err(|e| {
        ApiError::malformed(format!("this endpoint takes a WebSocket connection: {e}"))
    })?;
    let rounds = st.rounds().clone();
    // Small buffers: a watcher receives a few KiB per event and sends only pings, and every
    // open socket holds its buffers (128 KiB each by default).
    Ok(ws
        .max_message_size(MAX_MESSAGE)
        .max_frame_size(MAX_MESSAGE)
        .read_buffer_size(MAX_MESSAGE)
        .write_buffer_size(16 * 1024)
        .max_write_buffer_size(1024 * 1024)
        .on_upgrade(move |socket| watch(socket, first, rx, rounds, id)))
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

/// Sends the game's state, then every event, until the client goes away.
async fn watch(
    mut socket: WebSocket,
    first: String,
    mut rx: broadcast::Receiver<Arc<str>>,
    rounds: Arc<Rounds>,
    id: String,
) {
    let mut presence: Option<Presence> = None;
    if socket.send(Message::Text(first.into())).await.is_err() {
        return;
    }
    let mut window = tokio::time::Instant::now();
    let mut received = 0u32;
    loop {
        tokio::select! {
            ev = rx.recv() => {
                let text = match ev {
                    Ok(t) => t.to_string(),
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        // Too slow to follow every event: the current state replaces them.
                        match rounds.snapshot(&id).await {
                            Ok(g) => event_message(&Event::State, &g),
                            Err(_) => return,
                        }
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                };
                if socket.send(Message::Text(text.into())).await.is_err() {
                    return;
                }
            }
            msg = socket.recv() => match msg {
                Some(Ok(_)) if too_many(&mut window, &mut received) => {
                    let _ = socket
                        .send(Message::Close(Some(axum::extract::ws::CloseFrame {
                            code: axum::extract::ws::close_code::POLICY,
                            reason: "too many messages".into(),
                        })))
                        .await;
                    return;
                }
                Some(Ok(Message::Text(t))) => {
                    let reply = answer(&t, &rounds, &id, &mut presence).await;
                    if socket.send(Message::Text(reply.to_string().into())).await.is_err() {
                        return;
                    }
                }
                Some(Ok(_)) => {}
                Some(Err(_)) | None => return,
            }
        }
    }
}

/// Counts a client's message; true once it sent more than [`MAX_MESSAGES`] in a window.
fn too_many(window: &mut tokio::time::Instant, received: &mut u32) -> bool {
    let now = tokio::time::Instant::now();
    if now.duration_since(*window) >= RATE_WINDOW {
        *window = now;
        *received = 0;
    }
    *received += 1;
    *received > MAX_MESSAGES
}
