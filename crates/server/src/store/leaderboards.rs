//! Leaderboards (issue 38): the best established ratings of a category and rules. Reads the
//! players' ratings (`accounts/ratings.rs`); it has no table of its own.

use super::accounts::RatingRow;
use super::sql::{FromRow, Row, Sql};
use super::Store;
use super::StoreResult;
use crate::rating::glicko2::PROVISIONAL_DEVIATION;

/// Which accounts a leaderboard may show, as SQL on the `accounts` row `a`: this is the one
/// place that leaves accounts out (a marked one: computer assistance, boosting; and BOTs, whose
/// ratings are not people's: docs/api-bots.md).
fn listed_sql() -> String {
    format!(
        "a.name IS NOT NULL AND NOT {} AND NOT EXISTS (SELECT 1 FROM bots b WHERE b.account = a.name)",
        super::moderation::marked_sql("a.name")
    )
}

/// One place of a leaderboard: the player and their rating as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct LeaderRow {
    pub name: String,
    pub rating: RatingRow,
}

impl FromRow for LeaderRow {
    fn from_row(r: &Row) -> StoreResult<LeaderRow> {
        Ok(LeaderRow {
            name: r.text("name")?,
            rating: RatingRow::from_row(r)?,
        })
    }
}

/// Up to `limit` ratings of `category` and `rules` whose stored deviation is not provisional,
/// highest first (ties by name, in byte order, so that both backends agree).
fn top(db: &mut dyn Sql, category: &str, rules: &str, limit: usize) -> StoreResult<Vec<LeaderRow>> {
    let collate = db.dialect().byte_order();
    let listed = listed_sql();
    let sql = format!(
        "SELECT r.account AS name, r.category AS category, r.rules AS rules,
            r.rating AS rating, r.deviation AS deviation, r.volatility AS volatility,
            r.games AS games, r.at AS at
         FROM ratings r JOIN accounts a ON a.name = r.account
         WHERE r.category = $1 AND r.rules = $2 AND r.games > 0 AND r.deviation <= $3
           AND {listed}
         ORDER BY r.rating DESC, r.account {collate} LIMIT $4"
    );
    db.rows(
        &sql,
        &[
            category.into(),
            rules.into(),
            PROVISIONAL_DEVIATION.into(),
            (limit as i64).into(),
        ],
    )
}

/// Leaderboards.
impl Store {
    /// Up to `limit` players of `category` and `rules` whose stored rating is not
    /// provisional, best first. (A rating that grew provisional with time away is the
    /// caller's to leave out: the store does not know the time.)
    pub fn leaders(
        &self,
        category: &str,
        rules: &str,
        limit: usize,
    ) -> StoreResult<Vec<LeaderRow>> {
        self.readers.sql(|db| top(db, category, rules, limit))
    }
}
