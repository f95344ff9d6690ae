//! What the fair-play signals read (issue 38, "Signals, not verdicts"): the newest rated games
//! that are over, and when each move of a game was stored (the moves' times). No table of its
//! own: the signals are computed from games and reviews at each request, never kept.

use super::sql::Sql;
use super::Store;
use super::StoreResult;

/// Reads for the signals.
impl Store {
    /// The ids of the newest `limit` rated games that are over (of `player` only, if given:
    /// its name as stored), newest first.
    pub fn rated_over(&self, player: Option<&str>, limit: usize) -> StoreResult<Vec<String>> {
        self.readers.sql(|db| rated_over(db, player, limit as i64))
    }

    /// When each move of game `id` was stored (ms since the epoch), in order.
    pub fn move_times(&self, id: &str) -> StoreResult<Vec<i64>> {
        self.readers.sql(|db| {
            let rows = db.query(
                "SELECT at FROM moves WHERE game = $1 ORDER BY ply",
                &[id.into()],
            )?;
            rows.iter().map(|r| r.int("at")).collect()
        })
    }
}

fn rated_over(db: &mut dyn Sql, player: Option<&str>, limit: i64) -> StoreResult<Vec<String>> {
    let rows = match player {
        Some(name) => db.query(
            "SELECT id FROM games WHERE rated AND status = 'over'
               AND (south_account = $1 OR north_account = $1)
             ORDER BY updated DESC, id LIMIT $2",
            &[name.into(), limit.into()],
        )?,
        None => db.query(
            "SELECT id FROM games WHERE rated AND status = 'over'
             ORDER BY updated DESC, id LIMIT $1",
            &[limit.into()],
        )?,
    };
    rows.iter().map(|r| r.text("id")).collect()
}
