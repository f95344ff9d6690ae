//! Games in play, one task (a "round", as lila calls it) per game that is being played or
//! watched. A request does not change a game itself: it sends the round a command and awaits
//! the answer. The round checks the change, stores it, applies it to memory and tells the
//! watchers, in that order and to the end, whether or not the request is still waiting; so a
//! client that hangs up at any moment leaves either nothing changed or everything changed.
//!
//! A round ends after [`ROUND_IDLE`] without commands, watchers or engine work, and is started
//! again from the store when needed; reading a game nobody is playing loads it without starting
//! a round, so memory holds only the games in play.

pub mod actor;
pub mod change;
pub mod clock;
pub mod fairness;
pub mod game;
pub mod lag;
pub mod mode;
pub mod notify;
pub mod offence;
pub mod offer;
mod persist;
pub mod record;
pub mod row;
pub mod rules;
pub mod status;
pub mod termination;
pub mod view;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};

pub use actor::Command;
use game::Game;

use crate::dates::now_ms;
use crate::engine_queue::EngineQueue;
use crate::error::{ApiError, ApiResult};
use crate::store::{Changed, EngineClaim, Store};

/// How long a round with nothing to do stays in memory.
pub const ROUND_IDLE: Duration = Duration::from_secs(60);
/// How long the round of a finished game with nothing to do stays (a rematch or a review
/// starts it again from the store).
pub const OVER_IDLE: Duration = Duration::from_secs(10);
/// How long an instance's claim to play the engine's move holds: past it, another instance
/// (or this one after a restart) takes the engine's turn over. Above the longest search
/// (twice [`Think::movetime`]) with room for a queue, so that a live owner keeps its turn.
pub const ENGINE_LEASE: Duration = Duration::from_secs(10);
/// Commands a round holds before senders wait (a round answers in microseconds, a store
/// call in milliseconds).
const MAILBOX: usize = 64;

/// How long the engine may think.
#[derive(Clone, Copy, Debug)]
pub struct Think {
    /// For level 10 (a timed search) and for hints.
    pub movetime: Duration,
    /// Hash table size for each search.
    pub hash_mib: usize,
}

impl Default for Think {
    fn default() -> Think {
        Think {
            movetime: Duration::from_millis(1500),
            hash_mib: 16,
        }
    }
}

/// What every round shares.
pub struct Context {
    pub store: Arc<Store>,
    /// The engine's work: one search per core, the computer's own moves before hints, and a
    /// bounded number of hints waiting (crate::engine_queue).
    pub engine: EngineQueue,
    pub think: Think,
    pub idle: Duration,
    /// The server's counters (`/metrics`): a round counts the moves it stores.
    pub metrics: Arc<crate::metrics::Metrics>,
    /// See [`ENGINE_LEASE`].
    pub engine_lease: Duration,
    /// Where players with accounts hear about their games away from them (a correspondence
    /// move), and where other instances' lobby messages go: the lobby.
    pub listener: Arc<dyn notify::Listener>,
}

struct Live {
    tx: mpsc::Sender<Command>,
    generation: u64,
}

/// Why the rounds' background work cannot start.
#[derive(Debug, thiserror::Error)]
pub enum RoundsBackgroundError {
    #[error("the rounds need a Tokio runtime")]
    NoRuntime,
    #[error("cannot listen for other servers' changes: {0}")]
    Listen(crate::store::StoreError),
}

/// The games in play, by id.
pub struct Rounds {
    live: Mutex<HashMap<String, Live>>,
    /// Games being read to start their rounds, each with whether another instance changed it
    /// meanwhile: a change heard between the read and the round's start would otherwise be
    /// lost, and the round would hold the game without it (found by the tournament load run).
    loading: Mutex<HashMap<String, bool>>,
    generation: AtomicU64,
    pub ctx: Context,
    me: Weak<Rounds>,
}

impl Rounds {
    pub fn new(ctx: Context) -> Arc<Rounds> {
        Arc::new_cyclic(|me| Rounds {
            live: Mutex::new(HashMap::new()),
            loading: Mutex::default(),
            generation: AtomicU64::new(0),
            ctx,
            me: me.clone(),
        })
    }

