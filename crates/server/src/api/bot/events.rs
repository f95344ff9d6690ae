//! `GET /api/stream/event`: the account's events as lichess gives them (docs/api-bots.md):
//! first a `gameStart` for each game it is playing and a `challenge` for each challenge waiting
//! for it, then, as they happen, `challenge`, `challengeCanceled`, `challengeDeclined`,
//! `gameStart` and `gameFinish`. A client that reconnects (after a restart, or to another
//! instance) is told the games and challenges again, so it misses nothing that still matters.
//!
//! The events come from the account's lobby messages (crate::lobby, which reach every
//! instance), read through a lobby membership of the stream's own.

use std::collections::HashSet;

use axum::extract::State;
use axum::response::Response;
use serde_json::{json, Value};

use super::lichess;
use super::stream::{self, Kind, Writer};
use crate::account::token::Scope;
use crate::api::bearer::Bearer;
use crate::api::client::ClientIp;
use crate::app::AppState;
use crate::dates::now_ms;
use crate::error::ApiResult;
use crate::lobby::message::Challenge;

/// Games in play a stream names when it opens, at most.
const GAMES_AT_OPEN: usize = 200;

/// `GET /api/stream/event` (a token with `bot:play`, `board:play` or `challenge:read`).
pub async fn stream_event(
    State(st): State<AppState>,
    client: ClientIp,
    bearer: Bearer,
) -> ApiResult<Response> {
    bearer.require_any(&[Scope::BotPlay, Scope::BoardPlay, Scope::ChallengeRead])?;
    let place = st.streams().take(&bearer.name, Kind::Events)?;
    let permit = st.stream_caps().admit(client.0)?;
    let name = bearer.name.clone();
    // Joined before the games and challenges are read: whatever happens after the read is
    // heard, and what was told twice is told once (`told`).
    let (_, _, own, membership) = st.lobby().join(Some(name.clone()), client.0);
    let online = st.presence().here(&name);
    let who = name.clone();
    let playing = st.db(move |s| s.playing_of(&who, GAMES_AT_OPEN)).await?;
    let (incoming, _) = st.lobby().challenges_of(&name).await?;
    let (writer, resp) = stream::open((place, permit));
    tokio::spawn(async move {
        let _kept = (membership, online);
        let mut s = EventStream {
            st,
            name,
            writer,
            started: HashSet::new(),
        };
        s.run(playing, incoming, own).await;
    });
    Ok(resp)
}

struct EventStream {
    st: AppState,
    name: String,
    writer: Writer,
    /// Games already announced, so that a game started both ways (the lobby's `started` and
    /// the round's `game_start`) is announced once.
    started: HashSet<String>,
}

impl EventStream {
    async fn run(
        &mut self,
        playing: Vec<String>,
        incoming: Vec<Challenge>,
        mut own: tokio::sync::mpsc::Receiver<std::sync::Arc<str>>,
    ) {
        for id in playing {
            if !self.game("gameStart", &id).await {
                return;
            }
        }
        for c in incoming {
            if !self.challenge(&c).await {
                return;
            }
        }
        loop {
            let alive = tokio::select! {
                m = own.recv() => match m {
                    Some(text) => self.heard(&text).await,
                    None => false,
                },
                _ = tokio::time::sleep(stream::KEEP_ALIVE) => self.writer.keep_alive().await,
                _ = self.writer.closed() => false,
            };
            if !alive {
                return;
            }
        }
    }

    /// Passes a lobby message on as an event, if it is one: false once the client is gone.
    async fn heard(&mut self, text: &str) -> bool {
        let m: Value = serde_json::from_str(text).unwrap_or_default();
        let game = m["game"].as_str().map(str::to_string);
        match (m["type"].as_str().unwrap_or_default(), game) {
            ("challenge", _) => match serde_json::from_value::<Challenge>(m["challenge"].clone()) {
                Ok(c) => self.challenge(&c).await,
                Err(_) => true,
            },
            ("challenge_gone", _) => {
                let kind = match m["reason"].as_str() {
                    Some("declined") => "challengeDeclined",
                    Some("cancelled" | "expired") => "challengeCanceled",
                    _ => return true,
                };
                let status = if kind == "challengeDeclined" {
                    "declined"
                } else {
                    "canceled"
                };
                let v = json!({"type": kind, "challenge": {"id": m["id"], "status": status}});
                self.writer.line(&v).await
            }
            ("started" | "tournament_game" | "game_start", Some(id)) => {
                self.game("gameStart", &id).await
            }
            ("game_finish", Some(id)) => self.game("gameFinish", &id).await,
            _ => true,
        }
    }

    async fn challenge(&mut self, c: &Challenge) -> bool {
        let names = vec![c.from.clone(), c.to.clone()];
        let bots = self
            .st
            .db(move |s| s.bots_among(&names))
            .await
            .unwrap_or_default();
        let v = json!({"type": "challenge", "challenge": lichess::challenge(c, &self.name, &bots)});
        self.writer.line(&v).await
    }

    /// Announces game `id` as `kind` (`gameStart` once per game, `gameFinish`).
    async fn game(&mut self, kind: &str, id: &str) -> bool {
        if kind == "gameStart" && !self.started.insert(id.to_string()) {
            return true;
        }
        // A game that cannot be read now (the database away) is named by its id alone: the
        // client opens its stream, which says the rest.
        let g = match self.st.rounds().snapshot(id).await {
            Ok(g) => g,
            Err(_) => {
                let v = json!({"type": kind, "game": {"gameId": id, "id": id}});
                return self.writer.line(&v).await;
            }
        };
        let names: Vec<String> = g.people.accounts.iter().flatten().cloned().collect();
        let bots = self
            .st
            .db(move |s| s.bots_among(&names))
            .await
            .unwrap_or_default();
        let v = json!({"type": kind, "game": lichess::game_event(&g, &self.name, &bots, now_ms())});
        self.writer.line(&v).await
    }
}
