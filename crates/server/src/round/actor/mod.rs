//! One game's round: the task that owns the game in memory. It takes commands one at a time,
//! so a game's changes are strictly ordered; each change is checked, stored, applied and
//! announced before the next command is read.

mod deadlines;
use crate::error::ErrorCode;
use std::sync::{Arc, Weak};
use std::time::Duration;

use anywoli_core::{Move, Position, Side};
use anywoli_engine::{level_spec, ClockLeft, LevelPlayer, Player as _};
use axum::http::StatusCode;
use tokio::sync::{broadcast, mpsc, oneshot};

use crate::dates::now_ms;
use crate::engine_queue::Priority;
use crate::error::{ApiError, ApiResult};
use crate::ids::{id_seed, new_id, new_secret, random_bytes};
use crate::rating::GameRatings;
use crate::round::clock::TimeControl;
use crate::round::game::{
    claim_after_ms, Change, Event, Game, Mode, NewGame, Offer, OfferKind, People,
};
use crate::round::lag::SeatLags;
use crate::round::persist::persist;
use crate::round::view::{catch_up, event_message, GameView};
use crate::round::Rounds;
use crate::trace_json::JsonTrace;

type Reply<T> = oneshot::Sender<ApiResult<T>>;

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
    here: [u32; 2],
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
        here: [0; 2],
        lags: Default::default(),
    };
    // The work of a command is boxed: a round waits for commands most of its life, and an
    // unboxed `handle` would make every waiting round's task as large as its largest await
    // (issue 36: a game in play held 28 KiB).
    Box::pin(r.check_flag()).await;
    Box::pin(r.kick_engine()).await;
    loop {
        let cmd = tokio::select! {
            cmd = rx.recv() => cmd,
            _ = tokio::time::sleep(idle) => None,
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
        if let Some(ratings) = rounds.db(move |s| persist(s, &change, &stored)).await? {
            next.people.ratings = ratings;
        }
        if matches!(event, Event::Move { .. }) {
            rounds.ctx.metrics.move_stored();
        }
        self.game = next;
        self.announce(&event);
        self.tell_whose_move(&rounds, &event);
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
        if let Some(name) = &g.people.accounts[side.index()] {
            let opponent = g.people.accounts[side.opponent().index()].as_deref();
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
            Command::FlagCheck => self.flag_timer = None,
            Command::Lag { secret, rtt_ms } => {
                for side in self.game.seats_of(&secret) {
                    self.lags.note(side, rtt_ms);
                }
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
            Command::Rematch { secret, reply } => {
                let _ = reply.send(retried!(self.rematch(&secret)));
            }
            Command::HintPosition { secret, reply } => {
                let _ = reply.send(retried!(sync self.hint_position(&secret)));
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
        }
        self.kick_engine().await;
        self.arm_flag_timer();
    }

    /// After a refusal that the game's state decided (not your turn, stale, game over...):
    /// whether the game in memory was behind the database (another server instance changed
    /// it) and has been read again, so that the command is worth checking once more.
    async fn behind<T>(&mut self, r: &ApiResult<T>) -> bool {
        let state_said_no = matches!(r, Err(e) if matches!(
            e.code,
            ErrorCode::Stale
                | ErrorCode::NotYourTurn
                | ErrorCode::IllegalMove
                | ErrorCode::GameOver
                | ErrorCode::SeatTaken
                | ErrorCode::NotAllowed
                | ErrorCode::WrongSecret
        ));
        state_said_no && self.rounds().is_ok_and(|r| r.shared()) && self.refresh().await
    }

    /// Takes a change another instance made: a move that follows the game in memory is played
    /// here as it was there (no read); anything else reads the game again.
    async fn hear(&mut self, h: crate::store::Heard) {
        if h.revision <= self.game.revision {
            return;
        }
        let next_move = h.mv.as_ref().filter(|m| {
            h.revision == self.game.revision + 1 && m.ply == self.game.moves.len() as i64 + 1
        });
        let trace = next_move
            .and_then(|m| m.mv.parse::<Move>().ok())
            .and_then(|mv| self.game.pos.trace(mv).ok());
        // A move that ends a rated game was rated where it was played: read the ratings.
        let ends_rated =
            trace.as_ref().is_some_and(|t| t.after.is_over()) && self.game.people.rated;
        let (Some(m), Some(trace), false) = (next_move, trace, ends_rated) else {
            self.refresh().await;
            return;
        };
        // The engine's move waiting to be stored belongs to the position before.
        self.pending = None;
        self.retries = 0;
        let mut next = self.game.clone();
        next.thinking = false;
        let event = next.apply(&Change::Move {
            trace,
            at: m.at,
            lag_ms: 0,
        });
        next.engine = m.engine.clone();
        // The clocks as the instance that took the move set them (with the mover's lag).
        if let (Some(mine), Some(theirs)) = (next.clock.as_mut(), m.clock.as_ref()) {
            mine.left = theirs.left;
            mine.since = theirs.since;
        }
        self.game = next;
        if let Ok(rounds) = self.rounds() {
            rounds.ctx.metrics.caught_up();
        }
        self.announce(&event);
    }

    /// Reads the game again from the store; if another instance moved it on, takes the newer
    /// game and tells the watchers what happened. True if the game changed.
    async fn refresh(&mut self) -> bool {
        let Ok(rounds) = self.rounds() else {
            return false;
        };
        let fresh = match rounds.load(&self.game.id).await {
            Ok(g) => g,
            Err(e) => {
                tracing::warn!("cannot read game {} again: {}", self.game.id, e.message);
                return false;
            }
        };
        if fresh.revision < self.game.revision {
            return false;
        }
        if fresh.revision == self.game.revision {
            // Engine claims change no revision.
            self.game.engine = fresh.engine;
            return false;
        }
        // The engine's move waiting to be stored belongs to an older position; a search still
        // running finds its token out of date when it ends.
        self.pending = None;
        self.retries = 0;
        rounds.ctx.metrics.caught_up();
        let old = std::mem::replace(&mut self.game, fresh);
        if let Some(tx) = self.events.as_ref().filter(|_| self.watchers() > 0) {
            for message in catch_up(&old, &self.game) {
                let _ = tx.send(Arc::from(message));
            }
        }
        true
    }

    fn held(&self, secret: &str) -> ApiResult<Vec<Side>> {
        let held = self.game.seats_of(secret);
        if held.is_empty() {
            return Err(ApiError::wrong_secret());
        }
        Ok(held)
    }

    async fn play(
        &mut self,
        secret: &str,
        mv: Move,
        ply: Option<usize>,
        lag_ms: i64,
    ) -> ApiResult<(GameView, JsonTrace)> {
        let held = self.held(secret)?;
        let g = &self.game;
        if !g.is_playing() {
            return Err(ApiError::game_over());
        }
        // A move sent from an older state is stale, whoever's turn it is now.
        if let Some(p) = ply {
            if p != g.moves.len() {
                return Err(ApiError::new(
                    StatusCode::CONFLICT,
                    ErrorCode::Stale,
                    format!(
                        "the move was sent after move {p}, but the game is at move {}: reload it",
                        g.moves.len()
                    ),
                ));
            }
        }
        let to_move = g.pos.to_move().ok_or_else(ApiError::game_over)?;
        if !held.contains(&to_move) {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                ErrorCode::NotYourTurn,
                format!(
                    "it is {to_move}'s turn, and your seat is {}",
                    to_move.opponent()
                ),
            ));
        }
        let trace = g.pos.trace(mv).map_err(|e| {
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                ErrorCode::IllegalMove,
                e.to_string(),
            )
        })?;
        let before = g.pos;
        let now = now_ms();
        let lag_ms = lag_ms.min(self.lags.allowed(to_move));
        let g = &self.game;
        if g.clock.is_some_and(|c| c.flagged(to_move, now, lag_ms)) {
            self.commit(Change::Flag {
                loser: to_move,
                at: now,
            })
            .await?;
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                ErrorCode::GameOver,
                "your time ran out before the move arrived: the game is over",
            ));
        }
        let jt = JsonTrace::new(&before, &trace);
        self.commit(Change::Move {
            trace,
            at: now,
            lag_ms,
        })
        .await?;
        Ok((GameView::of(&self.game), jt))
    }

    async fn own(&mut self, secret: &str, name: &str) -> ApiResult<usize> {
        let held = self.held(secret)?;
        let mut accounts = self.game.people.accounts.clone();
        let mut owned = 0;
        for side in held {
            if accounts[side.index()].is_none() {
                accounts[side.index()] = Some(name.to_string());
                owned += 1;
            }
        }
        if owned > 0 {
            let public = self.game.people.public;
            self.commit(Change::Seating { accounts, public }).await?;
        }
        Ok(owned)
    }

    async fn publish(&mut self, secret: &str, public: bool) -> ApiResult<GameView> {
        self.held(secret)?;
        if self.game.people.public != public {
            let accounts = self.game.people.accounts.clone();
            self.commit(Change::Seating { accounts, public }).await?;
        }
        Ok(GameView::of(&self.game))
    }

    async fn join(
        &mut self,
        invite: Option<&str>,
        account: Option<&str>,
    ) -> ApiResult<(GameView, Side, String)> {
        let g = &self.game;
        let Some(seat) = g.free_seat().filter(|_| g.mode == Mode::Friend) else {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                ErrorCode::SeatTaken,
                "every seat of this game is taken; you can watch it",
            ));
        };
        if !g.invite_matches(invite) {
            return Err(ApiError::new(
                StatusCode::FORBIDDEN,
                ErrorCode::WrongInvite,
                "the free seat is for the player the invite link was sent to; this link only watches",
            ));
        }
        let secret = new_secret();
        self.commit(Change::Join {
            seat,
            secret: secret.clone(),
            account: account.map(str::to_string),
            at: now_ms(),
        })
        .await?;
        Ok((GameView::of(&self.game), seat, secret))
    }

    async fn take_back(&mut self, secret: &str) -> ApiResult<GameView> {
        let held = self.held(secret)?;
        let g = &self.game;
        if g.mode == Mode::Friend {
            return Err(ApiError::not_allowed(
                "moves are taken back only in games against the computer or on one screen",
            ));
        }
        // A finished game is final (issue 36: a take-back after the end reopened it); the
        // analysis board is where one goes back in a finished game.
        if !g.is_playing() {
            return Err(ApiError::not_allowed(
                "the game is over and its moves stay as they are: open it on the analysis board to try others",
            ));
        }
        // Back to the last position where one of the caller's seats was to move, so that a
        // take-back against the computer also undoes the computer's replies.
        let keep = g
            .keep_before_last_move_of_any(&held)
            .ok_or_else(|| ApiError::not_allowed("there is no move of yours to take back"))?;
        // The engine's move waiting to be stored belongs to the position being taken back.
        self.drop_pending();
        self.commit(Change::TakeBack { keep, at: now_ms() }).await?;
        Ok(GameView::of(&self.game))
    }

    async fn abort(&mut self, secret: &str) -> ApiResult<GameView> {
        self.held(secret)?;
        if !self.game.is_playing() {
            return Err(ApiError::game_over());
        }
        if !self.game.can_abort() {
            return Err(ApiError::not_allowed(
                "both sides have moved: the game can be resigned, no longer aborted",
            ));
        }
        self.drop_pending();
        self.commit(Change::Abort { at: now_ms() }).await?;
        Ok(GameView::of(&self.game))
    }

    /// The one side `secret` holds in a game between two people: offers are between them.
    fn one_of_two(&self, secret: &str) -> ApiResult<Side> {
        let held = self.held(secret)?;
        match (held.as_slice(), self.game.mode) {
            ([side], Mode::Friend) => Ok(*side),
            _ => Err(ApiError::not_allowed(
                "offers are between two people; against the computer or on one screen a move is taken back at once",
            )),
        }
    }

    async fn offer(&mut self, secret: &str, kind: OfferKind) -> ApiResult<GameView> {
        let me = self.one_of_two(secret)?;
        if !self.game.is_playing() {
            return Err(ApiError::game_over());
        }
        match self.game.offer {
            Some(o) if o.by == me && o.kind == kind => return Ok(GameView::of(&self.game)),
            // The same offer from the other side: both want it.
            Some(o) if o.kind == kind => return self.answer(secret, true).await,
            Some(o) => {
                return Err(ApiError::not_allowed(format!(
                    "{} has a {} offer waiting: answer it first",
                    o.by,
                    o.kind.name()
                )))
            }
            None => {}
        }
        if kind == OfferKind::TakeBack && self.game.keep_before_last_move_of(me).is_none() {
            return Err(ApiError::not_allowed(
                "there is no move of yours to take back",
            ));
        }
        self.commit(Change::Offer(Offer { kind, by: me })).await?;
        Ok(GameView::of(&self.game))
    }

    async fn answer(&mut self, secret: &str, accept: bool) -> ApiResult<GameView> {
        let me = self.one_of_two(secret)?;
        if !self.game.is_playing() {
            return Err(ApiError::game_over());
        }
        let Some(offer) = self.game.offer else {
            return Err(ApiError::not_allowed("there is no offer to answer"));
        };
        if !accept {
            self.commit(Change::Decline { by: me }).await?;
            return Ok(GameView::of(&self.game));
        }
        if offer.by == me {
            return Err(ApiError::not_allowed(
                "the offer is yours: the other player accepts it",
            ));
        }
        let change = match offer.kind {
            OfferKind::Draw => Change::Draw { at: now_ms() },
            OfferKind::TakeBack => {
                let keep = self
                    .game
                    .keep_before_last_move_of(offer.by)
                    .ok_or_else(|| ApiError::not_allowed("there is no move to take back"))?;
                Change::TakeBack { keep, at: now_ms() }
            }
        };
        self.commit(change).await?;
        Ok(GameView::of(&self.game))
    }

    /// Counts the seat's connections here; its first opened or last closed is stored, so that
    /// the opponent (on any instance) sees the player come and go.
    async fn present(&mut self, secret: &str, here: bool) -> ApiResult<Vec<Side>> {
        let held = self.held(secret)?;
        // Only between two people does one wait for the other.
        let [side] = held.as_slice() else {
            return Ok(held);
        };
        if self.game.mode != Mode::Friend {
            return Ok(held);
        }
        let i = side.index();
        self.here[i] = if here {
            self.here[i] + 1
        } else {
            self.here[i].saturating_sub(1)
        };
        let away = (self.here[i] == 0).then(now_ms);
        if self.game.is_playing() && away.is_some() != self.game.away[i].is_some() {
            self.commit(Change::Presence { side: *side, away }).await?;
        }
        Ok(held)
    }

    async fn claim(&mut self, secret: &str) -> ApiResult<GameView> {
        let me = self.one_of_two(secret)?;
        if !self.game.is_playing() {
            return Err(ApiError::game_over());
        }
        let Some(wait) = claim_after_ms(self.game.category()) else {
            return Err(ApiError::not_allowed(
                "in a correspondence game the clock decides: the win comes when the other player's days run out",
            ));
        };
        let other = me.opponent();
        let Some(since) = self.game.away[other.index()] else {
            return Err(ApiError::not_allowed(format!("{other} is here")));
        };
        let gone = now_ms() - since;
        if gone < wait {
            return Err(ApiError::not_allowed(format!(
                "{other} left {} s ago: the win can be claimed once they have been away {} s",
                gone / 1000,
                wait / 1000
            )));
        }
        self.drop_pending();
        self.commit(Change::Claim {
            winner: me,
            at: now_ms(),
        })
        .await?;
        Ok(GameView::of(&self.game))
    }

    async fn resign(&mut self, secret: &str) -> ApiResult<GameView> {
        let held = self.held(secret)?;
        let g = &self.game;
        if !g.is_playing() {
            return Err(ApiError::game_over());
        }
        // On one screen the player to move is the one resigning.
        let loser = match (held.as_slice(), g.pos.to_move()) {
            ([one], _) => *one,
            (_, Some(s)) => s,
            (_, None) => return Err(ApiError::game_over()),
        };
        self.drop_pending();
        self.commit(Change::Resign {
            loser,
            at: now_ms(),
        })
        .await?;
        Ok(GameView::of(&self.game))
    }

    async fn rematch(&mut self, secret: &str) -> ApiResult<(String, bool, Vec<Side>)> {
        let held = self.held(secret)?;
        let after: Vec<Side> = held.iter().map(|s| s.opponent()).collect();
        if let Some(next) = &self.game.rematch {
            return Ok((next.clone(), false, after));
        }
        let g = &self.game;
        if g.is_playing() {
            return Err(ApiError::not_allowed(
                "the game is still going on: a rematch starts once it is over",
            ));
        }
        let seed = match g.rules {
            anywoli_core::Rules::Lottery { .. } => u64::from_le_bytes(random_bytes::<8>()),
            _ => 0,
        };
        let rules = anywoli_core::Rules::from_name(g.rules.name(), seed).unwrap_or(g.rules);
        // The players change sides and keep their secrets, so each browser already holds the
        // key to its new seat.
        let [s, n] = g.secrets().clone();
        let next = Game::new(NewGame {
            id: new_id(),
            at: now_ms(),
            mode: g.mode,
            rules,
            players: [g.players[1], g.players[0]],
            secrets: [n, s],
            start: Position::start(rules),
            hints: g.hints,
            invite: None,
            clock: g.clock.map(|c| c.control),
            // The players change sides; a rated game's rematch is rated too, each player's
            // rating as the last game left it.
            people: People {
                accounts: [g.people.accounts[1].clone(), g.people.accounts[0].clone()],
                rated: g.people.rated,
                public: g.people.public,
                ratings: match g.people.ratings.change {
                    Some([s, n]) => GameRatings {
                        start: [Some(n.into()), Some(s.into())],
                        change: None,
                    },
                    None => GameRatings {
                        start: [g.people.ratings.start[1], g.people.ratings.start[0]],
                        change: None,
                    },
                },
            },
        });
        let mut next = next;
        next.engine = self.rounds()?.claim_for(&next);
        let id = next.id.clone();
        self.commit(Change::Rematch {
            next: Box::new(next.clone()),
        })
        .await?;
        self.rounds()?.adopt(next);
        Ok((id, true, after))
    }

    fn hint_position(&self, secret: &str) -> ApiResult<(Position, usize)> {
        let held = self.held(secret)?;
        let g = &self.game;
        if !g.is_playing() {
            return Err(ApiError::game_over());
        }
        let to_move = g.pos.to_move().ok_or_else(ApiError::game_over)?;
        if !g.hints {
            return Err(ApiError::new(
                StatusCode::FORBIDDEN,
                ErrorCode::HintsOff,
                "hints are off in this game: it was made without them, for both players",
            ));
        }
        if !held.contains(&to_move) {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                ErrorCode::NotYourTurn,
                format!("a hint is for the player to move, and it is {to_move}'s turn"),
            ));
        }
        Ok((g.pos, g.moves.len()))
    }

    /// Starts the engine if it is its turn, it is not already at work, and this instance
    /// owes its reply.
    async fn kick_engine(&mut self) {
        let Some(level) = self.game.computer_to_move() else {
            return;
        };
        if self.game.thinking || self.pending.is_some() {
            return;
        }
        let Ok(rounds) = self.rounds() else {
            return;
        };
        if !self.engine_is_mine(&rounds).await {
            return;
        }
        let event = self.game.set_thinking(true);
        self.announce(&event);
        let token = self.game.version();
        let pos = self.game.pos;
        let seed = id_seed(&self.game.id) ^ self.game.moves.len() as u64;
        let tx = self.tx.clone();
        let think = rounds.ctx.think;
        let engine = rounds.ctx.engine.clone();
        drop(rounds);
        let clock = self.game.clock.and_then(|c| {
            let side = self.game.pos.to_move()?;
            let increment_ms = match c.control {
                TimeControl::RealTime { increment_ms, .. } => increment_ms,
                TimeControl::Correspondence { .. } => 0,
            };
            Some(ClockLeft {
                left_ms: c.left_at(side, Some(side), now_ms()),
                increment_ms,
            })
        });
        tokio::spawn(async move {
            let job = move || {
                let spec = level_spec(level)?;
                let time = spec.budget(think.movetime, clock);
                let mut player = LevelPlayer::new(level, seed, think.hash_mib, 1)?;
                player.choose(&pos, time)
            };
            // A level that chooses by a shallow look takes microseconds: it skips the queue and
            // never waits behind a search (a hint or level 10 takes up to Think::movetime).
            let mv = if level_spec(level).is_some_and(|s| s.is_instant()) {
                tokio::task::spawn_blocking(job).await.ok().flatten()
            } else {
                engine.run(Priority::Game, job).await.ok().flatten()
            };
            let _ = tx.send(Command::EngineDone { token, mv }).await;
        });
    }

    /// Whether this instance plays the engine's move: it holds the claim, or the claim is
    /// nobody's or ran out and the database grants it to this instance. Otherwise a look
    /// again is planned for when the other instance's claim runs out.
    async fn engine_is_mine(&mut self, rounds: &Rounds) -> bool {
        let me = rounds.ctx.store.instance().to_string();
        let now = now_ms();
        match &self.game.engine {
            Some(c) if c.owner == me => return true,
            // On one machine a claim of another owner was left by the process before this one.
            Some(c) if rounds.shared() && c.until >= now => {
                let wait = Duration::from_millis((c.until - now) as u64 + 50);
                self.recheck_in(wait);
                return false;
            }
            _ => {}
        }
        let until = now + rounds.ctx.engine_lease.as_millis() as i64;
        let (id, revision) = (self.game.id.clone(), self.game.revision);
        match rounds
            .db(move |s| s.claim_engine(&id, revision, now, until))
            .await
        {
            Ok(true) => {
                // On one machine a claim of another owner is the previous process's.
                if rounds.shared() && self.game.engine.is_some() {
                    rounds.ctx.metrics.took_over();
                }
                self.game.engine = Some(crate::store::EngineClaim { owner: me, until });
                true
            }
            Ok(false) => {
                // Another instance claimed it first, or the game moved on: read who holds it
                // (so that the commands meanwhile do not ask again), and look again later.
                self.refresh().await;
                self.recheck_in(rounds.ctx.engine_lease);
                false
            }
            Err(e) => {
                tracing::warn!(
                    "cannot claim the engine's turn in {}: {}",
                    self.game.id,
                    e.message
                );
                self.recheck_in(Duration::from_secs(1));
                false
            }
        }
    }

    fn recheck_in(&mut self, wait: Duration) {
        if std::mem::replace(&mut self.recheck, true) {
            return;
        }
        let tx = self.tx.clone();
        tokio::spawn(async move {
            tokio::time::sleep(wait).await;
            let _ = tx.send(Command::Recheck).await;
        });
    }

    async fn engine_done(&mut self, token: u64, mv: Option<Move>) {
        if self.game.version() != token {
            // A take-back or resignation came first: look again at what is to be done.
            let event = self.game.set_thinking(false);
            self.announce(&event);
            return;
        }
        match mv {
            Some(mv) => {
                self.pending = Some(mv);
                self.store_engine_move().await;
            }
            None => {
                tracing::error!("the engine found no move in game {}", self.game.id);
                let event = self.game.set_thinking(false);
                self.announce(&event);
            }
        }
    }

    /// Forgets the engine's move that is waiting to be stored (the game moved on without it);
    /// no search is running then, so the engine is no longer at work.
    fn drop_pending(&mut self) {
        if self.pending.take().is_some() {
            self.retries = 0;
            let event = self.game.set_thinking(false);
            self.announce(&event);
        }
    }

    async fn engine_retry(&mut self) {
        if self.pending.is_some() {
            self.store_engine_move().await;
        }
    }

    /// Stores the engine's chosen move; when the store fails, tries again later (1 s, 2 s, …
    /// up to 30 s apart) so that the game never stays stuck on the engine's turn.
    async fn store_engine_move(&mut self) {
        let Some(mv) = self.pending else { return };
        if self.game.computer_to_move().is_none() {
            self.drop_pending();
            return;
        }
        let Ok(trace) = self.game.pos.trace(mv) else {
            self.pending = None;
            let event = self.game.set_thinking(false);
            self.announce(&event);
            return;
        };
        let mut change_game = self.game.clone();
        change_game.thinking = false;
        let saved = std::mem::replace(&mut self.game, change_game);
        match self
            .commit(Change::Move {
                trace,
                at: now_ms(),
                lag_ms: 0,
            })
            .await
        {
            Ok(_) => {
                self.pending = None;
                self.retries = 0;
            }
            Err(e) if e.code == ErrorCode::Stale => {
                // Another instance stored a move first (it took the engine's turn over).
                self.game = saved;
                self.pending = None;
                self.retries = 0;
                if !self.refresh().await {
                    let event = self.game.set_thinking(false);
                    self.announce(&event);
                }
            }
            Err(e) => {
                self.game = saved;
                self.retries += 1;
                let wait =
                    Duration::from_secs(1 << self.retries.min(5)).min(Duration::from_secs(30));
                tracing::error!(
                    "the engine's move in game {} was not stored ({}); trying again in {:?}",
                    self.game.id,
                    e.message,
                    wait
                );
                let tx = self.tx.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(wait).await;
                    let _ = tx.send(Command::EngineRetry).await;
                });
            }
        }
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
