//! Who sits where: a seat taken by an invite, a seat given to the account that holds its
//! secret, a game made public.

use super::*;

impl Round {
    pub(super) async fn own(&mut self, secret: &str, name: &str) -> ApiResult<usize> {
        let (owned, change) = rules::own(&self.game, &self.held(secret)?, name);
        if let Some(change) = change {
            self.commit(change).await?;
        }
        Ok(owned)
    }

    pub(super) async fn publish(&mut self, secret: &str, public: bool) -> ApiResult<GameView> {
        self.held(secret)?;
        match rules::publish(&self.game, public) {
            Some(change) => self.decided(change).await,
            None => Ok(GameView::of(&self.game)),
        }
    }

    pub(super) async fn join(
        &mut self,
        invite: Option<&str>,
        account: Option<&str>,
    ) -> ApiResult<(GameView, Side, String)> {
        let secret = new_secret();
        let (seat, change) = rules::join(&self.game, invite, account, &secret, now_ms())?;
        Ok((self.decided(change).await?, seat, secret))
    }
}
