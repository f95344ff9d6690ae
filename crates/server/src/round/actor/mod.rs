//! One game's round: the task that owns the game in memory. It takes commands one at a time,
//! so a game's changes are strictly ordered; each change is checked, stored, applied and
//! announced before the next command is read.

mod deadlines;
mod engine_turn;
mod offers;
mod seats;
mod sync;
use crate::error::ErrorCode;
use std::sync::{Arc, Weak};
use std::time::Duration;

use anywoli_core::{BySide, Move, Position, Side};
use anywoli_engine::{level_spec, ClockLeft, LevelPlayer, Player as _};
use tokio::sync::{broadcast, mpsc, oneshot};

use crate::dates::now_ms;
use crate::engine_queue::Priority;
use crate::error::{ApiError, ApiResult};
use crate::ids::{id_seed, new_id, new_secret, random_bytes};
use crate::round::change::{Change, Event};
use crate::round::clock::TimeControl;
use crate::round::game::{Game, Mode, OfferKind};
use crate::round::lag::SeatLags;
use crate::round::offence::offence_of;
use crate::round::persist::persist;
use crate::round::rules::{self, OfferStep, Played, Refusal};
use crate::round::view::{catch_up, event_message, GameView};
use crate::round::Rounds;
use crate::trace_json::JsonTrace;

pub type Reply<T> = oneshot::Sender<ApiResult<T>>;

/// Events a watcher may fall behind by before it gets the whole state instead (each slot is
/// allocated with the round's first watcher: 256 of them were 12 KiB of every round's 28 KiB,
/// issue 36).
const EVENTS_QUEUE: usize = 32;

/// Runs a request on the game; when it was refused because this copy is behind the database's
/// (another instance changed the game), runs it once more on the game as it now stands.
macro_rules! retried {
    (sync $round:ident . $request:ident ( $($arg:expr),* )) => {{
        let mut r = $round.$request($($arg),*);
        if $round.behind(&r).await {
            r = $round.$request($($arg),*);
        }
        r
    }};
    ($round:ident . $request:ident ( $($arg:expr),* )) => {{
        let mut r = $round.$request($($arg),*).await;
        if $round.behind(&r).await {
            r = $round.$request($($arg),*).await;
        }
        r
    }};
}

/// What a request can ask of a game's round.
pub enum Command {
    /// The game as it stands.
    Snapshot(oneshot::Sender<Game>),
    /// The state message and a subscription to every later event, with nothing in between.
    Watch(oneshot::Sender<(String, broadcast::Receiver<Arc<str>>)>),
    Play {
        secret: String,
        mv: Move,
        /// The number of moves the sender saw; another number means the move is stale.
        ply: Option<usize>,
        /// The network allowance the sender claims for its clock.
        lag_ms: i64,
        reply: Reply<(GameView, JsonTrace)>,
    },
    /// Call the game off before each side has moved.
    Abort {
        secret: String,
        reply: Reply<GameView>,
    },
    /// Offer a draw or ask to take a move back (between people).
    Offer {
        secret: String,
        kind: OfferKind,
        reply: Reply<GameView>,
    },
    /// A seat's player opened (`here`) or closed a connection to the game (a WebSocket that
    /// said who it is): the seats the secret holds.
    Present {
        secret: String,
        here: bool,
        reply: Reply<Vec<Side>>,
    },
    /// The round trip the server measured on a seat's socket (its ping and the pong).
    Lag { secret: String, rtt_ms: i64 },
    /// Claim the win from an opponent away for longer than [`claim_after_ms`].
    Claim {
        secret: String,
        reply: Reply<GameView>,
    },
    /// Accept or decline the other player's offer (declining one's own withdraws it).
    Answer {
        secret: String,
        accept: bool,
        reply: Reply<GameView>,
    },
    /// Take the free seat of a friend game with its invite token.
    Join {
        invite: Option<String>,
        /// The account of whoever joins, if logged in.
        account: Option<String>,
        reply: Reply<(GameView, Side, String)>,
    },
    /// The seats `secret` holds that belong to nobody become `name`'s: how many did.
    Own {
        secret: String,
        name: String,
        reply: Reply<usize>,
    },
    /// List the game while it is played, or not.
    Publish {
        secret: String,
        public: bool,
        reply: Reply<GameView>,
    },
    TakeBack {
        secret: String,
        reply: Reply<GameView>,
    },
    Resign {
        secret: String,
        reply: Reply<GameView>,
    },
    /// Berserk in an arena's game.
    Berserk {
        secret: String,
        reply: Reply<GameView>,
    },
    /// The rematch (made if there is none yet) and the seats the caller holds in it.
    Rematch {
        secret: String,
        reply: Reply<(String, bool, Vec<Side>)>,
    },
    /// The position to hint in, for the player to move.
    HintPosition {
        secret: String,
        reply: Reply<(Position, usize)>,
    },
    /// The engine chose `mv` for the game as it was at `token`.
    EngineDone { token: u64, mv: Option<Move> },
    /// Try again to store the engine's move.
    EngineRetry,
    /// Another server instance changed the game: read it again.
    Refresh,
    /// Another server instance made this change to the game (boxed: it is the largest
    /// command, and every round's mailbox is sized by its largest).
    Heard(Box<crate::store::Heard>),
    /// Another instance's claim on the engine's turn may have run out: look again.
    Recheck,
    /// The side to move may be out of time.
    FlagCheck,
}

