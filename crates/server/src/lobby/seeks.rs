//! Open seeks: made by a connection, seen by the whole lobby, taken once.

use super::*;

impl Lobby {
    /// Opens a seek made by connection `conn`.
    pub fn open(&self, conn: u64, seek: Seek) -> Result<(), ApiError> {
        let owner = self.owner(conn);
        let mut s = self.lock();
        let client = s.conns.get(&conn).and_then(|c| c.client);
        let count = |f: &dyn Fn(&Held) -> bool| s.seeks.values().filter(|h| f(h)).count();
        let mine =
            count(&|h| h.owner == owner).max(count(&|h| seek.by.is_some() && h.seek.by == seek.by));
        let here = count(&|h| client.is_some() && h.client == client);
        if mine >= SEEKS_PER_CONNECTION || here >= SEEKS_PER_CLIENT {
            return Err(ApiError::new(
                axum::http::StatusCode::TOO_MANY_REQUESTS,
                ErrorCode::RateLimited,
                format!(
                    "at most {SEEKS_PER_CONNECTION} open seeks each ({SEEKS_PER_CLIENT} from one \
                     address); cancel one first"
                ),
            ));
        }
        if s.seeks.len() >= MAX_SEEKS {
            return Err(ApiError::busy(
                format!("the lobby is full ({MAX_SEEKS} open seeks); try again in a minute"),
                60,
            ));
        }
        s.seeks.insert(
            seek.id.clone(),
            Held {
                seek: seek.clone(),
                owner,
                seen: Instant::now(),
                opened: Instant::now(),
                client,
            },
        );
        drop(s);
        self.announce(&ServerMessage::Seek { seek: seek.clone() });
        self.publish(BusMessage::Open { seek, conn });
        Ok(())
    }

    /// Cancels connection `conn`'s seek `id`.
    pub async fn cancel(&self, conn: u64, id: &str) -> Result<(), ApiError> {
        let owner = self.owner(conn);
        let mine = self.lock().seeks.get(id).is_some_and(|h| h.owner == owner);
        if !mine {
            return Err(unknown_seek());
        }
        // Taken by an accept on another instance meanwhile: that game starts instead.
        self.take(id).await.map(drop)
    }

    /// Every open seek.
    pub fn snapshot(&self) -> Vec<Seek> {
        self.lock().seeks.values().map(|h| h.seek.clone()).collect()
    }

    /// Seek `id` and its creator's connection, if it is open.
    pub fn peek(&self, id: &str) -> Option<(Seek, Owner)> {
        self.lock()
            .seeks
            .get(id)
            .map(|h| (h.seek.clone(), h.owner.clone()))
    }

    /// Takes seek `id` out of every lobby, for accepting or cancelling it: the database says
    /// who took it first, so one seek makes at most one game.
    pub async fn take(&self, id: &str) -> Result<(Seek, Owner), ApiError> {
        let held = self.peek(id).ok_or_else(unknown_seek)?;
        let claim = id.to_string();
        let won = self
            .db(move |s| {
                s.account_op(AccountOp::TakeSeek {
                    id: claim,
                    at: now_ms(),
                })
            })
            .await?;
        self.drop_seek(id);
        if !won {
            return Err(unknown_seek());
        }
        self.publish(BusMessage::Gone { id: id.to_string() });
        Ok(held)
    }

    /// Removes a seek from this lobby, telling its connections.
    pub(super) fn drop_seek(&self, id: &str) {
        if self.lock().seeks.remove(id).is_some() {
            self.announce(&ServerMessage::Unseek { id: id.to_string() });
        }
    }
}
