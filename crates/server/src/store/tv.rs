//! The game on TV (issue 38): the best live public game between people. Reads the games and
//! the players' ratings; it has no table of its own.

use super::sql::Sql;
use super::Store;
use super::StoreResult;
use crate::rating::Rating;

/// The best game in play, public, with two people at the board (no computer, and not one
/// person playing both sides on one screen) and changed
/// since `active_since` (a game its players left is not shown for ever): rated games between
/// two accounts first, by the average of the players' ratings (a player not rated yet in the
/// game's category counts as a new player, 1500), then the most recent.
fn best(db: &mut dyn Sql, active_since: i64) -> StoreResult<Option<String>> {
    let collate = db.dialect().byte_order();
    // A marked player's games are not shown (docs/community.md, "Marks").
    let marked = [
        super::moderation::marked_sql("g.south_account"),
        super::moderation::marked_sql("g.north_account"),
    ];
    let sql = format!(
        "SELECT g.id AS id FROM games g
         LEFT JOIN ratings rs ON g.rated AND rs.account = g.south_account
            AND rs.category = g.category AND rs.rules = g.rules
         LEFT JOIN ratings rn ON g.rated AND rn.account = g.north_account
            AND rn.category = g.category AND rn.rules = g.rules
         WHERE g.status = 'playing' AND g.public AND g.south = 'human' AND g.north = 'human'
           AND g.mode != 'local'
           AND g.updated > $1 AND NOT {} AND NOT {}
         ORDER BY CASE WHEN g.rated
            THEN (COALESCE(rs.rating, $2) + COALESCE(rn.rating, $2)) / 2 ELSE 0 END DESC,
            g.updated DESC, g.id {collate}
         LIMIT 1",
        marked[0], marked[1]
    );
    db.query(&sql, &[active_since.into(), Rating::DEFAULT.rating.into()])?
        .first()
        .map(|r| r.text("id"))
        .transpose()
}

/// The game on TV.
impl Store {
    /// The best live public game between people changed since `active_since`, if any.
    pub fn tv_game(&self, active_since: i64) -> StoreResult<Option<String>> {
        self.readers.sql(|db| best(db, active_since))
    }
}
