//! The lobby over a WebSocket (docs/api-players.md); challenges over HTTP are
//! `challenges.rs`'s. The lobby's state is crate::lobby's; this file reads requests and says
//! what happened.

use crate::error::ErrorCode;
use anywoli_core::Rules;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::Value;
use tokio::sync::broadcast;

use std::collections::HashSet;

use crate::api::blocks::BLOCKS_MAX;
use crate::api::client::ClientIp;
use crate::api::extract::Viewer;
use crate::api::waits::{refuse_waiting, Whose};
use crate::app::AppState;
use crate::error::{ApiError, ApiResult};
use crate::ids::{new_id, random_bytes};
use crate::lobby::message::{ClientMessage, Seek, SeekRequest, ServerMessage};
use crate::lobby::start::{rating_of, start, Pairing};
use crate::lobby::Membership;
use crate::round::clock::TimeControl;
use crate::trace_json::side_name;
use crate::ws::{
    caps::{AskedUpgrade, Unopened},
    Bounds, Channel,
};

/// What a lobby client may send: seeks (well under 1 KiB), cancels, accepts and pings.
const BOUNDS: Bounds = Bounds::per_10s(4096, 30);

/// `GET /api/lobby`.
pub async fn lobby(
    State(st): State<AppState>,
    viewer: Viewer,
    client: ClientIp,
    ws: AskedUpgrade,
) -> Result<Response, Unopened> {
    let (ws, permit) = crate::ws::caps::open(st.sockets(), client.0, ws)?;
    let name = viewer.name().map(str::to_string);
    let limits = st.sockets().limits();
    let blocks = match name.clone() {
        Some(n) => st
            .db(move |s| s.blocked_with(&n, BLOCKS_MAX))
            .await
            .unwrap_or_default(),
        None => Vec::new(),
    };
    Ok(BOUNDS.upgrade(ws).on_upgrade(move |socket| async move {
        let (seeks, public, own, me) = st.lobby().join(name.clone(), client.0);
        let online = name.as_deref().map(|n| st.presence().here(n));
        let blocks: HashSet<String> = blocks.into_iter().collect();
        let seeks = visible(seeks, &blocks);
        let hello = ServerMessage::Lobby { seeks, you: name };
        let channel = LobbyClient {
            st,
            public,
            own,
            me,
            _online: online,
            blocks,
        };
        let first = Some(hello.text().to_string());
        crate::ws::serve(socket, channel, first, BOUNDS, limits, permit).await;
        // Dropping the channel's membership takes this connection's seeks out of the lobby.
    }))
}

/// One lobby connection: the lobby's changes and this connection's own news go out, seeks,
/// cancels and accepts come in.
struct LobbyClient {
    st: AppState,
    public: broadcast::Receiver<std::sync::Arc<str>>,
    own: tokio::sync::mpsc::Receiver<std::sync::Arc<str>>,
    me: Membership,
    /// Keeps the account online while the connection lasts (crate::presence).
    _online: Option<crate::presence::Here>,
    /// The accounts this one blocks or is blocked by (as it connected): their seeks are not
    /// shown to it (and accepting is refused either way, from the store).
    blocks: HashSet<String>,
}

/// Whether an account's lobby message is one only programs' event streams read.
fn is_for_programs(text: &str) -> bool {
    text.starts_with("{\"type\":\"game_start\"") || text.starts_with("{\"type\":\"game_finish\"")
}

/// The seeks a connection that keeps away from `blocks` is shown.
fn visible(seeks: Vec<Seek>, blocks: &HashSet<String>) -> Vec<Seek> {
    seeks
        .into_iter()
        .filter(|s| s.by.as_ref().is_none_or(|b| !blocks.contains(b)))
        .collect()
}

impl LobbyClient {
    /// Whether a public message is a seek by an account this one keeps away from.
    fn hidden(&self, text: &str) -> bool {
        if self.blocks.is_empty() || !text.starts_with("{\"type\":\"seek\"") {
            return false;
        }
        let v: Value = serde_json::from_str(text).unwrap_or_default();
        v["seek"]["by"]
            .as_str()
            .is_some_and(|b| self.blocks.contains(b))
    }
}