struct Round {
    game: Game,
    tx: mpsc::Sender<Command>,
    /// The stream of events to this game's watchers; made when the first one comes, so that
    /// a round nobody watches holds no queue and builds no message.
    events: Option<broadcast::Sender<Arc<str>>>,
    rounds: Weak<Rounds>,
    /// The engine's move, chosen but not yet stored (the store failed): retried until it is.
    pending: Option<Move>,
    retries: u32,
    /// A [`Command::Recheck`] is on its way.
    recheck: bool,
    /// The deadline a [`Command::FlagCheck`] is on its way for.
    flag_timer: Option<i64>,
    /// The connections of each seat's player to this game on this server instance.
    here: BySide<u32>,
    /// The round trips measured on each seat's sockets: what a move's lag claim is bounded by.
    lags: SeatLags,
}

/// The round's life: commands until it has been idle long enough, then it is forgotten.
pub async fn run(
    game: Game,
    tx: mpsc::Sender<Command>,
    mut rx: mpsc::Receiver<Command>,
    rounds: Weak<Rounds>,
    generation: u64,
) {
    let idle = rounds.upgrade().map_or(super::ROUND_IDLE, |r| r.ctx.idle);
    let mut r = Round {
        game,
        tx,
        events: None,
        rounds,
        pending: None,
        retries: 0,
        recheck: false,
        flag_timer: None,
        here: BySide::both(0),
        lags: Default::default(),
    };
    // The work of a command is boxed: a round waits for commands most of its life, and an
    // unboxed `handle` would make every waiting round's task as large as its largest await
    // (issue 36: a game in play held 28 KiB).
    Box::pin(r.check_flag()).await;
    Box::pin(r.kick_engine()).await;
    loop {
        // A finished game nobody watches is only read now and then: its round rests sooner,
        // so that a busy arena (thousands of short games a minute) does not hold them all.
        let wait = if r.game.is_playing() {
            idle
        } else {
            idle.min(super::OVER_IDLE)
        };
        let cmd = tokio::select! {
            cmd = rx.recv() => cmd,
            _ = tokio::time::sleep(wait) => None,
        };
        match cmd {
            Some(cmd) => Box::pin(r.handle(cmd)).await,
            None if r.can_rest() => break,
            None => {}
        }
    }
    // Forget first, so that new requests start a new round from the store; then answer what
    // arrived meanwhile.
    let id = r.game.id.clone();
    if let Some(rounds) = r.rounds.upgrade() {
        rounds.forget(&id, generation);
    }
    rx.close();
    while let Ok(cmd) = rx.try_recv() {
        Box::pin(r.handle(cmd)).await;
    }
}

impl Round {
    fn can_rest(&self) -> bool {
        self.watchers() == 0 && !self.game.thinking && self.pending.is_none()
    }

    fn watchers(&self) -> usize {
        self.events
            .as_ref()
            .map_or(0, broadcast::Sender::receiver_count)
    }

    fn announce(&self, event: &Event) {
        if let Some(tx) = self.events.as_ref().filter(|_| self.watchers() > 0) {
            let _ = tx.send(Arc::from(event_message(event, &self.game)));
        }
    }

