//! TV (issue 38): the best live game, followed on to the next when it ends.
//!
//! One director per instance watches the game on TV through its round (the same `Watch` every
//! game's watcher uses) and hands each event, once, to a broadcast that every TV socket reads:
//! a thousand spectators cost one round watcher and one copy of each message, not a thousand.
//! When the game ends the director picks the next one at once (and then every
//! [`LOOK_EVERY`] while there is none) and announces it as `{"type":"tv","game":ID}` followed
//! by the new game's state. The director runs only while someone watches.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use tokio::sync::{broadcast, watch};

use crate::round::change::Event;
use crate::round::view::event_message;
use crate::round::{Command, Rounds};
use crate::store::Store;

/// How often the director looks for a game while there is none.
pub const LOOK_EVERY: Duration = Duration::from_millis(500);
/// A game is shown only if it changed this recently (as the live games' list).
pub const ACTIVE_WITHIN: Duration = Duration::from_secs(10 * 60);
/// Messages a slow spectator may fall behind before it is sent the whole state instead.
const BACKLOG: usize = 64;

/// What a TV socket is sent besides the game's events.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TvMessage<'a> {
    /// The game on TV from now on (`null`: none is being played); its state follows.
    Tv { game: Option<&'a str> },
}

impl TvMessage<'_> {
    pub fn text(&self) -> String {
        serde_json::to_string(self).expect("a TV message serializes")
    }
}

/// The TV of this instance.
pub struct Tv {
    store: Arc<Store>,
    rounds: Arc<Rounds>,
    out: broadcast::Sender<Arc<str>>,
    /// The game on TV now.
    current: watch::Sender<Option<String>>,
    running: AtomicBool,
}

impl Tv {
    pub fn new(store: Arc<Store>, rounds: Arc<Rounds>) -> Arc<Tv> {
        Arc::new(Tv {
            store,
            rounds,
            out: broadcast::channel(BACKLOG).0,
            current: watch::channel(None).0,
            running: AtomicBool::new(false),
        })
    }

    /// A new spectator: the messages from now on, and the game on TV now unless the director
    /// was not running: it starts (within the runtime) and its first message says which game
    /// it found.
    pub fn tune_in(self: &Arc<Tv>) -> (broadcast::Receiver<Arc<str>>, Option<Option<String>>) {
        let rx = self.out.subscribe();
        if !self.running.swap(true, Ordering::SeqCst) {
            tokio::spawn(self.clone().direct());
            return (rx, None);
        }
        (rx, Some(self.current.borrow().clone()))
    }

    /// The game on TV now.
    pub fn current(&self) -> Option<String> {
        self.current.borrow().clone()
    }

    /// The rounds whose games TV shows.
    pub fn rounds(&self) -> &Arc<Rounds> {
        &self.rounds
    }

    /// The best game to show now, if any.
    pub async fn pick(&self) -> Option<String> {
        let since = crate::dates::now_ms() - ACTIVE_WITHIN.as_millis() as i64;
        let store = self.store.clone();
        match tokio::task::spawn_blocking(move || store.tv_game(since)).await {
            Ok(Ok(id)) => id,
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "TV could not look for a game");
                None
            }
            Err(_) => None,
        }
    }

    /// Whoever watches; when no one does, the director stops (and says so, unless a spectator
    /// came meanwhile and it goes on).
    fn nobody_watches(&self) -> bool {
        if self.out.receiver_count() > 0 {
            return false;
        }
        self.running.store(false, Ordering::SeqCst);
        self.out.receiver_count() == 0 || self.running.swap(true, Ordering::SeqCst)
    }

    fn announce(&self, game: Option<&str>, state: Option<String>) {
        self.current.send_replace(game.map(str::to_string));
        let _ = self.out.send(Arc::from(TvMessage::Tv { game }.text()));
        if let Some(s) = state {
            let _ = self.out.send(Arc::from(s));
        }
    }

    /// The director: shows the best game until it ends, then the next.
    async fn direct(self: Arc<Tv>) {
        // The spectators that started it wait for its first word, a game or none.
        self.current.send_replace(None);
        let mut first = true;
        loop {
            if self.nobody_watches() {
                return;
            }
            let Some(id) = self.pick().await else {
                if std::mem::take(&mut first) || self.current().is_some() {
                    self.announce(None, None);
                }
                tokio::time::sleep(LOOK_EVERY).await;
                continue;
            };
            let Ok((state, rx)) = self.rounds.call(&id, Command::Watch).await else {
                tokio::time::sleep(LOOK_EVERY).await;
                continue;
            };
            first = false;
            self.announce(Some(&id), Some(state));
            if !self.show(&id, rx).await {
                return;
            }
        }
    }

    /// Passes game `id`'s events on until it ends: false if no one watches any more.
    async fn show(&self, id: &str, mut rx: broadcast::Receiver<Arc<str>>) -> bool {
        loop {
            match tokio::time::timeout(LOOK_EVERY, rx.recv()).await {
                Ok(Ok(text)) => {
                    let _ = self.out.send(text);
                }
                // Behind the round: the state replaces what was missed.
                Ok(Err(broadcast::error::RecvError::Lagged(_))) => {
                    if let Ok(g) = self.rounds.snapshot(id).await {
                        let _ = self.out.send(Arc::from(event_message(&Event::State, &g)));
                    }
                }
                Ok(Err(broadcast::error::RecvError::Closed)) => return true,
                Err(_) => {
                    if self.nobody_watches() {
                        return false;
                    }
                }
            }
            // A game that ended, or that its players left without ending it, gives way.
            let stale = crate::dates::now_ms() - ACTIVE_WITHIN.as_millis() as i64;
            match self.rounds.snapshot(id).await {
                Ok(g) if g.is_playing() && g.updated > stale => {}
                _ => return true,
            }
        }
    }
}
