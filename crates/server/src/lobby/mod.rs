//! The lobby (issue 12, docs/api-players.md): open seeks that everyone in the lobby sees
//! appear and vanish, and challenges from one named player to another. Accepting either
//! makes the game (`start.rs`) and tells both players at once.
//!
//! A seek lives in the memory of the instance whose connection made it, and lasts as long as
//! that connection. With several instances on one PostgreSQL database, the instances tell each
//! other about seeks and about messages for players (`bus.rs`, over `NOTIFY`), so that every
//! lobby shows every seek; the database decides who takes a seek (`seek_claims`: one seek,
//! one game, whatever instances its takers reached). Challenges wait in the database.

pub mod bus;
mod challenges;
mod instances;
pub mod message;
mod seeks;
pub mod start;

use crate::error::ErrorCode;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{broadcast, mpsc};

use crate::dates::now_ms;
use crate::error::{ApiError, ApiResult};
use crate::store::{AccountOp, ChallengeRow, Store};
use bus::BusMessage;
use message::{Challenge, GoneReason, Seek, ServerMessage};

/// A challenge unanswered this long goes away.
pub const CHALLENGE_TTL_MS: i64 = 10 * 60 * 1000;
/// Open seeks one connection may have at once, and one account.
pub const SEEKS_PER_CONNECTION: usize = 3;
/// Open seeks one client address may have at once (issue 36: 720 sockets of one stranger
/// filled the whole lobby, 3 seeks each): two people of a household seeking three each.
pub const SEEKS_PER_CLIENT: usize = 6;
/// Open seeks in the whole lobby; past it, new seeks are refused (`503 busy`) until some go.
pub const MAX_SEEKS: usize = 2000;
/// A seek nobody accepted for this long goes away, even while its maker's page stays open (a
/// forgotten tab would hold it for ever); the page says so and the maker can seek again.
pub const SEEK_TTL: Duration = Duration::from_secs(20 * 60);
/// Challenges one account may have waiting that it sent, and that it received.
pub const CHALLENGES_PER_ACCOUNT: usize = 20;
/// How often an instance tells the others which seeks it holds (and drops challenges past
/// their time); another instance's seek not heard of for three times this is dropped (its
/// instance died).
pub const ALIVE_EVERY: Duration = Duration::from_secs(10);
/// Messages a connection's queue holds before the slowest reader misses some.
const QUEUE: usize = 64;

/// Which connection made a seek, on which instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owner {
    pub instance: String,
    pub conn: u64,
}

struct Held {
    seek: Seek,
    owner: Owner,
    /// When its instance last said it holds it (another instance's seek).
    seen: Instant,
    /// When it was opened here (this instance's seeks), for [`SEEK_TTL`].
    opened: Instant,
    /// The maker's client address (this instance's seeks).
    client: Option<std::net::IpAddr>,
}

/// A lobby connection: who, from where, and where its own messages go.
struct Conn {
    name: Option<String>,
    client: Option<std::net::IpAddr>,
    tx: mpsc::Sender<Arc<str>>,
}

#[derive(Default)]
struct State {
    next_conn: u64,
    conns: HashMap<u64, Conn>,
    seeks: BTreeMap<String, Held>,
}

/// The lobby's state and the stream of public changes (seeks coming and going).
pub struct Lobby {
    state: Mutex<State>,
    public: broadcast::Sender<Arc<str>>,
    store: Arc<Store>,
    /// Messages for the other instances, sent one after the other by one task (so that a
    /// seek's `gone` never overtakes its `open`); set by [`Lobby::start`] when the database
    /// is shared.
    outbox: std::sync::OnceLock<mpsc::UnboundedSender<String>>,
}

/// What joining gives a connection: the open seeks, the public changes from then on, its own
/// messages, and its membership.
pub type Joined = (
    Vec<Seek>,
    broadcast::Receiver<Arc<str>>,
    mpsc::Receiver<Arc<str>>,
    Membership,
);

/// A connection's place in the lobby; leaving (dropping it) takes its seeks away.
pub struct Membership {
    lobby: Arc<Lobby>,
    pub id: u64,
    pub name: Option<String>,
}

impl Drop for Membership {
    fn drop(&mut self) {
        self.lobby.leave(self.id);
    }
}

