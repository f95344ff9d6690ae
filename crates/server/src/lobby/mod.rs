//! The lobby (issue 12, docs/api-players.md): open seeks that everyone in the lobby sees
//! appear and vanish, and challenges from one named player to another. Both live in memory:
//! a seek lasts as long as the connection that made it, a challenge until it is answered or
//! [`CHALLENGE_TTL_MS`] passes. Accepting either makes the game (`start.rs`) and tells both
//! players at once.
//!
//! One lobby per server instance: with several instances behind a balancer, players see the
//! seeks of the instance their lobby connection reached (docs/hosting.md says so, and how to
//! keep a community's lobby on one instance).

pub mod message;
pub mod start;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use tokio::sync::{broadcast, mpsc};

use crate::dates::now_ms;
use crate::error::ApiError;
use message::{Challenge, Seek, ServerMessage};

/// A challenge unanswered this long goes away.
pub const CHALLENGE_TTL_MS: i64 = 10 * 60 * 1000;
/// Open seeks one connection may have at once.
pub const SEEKS_PER_CONNECTION: usize = 3;
/// Open seeks in the whole lobby; past it, new seeks are refused until some go.
pub const MAX_SEEKS: usize = 2000;
/// Challenges one account may have waiting that it sent, and that it received.
pub const CHALLENGES_PER_ACCOUNT: usize = 20;
/// Messages a connection's queue holds before the slowest reader is dropped.
const QUEUE: usize = 64;

/// A lobby connection: who, and where its own messages go.
struct Conn {
    name: Option<String>,
    tx: mpsc::Sender<Arc<str>>,
}

#[derive(Default)]
struct State {
    next_conn: u64,
    conns: HashMap<u64, Conn>,
    /// Open seeks by id, each with the connection that made it.
    seeks: BTreeMap<String, (Seek, u64)>,
    challenges: BTreeMap<String, Challenge>,
}

/// The lobby's state and the stream of public changes (seeks coming and going).
pub struct Lobby {
    state: Mutex<State>,
    public: broadcast::Sender<Arc<str>>,
}

