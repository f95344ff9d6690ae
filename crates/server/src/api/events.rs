//! A game's events over a WebSocket (docs/api.md, "Events"): the whole state first, then one
//! message per change, from the game's round. Watching keeps the round in memory.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::response::Response;
use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

use crate::api::client::ClientIp;
use crate::api::extract::Viewer;
use crate::app::AppState;
use crate::chat::reader::{Heard, Reader, Say};
use crate::error::ApiResult;
use crate::round::view::event_message;
use crate::round::{change::Event, Command, Rounds};
use crate::trace_json::side_name;
use crate::ws::{caps::AskedUpgrade, text as text_of, Bounds, Channel, SocketError};

/// What a watcher may send: pings, one hello with its seat's secret and chat lines (140
/// characters, at most 5 in 10 s), well under 4 KiB; the page pings every 15 s, so 20 in
/// 10 s is a client gone wrong. A longer message (a 100 KB line) closes the socket.
const BOUNDS: Bounds = Bounds::per_10s(4096, 20);

/// `GET /api/games/{id}/events`.
pub async fn events(
    State(st): State<AppState>,
    Path(id): Path<String>,
    client: ClientIp,
    viewer: Viewer,
    ws: AskedUpgrade,
) -> ApiResult<Response> {
    let permit = match st.sockets().admit(client.0) {
        Ok(p) => p,
        Err(e) => return Ok(crate::ws::caps::refused(e)),
    };
    // Subscribing in the round means no event can fall between the state and the stream.
    let (first, rx) = st.rounds().call(&id, Command::Watch).await?;
    let g = st.rounds().snapshot(&id).await?;
    let who = viewer.name().map(str::to_string);
    kept_out(&st, &g, who.as_deref()).await?;
    let ip = client
        .0
        .map_or_else(|| "-".to_string(), |ip| ip.to_string());
    let chat = Reader::open(st.chat().clone(), st.rounds().clone(), &g, who, ip).await?;
    let ws = crate::ws::caps::upgrade(ws)?;
    let channel = Watcher {
        rx,
        chat,
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

/// Refuses a watcher that a seated player blocks (unless it is seated itself: a game begun
/// before the block is still played).
async fn kept_out(st: &AppState, g: &crate::round::game::Game, who: Option<&str>) -> ApiResult<()> {
    let Some(who) = who else { return Ok(()) };
    let seated: Vec<String> = g.people.accounts.iter().flatten().cloned().collect();
    if seated.iter().any(|a| a == who) {
        return Ok(());
    }
    let who = who.to_string();
    let kept = st
        .db(move |s| {
            for a in &seated {
                if s.blocks(a, &who)? {
                    return Ok(true);
                }
            }
            Ok(false)
        })
        .await?;
    match kept {
        true => Err(crate::error::ApiError::blocked("watch this game")),
        false => Ok(()),
    }
}

/// One watcher of a game: the round's events go out, pings and the hello come in.
struct Watcher {
    rx: broadcast::Receiver<Arc<str>>,
    /// The game's chat as this watcher reads it.
    chat: Reader,
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
            tokio::select! {
                r = self.rx.recv() => match r {
                    Ok(t) => return Some(t.to_string()),
                    // Too slow to follow every event: the current state replaces them.
                    Err(broadcast::error::RecvError::Lagged(_)) => self.lagged = true,
                    Err(broadcast::error::RecvError::Closed) => return None,
                },
                Some(line) = self.chat.next() => return Some(text_of(&Out::Chat(line))),
            }
        }
    }

    async fn answer(&mut self, text: String) -> Option<String> {
        let out = match serde_json::from_str::<In>(&text) {
            // A line said reaches its author with its readers; only a refusal answers.
            Ok(In::Chat(say)) => {
                return self
                    .chat
                    .say(say)
                    .await
                    .err()
                    .map(|e| text_of(&Out::Error(e)))
            }
            Ok(In::Ping) => Out::Pong,
            Ok(In::Hello { secret }) => {
                hello(secret, &self.rounds, &self.id, &mut self.presence).await
            }
            Err(_) => Out::Error(SocketError::malformed(WHAT_A_CLIENT_SENDS)),
        };
        if let Out::Hello { seats } = &out {
            if let Some(side) = seats.first().and_then(|s| side_of(s)) {
                self.chat.seated(side);
            }
        }
        Some(text_of(&out))
    }
}