    fn live(&self) -> std::sync::MutexGuard<'_, HashMap<String, Live>> {
        self.live.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn loading(&self) -> std::sync::MutexGuard<'_, HashMap<String, bool>> {
        self.loading.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// How many rounds are in memory.
    pub fn len(&self) -> usize {
        self.live().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Runs a store call on a blocking thread.
    pub async fn db<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Store) -> Result<T, crate::store::StoreError> + Send + 'static,
    ) -> ApiResult<T> {
        let store = self.ctx.store.clone();
        match tokio::task::spawn_blocking(move || f(&store)).await {
            Ok(r) => r.map_err(ApiError::from),
            Err(e) => Err(ApiError::storage(format!("the storage task failed: {e}"))),
        }
    }

    /// Whether other server instances share the database, so that a game in memory may be
    /// behind it.
    pub fn shared(&self) -> bool {
        self.ctx.store.is_shared()
    }

    /// Who owes the engine's reply in `g` as it stands: this instance, for a lease, when it
    /// is the engine's turn; nobody otherwise.
    pub fn claim_for(&self, g: &Game) -> Option<EngineClaim> {
        g.computer_to_move().map(|_| EngineClaim {
            owner: self.ctx.store.instance().to_string(),
            until: now_ms() + self.ctx.engine_lease.as_millis() as i64,
        })
    }

    /// Passes on what the store heard other instances change to the rounds of those games
    /// that are in memory here: each takes a move one revision ahead as it is, and reads the
    /// game again otherwise. Called from the store's listening thread.
    pub fn heard(&self, changed: Changed, rt: &tokio::runtime::Handle) {
        let sends: Vec<(mpsc::Sender<Command>, Command)> = {
            let live = self.live();
            match changed {
                Changed::Games(changes) => changes
                    .into_iter()
                    .filter_map(|h| match live.get(&h.id) {
                        Some(l) => Some((l.tx.clone(), Command::Heard(Box::new(h)))),
                        None => {
                            if let Some(heard) = self.loading().get_mut(&h.id) {
                                *heard = true;
                            }
                            None
                        }
                    })
                    .collect(),
                Changed::Missed => {
                    self.ctx.listener.missed_others();
                    live.values()
                        .map(|l| (l.tx.clone(), Command::Refresh))
                        .collect()
                }
                Changed::Lobby(payload) => {
                    // Off the listening thread's lock of the games: the lobby has its own.
                    drop(live);
                    self.ctx.listener.heard_from_others(&payload);
                    return;
                }
            }
        };
        for (tx, cmd) in sends {
            if let Err(mpsc::error::TrySendError::Full(cmd)) = tx.try_send(cmd) {
                rt.spawn(async move {
                    let _ = tx.send(cmd).await;
                });
            }
        }
    }

    /// Starts what a server's rounds need beside requests: hearing other instances' changes
    /// (PostgreSQL), and taking over the engine's turns whose claims ran out. Both stop when
    /// the rounds are dropped.
    pub fn start_background(self: &Arc<Rounds>) -> Result<(), RoundsBackgroundError> {
        let rt =
            tokio::runtime::Handle::try_current().map_err(|_| RoundsBackgroundError::NoRuntime)?;
        let me = Arc::downgrade(self);
        let handle = rt.clone();
        self.ctx
            .store
            .listen(move |changed| {
                if let Some(rounds) = me.upgrade() {
                    rounds.heard(changed, &handle);
                }
            })
            .map_err(RoundsBackgroundError::Listen)?;
        let me = Arc::downgrade(self);
        let every =
            (self.ctx.engine_lease / 2).clamp(Duration::from_millis(200), Duration::from_secs(5));
        rt.spawn(take_over_engine_turns(me, every));
        let me = Arc::downgrade(self);
        rt.spawn(crate::memory::give_back_when_rounds_rest(move || {
            me.upgrade().map(|r| r.len())
        }));
        Ok(())
    }

    /// Stores a new game with its moves and starts its round. Runs to the end even if the
    /// request that asked for it is gone.
    pub async fn create(&self, game: Game) -> ApiResult<Game> {
        let me = self.me.upgrade().ok_or_else(stopping)?;
        let mut game = game;
        game.engine = self.claim_for(&game);
        detached(async move {
            let (row, moves) = (
                game.to_row(),
                game.moves.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
            );
            me.db(move |s| s.create_game(&row, &moves)).await?;
            me.adopt(game.clone());
            for name in game.people.accounts.iter().flatten() {
                me.ctx.listener.game_started(name, &game.id);
            }
            Ok(game)
        })
        .await
    }

    /// Starts the round of a game that is already stored (a new game, or a rematch).
    pub fn adopt(&self, game: Game) {
        let mut live = self.live();
        if !live.contains_key(&game.id) {
            let id = game.id.clone();
            let l = self.spawn(game);
            live.insert(id, l);
        }
    }

    fn spawn(&self, game: Game) -> Live {
        let generation = self.generation.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::channel(MAILBOX);
        let me = self.me.clone();
        tokio::spawn(actor::run(game, tx.clone(), rx, me, generation));
        Live { tx, generation }
    }

    /// Called by a round that is ending: it is forgotten unless a newer round took its place.
    fn forget(&self, id: &str, generation: u64) {
        let mut live = self.live();
        if live.get(id).is_some_and(|l| l.generation == generation) {
            live.remove(id);
            // A map that held 100,000 games keeps their room when they go: give it back once
            // it is mostly empty.
            if live.capacity() > 1024 && live.len() < live.capacity() / 4 {
                let keep = live.len() * 2;
                live.shrink_to(keep);
            }
        }
    }

    /// The round of game `id`, started from the store if it is not in memory.
    async fn handle(&self, id: &str) -> ApiResult<mpsc::Sender<Command>> {
        if !crate::ids::valid_id(id) {
            return Err(ApiError::unknown_game(id));
        }
        if let Some(l) = self.live().get(id) {
            return Ok(l.tx.clone());
        }
        self.loading().entry(id.to_string()).or_insert(false);
        let game = self.load(id).await;
        let tx = game.map(|game| {
            let mut live = self.live();
            match live.get(id) {
                Some(l) => l.tx.clone(),
                None => {
                    let l = self.spawn(game);
                    let tx = l.tx.clone();
                    live.insert(id.to_string(), l);
                    tx
                }
            }
        });
        // Not under the lock of the games: `heard` takes the two in that order.
        let heard = self.loading().remove(id).unwrap_or(false);
        let tx = tx?;
        if heard {
            let _ = tx.send(Command::Refresh).await;
        }
        Ok(tx)
    }

    async fn load(&self, id: &str) -> ApiResult<Game> {
        let key = id.to_string();
        let Some((row, moves)) = self.db(move |s| s.load(&key)).await? else {
            return Err(ApiError::unknown_game(id));
        };
        Game::from_row(row, &moves).map_err(ApiError::storage)
    }

    /// Sends game `id`'s round a command and awaits its answer. A round that ended just
    /// before the command arrived is started again once.
    /// Sends `cmd`, which wants no answer, to game `id`'s round (started if needed).
    pub async fn send(&self, id: &str, cmd: Command) -> ApiResult<()> {
        let tx = self.handle(id).await?;
        tx.send(cmd)
            .await
            .map_err(|_| ApiError::busy("the game's round could not be reached", 1))
    }

    pub async fn call<T>(
        &self,
        id: &str,
        make: impl Fn(oneshot::Sender<T>) -> Command,
    ) -> ApiResult<T> {
        for _ in 0..3 {
            let tx = self.handle(id).await?;
            let (reply, answer) = oneshot::channel();
            if tx.send(make(reply)).await.is_err() {
                continue;
            }
            if let Ok(v) = answer.await {
                return Ok(v);
            }
        }
        Err(ApiError::busy(
            "the game's round could not be reached; try again",
            1,
        ))
    }

    /// [`Rounds::snapshot`], never behind the database. On a shared database a round here
    /// learns of other instances' moves by their NOTIFY, which arrives late under load; a
    /// client failing over from a dead instance reads its game back here and must find every
    /// move the dead one acknowledged. So the stored game wins when it is ahead (the round is
    /// told to read it again), at the price of one read of the store: `GET /api/games/{id}`
    /// pays it, the streams that follow a round do not.
    pub async fn snapshot_fresh(&self, id: &str) -> ApiResult<Game> {
        let g = self.snapshot(id).await?;
        if !self.shared() {
            return Ok(g);
        }
        let Some(tx) = self.live().get(id).map(|l| l.tx.clone()) else {
            // Not held here: `snapshot` read it from the store just now.
            return Ok(g);
        };
        let stored = self.load(id).await?;
        if stored.revision <= g.revision {
            return Ok(g);
        }
        let _ = tx.try_send(Command::Refresh);
        Ok(stored)
    }

    /// The game as it stands: from its round if it has one, else read from the store without
    /// starting a round (reading old games must not fill memory).
    pub async fn snapshot(&self, id: &str) -> ApiResult<Game> {
        if !crate::ids::valid_id(id) {
            return Err(ApiError::unknown_game(id));
        }
        let tx = self.live().get(id).map(|l| l.tx.clone());
        if let Some(tx) = tx {
            let (reply, answer) = oneshot::channel();
            if tx.send(Command::Snapshot(reply)).await.is_ok() {
                if let Ok(g) = answer.await {
                    return Ok(g);
                }
            }
        }
        let game = self.load(id).await?;
        // A game whose clock ran out while no round held it: its round calls the flag first.
        let flag_fell = game.is_playing()
            && game
                .clock
                .and_then(|c| c.deadline(game.pos.to_move()))
                .is_some_and(|d| d < now_ms());
        if flag_fell {
            return self.call(id, Command::Snapshot).await;
        }
        Ok(game)
    }
}

