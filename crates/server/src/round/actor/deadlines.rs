//! What a round does when nobody asks: the side to move's flag falls, or a first move that
//! did not come in time aborts the game (issue 36), each at its deadline, by the round's own
//! timer or the sweep of every server for deadlines that passed.

use std::time::Duration;

use super::{Command, Round};
use crate::dates::now_ms;
use crate::round::change::Change;
use crate::round::clock::LAG_CAP_MS;

impl Round {
    /// Ends the game on time if the side to move has used up its clock, allowance included,
    /// or aborts it if its first move did not come in time.
    pub(super) async fn check_flag(&mut self) {
        // Refused because another instance changed the game: read again, and decide again on
        // the game as it now is (its first move may have come there).
        for _ in 0..2 {
            let Some(change) = self.due_end() else { return };
            self.drop_pending();
            let r = self.commit(change).await;
            if self.behind(&r).await {
                continue;
            }
            if let Err(e) = r {
                // Looked at again with the next command or timer.
                tracing::warn!(
                    "the end of game {} by its clock could not be stored: {}",
                    self.game.id,
                    e.message
                );
            }
            return;
        }
    }

    /// The end the clock brings now, if any: an abort for a first move that did not come, or
    /// the flag of the side to move.
    fn due_end(&self) -> Option<Change> {
        let g = &self.game;
        if g.first_move_deadline().is_some_and(|d| now_ms() >= d) {
            return Some(Change::Abort { at: now_ms() });
        }
        let (Some(clock), Some(to_move)) = (g.clock, g.pos.to_move()) else {
            return None;
        };
        if !g.is_playing() || !clock.flagged(to_move, now_ms(), LAG_CAP_MS) {
            return None;
        }
        Some(Change::Flag {
            loser: to_move,
            at: now_ms(),
        })
    }

    /// Sends this round a [`Command::FlagCheck`] when the side to move's time will be up, or
    /// its wait for a first move.
    pub(super) fn arm_flag_timer(&mut self) {
        let Some(deadline) = self.game.deadline() else {
            return;
        };
        if self.flag_timer.is_some_and(|t| t <= deadline) {
            return;
        }
        self.flag_timer = Some(deadline);
        let tx = self.tx.clone();
        let wait = Duration::from_millis((deadline - now_ms()).max(0) as u64 + 1);
        tokio::spawn(async move {
            tokio::time::sleep(wait).await;
            let _ = tx.send(Command::FlagCheck).await;
        });
    }
}
