//! The computer's turns: a search started on the engine queue when the engine is to move,
//! claimed from the database so that one instance plays it (a lease other instances take over
//! when it runs out), its move stored, or tried again when the store refused it.

use super::*;

impl Round {
    /// Starts the engine if it is its turn, it is not already at work, and this instance
    /// owes its reply.
    pub(super) async fn kick_engine(&mut self) {
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
    pub(super) async fn engine_is_mine(&mut self, rounds: &Rounds) -> bool {
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

    pub(super) fn recheck_in(&mut self, wait: Duration) {
        if std::mem::replace(&mut self.recheck, true) {
            return;
        }
        let tx = self.tx.clone();
        tokio::spawn(async move {
            tokio::time::sleep(wait).await;
            let _ = tx.send(Command::Recheck).await;
        });
    }

    pub(super) async fn engine_done(&mut self, token: u64, mv: Option<Move>) {
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
    pub(super) fn drop_pending(&mut self) {
        if self.pending.take().is_some() {
            self.retries = 0;
            let event = self.game.set_thinking(false);
            self.announce(&event);
        }
    }

    pub(super) async fn engine_retry(&mut self) {
        if self.pending.is_some() {
            self.store_engine_move().await;
        }
    }

    /// Stores the engine's chosen move; when the store fails, tries again later (1 s, 2 s, …
    /// up to 30 s apart) so that the game never stays stuck on the engine's turn.
    pub(super) async fn store_engine_move(&mut self) {
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