    fn rounds(&self) -> ApiResult<Arc<Rounds>> {
        self.rounds
            .upgrade()
            .ok_or_else(|| ApiError::busy("the server is stopping", 5))
    }

    /// Stores `change` and, only if that worked, applies it and tells the watchers.
    async fn commit(&mut self, change: Change) -> ApiResult<Event> {
        let rounds = self.rounds()?;
        let mut next = self.game.clone();
        let event = next.apply(&change);
        next.engine = rounds.claim_for(&next);
        let stored = next.clone();
        let offence = offence_of(&self.game, &change);
        if let Some(ratings) = rounds
            .db(move |s| persist(s, &change, &stored, offence))
            .await?
        {
            next.people.ratings = ratings;
        }
        if matches!(event, Event::Move { .. }) {
            rounds.ctx.metrics.move_stored();
        }
        let ended = self.game.is_playing() && !next.is_playing();
        self.game = next;
        self.announce(&event);
        self.tell_whose_move(&rounds, &event);
        if ended {
            for name in self.game.people.accounts.iter().flatten() {
                rounds.ctx.listener.game_finished(name, &self.game.id);
            }
        }
        Ok(event)
    }

    /// After a move in a correspondence game, the player to move hears it wherever they are
    /// on the site (their lobby connections), since days may pass between moves.
    fn tell_whose_move(&self, rounds: &Rounds, event: &Event) {
        let g = &self.game;
        let correspondence = g
            .clock
            .is_some_and(|c| matches!(c.control, TimeControl::Correspondence { .. }));
        let (Event::Move { .. }, true, Some(side)) = (event, correspondence, g.pos.to_move())
        else {
            return;
        };
        if !g.is_playing() {
            return;
        }
        if let Some(name) = &g.people.accounts[side] {
            let opponent = g.people.accounts[side.opponent()].as_deref();
            rounds.ctx.listener.your_move(name, &g.id, opponent);
        }
    }

    async fn handle(&mut self, cmd: Command) {
        // A flag that fell is called before anything else is looked at.
        self.check_flag().await;
        match cmd {
            Command::Snapshot(reply) => {
                let _ = reply.send(self.game.clone());
            }
            Command::Watch(reply) => {
                let rx = self
                    .events
                    .get_or_insert_with(|| broadcast::channel(EVENTS_QUEUE).0)
                    .subscribe();
                let _ = reply.send((event_message(&Event::State, &self.game), rx));
            }
            Command::FlagCheck => self.flag_timer = None,
            Command::Lag { secret, rtt_ms } => {
                for side in self.game.seats_of(&secret) {
                    self.lags.note(side, rtt_ms);
                }
            }
            Command::EngineDone { token, mv } => self.engine_done(token, mv).await,
            Command::EngineRetry => self.engine_retry().await,
            Command::Refresh => {
                self.refresh().await;
            }
            Command::Heard(h) => self.hear(*h).await,
            Command::Recheck => {
                self.recheck = false;
                self.refresh().await;
            }
            request => self.request(request).await,
        }
        self.kick_engine().await;
        self.arm_flag_timer();
    }

    /// A player's request: decided by the rules on the game as it stands, retried once on the
    /// game as stored when this copy was behind.
    async fn request(&mut self, cmd: Command) {
        match cmd {
            Command::Play {
                secret,
                mv,
                ply,
                lag_ms,
                reply,
            } => {
                let _ = reply.send(retried!(self.play(&secret, mv, ply, lag_ms)));
            }
            Command::Abort { secret, reply } => {
                let _ = reply.send(retried!(self.abort(&secret)));
            }
            Command::Offer {
                secret,
                kind,
                reply,
            } => {
                let _ = reply.send(retried!(self.offer(&secret, kind)));
            }
            Command::Answer {
                secret,
                accept,
                reply,
            } => {
                let _ = reply.send(retried!(self.answer(&secret, accept)));
            }
            Command::Present {
                secret,
                here,
                reply,
            } => {
                let r = self.present(&secret, here).await;
                let _ = reply.send(r);
            }
            Command::Claim { secret, reply } => {
                let _ = reply.send(retried!(self.claim(&secret)));
            }
            Command::Join {
                invite,
                account,
                reply,
            } => {
                let _ = reply.send(retried!(self.join(invite.as_deref(), account.as_deref())));
            }
            Command::Own {
                secret,
                name,
                reply,
            } => {
                let _ = reply.send(retried!(self.own(&secret, &name)));
            }
            Command::Publish {
                secret,
                public,
                reply,
            } => {
                let _ = reply.send(retried!(self.publish(&secret, public)));
            }
            Command::TakeBack { secret, reply } => {
                let _ = reply.send(retried!(self.take_back(&secret)));
            }
            Command::Resign { secret, reply } => {
                let _ = reply.send(retried!(self.resign(&secret)));
            }
            Command::Berserk { secret, reply } => {
                let _ = reply.send(retried!(self.berserk(&secret)));
            }
            Command::Rematch { secret, reply } => {
                let _ = reply.send(retried!(self.rematch(&secret)));
            }
            Command::HintPosition { secret, reply } => {
                let _ = reply.send(retried!(sync self.hint_position(&secret)));
            }
            // The round's own commands are handled in `handle`.
            _ => {}
        }
    }

