//! Game reviews (issue 13): the engine's judgement of a game's moves, stored with the moves it
//! judged, so that the next visitor gets it at once and a game that moved on is reviewed again.

use super::sql::{FromRow, Row, Sql};
use super::writer::Change;
use super::StoreResult;
use super::{Conn, Store};

/// The table, the same text in both backends.
pub(super) const REVIEW_TABLES: &str = "
CREATE TABLE IF NOT EXISTS reviews (
    game TEXT PRIMARY KEY,
    moves TEXT NOT NULL,
    body TEXT NOT NULL,
    at BIGINT NOT NULL
);
";

/// A stored review: the moves it judged (space-separated) and its body (JSON).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReviewRow {
    pub game: String,
    pub moves: String,
    pub body: String,
    pub at: i64,
}

fn save(db: &mut dyn Sql, r: &ReviewRow) -> StoreResult<()> {
    db.execute(
        "INSERT INTO reviews (game, moves, body, at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (game) DO UPDATE SET moves = excluded.moves, body = excluded.body,
            at = excluded.at",
        &[
            (&r.game).into(),
            (&r.moves).into(),
            (&r.body).into(),
            r.at.into(),
        ],
    )?;
    Ok(())
}

impl FromRow for ReviewRow {
    fn from_row(r: &Row) -> StoreResult<ReviewRow> {
        Ok(ReviewRow {
            game: r.text("game")?,
            moves: r.text("moves")?,
            body: r.text("body")?,
            at: r.int("at")?,
        })
    }
}

/// Stores (or replaces) a game's review: not a change of the game.
struct SaveReview(ReviewRow);

impl Change for SaveReview {
    type Out = ();

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<()> {
        save(c.sql(), &self.0)
    }
}

pub(super) fn load(db: &mut dyn Sql, game: &str) -> StoreResult<Option<ReviewRow>> {
    db.row(
        "SELECT game, moves, body, at FROM reviews WHERE game = $1",
        &[game.into()],
    )
}

/// Game reviews.
impl Store {
    /// Stores (or replaces) a game's review.
    pub fn save_review(&self, r: ReviewRow) -> StoreResult<()> {
        self.writer.call(SaveReview(r))
    }

    /// The review stored for game `id`, if any.
    pub fn review(&self, id: &str) -> StoreResult<Option<ReviewRow>> {
        self.readers.sql(|db| load(db, id))
    }
}
