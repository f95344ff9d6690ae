//! What two people offer each other (a draw, a take-back) and what happens when one of them
//! leaves: presence by connections, and the win claimed from a player gone long enough.

use super::*;

impl Round {
    /// The one side `secret` holds in a game between two people: offers are between them.
    fn one_of_two(&self, secret: &str) -> ApiResult<Side> {
        Ok(rules::one_of_two(&self.game, &self.held(secret)?)?)
    }

    pub(super) async fn offer(&mut self, secret: &str, kind: OfferKind) -> ApiResult<GameView> {
        let me = self.one_of_two(secret)?;
        match rules::offer(&self.game, me, kind)? {
            OfferStep::Standing => Ok(GameView::of(&self.game)),
            OfferStep::Accept => self.answer(secret, true).await,
            OfferStep::Make(change) => self.decided(change).await,
        }
    }

    pub(super) async fn answer(&mut self, secret: &str, accept: bool) -> ApiResult<GameView> {
        let me = self.one_of_two(secret)?;
        let change = rules::answer(&self.game, me, accept, now_ms())?;
        self.decided(change).await
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
        self.here[*side] = if here {
            self.here[*side] + 1
        } else {
            self.here[*side].saturating_sub(1)
        };
        let away = (self.here[*side] == 0).then(now_ms);
        if self.game.is_playing() && away.is_some() != self.game.away[*side].is_some() {
            self.commit(Change::Presence { side: *side, away }).await?;
        }
        Ok(held)
    }

    pub(super) async fn claim(&mut self, secret: &str) -> ApiResult<GameView> {
        let me = self.one_of_two(secret)?;
        let change = rules::claim(&self.game, me, now_ms())?;
        self.drop_pending();
        self.decided(change).await
    }
}
