//! Chat in games (issue 38): lines checked (`line.rs`), stored with their game, and sent to
//! each watcher the room lets read them (`reader.rs`). The hub here hands a game's lines to
//! its watchers on this instance, and to the other instances over the store's channel (as the
//! lobby's messages go), so that watchers of one game on two instances read one chat.

pub mod line;
pub mod reader;
pub mod tournament;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

use crate::lobby::Lobby;
use crate::round::notify::Listener;
use crate::store::{ChatLine, Store};

/// Lines a slow watcher may fall behind by before it misses some.
const BACKLOG: usize = 64;

/// A game's lines on their way to its watchers on this instance.
pub struct Hub {
    store: Arc<Store>,
    games: Mutex<HashMap<String, broadcast::Sender<Arc<ChatLine>>>>,
    pub rates: Mutex<line::Rates>,
    /// The time of the last line said here: each line's is later, so that lines said
    /// within one millisecond still read back in the order they were said.
    last_at: std::sync::atomic::AtomicI64,
}

/// A line as told to the other instances.
#[derive(Serialize, Deserialize)]
struct Told {
    chat: ChatLine,
    from: String,
}

impl Hub {
    pub fn new(store: Arc<Store>) -> Hub {
        Hub {
            store,
            games: Default::default(),
            rates: Default::default(),
            last_at: Default::default(),
        }
    }

    /// The time for a new line: now, or just after the last line's.
    pub fn stamp(&self) -> i64 {
        use std::sync::atomic::Ordering::SeqCst;
        let now = crate::dates::now_ms();
        let last = self
            .last_at
            .fetch_update(SeqCst, SeqCst, |last| Some(now.max(last + 1)))
            .unwrap_or(now);
        now.max(last + 1)
    }

    fn games(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<String, broadcast::Sender<Arc<ChatLine>>>> {
        self.games.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The lines of game `game` said from now on, until the subscription is dropped.
    pub fn subscribe(self: &Arc<Hub>, game: &str) -> Subscription {
        let rx = self
            .games()
            .entry(game.to_string())
            .or_insert_with(|| broadcast::channel(BACKLOG).0)
            .subscribe();
        Subscription {
            hub: self.clone(),
            game: game.to_string(),
            rx,
        }
    }

    /// Sends a stored line to its game's watchers here.
    fn deliver(&self, line: Arc<ChatLine>) {
        if let Some(tx) = self.games().get(&line.game) {
            let _ = tx.send(line);
        }
    }

    /// Sends a stored line to its game's watchers here and on the other instances (blocking:
    /// telling the others is a write of the store).
    pub fn said(&self, line: ChatLine) {
        let told = Told {
            chat: line,
            from: self.store.instance().to_string(),
        };
        if self.store.is_shared() {
            if let Ok(text) = serde_json::to_string(&told) {
                if let Err(e) = self.store.publish(&text) {
                    tracing::warn!("cannot tell the other instances a chat line: {e}");
                }
            }
        }
        self.deliver(Arc::new(told.chat));
    }

    /// Keeps `line` from `client` if the chat's pace allows it (per author and address here,
    /// per room in the store), and sends it to its readers; else the refusal, nothing kept.
    pub async fn post(
        self: &Arc<Hub>,
        client: &str,
        line: ChatLine,
    ) -> Result<(), crate::ws::SocketError> {
        self.rates.lock().unwrap_or_else(|e| e.into_inner()).allow(
            line.author.as_deref(),
            client,
            &line.text,
            std::time::Instant::now(),
        )?;
        let hub = self.clone();
        let said = reader::blocking(self.store.clone(), move |s| {
            let said = s.say_chat_line(line.clone(), line::PACE)?;
            if said == crate::store::Said::Saved {
                hub.said(line);
            }
            Ok(said)
        })
        .await
        .map_err(crate::ws::SocketError::from)?;
        match said {
            crate::store::Said::Saved => Ok(()),
            crate::store::Said::TooMany => Err(line::too_many()),
            crate::store::Said::Repeated => Err(line::repeated()),
        }
    }

    /// What another instance told, if it is a chat line (else `false`: not for the chat).
    fn hear(&self, payload: &str) -> bool {
        if !payload.starts_with("{\"chat\":") {
            return false;
        }
        if let Ok(t) = serde_json::from_str::<Told>(payload) {
            if t.from != self.store.instance() {
                self.deliver(Arc::new(t.chat));
            }
        }
        true
    }
}

/// A watcher's subscription to a game's lines; the game's channel goes with its last one.
pub struct Subscription {
    hub: Arc<Hub>,
    game: String,
    pub rx: broadcast::Receiver<Arc<ChatLine>>,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        let mut games = self.hub.games();
        if games
            .get(&self.game)
            .is_some_and(|tx| tx.receiver_count() <= 1)
        {
            games.remove(&self.game);
        }
    }
}

/// What the rounds hear from other instances, shared out: chat lines to the hub, the rest
/// to the lobby (whose messages travel on the same channel).
pub struct Fanout {
    pub lobby: Arc<Lobby>,
    pub chat: Arc<Hub>,
}

impl Listener for Fanout {
    fn your_move(&self, player: &str, game: &str, opponent: Option<&str>) {
        self.lobby.your_move(player, game, opponent);
    }

    fn game_started(&self, player: &str, game: &str) {
        self.lobby.game_started(player, game);
    }

    fn game_finished(&self, player: &str, game: &str) {
        self.lobby.game_finished(player, game);
    }

    fn heard_from_others(&self, payload: &str) {
        if !self.chat.hear(payload) {
            self.lobby.heard_from_others(payload);
        }
    }

    fn missed_others(&self) {
        self.lobby.missed_others();
    }
}