impl Channel for LobbyClient {
    async fn next(&mut self) -> Option<String> {
        loop {
            tokio::select! {
                m = self.public.recv() => match m {
                    Ok(text) if self.hidden(&text) => continue,
                    m => return self.public_message(m),
                },
                m = self.own.recv() => match m {
                    // For programs' event streams (crate::api::bot::events): the page has no
                    // use for them, and its socket's messages stay as they were.
                    Some(t) if is_for_programs(&t) => continue,
                    m => return m.map(|t| t.to_string()),
                },
            }
        }
    }

    async fn answer(&mut self, text: String) -> Option<String> {
        answer(&self.st, &self.me, &text)
            .await
            .map(|m| m.text().to_string())
    }
}

impl LobbyClient {
    /// What a public change (or having missed some) sends this connection.
    fn public_message(
        &self,
        m: Result<std::sync::Arc<str>, broadcast::error::RecvError>,
    ) -> Option<String> {
        match m {
            Ok(text) => Some(text.to_string()),
            Err(broadcast::error::RecvError::Lagged(_)) => {
                // Too slow to follow every seek: the whole list replaces them.
                let seeks = visible(self.st.lobby().snapshot(), &self.blocks);
                let m = ServerMessage::Lobby {
                    seeks,
                    you: self.me.name.clone(),
                };
                Some(m.text().to_string())
            }
            Err(broadcast::error::RecvError::Closed) => None,
        }
    }
}

/// Answers a client's message; `None` when the answer goes another way (`started`).
async fn answer(st: &AppState, me: &Membership, text: &str) -> Option<ServerMessage> {
    let msg: ClientMessage = match serde_json::from_str(text) {
        Ok(m) => m,
        Err(e) => {
            return Some(ServerMessage::error(&ApiError::malformed(format!(
                "not a lobby message: {e}"
            ))))
        }
    };
    // The socket keeps the name it opened with; an account closed since acts no more.
    if !matches!(msg, ClientMessage::Ping | ClientMessage::Cancel { .. }) {
        if let Err(e) = crate::api::moderation::refuse_closed(st, me.name.as_deref()).await {
            return Some(ServerMessage::error(&e));
        }
    }
    let r = match msg {
        ClientMessage::Ping => return Some(ServerMessage::Pong),
        ClientMessage::Seek(req) => seek(st, me, req).await,
        ClientMessage::Cancel { id } => st.lobby().cancel(me.id, &id).await.map(|()| None),
        ClientMessage::Accept { id } => accept(st, me, &id).await.map(|()| None),
    };
    match r {
        Ok(m) => m,
        Err(e) => Some(ServerMessage::error(&e)),
    }
}

/// Rules and clock as a seek or challenge names them.
pub(crate) fn terms(rules: &str, clock: Option<&str>) -> ApiResult<(Rules, Option<TimeControl>)> {
    let seed = u64::from_le_bytes(random_bytes::<8>());
    let rules = Rules::from_name(rules, seed).map_err(|e| ApiError::malformed(e.to_string()))?;
    let clock = clock
        .map(TimeControl::parse)
        .transpose()
        .map_err(|e| ApiError::malformed(e.to_string()))?;
    Ok((rules, clock))
}

pub(crate) fn rated_needs_account() -> ApiError {
    ApiError::new(
        StatusCode::UNAUTHORIZED,
        ErrorCode::RatedNeedsAccount,
        "rated games are between players with accounts: log in first",
    )
}

/// Refuses a rated game where one of `names` is marked (docs/community.md, "Marks"): a marked
/// account plays casual games only. Which of the two is marked is not said.
pub(crate) async fn refuse_marked(st: &AppState, names: [Option<&str>; 2]) -> ApiResult<()> {
    let names: Vec<String> = names.into_iter().flatten().map(str::to_string).collect();
    let marked = st
        .rounds()
        .db(move |s| {
            for n in &names {
                if !s.marks(n)?.is_empty() {
                    return Ok(true);
                }
            }
            Ok(false)
        })
        .await?;
    if marked {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            ErrorCode::Marked,
            "rated games are closed to this account (a moderator's mark): play a casual game",
        ));
    }
    Ok(())
}