impl Default for Lobby {
    fn default() -> Lobby {
        Lobby {
            state: Mutex::default(),
            public: broadcast::channel(256).0,
        }
    }
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
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Joins: the open seeks as they are now, the stream of public changes from then on (no
    /// change can fall between), the connection's own messages, and its membership.
    pub fn join(self: &Arc<Self>, name: Option<String>) -> Joined {
        let (tx, rx) = mpsc::channel(QUEUE);
        let mut s = self.lock();
        s.next_conn += 1;
        let id = s.next_conn;
        s.conns.insert(
            id,
            Conn {
                name: name.clone(),
                tx,
            },
        );
        let seeks = s.seeks.values().map(|(seek, _)| seek.clone()).collect();
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

    fn leave(&self, conn: u64) {
        let mut s = self.lock();
        s.conns.remove(&conn);
        let gone: Vec<String> = s
            .seeks
            .iter()
            .filter(|(_, (_, c))| *c == conn)
            .map(|(id, _)| id.clone())
            .collect();
        for id in gone {
            s.seeks.remove(&id);
            self.announce(&ServerMessage::Unseek { id });
        }
    }

    fn announce(&self, m: &ServerMessage) {
        // Nobody in the lobby is not an error.
        let _ = self.public.send(m.text());
    }

    /// Sends `m` to every lobby connection of account `name`.
    pub fn tell(&self, name: &str, m: &ServerMessage) {
        let s = self.lock();
        tell_locked(&s, name, m);
    }

    /// Sends `m` to connection `conn`.
    pub fn tell_conn(&self, conn: u64, m: &ServerMessage) {
        if let Some(c) = self.lock().conns.get(&conn) {
            let _ = c.tx.try_send(m.text());
        }
    }

    /// Opens a seek made by connection `conn`.
    pub fn open(&self, conn: u64, seek: Seek) -> Result<(), ApiError> {
        let mut s = self.lock();
        let mine = s.seeks.values().filter(|(_, c)| *c == conn).count();
        if mine >= SEEKS_PER_CONNECTION || s.seeks.len() >= MAX_SEEKS {
            return Err(ApiError::new(
                axum::http::StatusCode::TOO_MANY_REQUESTS,
                "rate_limited",
                format!("at most {SEEKS_PER_CONNECTION} open seeks each; cancel one first"),
            ));
        }
        s.seeks.insert(seek.id.clone(), (seek.clone(), conn));
        drop(s);
        self.announce(&ServerMessage::Seek { seek });
        Ok(())
    }

    /// Cancels connection `conn`'s seek `id`.
    pub fn cancel(&self, conn: u64, id: &str) -> Result<(), ApiError> {
        let mut s = self.lock();
        match s.seeks.get(id) {
            Some((_, c)) if *c == conn => {
                s.seeks.remove(id);
                drop(s);
                self.announce(&ServerMessage::Unseek { id: id.to_string() });
                Ok(())
            }
            _ => Err(unknown_seek()),
        }
    }

    /// Every open seek.
    pub fn snapshot(&self) -> Vec<Seek> {
        self.lock().seeks.values().map(|(s, _)| s.clone()).collect()
    }

    /// Seek `id` and its creator's connection, if it is open.
    pub fn peek(&self, id: &str) -> Option<(Seek, u64)> {
        self.lock().seeks.get(id).cloned()
    }

    /// Takes seek `id` out of the lobby for accepting it: no one else can from now on. The
    /// seek and its creator's connection.
    pub fn take(&self, id: &str) -> Result<(Seek, u64), ApiError> {
        let taken = self.lock().seeks.remove(id).ok_or_else(unknown_seek)?;
        self.announce(&ServerMessage::Unseek { id: id.to_string() });
        Ok(taken)
    }

    /// Puts back a seek that was taken but could not be accepted (its game could not be
    /// made), if its connection is still there.
    pub fn put_back(&self, seek: Seek, conn: u64) {
        let mut s = self.lock();
        if s.conns.contains_key(&conn) {
            s.seeks.insert(seek.id.clone(), (seek.clone(), conn));
            drop(s);
            self.announce(&ServerMessage::Seek { seek });
        }
    }

    /// Sends challenge `c` to its player.
    pub fn challenge(&self, c: Challenge) -> Result<(), ApiError> {
        let mut s = self.lock();
        expire(&mut s, now_ms());
        // Each side's own count: a player that many challenge cannot be kept from sending.
        let sent = s.challenges.values().filter(|x| x.from == c.from).count();
        let received = s.challenges.values().filter(|x| x.to == c.to).count();
        if sent >= CHALLENGES_PER_ACCOUNT || received >= CHALLENGES_PER_ACCOUNT {
            return Err(ApiError::new(
                axum::http::StatusCode::TOO_MANY_REQUESTS,
                "rate_limited",
                format!("at most {CHALLENGES_PER_ACCOUNT} challenges sent, and received, at once"),
            ));
        }
        s.challenges.insert(c.id.clone(), c.clone());
        let m = ServerMessage::Challenge {
            challenge: c.clone(),
        };
        tell_locked(&s, &c.to, &m);
        Ok(())
    }

    /// Puts back a challenge that was taken for accepting but whose game could not be made.
    pub fn put_back_challenge(&self, c: Challenge) {
        self.lock().challenges.insert(c.id.clone(), c);
    }

    /// The challenges to and from `name`.
    pub fn challenges_of(&self, name: &str) -> (Vec<Challenge>, Vec<Challenge>) {
        let mut s = self.lock();
        expire(&mut s, now_ms());
        let incoming = s
            .challenges
            .values()
            .filter(|c| c.to == name)
            .cloned()
            .collect();
        let outgoing = s
            .challenges
            .values()
            .filter(|c| c.from == name)
            .cloned()
            .collect();
        (incoming, outgoing)
    }

    /// Takes challenge `id` out for answering it: `by` must be its player (to accept or
    /// decline) or, to decline (cancel), its sender.
    pub fn take_challenge(
        &self,
        id: &str,
        by: &str,
        accepting: bool,
    ) -> Result<Challenge, ApiError> {
        let mut s = self.lock();
        expire(&mut s, now_ms());
        let allowed = s
            .challenges
            .get(id)
            .is_some_and(|c| c.to == by || (!accepting && c.from == by));
        if !allowed {
            return Err(ApiError::new(
                axum::http::StatusCode::NOT_FOUND,
                "unknown_challenge",
                "no such challenge is waiting for you (answered, cancelled or expired)",
            ));
        }
        Ok(s.challenges.remove(id).expect("checked above"))
    }
}

fn tell_locked(s: &State, name: &str, m: &ServerMessage) {
    let text = m.text();
    for c in s.conns.values().filter(|c| c.name.as_deref() == Some(name)) {
        // A connection too far behind misses the message; it lists challenges again when it
        // reconnects.
        let _ = c.tx.try_send(text.clone());
    }
}

/// Drops the challenges past their time, telling both players.
fn expire(s: &mut State, now: i64) {
    let old: Vec<Challenge> = s
        .challenges
        .values()
        .filter(|c| now - c.at > CHALLENGE_TTL_MS)
        .cloned()
        .collect();
    for c in old {
        s.challenges.remove(&c.id);
        let m = ServerMessage::ChallengeGone {
            id: c.id.clone(),
            reason: message::GoneReason::Expired,
        };
        tell_locked(s, &c.from, &m);
        tell_locked(s, &c.to, &m);
    }
}

pub fn unknown_seek() -> ApiError {
    ApiError::new(
        axum::http::StatusCode::NOT_FOUND,
        "unknown_seek",
        "that seek is gone (accepted, cancelled, or its player left)",
    )
}
