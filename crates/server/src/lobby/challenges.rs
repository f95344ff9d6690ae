//! Challenges from one named player to another: they wait in the database, go away unanswered
//! after [`CHALLENGE_TTL_MS`], and are taken once.

use super::*;

impl Lobby {
    /// Sends challenge `c` to its player.
    pub async fn challenge(&self, c: Challenge) -> Result<(), ApiError> {
        self.expire().await;
        let (from, to) = (c.from.clone(), c.to.clone());
        let (sent, received, blocked) = self
            .db(move |s| {
                let blocked = s.blocked_between(&from, &to)?;
                Ok((s.challenges(&from)?, s.challenges(&to)?, blocked))
            })
            .await?;
        if blocked {
            return Err(ApiError::blocked("challenge this player"));
        }
        // One waiting challenge from one player to another: one stranger cannot fill a
        // player's incoming challenges (issue 36: all 20 places could be one sender's).
        if sent.iter().any(|x| x.from == c.from && x.to == c.to) {
            return Err(ApiError::new(
                axum::http::StatusCode::CONFLICT,
                ErrorCode::AlreadyChallenged,
                format!(
                    "you already challenged {}: wait for an answer, or cancel that one first",
                    c.to
                ),
            ));
        }
        let sent = sent.iter().filter(|x| x.from == c.from).count();
        let received = received.iter().filter(|x| x.to == c.to).count();
        // Each side's own count: a player that many challenge cannot be kept from sending.
        if sent >= CHALLENGES_PER_ACCOUNT || received >= CHALLENGES_PER_ACCOUNT {
            return Err(ApiError::new(
                axum::http::StatusCode::TOO_MANY_REQUESTS,
                ErrorCode::RateLimited,
                format!("at most {CHALLENGES_PER_ACCOUNT} challenges sent, and received, at once"),
            ));
        }
        let row = row_of(&c);
        self.db(move |s| s.account_op(AccountOp::AddChallenge(row)))
            .await?;
        self.tell(
            &c.to,
            &ServerMessage::Challenge {
                challenge: c.clone(),
            },
        );
        Ok(())
    }

    /// Puts back a challenge that was taken for accepting but whose game could not be made.
    pub async fn put_back_challenge(&self, c: Challenge) {
        let row = row_of(&c);
        let _ = self
            .db(move |s| s.account_op(AccountOp::AddChallenge(row)))
            .await;
    }

    /// The challenges to and from `name`.
    pub async fn challenges_of(&self, name: &str) -> ApiResult<(Vec<Challenge>, Vec<Challenge>)> {
        self.expire().await;
        let who = name.to_string();
        let rows = self.db(move |s| s.challenges(&who)).await?;
        let all: Vec<Challenge> = rows.iter().filter_map(challenge_of).collect();
        let incoming = all.iter().filter(|c| c.to == name).cloned().collect();
        let outgoing = all.iter().filter(|c| c.from == name).cloned().collect();
        Ok((incoming, outgoing))
    }

    /// Takes challenge `id` out for answering it: `by` must be its player (to accept or
    /// decline) or, to decline (cancel), its sender.
    pub async fn take_challenge(
        &self,
        id: &str,
        by: &str,
        accepting: bool,
    ) -> Result<Challenge, ApiError> {
        self.expire().await;
        let unknown = || {
            ApiError::new(
                axum::http::StatusCode::NOT_FOUND,
                ErrorCode::UnknownChallenge,
                "no such challenge is waiting for you (answered, cancelled or expired)",
            )
        };
        let key = id.to_string();
        let row = self.db(move |s| s.challenge(&key)).await?;
        let c = row
            .as_ref()
            .and_then(challenge_of)
            .filter(|c| c.to == by || (!accepting && c.from == by))
            .ok_or_else(unknown)?;
        let key = id.to_string();
        let won = self
            .db(move |s| s.account_op(AccountOp::TakeChallenge { id: key }))
            .await?;
        if won {
            Ok(c)
        } else {
            Err(unknown())
        }
    }

    /// Drops the challenges past their time, telling both players (whichever instance drops
    /// one first tells).
    pub async fn expire(&self) {
        let before = now_ms() - CHALLENGE_TTL_MS;
        let Ok(old) = self.db(move |s| s.old_challenges(before)).await else {
            return;
        };
        for row in old {
            let id = row.id.clone();
            let won = self
                .db(move |s| s.account_op(AccountOp::TakeChallenge { id }))
                .await;
            if won.unwrap_or(false) {
                let m = ServerMessage::ChallengeGone {
                    id: row.id.clone(),
                    reason: GoneReason::Expired,
                };
                self.tell(&row.from, &m);
                self.tell(&row.to, &m);
            }
        }
    }
}

fn row_of(c: &Challenge) -> ChallengeRow {
    ChallengeRow {
        id: c.id.clone(),
        from: c.from.clone(),
        to: c.to.clone(),
        body: serde_json::to_string(c).unwrap_or_default(),
        at: c.at,
    }
}

fn challenge_of(row: &ChallengeRow) -> Option<Challenge> {
    serde_json::from_str(&row.body).ok()
}