    fn held(&self, secret: &str) -> ApiResult<Vec<Side>> {
        Ok(rules::held(&self.game, secret)?)
    }

    /// Stores what a rule decided and answers with the game as it then stands.
    async fn decided(&mut self, change: Change) -> ApiResult<GameView> {
        self.commit(change).await?;
        Ok(GameView::of(&self.game))
    }

    async fn play(
        &mut self,
        secret: &str,
        mv: Move,
        ply: Option<usize>,
        lag_ms: i64,
    ) -> ApiResult<(GameView, JsonTrace)> {
        let held = self.held(secret)?;
        let before = self.game.pos;
        match rules::play(&self.game, &held, mv, ply, lag_ms, &self.lags, now_ms())? {
            Played::Flagged(flag) => {
                self.commit(flag).await?;
                Err(Refusal::OutOfTime.into())
            }
            Played::Move(change) => {
                let Change::Move { trace, .. } = &change else {
                    unreachable!("a move is played by Change::Move")
                };
                let jt = JsonTrace::new(&before, trace);
                Ok((self.decided(change).await?, jt))
            }
        }
    }

    async fn take_back(&mut self, secret: &str) -> ApiResult<GameView> {
        let change = rules::take_back(&self.game, &self.held(secret)?, now_ms())?;
        // The engine's move waiting to be stored belongs to the position being taken back.
        self.drop_pending();
        self.decided(change).await
    }

    async fn abort(&mut self, secret: &str) -> ApiResult<GameView> {
        self.held(secret)?;
        let change = rules::abort(&self.game, now_ms())?;
        self.drop_pending();
        self.decided(change).await
    }

    async fn resign(&mut self, secret: &str) -> ApiResult<GameView> {
        let change = rules::resign(&self.game, &self.held(secret)?, now_ms())?;
        self.drop_pending();
        self.decided(change).await
    }

    async fn berserk(&mut self, secret: &str) -> ApiResult<GameView> {
        let change = rules::berserk(&self.game, &self.held(secret)?, now_ms())?;
        self.decided(change).await
    }

    async fn rematch(&mut self, secret: &str) -> ApiResult<(String, bool, Vec<Side>)> {
        let held = self.held(secret)?;
        let after: Vec<Side> = held.iter().map(|s| s.opponent()).collect();
        if let Some(next) = &self.game.rematch {
            return Ok((next.clone(), false, after));
        }
        let seed = u64::from_le_bytes(random_bytes::<8>());
        let mut next = rules::rematch_of(&self.game, new_id(), now_ms(), seed)?;
        next.engine = self.rounds()?.claim_for(&next);
        let id = next.id.clone();
        self.commit(Change::Rematch {
            next: Box::new(next.clone()),
        })
        .await?;
        let rounds = self.rounds()?;
        for name in next.people.accounts.iter().flatten() {
            rounds.ctx.listener.game_started(name, &id);
        }
        rounds.adopt(next);
        Ok((id, true, after))
    }

    fn hint_position(&self, secret: &str) -> ApiResult<(Position, usize)> {
        Ok(rules::hint(&self.game, &self.held(secret)?)?)
    }
}

#[cfg(test)]
mod size_tests {
    /// Every round's mailbox allocates a block of 32 commands when it is made: a command kept
    /// small keeps a game in play small (issue 36).
    #[test]
    fn a_command_is_small() {
        let size = std::mem::size_of::<super::Command>();
        assert!(size <= 96, "a Command is {size} bytes");
    }
}
