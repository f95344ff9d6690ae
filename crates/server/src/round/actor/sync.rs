//! Keeping a round in step with the database when other instances change its game: a change
//! heard is applied or the game read again; a request refused because this copy was behind is
//! tried once more.

use super::*;

impl Round {
    /// After a refusal that the game's state decided (not your turn, stale, game over...):
    /// whether the game in memory was behind the database (another server instance changed
    /// it) and has been read again, so that the command is worth checking once more.
    pub(super) async fn behind<T>(&mut self, r: &ApiResult<T>) -> bool {
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
    pub(super) async fn hear(&mut self, h: crate::store::Heard) {
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
            mine.left = theirs.left.into();
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
    pub(super) async fn refresh(&mut self) -> bool {
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
}
