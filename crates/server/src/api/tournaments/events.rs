//! A tournament's WebSocket: its change signal and its chat.

use axum::extract::{Path, State};
use axum::response::Response;
use serde::Deserialize;
use tokio::sync::watch;

use super::unknown;
use crate::api::client::ClientIp;
use crate::api::extract::Viewer;
use crate::app::AppState;
use crate::chat::tournament::TournamentChat;
use crate::ws::caps::{AskedUpgrade, Unopened};
use crate::ws::{text as text_of, Bounds, Channel, SocketError};

/// What a watcher may send: pings only.
const BOUNDS: Bounds = Bounds::per_10s(1024, 20);

/// `GET /api/tournaments/{id}/events`: `{"type":"changed","version","at"}` at most once a
/// second, and the tournament's chat (`{"type":"chat","line"}` out, `{"type":"chat","text"}`
/// in, from an account).
pub async fn events(
    State(st): State<AppState>,
    Path(id): Path<String>,
    client: ClientIp,
    viewer: Viewer,
    ws: AskedUpgrade,
) -> Result<Response, Unopened> {
    let key = id.clone();
    let version = match st.db(move |s| s.tournament(&key)).await {
        Ok(Some(t)) => t.version,
        Ok(None) => return Err(Unopened::NotAnUpgrade(unknown(&id))),
        Err(e) => return Err(Unopened::NotAnUpgrade(e)),
    };
    let (ws, permit) = crate::ws::caps::open(st.sockets(), client.0, ws)?;
    let ip = client
        .0
        .map_or_else(|| "-".to_string(), |ip| ip.to_string());
    let who = viewer.name().map(str::to_string);
    let chat = TournamentChat::open(st.chat().clone(), &id, who, ip)
        .await
        .map_err(Unopened::NotAnUpgrade)?;
    let limits = st.sockets().limits();
    let rx = st.tournaments().watch(&id, version);
    Ok(BOUNDS.upgrade(ws).on_upgrade(move |socket| async move {
        let first = Some(changed(*rx.borrow()));
        crate::ws::serve(socket, Watcher { rx, chat }, first, BOUNDS, limits, permit).await;
    }))
}

/// `{"type": "changed", "version", "at"}`: `at` is when this instance saw the version (ms).
fn changed((version, at): crate::tournaments::signal::Seen) -> String {
    text_of(&Out::Changed { version, at })
}

/// What a tournament's watcher is sent.
#[derive(serde::Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Out {
    Changed { version: i64, at: i64 },
    Chat { line: crate::chat::reader::Heard },
    Pong,
    Error(SocketError),
}

struct Watcher {
    rx: watch::Receiver<crate::tournaments::signal::Seen>,
    chat: TournamentChat,
}

/// What a tournament's watcher sends.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
enum In {
    Ping,
    Chat { text: String },
}

impl Channel for Watcher {
    async fn next(&mut self) -> Option<String> {
        tokio::select! {
            r = self.rx.changed() => {
                r.ok()?;
                let v = *self.rx.borrow_and_update();
                Some(changed(v))
            }
            Some(line) = self.chat.next() => Some(text_of(&Out::Chat { line })),
        }
    }

    async fn answer(&mut self, text: String) -> Option<String> {
        match serde_json::from_str::<In>(&text) {
            Ok(In::Ping) => Some(text_of(&Out::Pong)),
            // A line said reaches its author with its readers; only a refusal answers.
            Ok(In::Chat { text }) => self
                .chat
                .say(&text)
                .await
                .err()
                .map(|e| text_of(&Out::Error(e))),
            Err(_) => Some(text_of(&Out::Error(SocketError::malformed(
                "a tournament's watcher sends {\"type\":\"ping\"} or {\"type\":\"chat\",\"text\":…}",
            )))),
        }
    }
}
