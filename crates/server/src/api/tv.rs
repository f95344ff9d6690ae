//! TV over HTTP and a WebSocket (issue 38, docs/api.md "TV"): which game is on, and its events
//! as they happen, following on to the next game. The director is crate::tv's; this file
//! admits the sockets and speaks to them.

use std::collections::VecDeque;
use std::sync::Arc;

use axum::extract::State;
use axum::response::Response;
use axum::Json;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tokio::sync::broadcast;

use crate::api::client::ClientIp;
use crate::app::AppState;
use crate::error::ApiResult;
use crate::round::change::Event;
use crate::round::view::event_message;
use crate::tv::{Tv, TvMessage};
use crate::ws::caps::{AskedUpgrade, Unopened};
use crate::ws::{text as text_of, Bounds, Channel, SocketError};

/// What a spectator may send: pings only (the page pings every 15 s).
const BOUNDS: Bounds = Bounds::per_10s(1024, 20);

/// `GET /api/tv`: `{"game": ID | null}`, the game on TV now.
pub async fn tv(State(st): State<AppState>) -> ApiResult<Json<Value>> {
    let game = match st.tv().current() {
        Some(id) => Some(id),
        None => st.tv().pick().await,
    };
    Ok(Json(json!({ "game": game })))
}

/// `GET /api/tv/events`: `{"type":"tv","game"}` and the game's state, then its events; at
/// the end of the game, the next one's `tv` and state.
pub async fn events(
    State(st): State<AppState>,
    client: ClientIp,
    ws: AskedUpgrade,
) -> Result<Response, Unopened> {
    let (ws, permit) = crate::ws::caps::open(st.sockets(), client.0, ws)?;
    let limits = st.sockets().limits();
    let tv = st.tv().clone();
    Ok(BOUNDS.upgrade(ws).on_upgrade(move |socket| async move {
        let (rx, now) = tv.tune_in();
        let mut channel = Spectator {
            rx,
            tv,
            pending: VecDeque::new(),
        };
        if let Some(now) = now {
            channel.catch_up(now).await;
        }
        let first = channel.pending.pop_front();
        crate::ws::serve(socket, channel, first, BOUNDS, limits, permit).await;
    }))
}

/// One spectator of TV.
struct Spectator {
    rx: broadcast::Receiver<Arc<str>>,
    tv: Arc<Tv>,
    /// Messages to send before the next from the director.
    pending: VecDeque<String>,
}

impl Spectator {
    /// Queues the game on TV and its whole state: at the start, or after falling behind.
    async fn catch_up(&mut self, game: Option<String>) {
        self.pending.push_back(
            TvMessage::Tv {
                game: game.as_deref(),
            }
            .text(),
        );
        if let Some(id) = game {
            if let Ok(g) = self.tv.rounds().snapshot(&id).await {
                self.pending.push_back(event_message(&Event::State, &g));
            }
        }
    }
}

impl Channel for Spectator {
    async fn next(&mut self) -> Option<String> {
        loop {
            if let Some(m) = self.pending.pop_front() {
                return Some(m);
            }
            match self.rx.recv().await {
                Ok(t) => return Some(t.to_string()),
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    let now = self.tv.current();
                    self.catch_up(now).await;
                }
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }

    async fn answer(&mut self, text: String) -> Option<String> {
        Some(text_of(&match serde_json::from_str::<In>(&text) {
            Ok(In::Ping) => Out::Pong,
            Err(_) => Out::Error(SocketError::malformed(
                "a spectator sends only {\"type\":\"ping\"}",
            )),
        }))
    }
}

/// What a spectator sends.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum In {
    Ping,
}

/// What a spectator is answered (the rest is the director's).
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Out {
    Pong,
    Error(SocketError),
}

/// The HTTP route of TV (under /api); the socket is among crate::WEBSOCKET_ROUTES.
pub fn router() -> axum::Router<AppState> {
    axum::Router::new().route("/tv", axum::routing::get(tv))
}
