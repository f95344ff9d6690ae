//! `GET /api/bot/game/stream/{id}` (and `/api/board/game/stream/{id}`): one game as lichess
//! streams it, to a player of it: `gameFull` first, then a `gameState` at each change of the
//! moves, clocks, offers or status, `chatLine` for each chat line and `opponentGone` when the
//! opponent's connections come and go. The stream ends after the final `gameState`. While it
//! is open the player counts as present in the game (no one can claim the win from them).

use axum::extract::{Path, State};
use axum::response::Response;
use serde_json::{json, Value};

use super::stream::{self, Kind, Writer};
use super::{lichess, seat_of, Api};
use crate::api::bearer::Bearer;
use crate::api::client::ClientIp;
use crate::api::events::Presence;
use crate::app::AppState;
use crate::chat::reader::Reader;
use crate::dates::now_ms;
use crate::error::ApiResult;
use crate::round::game::{claim_after_ms, Game};
use crate::round::Command;

pub async fn bot_stream(
    st: State<AppState>,
    id: Path<String>,
    client: ClientIp,
    bearer: Bearer,
) -> ApiResult<Response> {
    stream_game(st, id, client, bearer, Api::Bot).await
}

pub async fn board_stream(
    st: State<AppState>,
    id: Path<String>,
    client: ClientIp,
    bearer: Bearer,
) -> ApiResult<Response> {
    stream_game(st, id, client, bearer, Api::Board).await
}

async fn stream_game(
    State(st): State<AppState>,
    Path(id): Path<String>,
    client: ClientIp,
    bearer: Bearer,
    api: Api,
) -> ApiResult<Response> {
    api.check(&st, &bearer).await?;
    let (_, side, secret) = seat_of(&st, &id, &bearer.name).await?;
    let place = st.streams().take(&bearer.name, Kind::Game)?;
    let permit = st.stream_caps().admit(client.0)?;
    // Subscribed in the round: no change can fall between the first state and the stream.
    let (_, rx) = st.rounds().call(&id, Command::Watch).await?;
    let g = st.rounds().snapshot(&id).await?;
    let chat = super::seated_reader(&st, &g, &bearer.name, side, client).await?;
    let (_, presence) = Presence::enter(st.rounds(), &id, secret).await?;
    let names: Vec<String> = g.people.accounts.iter().flatten().cloned().collect();
    let bots = st.db(move |s| s.bots_among(&names)).await?;
    let (writer, resp) = stream::open((place, permit));
    tokio::spawn(async move {
        let _presence = presence;
        let mut s = GameStream {
            st,
            id,
            side,
            writer,
            last: None,
            gone: false,
        };
        s.run(g, bots, rx, chat).await;
    });
    Ok(resp)
}

struct GameStream {
    st: AppState,
    id: String,
    side: anywoli_core::Side,
    writer: Writer,
    /// The last `gameState` sent but for the clocks, which run between changes.
    last: Option<Value>,
    /// Whether the opponent was last said to be gone.
    gone: bool,
}

impl GameStream {
    async fn run(
        &mut self,
        g: Game,
        bots: Vec<String>,
        mut rx: tokio::sync::broadcast::Receiver<std::sync::Arc<str>>,
        mut chat: Reader,
    ) {
        let full = lichess::game_full(&g, &bots, now_ms());
        self.last = Some(without_clocks(&full["state"]));
        if !self.writer.line(&full).await || !g.is_playing() {
            return;
        }
        if !self.opponent(&g).await {
            return;
        }
        loop {
            let alive = tokio::select! {
                r = rx.recv() => match r {
                    // Whatever changed (or was missed), the game as it stands now says it,
                    // with the offers as the event left them (see `changed`).
                    Ok(text) => self.changed(Some(&text)).await,
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                        self.changed(None).await
                    }
                    // The round ended (the server stopping): the client reconnects.
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => false,
                },
                Some(line) = chat.next() => {
                    let room = match line.room {
                        crate::store::Room::Players => "player",
                        _ => "spectator",
                    };
                    let v = json!({
                        "type": "chatLine",
                        "room": room,
                        "username": line.author.as_deref().unwrap_or("Anonymous"),
                        "text": line.text.or(line.preset).unwrap_or_default(),
                    });
                    self.writer.line(&v).await
                }
                _ = tokio::time::sleep(stream::KEEP_ALIVE) => self.writer.keep_alive().await,
                _ = self.writer.closed() => false,
            };
            if !alive {
                return;
            }
        }
    }

    /// Sends what changed: false once the client is gone or the game is over. The offers are
    /// the event's (`event`, the round's message, holds the game as the change left it): an
    /// offer declined at once would otherwise be gone from the game by the time it is read,
    /// and its player's program would never see it made.
    async fn changed(&mut self, event: Option<&str>) -> bool {
        let Ok(g) = self.st.rounds().snapshot(&self.id).await else {
            return false;
        };
        let mut state = lichess::game_state(&g, now_ms());
        if let Some(offer) = event
            .and_then(|t| serde_json::from_str::<Value>(t).ok())
            .and_then(|m| m.get("game").and_then(|v| v.get("offer")).cloned())
        {
            for (side, c) in [("south", "w"), ("north", "b")] {
                for (kind, k) in [("draw", "draw"), ("takeback", "takeback")] {
                    state[format!("{c}{k}")] = json!(offer["by"] == side && offer["kind"] == kind);
                }
            }
        }
        let bare = without_clocks(&state);
        if self.last.as_ref() != Some(&bare) {
            self.last = Some(bare);
            if !self.writer.line(&state).await {
                return false;
            }
        }
        g.is_playing() && self.opponent(&g).await
    }

    /// Says when the opponent leaves or comes back (`opponentGone`).
    async fn opponent(&mut self, g: &Game) -> bool {
        let away = g.away[self.side.opponent()];
        if away.is_some() == self.gone {
            return true;
        }
        self.gone = away.is_some();
        let mut v = json!({"type": "opponentGone", "gone": self.gone});
        if let (Some(since), Some(wait)) = (away, claim_after_ms(g.category())) {
            v["claimWinInSeconds"] = json!(((since + wait - now_ms()) / 1000).max(0));
        }
        self.writer.line(&v).await
    }
}

/// A state without its clocks, which tick between changes.
fn without_clocks(state: &Value) -> Value {
    let mut v = state.clone();
    if let Some(o) = v.as_object_mut() {
        o.remove("wtime");
        o.remove("btime");
    }
    v
}
