//! One watcher's side of a game's chat: which lines it may read (its rooms, less those of
//! accounts it blocks or is blocked by), the recent lines it gets on connecting, and the
//! checks on what it says.

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;

use anywoli_core::Side;
use serde::{Deserialize, Serialize};

use super::line::{checked_text, refusal, Preset};
use super::{Hub, Subscription};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::round::game::Game;
use crate::round::mode::Player;
use crate::round::status::Status;
use crate::round::Rounds;
use crate::store::{ChatLine, Room, Store};
use crate::trace_json::side_name;
use crate::ws::SocketError;

/// Lines of each room a watcher gets on connecting (a reconnect reads the chat so far).
pub const HISTORY: usize = 100;
/// Blocks read per watcher: more than anyone keeps.
const BLOCKS_READ: usize = 1000;

/// A watcher's line: `{"type":"chat","room":…,"text":…}`, or `"preset"` instead of text.
#[derive(Debug, Deserialize)]
pub struct Say {
    pub room: Room,
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub preset: Option<Preset>,
}

/// A line as its readers get it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Heard {
    pub id: String,
    pub room: Room,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub side: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preset: Option<String>,
    pub at: i64,
}

impl From<&ChatLine> for Heard {
    fn from(l: &ChatLine) -> Heard {
        Heard {
            id: l.id.clone(),
            room: l.room,
            author: l.author.clone(),
            side: l.side.clone(),
            text: (!l.text.is_empty()).then(|| l.text.clone()),
            preset: l.preset.clone(),
            at: l.at,
        }
    }
}

/// One watcher's chat.
pub struct Reader {
    hub: Arc<Hub>,
    rounds: Arc<Rounds>,
    game: String,
    sub: Subscription,
    account: Option<String>,
    client: String,
    /// The seat this watcher holds: by its account, or by its hello's secret.
    side: Option<Side>,
    /// The account of each seat (a blocked opponent is refused in the players' room).
    seats: [Option<String>; 2],
    /// An anonymous player holds a seat: an anonymous watcher may be that player before
    /// its hello, so it reads the spectators' room only once the game is over.
    anonymous_seat: bool,
    blocks: HashSet<String>,
    pending: VecDeque<Heard>,
    /// A line received whose check (is the game over?) has not finished.
    held: Option<Arc<ChatLine>>,
}

impl Reader {
    /// The chat of game `g` for a watcher with `account` (if any) from `client`: subscribed
    /// before the history is read, so that no line falls between them.
    pub async fn open(
        hub: Arc<Hub>,
        rounds: Arc<Rounds>,
        g: &Game,
        account: Option<String>,
        client: String,
    ) -> ApiResult<Reader> {
        let sub = hub.subscribe(&g.id);
        let seats = [
            g.people.accounts[Side::South].clone(),
            g.people.accounts[Side::North].clone(),
        ];
        let side = account.as_ref().and_then(|a| {
            [Side::South, Side::North]
                .into_iter()
                .find(|s| seats[s.index()].as_ref() == Some(a))
        });
        let anonymous_seat = g
            .players
            .with_sides()
            .any(|(s, p)| matches!(p, Player::Human) && seats[s.index()].is_none());
        let (store, id, who) = (hub.store.clone(), g.id.clone(), account.clone());
        let (blocks, history) = blocking(store, move |s| {
            let blocks = match &who {
                Some(a) => s.blocked_with(a, BLOCKS_READ)?,
                None => Vec::new(),
            };
            let mut lines = s.chat_lines(&id, Room::Players, HISTORY)?;
            lines.extend(s.chat_lines(&id, Room::Spectators, HISTORY)?);
            Ok((blocks, lines))
        })
        .await?;
        let mut r = Reader {
            hub,
            rounds,
            game: g.id.clone(),
            sub,
            account,
            client,
            side,
            seats,
            anonymous_seat,
            blocks: blocks.into_iter().collect(),
            pending: VecDeque::new(),
            held: None,
        };
        let over = g.status != Status::Playing;
        let mut history: Vec<ChatLine> = history
            .into_iter()
            .filter(|l| r.may_read(l, over))
            .collect();
        history.sort_by(|a, b| (a.at, &a.id).cmp(&(b.at, &b.id)));
        r.pending = history.iter().map(Heard::from).collect();
        Ok(r)
    }

    /// The seat a hello's secret holds: this watcher is that player from now on.
    pub fn seated(&mut self, side: Side) {
        self.side = Some(side);
    }

    /// Whether this watcher reads `line`, the game being `over` or not.
    fn may_read(&self, line: &ChatLine, over: bool) -> bool {
        if line
            .author
            .as_ref()
            .is_some_and(|a| self.blocks.contains(a))
        {
            return false;
        }
        line.room == Room::Players || over || !self.restricted()
    }