pub(crate) async fn seek(
    st: &AppState,
    me: &Membership,
    req: SeekRequest,
) -> ApiResult<Option<ServerMessage>> {
    let (rules, clock) = terms(&req.rules, Some(&req.clock))?;
    let clock = clock.expect("a seek names its clock");
    refuse_waiting(st, me.name.as_deref(), Whose::Mine).await?;
    if req.rated && me.name.is_none() {
        return Err(rated_needs_account());
    }
    if req.rated {
        refuse_marked(st, [me.name.as_deref(), None]).await?;
    }
    if let Some([lo, hi]) = req.range {
        if lo > hi || hi > 4000 {
            return Err(ApiError::malformed(
                "range is [lowest, highest] rating, from 0 to 4000",
            ));
        }
    }
    let category = clock.category();
    let rating = match &me.name {
        Some(n) => Some(rating_of(st.rounds(), n, category, rules.name()).await?),
        None => None,
    };
    let seek = Seek {
        id: new_id(),
        by: me.name.clone(),
        rating: rating.map(|r| r.rating),
        provisional: rating.is_none_or(|r| r.is_provisional()),
        rules: rules.name().to_string(),
        clock: clock.name(),
        category,
        rated: req.rated,
        side: req.side,
        range: req.range,
    };
    let id = seek.id.clone();
    st.lobby().open(me.id, seek)?;
    // The answer, which `run` sends before it reads the lobby's changes again: the creator
    // hears `seeking` before the `seek` just announced (had it gone by the connection's own
    // queue, `select!` could have sent either first), and only for a seek that opened.
    Ok(Some(ServerMessage::Seeking { id }))
}

async fn accept(st: &AppState, me: &Membership, id: &str) -> ApiResult<()> {
    let (seek, owner) = st.lobby().peek(id).ok_or_else(crate::lobby::unknown_seek)?;
    if owner == st.lobby().owner(me.id) || (me.name.is_some() && seek.by == me.name) {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            ErrorCode::OwnSeek,
            "this seek is yours: wait for someone else to accept it",
        ));
    }
    if seek.rated && me.name.is_none() {
        return Err(rated_needs_account());
    }
    if seek.rated {
        refuse_marked(st, [seek.by.as_deref(), me.name.as_deref()]).await?;
    }
    refuse_waiting(st, me.name.as_deref(), Whose::Mine).await?;
    if let Err(e) = refuse_waiting(st, seek.by.as_deref(), Whose::Theirs).await {
        // Its creator must wait since it was made: it goes, for everyone.
        if e.code == ErrorCode::PlayWait {
            let _ = st.lobby().take(id).await;
        }
        return Err(e);
    }
    if let (Some(by), Some(me)) = (&seek.by, &me.name) {
        if crate::api::blocks::between(st, by, me).await? {
            return Err(ApiError::blocked("accept this seek"));
        }
    }
    if let Some([lo, hi]) = seek.range {
        let mine = match &me.name {
            Some(n) => Some(rating_of(st.rounds(), n, seek.category, &seek.rules).await?),
            None => None,
        };
        if !mine.is_some_and(|r| (f64::from(lo)..=f64::from(hi)).contains(&r.rating.round())) {
            return Err(ApiError::new(
                StatusCode::FORBIDDEN,
                ErrorCode::OutOfRange,
                format!("this seek is for players rated {lo} to {hi}"),
            ));
        }
    }
    let (rules, clock) = terms(&seek.rules, Some(&seek.clock))?;
    // From here the seek is gone for everyone, whatever happens to its game: a game that
    // cannot be made (the database failing) is an error for the acceptor, and the creator
    // sees the seek go and makes it again.
    let (seek, owner) = st.lobby().take(id).await?;
    let pairing = Pairing {
        rules,
        clock,
        rated: seek.rated,
        side: seek.side,
        creator: seek.by.clone(),
        joiner: me.name.clone(),
    };
    let s = start(st.rounds(), pairing).await?;
    let started = |(side, secret): (anywoli_core::Side, String)| ServerMessage::Started {
        game: s.game.clone(),
        seat: side_name(side),
        secret,
    };
    st.lobby().tell_conn(&owner, &started(s.creator.clone()));
    st.lobby()
        .tell_conn(&st.lobby().owner(me.id), &started(s.joiner.clone()));
    Ok(())
}