/// Every `every`, looks for games whose engine claim ran out (the instance that owed the reply
/// died, or a server restarted mid-turn) and starts their rounds here, which claim the turn
/// and play it. Games with a round here are left to it.
async fn take_over_engine_turns(rounds: Weak<Rounds>, every: Duration) {
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let Some(me) = rounds.upgrade() else { return };
        let now = now_ms();
        let due = match me.db(move |s| s.due(now, 100)).await {
            Ok(due) => due,
            Err(e) => {
                tracing::warn!("cannot look for engine turns to take over: {}", e.message);
                continue;
            }
        };
        for id in due {
            if !me.live().contains_key(&id) {
                tracing::info!("taking over the engine's turn in game {id}");
                let _ = me.handle(&id).await;
            }
        }
    }
}

fn stopping() -> ApiError {
    ApiError::busy("the server is stopping", 5)
}

/// Runs `fut` as a task of its own and awaits it: if the caller is dropped (its client hung
/// up), the task still runs to the end, so nothing is left half-done.
pub async fn detached<T: Send + 'static>(
    fut: impl std::future::Future<Output = ApiResult<T>> + Send + 'static,
) -> ApiResult<T> {
    match tokio::spawn(fut).await {
        Ok(r) => r,
        Err(e) => Err(ApiError::storage(format!("a task failed: {e}"))),
    }
}
