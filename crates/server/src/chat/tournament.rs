//! A tournament's chat: one room for everyone who watches it, written by accounts (not muted,
//! within the chat's pace), each reader leaving out the lines of accounts it blocks or is
//! blocked by. Lines are stored under the tournament's id, so moderators see them with a
//! player's other lines, and travel to the other instances as a game's do.

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;

use super::line::{checked_text, refusal};
use super::reader::{blocking, Heard, HISTORY};
use super::{Hub, Subscription};
use crate::error::{ApiResult, ErrorCode};
use crate::store::{ChatLine, Room};
use crate::ws::SocketError;

const BLOCKS_READ: usize = 1000;

/// One watcher's side of a tournament's chat.
pub struct TournamentChat {
    hub: Arc<Hub>,
    tournament: String,
    sub: Subscription,
    account: Option<String>,
    client: String,
    blocks: HashSet<String>,
    pending: VecDeque<Heard>,
}

impl TournamentChat {
    /// The chat of tournament `id` for a watcher with `account` from `client`: subscribed
    /// before the last lines are read, so that none falls between.
    pub async fn open(
        hub: Arc<Hub>,
        id: &str,
        account: Option<String>,
        client: String,
    ) -> ApiResult<TournamentChat> {
        let sub = hub.subscribe(id);
        let (store, key, who) = (hub.store.clone(), id.to_string(), account.clone());
        let (blocks, mut history) = blocking(store, move |s| {
            let blocks = match &who {
                Some(a) => s.blocked_with(a, BLOCKS_READ)?,
                None => Vec::new(),
            };
            Ok((blocks, s.chat_lines(&key, Room::Tournament, HISTORY)?))
        })
        .await?;
        let blocks: HashSet<String> = blocks.into_iter().collect();
        history.retain(|l| !l.author.as_ref().is_some_and(|a| blocks.contains(a)));
        history.sort_by(|a, b| (a.at, &a.id).cmp(&(b.at, &b.id)));
        Ok(TournamentChat {
            hub,
            tournament: id.to_string(),
            sub,
            account,
            client,
            pending: history.iter().map(Heard::from).collect(),
            blocks,
        })
    }

    /// The next line for this watcher (cancel-safe).
    pub async fn next(&mut self) -> Option<Heard> {
        loop {
            if let Some(h) = self.pending.pop_front() {
                return Some(h);
            }
            let line = match self.sub.rx.recv().await {
                Ok(l) => l,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return None,
            };
            let blocked = line
                .author
                .as_ref()
                .is_some_and(|a| self.blocks.contains(a));
            if line.room == Room::Tournament && !blocked {
                return Some(Heard::from(&*line));
            }
        }
    }

    /// Says `text`, or the refusal (nothing stored, nothing sent).
    pub async fn say(&mut self, text: &str) -> Result<(), SocketError> {
        let Some(account) = self.account.clone() else {
            return Err(refusal(
                ErrorCode::NotLoggedIn,
                "a tournament's chat needs an account",
            ));
        };
        let text = checked_text(text)?;
        let (store, a) = (self.hub.store.clone(), account.clone());
        let now = crate::dates::now_ms();
        let muted = blocking(store, move |s| s.muted(&a, now))
            .await
            .map_err(SocketError::from)?;
        if let Some(m) = muted {
            return Err(refusal(
                ErrorCode::Muted,
                format!("a moderator muted your chat until {}", m.until),
            ));
        }
        let line = ChatLine {
            id: crate::ids::new_secret(),
            game: self.tournament.clone(),
            room: Room::Tournament,
            author: Some(account),
            side: None,
            text,
            preset: None,
            at: self.hub.stamp(),
        };
        self.hub.post(&self.client, line).await
    }
}
