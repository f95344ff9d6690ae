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
pub mod message;
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

    /// Opens a seek made by connection `conn`.
    pub fn open(&self, conn: u64, seek: Seek) -> Result<(), ApiError> {
        let owner = self.owner(conn);
        let mut s = self.lock();
        let client = s.conns.get(&conn).and_then(|c| c.client);
        let count = |f: &dyn Fn(&Held) -> bool| s.seeks.values().filter(|h| f(h)).count();
        let mine =
            count(&|h| h.owner == owner).max(count(&|h| seek.by.is_some() && h.seek.by == seek.by));
        let here = count(&|h| client.is_some() && h.client == client);
        if mine >= SEEKS_PER_CONNECTION || here >= SEEKS_PER_CLIENT {
            return Err(ApiError::new(
                axum::http::StatusCode::TOO_MANY_REQUESTS,
                ErrorCode::RateLimited,
                format!(
                    "at most {SEEKS_PER_CONNECTION} open seeks each ({SEEKS_PER_CLIENT} from one \
                     address); cancel one first"
                ),
            ));
        }
        if s.seeks.len() >= MAX_SEEKS {
            return Err(ApiError::busy(
                format!("the lobby is full ({MAX_SEEKS} open seeks); try again in a minute"),
                60,
            ));
        }
        s.seeks.insert(
            seek.id.clone(),
            Held {
                seek: seek.clone(),
                owner,
                seen: Instant::now(),
                opened: Instant::now(),
                client,
            },
        );
        drop(s);
        self.announce(&ServerMessage::Seek { seek: seek.clone() });
        self.publish(BusMessage::Open { seek, conn });
        Ok(())
    }

    /// Cancels connection `conn`'s seek `id`.
    pub async fn cancel(&self, conn: u64, id: &str) -> Result<(), ApiError> {
        let owner = self.owner(conn);
        let mine = self.lock().seeks.get(id).is_some_and(|h| h.owner == owner);
        if !mine {
            return Err(unknown_seek());
        }
        // Taken by an accept on another instance meanwhile: that game starts instead.
        self.take(id).await.map(drop)
    }

    /// Every open seek.
    pub fn snapshot(&self) -> Vec<Seek> {
        self.lock().seeks.values().map(|h| h.seek.clone()).collect()
    }

    /// Seek `id` and its creator's connection, if it is open.
    pub fn peek(&self, id: &str) -> Option<(Seek, Owner)> {
        self.lock()
            .seeks
            .get(id)
            .map(|h| (h.seek.clone(), h.owner.clone()))
    }

    /// Takes seek `id` out of every lobby, for accepting or cancelling it: the database says
    /// who took it first, so one seek makes at most one game.
    pub async fn take(&self, id: &str) -> Result<(Seek, Owner), ApiError> {
        let held = self.peek(id).ok_or_else(unknown_seek)?;
        let claim = id.to_string();
        let won = self
            .db(move |s| {
                s.account_op(AccountOp::TakeSeek {
                    id: claim,
                    at: now_ms(),
                })
            })
            .await?;
        self.drop_seek(id);
        if !won {
            return Err(unknown_seek());
        }
        self.publish(BusMessage::Gone { id: id.to_string() });
        Ok(held)
    }

    /// Removes a seek from this lobby, telling its connections.
    fn drop_seek(&self, id: &str) {
        if self.lock().seeks.remove(id).is_some() {
            self.announce(&ServerMessage::Unseek { id: id.to_string() });
        }
    }

    /// Sends challenge `c` to its player.
    pub async fn challenge(&self, c: Challenge) -> Result<(), ApiError> {
        self.expire().await;
        let (from, to) = (c.from.clone(), c.to.clone());
        let (sent, received) = self
            .db(move |s| Ok((s.challenges(&from)?, s.challenges(&to)?)))
            .await?;
        // One waiting challenge from one player to another: one stranger cannot fill a
        // player's incoming challenges (issue 36: all 20 places could be one sender's).
        if sent.iter().any(|x| x.from == c.from && x.to == c.to) {
            return Err(ApiError::new(
                axum::http::StatusCode::CONFLICT,
                ErrorCode::AlreadyChallenged,
                format!(
                    "you already challenged {}: wait for an answer, or cancel that one first",
                    c.to
                ),
            ));
        }
        let sent = sent.iter().filter(|x| x.from == c.from).count();
        let received = received.iter().filter(|x| x.to == c.to).count();
        // Each side's own count: a player that many challenge cannot be kept from sending.
        if sent >= CHALLENGES_PER_ACCOUNT || received >= CHALLENGES_PER_ACCOUNT {
            return Err(ApiError::new(
                axum::http::StatusCode::TOO_MANY_REQUESTS,
                ErrorCode::RateLimited,
                format!("at most {CHALLENGES_PER_ACCOUNT} challenges sent, and received, at once"),
            ));
        }
        let row = row_of(&c);
        self.db(move |s| s.account_op(AccountOp::AddChallenge(row)))
            .await?;
        self.tell(
            &c.to,
            &ServerMessage::Challenge {
                challenge: c.clone(),
            },
        );
        Ok(())
    }

    /// Puts back a challenge that was taken for accepting but whose game could not be made.
    pub async fn put_back_challenge(&self, c: Challenge) {
        let row = row_of(&c);
        let _ = self
            .db(move |s| s.account_op(AccountOp::AddChallenge(row)))
            .await;
    }

    /// The challenges to and from `name`.
    pub async fn challenges_of(&self, name: &str) -> ApiResult<(Vec<Challenge>, Vec<Challenge>)> {
        self.expire().await;
        let who = name.to_string();
        let rows = self.db(move |s| s.challenges(&who)).await?;
        let all: Vec<Challenge> = rows.iter().filter_map(challenge_of).collect();
        let incoming = all.iter().filter(|c| c.to == name).cloned().collect();
        let outgoing = all.iter().filter(|c| c.from == name).cloned().collect();
        Ok((incoming, outgoing))
    }

    /// Takes challenge `id` out for answering it: `by` must be its player (to accept or
    /// decline) or, to decline (cancel), its sender.
    pub async fn take_challenge(
        &self,
        id: &str,
        by: &str,
        accepting: bool,
    ) -> Result<Challenge, ApiError> {
        self.expire().await;
        let unknown = || {
            ApiError::new(
                axum::http::StatusCode::NOT_FOUND,
                ErrorCode::UnknownChallenge,
                "no such challenge is waiting for you (answered, cancelled or expired)",
            )
        };
        let key = id.to_string();
        let row = self.db(move |s| s.challenge(&key)).await?;
        let c = row
            .as_ref()
            .and_then(challenge_of)
            .filter(|c| c.to == by || (!accepting && c.from == by))
            .ok_or_else(unknown)?;
        let key = id.to_string();
        let won = self
            .db(move |s| s.account_op(AccountOp::TakeChallenge { id: key }))
            .await?;
        if won {
            Ok(c)
        } else {
            Err(unknown())
        }
    }

    /// Drops the challenges past their time, telling both players (whichever instance drops
    /// one first tells).
    pub async fn expire(&self) {
        let before = now_ms() - CHALLENGE_TTL_MS;
        let Ok(old) = self.db(move |s| s.old_challenges(before)).await else {
            return;
        };
        for row in old {
            let id = row.id.clone();
            let won = self
                .db(move |s| s.account_op(AccountOp::TakeChallenge { id }))
                .await;
            if won.unwrap_or(false) {
                let m = ServerMessage::ChallengeGone {
                    id: row.id.clone(),
                    reason: GoneReason::Expired,
                };
                self.tell(&row.from, &m);
                self.tell(&row.to, &m);
            }
        }
    }

    /// What another instance's lobby said (crate::store::Changed::Lobby).
    pub fn hear(&self, payload: &str) {
        let Some((from, m)) = BusMessage::parse(payload) else {
            return;
        };
        if from == self.me() {
            return;
        }
        match m {
            BusMessage::Open { seek, conn } => self.remote_seek(seek, &from, conn),
            BusMessage::Alive { seeks } => {
                for (seek, conn) in seeks {
                    self.remote_seek(seek, &from, conn);
                }
            }
            BusMessage::Gone { id } => self.drop_seek(&id),
            BusMessage::Tell { name, text } => self.tell_here(&name, &Arc::from(text)),
            BusMessage::TellConn {
                instance,
                conn,
                text,
            } => {
                if instance == self.me() {
                    self.tell_conn_here(conn, &Arc::from(text));
                }
            }
            BusMessage::Hello => self.say_alive(),
        }
    }

    fn remote_seek(&self, seek: Seek, instance: &str, conn: u64) {
        let mut s = self.lock();
        if let Some(h) = s.seeks.get_mut(&seek.id) {
            h.seen = Instant::now();
            return;
        }
        if s.seeks.len() >= MAX_SEEKS {
            return;
        }
        s.seeks.insert(
            seek.id.clone(),
            Held {
                seek: seek.clone(),
                owner: Owner {
                    instance: instance.to_string(),
                    conn,
                },
                seen: Instant::now(),
                opened: Instant::now(),
                client: None,
            },
        );
        drop(s);
        self.announce(&ServerMessage::Seek { seek });
    }

    /// Tells the other instances every seek this one holds.
    fn say_alive(&self) {
        let mine: Vec<(Seek, u64)> = {
            let s = self.lock();
            s.seeks
                .values()
                .filter(|h| h.owner.instance == self.me())
                .map(|h| (h.seek.clone(), h.owner.conn))
                .collect()
        };
        for chunk in mine.chunks(bus::SEEKS_PER_MESSAGE) {
            self.publish(BusMessage::Alive {
                seeks: chunk.to_vec(),
            });
        }
    }

    /// Drops other instances' seeks they stopped saying they hold (the instance died).
    fn sweep(&self) {
        let (stale, expired): (Vec<String>, Vec<String>) = {
            let s = self.lock();
            let stale = s
                .seeks
                .iter()
                .filter(|(_, h)| {
                    h.owner.instance != self.me() && h.seen.elapsed() > ALIVE_EVERY * 3
                })
                .map(|(id, _)| id.clone())
                .collect();
            let expired = s
                .seeks
                .iter()
                .filter(|(_, h)| h.owner.instance == self.me() && h.opened.elapsed() > SEEK_TTL)
                .map(|(id, _)| id.clone())
                .collect();
            (stale, expired)
        };
        for id in stale {
            self.drop_seek(&id);
        }
        self.expire_seeks(expired);
    }

    /// Takes this instance's seeks `ids` away as their maker's leaving would: here, on the
    /// other instances, and in the database (so that nobody accepts them afterwards).
    fn expire_seeks(&self, ids: Vec<String>) {
        for id in ids {
            if self.lock().seeks.remove(&id).is_none() {
                continue;
            }
            self.announce(&ServerMessage::Unseek { id: id.clone() });
            self.publish(BusMessage::Gone { id: id.clone() });
            let store = self.store.clone();
            if tokio::runtime::Handle::try_current().is_ok() {
                tokio::task::spawn_blocking(move || {
                    let _ = store.account_op(AccountOp::TakeSeek { id, at: now_ms() });
                });
            }
        }
    }

    /// What the lobby does in the background until it is dropped: says which seeks this
    /// instance holds, forgets those of instances gone quiet, and drops challenges past
    /// their time. A new instance asks the others for their seeks at once.
    pub fn start(self: &Arc<Self>, rt: &tokio::runtime::Handle) {
        if self.store.is_shared() {
            let (tx, mut rx) = mpsc::unbounded_channel::<String>();
            if self.outbox.set(tx).is_ok() {
                let store = self.store.clone();
                rt.spawn(async move {
                    while let Some(text) = rx.recv().await {
                        let store = store.clone();
                        let sent = tokio::task::spawn_blocking(move || store.publish(&text)).await;
                        if let Ok(Err(e)) = sent {
                            tracing::warn!("cannot tell the other instances' lobbies: {e}");
                        }
                    }
                });
            }
        }
        let me = Arc::downgrade(self);
        rt.spawn(async move {
            if let Some(l) = me.upgrade() {
                l.publish(BusMessage::Hello);
            }
            let mut tick = tokio::time::interval(ALIVE_EVERY);
            loop {
                tick.tick().await;
                let Some(l) = me.upgrade() else { return };
                l.say_alive();
                l.sweep();
                l.expire().await;
            }
        });
    }

    /// The connection to the other instances was lost and is back: what they said meanwhile
    /// is gone, so they say it again.
    pub fn missed(&self) {
        self.publish(BusMessage::Hello);
    }
}

impl crate::round::notify::Listener for Lobby {
    fn your_move(&self, player: &str, game: &str, opponent: Option<&str>) {
        self.tell(
            player,
            &ServerMessage::YourMove {
                game: game.to_string(),
                opponent: opponent.map(str::to_string),
            },
        );
    }

    fn heard_from_others(&self, payload: &str) {
        self.hear(payload);
    }

    fn missed_others(&self) {
        self.missed();
    }
}

fn row_of(c: &Challenge) -> ChallengeRow {
    ChallengeRow {
        id: c.id.clone(),
        from: c.from.clone(),
        to: c.to.clone(),
        body: serde_json::to_string(c).unwrap_or_default(),
        at: c.at,
    }
}

fn challenge_of(row: &ChallengeRow) -> Option<Challenge> {
    serde_json::from_str(&row.body).ok()
}

pub fn unknown_seek() -> ApiError {
    ApiError::new(
        axum::http::StatusCode::NOT_FOUND,
        ErrorCode::UnknownSeek,
        "that seek is gone (accepted, cancelled, or its player left)",
    )
}