impl Lobby {
    pub fn new(store: Arc<Store>) -> Lobby {
        Lobby {
            state: Mutex::default(),
            public: broadcast::channel(256).0,
            store,
            outbox: std::sync::OnceLock::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn me(&self) -> &str {
        self.store.instance()
    }

    /// Runs a store call off the async threads.
    async fn db<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Store) -> crate::store::StoreResult<T> + Send + 'static,
    ) -> ApiResult<T> {
        let store = self.store.clone();
        tokio::task::spawn_blocking(move || f(&store))
            .await
            .map_err(|e| ApiError::storage(format!("the lobby's task failed: {e}")))?
            .map_err(ApiError::from)
    }

    /// Tells the other instances (nothing to tell with SQLite). A message that cannot be
    /// sent is logged: the lobbies catch up at the next [`ALIVE_EVERY`].
    fn publish(&self, m: BusMessage) {
        if let Some(out) = self.outbox.get() {
            let _ = out.send(m.text(self.me()));
        }
    }

    /// Joins: the open seeks as they are now, the stream of public changes from then on (no
    /// change can fall between), the connection's own messages, and its membership.
    pub fn join(
        self: &Arc<Self>,
        name: Option<String>,
        client: Option<std::net::IpAddr>,
    ) -> Joined {
        let (tx, rx) = mpsc::channel(QUEUE);
        let mut s = self.lock();
        s.next_conn += 1;
        let id = s.next_conn;
        s.conns.insert(
            id,
            Conn {
                name: name.clone(),
                client: client.map(crate::rate_limit::client_key),
                tx,
            },
        );
        let seeks = s.seeks.values().map(|h| h.seek.clone()).collect();
        let public = self.public.subscribe();
        drop(s);
        (
            seeks,
            public,
            rx,
            Membership {
                lobby: self.clone(),
                id,
                name,
            },
        )
    }

    /// A connection closed: its seeks go, here at once and everywhere else as soon as told;
    /// each is claimed in the database too, so that nobody accepts it afterwards.
    fn leave(&self, conn: u64) {
        let gone: Vec<String> = {
            let mut s = self.lock();
            s.conns.remove(&conn);
            let me = self.me().to_string();
            s.seeks
                .iter()
                .filter(|(_, h)| h.owner.conn == conn && h.owner.instance == me)
                .map(|(id, _)| id.clone())
                .collect()
        };
        // Dropped outside a runtime (a test's lobby going away), nobody is left to accept,
        // and the database is not told.
        self.expire_seeks(gone);
    }

    fn announce(&self, m: &ServerMessage) {
        // Nobody in the lobby is not an error.
        let _ = self.public.send(m.text());
    }

    /// Sends `m` to every lobby connection of account `name`, on every instance.
    pub fn tell(&self, name: &str, m: &ServerMessage) {
        self.tell_here(name, &m.text());
        self.publish(BusMessage::Tell {
            name: name.to_string(),
            text: m.text().to_string(),
        });
    }

    fn tell_here(&self, name: &str, text: &Arc<str>) {
        let s = self.lock();
        for c in s.conns.values().filter(|c| c.name.as_deref() == Some(name)) {
            // A connection too far behind misses the message; it lists challenges again
            // when it reconnects.
            let _ = c.tx.try_send(text.clone());
        }
    }

    /// Sends `m` to connection `owner`, on whichever instance holds it.
    pub fn tell_conn(&self, owner: &Owner, m: &ServerMessage) {
        if owner.instance == self.me() {
            self.tell_conn_here(owner.conn, &m.text());
        } else {
            self.publish(BusMessage::TellConn {
                instance: owner.instance.clone(),
                conn: owner.conn,
                text: m.text().to_string(),
            });
        }
    }

    fn tell_conn_here(&self, conn: u64, text: &Arc<str>) {
        if let Some(c) = self.lock().conns.get(&conn) {
            let _ = c.tx.try_send(text.clone());
        }
    }

    /// This instance's name for connection `conn`.
    pub fn owner(&self, conn: u64) -> Owner {
        Owner {
            instance: self.me().to_string(),
            conn,
        }
    }
}

pub fn unknown_seek() -> ApiError {
    ApiError::new(
        axum::http::StatusCode::NOT_FOUND,
        ErrorCode::UnknownSeek,
        "that seek is gone (accepted, cancelled, or its player left)",
    )
}