/// What the refusal of a message that is none of a watcher's says.
const WHAT_A_CLIENT_SENDS: &str = "a client sends {\"type\":\"ping\"}, \
     {\"type\":\"hello\",\"secret\":…} or {\"type\":\"chat\",\"room\":…,\"text\":…}";

/// A player's connection to the game (after its `hello`, or a program's stream of the game):
/// when it closes, however it does, the round hears that the player left.
pub(crate) struct Presence {
    rounds: Arc<Rounds>,
    id: String,
    secret: String,
}

impl Presence {
    /// Tells the round that the holder of `secret` is here: the seats it holds, and the
    /// presence that says they left when dropped.
    pub(crate) async fn enter(
        rounds: &Arc<Rounds>,
        id: &str,
        secret: String,
    ) -> ApiResult<(Vec<anywoli_core::Side>, Presence)> {
        let seats = rounds
            .call(id, |reply| Command::Present {
                secret: secret.clone(),
                here: true,
                reply,
            })
            .await??;
        let p = Presence {
            rounds: rounds.clone(),
            id: id.to_string(),
            secret,
        };
        Ok((seats, p))
    }
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

/// What a watcher sends.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum In {
    Ping,
    /// Whose connection this is: a seat's secret (taken as any JSON value, so that a hello
    /// without a string secret is told what it lacks).
    Hello {
        #[serde(default)]
        secret: serde_json::Value,
    },
    /// A chat line: `{"type":"chat","room":"players","text":"gg"}` (or `"preset"`).
    Chat(Say),
}

/// What a watcher is answered (the game's events are [`event_message`]s).
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Out {
    Pong,
    /// The seats the hello's secret holds.
    Hello {
        seats: Vec<&'static str>,
    },
    Error(SocketError),
    /// A chat line of a room this watcher reads.
    Chat(Heard),
}

/// Answers the `hello` that says whose connection this is.
async fn hello(
    secret: serde_json::Value,
    rounds: &Arc<Rounds>,
    id: &str,
    presence: &mut Option<Presence>,
) -> Out {
    let refuse = |m: &str| Out::Error(SocketError::malformed(m));
    if presence.is_some() {
        return refuse("this connection has said hello already");
    }
    let Some(secret) = secret.as_str().map(str::to_string) else {
        return refuse("hello needs the seat's secret");
    };
    match Presence::enter(rounds, id, secret).await {
        Ok((seats, p)) => {
            *presence = Some(p);
            Out::Hello {
                seats: seats.into_iter().map(side_name).collect(),
            }
        }
        Err(e) => Out::Error(e.into()),
    }
}

/// The side a seat's name names.
fn side_of(name: &str) -> Option<anywoli_core::Side> {
    [anywoli_core::Side::South, anywoli_core::Side::North]
        .into_iter()
        .find(|s| side_name(*s) == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_watcher_s_messages_read_as_before_they_were_typed() {
        let read = |t: &str| serde_json::from_str::<In>(t).ok();
        assert!(matches!(read(r#"{"type":"ping"}"#), Some(In::Ping)));
        assert!(matches!(read(r#"{"type":"ping","at":5}"#), Some(In::Ping)));
        let Some(In::Hello { secret }) = read(r#"{"type":"hello","secret":"s3"}"#) else {
            panic!("a hello");
        };
        assert_eq!(secret.as_str(), Some("s3"));
        let Some(In::Hello { secret }) = read(r#"{"type":"hello"}"#) else {
            panic!("a hello without its secret is still a hello");
        };
        assert!(secret.is_null());
        assert!(read(r#"{"type":"move"}"#).is_none());
        assert!(read("not json").is_none());
        assert_eq!(
            text_of(&Out::Hello {
                seats: vec!["south"]
            }),
            r#"{"type":"hello","seats":["south"]}"#
        );
        assert_eq!(
            text_of(&Out::Error(SocketError::malformed("no"))),
            r#"{"type":"error","error":"malformed","message":"no"}"#
        );
        assert_eq!(text_of(&Out::Pong), r#"{"type":"pong"}"#);
    }
}
