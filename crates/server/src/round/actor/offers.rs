//! What two people offer each other (a draw, a take-back) and what happens when one of them
//! leaves: presence by connections, and the win claimed from a player gone long enough.

use super::*;

impl Round {
    /// The one side `secret` holds in a game between two people: offers are between them.
    pub(super) fn one_of_two(&self, secret: &str) -> ApiResult<Side> {
        let held = self.held(secret)?;
        match (held.as_slice(), self.game.mode) {
            ([side], Mode::Friend) => Ok(*side),
            _ => Err(ApiError::not_allowed(
                "offers are between two people; against the computer or on one screen a move is taken back at once",
            )),
        }
    }

    pub(super) async fn offer(&mut self, secret: &str, kind: OfferKind) -> ApiResult<GameView> {
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

    pub(super) async fn answer(&mut self, secret: &str, accept: bool) -> ApiResult<GameView> {
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
    pub(super) async fn present(&mut self, secret: &str, here: bool) -> ApiResult<Vec<Side>> {
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

    pub(super) async fn claim(&mut self, secret: &str) -> ApiResult<GameView> {
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
}
