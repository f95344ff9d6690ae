//! Who sits where: a seat taken by an invite, a seat given to the account that holds its
//! secret, a game made public.

use super::*;

impl Round {
    pub(super) async fn own(&mut self, secret: &str, name: &str) -> ApiResult<usize> {
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

    pub(super) async fn publish(&mut self, secret: &str, public: bool) -> ApiResult<GameView> {
        self.held(secret)?;
        if self.game.people.public != public {
            let accounts = self.game.people.accounts.clone();
            self.commit(Change::Seating { accounts, public }).await?;
        }
        Ok(GameView::of(&self.game))
    }

    pub(super) async fn join(
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
}