    /// Whether the spectators' room is closed to this watcher while the game goes on.
    fn restricted(&self) -> bool {
        self.side.is_some() || (self.account.is_none() && self.anonymous_seat)
    }

    /// The next line for this watcher (cancel-safe: what is pending or held stays so).
    pub async fn next(&mut self) -> Option<Heard> {
        loop {
            if let Some(h) = self.pending.pop_front() {
                return Some(h);
            }
            // A line whose check was cancelled (the client spoke meanwhile) is checked again.
            let line = match self.held.take() {
                Some(l) => l,
                None => match self.sub.rx.recv().await {
                    Ok(l) => l,
                    // Lines missed by a watcher too slow to read them are gone for it.
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return None,
                },
            };
            let over = if line.room == Room::Spectators && self.restricted() {
                self.held = Some(line.clone());
                let over = self.over().await;
                self.held = None;
                over
            } else {
                false
            };
            if self.may_read(&line, over) {
                return Some(Heard::from(&*line));
            }
        }
    }

    async fn over(&self) -> bool {
        match self.rounds.snapshot(&self.game).await {
            Ok(g) => g.status != Status::Playing,
            Err(_) => false,
        }
    }

    /// Says `say`, or the refusal (nothing stored, nothing sent).
    pub async fn say(&mut self, say: Say) -> Result<(), SocketError> {
        let line = self.checked(say)?;
        if let Some(a) = &self.account {
            // From the store at each line: a mute or a block made since this socket opened
            // (on any instance) holds at once.
            let opponent = match (line.room, self.side) {
                (Room::Players, Some(me)) => self.seats[me.opponent().index()].clone(),
                _ => None,
            };
            let (store, a) = (self.hub.store.clone(), a.clone());
            let now = crate::dates::now_ms();
            let (muted, blocked) = blocking(store, move |s| {
                let blocked = match &opponent {
                    Some(o) => s.blocked_between(&a, o)?,
                    None => false,
                };
                Ok((s.muted(&a, now)?, blocked))
            })
            .await
            .map_err(SocketError::from)?;
            if let Some(m) = muted {
                return Err(refusal(
                    ErrorCode::Muted,
                    format!("a moderator muted your chat until {}", m.until),
                ));
            }
            if blocked {
                return Err(refusal(
                    ErrorCode::Blocked,
                    "you and your opponent are blocked",
                ));
            }
        }
        self.hub.post(&self.client, line).await
    }

    /// The line `say` makes, if this watcher may say it in its room.
    fn checked(&self, say: Say) -> Result<ChatLine, SocketError> {
        let (text, preset) = match (&self.account, say.text, say.preset) {
            (_, Some(_), Some(_)) => {
                return Err(SocketError::malformed(
                    "a line has a text or a preset, not both",
                ))
            }
            (_, None, None) => {
                return Err(SocketError::malformed("a line needs a text or a preset"))
            }
            (None, Some(_), None) => {
                return Err(refusal(
                    ErrorCode::NotLoggedIn,
                    "chat needs an account: without one, choose a preset phrase",
                ))
            }
            (_, Some(t), None) => (checked_text(&t)?, None),
            (_, None, Some(p)) => (String::new(), Some(p.as_str().to_string())),
        };
        match (say.room, self.side) {
            (Room::Tournament, _) => {
                return Err(SocketError::malformed(
                    "a game's rooms are players and spectators",
                ))
            }
            (Room::Players, None) => {
                return Err(refusal(
                    ErrorCode::NotYourSeat,
                    "only the game's two players write in the players' room",
                ))
            }
            (Room::Spectators, Some(_)) => {
                return Err(refusal(
                    ErrorCode::NotAllowed,
                    "players write in the players' room",
                ))
            }
            (Room::Spectators, None) if self.account.is_none() => {
                return Err(refusal(
                    ErrorCode::NotLoggedIn,
                    "the spectators' room needs an account",
                ))
            }
            _ => {}
        }
        Ok(ChatLine {
            id: crate::ids::new_secret(),
            game: self.game.clone(),
            room: say.room,
            author: self.account.clone(),
            side: self.side.map(|s| side_name(s).to_string()),
            text,
            preset,
            at: self.hub.stamp(),
        })
    }
}

/// Runs a store call off the async threads.
pub(super) async fn blocking<T: Send + 'static>(
    store: Arc<Store>,
    f: impl FnOnce(&Store) -> crate::store::StoreResult<T> + Send + 'static,
) -> ApiResult<T> {
    match tokio::task::spawn_blocking(move || f(&store)).await {
        Ok(r) => r.map_err(ApiError::from),
        Err(e) => Err(ApiError::storage(format!("the storage task failed: {e}"))),
    }
}
