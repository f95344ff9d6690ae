//! Players' ratings: a rated game rated in the transaction that ends it (Glicko-2, with the
//! short-win rule), each change a point of the player's history.

use crate::rating::{self, Rating};
use crate::store::sql::{FromRow, Row, Sql};
use crate::store::StoreResult;

/// One rating of a player.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingRow {
    pub category: String,
    pub rules: String,
    pub rating: Rating,
    pub games: i64,
    /// When it last changed (milliseconds since the epoch).
    pub at: i64,
}

/// A rating after one game, for the history graph.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingPoint {
    pub category: String,
    pub rules: String,
    pub at: i64,
    pub rating: f64,
    pub deviation: f64,
    pub game: String,
}

/// What ending a rated game does to its players' ratings, computed in the transaction that
/// ends it; `out` then holds the change (what the round shows).
#[derive(Clone, Debug)]
pub struct RateGame {
    pub names: [String; 2],
    pub category: String,
    pub rules: String,
    /// South's score: 1, ½ or 0.
    pub score_south: f64,
    /// Plies played: a short decisive game between a pair that had `SHORT_WINS_PER_DAY` of
    /// them already changes no rating.
    pub plies: usize,
}

/// A decisive game shorter than this is *short*: almost no game of Anywoli ends by its rules
/// this early (measured, docs/decisions.md: 1 of 400 games of `greedy` against `level3`, whose
/// shortest took 19 plies; of 2,000 random games the shortest took 30, the median 154), so it
/// was resigned, claimed or flagged.
pub const SHORT_GAME_PLIES: usize = 20;
/// Short decisive rated games one pair of accounts may play in 24 hours; later ones change no
/// rating (issue 36: lichess refuses rating changes for repeated short wins between the same
/// pair, the way two accounts of one person hand rating points over).
pub const SHORT_WINS_PER_DAY: i64 = 2;
const DAY_MS: i64 = 86_400_000;

/// How many short decisive games between the pair `names` were rated in the day before `at`
/// (the game `id` itself left out).
fn short_wins_of_pair(
    db: &mut dyn Sql,
    id: &str,
    at: i64,
    names: &[String; 2],
) -> StoreResult<i64> {
    db.count(
        "SELECT COUNT(*) AS n FROM rating_history h JOIN games g ON g.id = h.game
         WHERE h.account = $1 AND h.at > $3 AND g.id <> $4 AND g.result <> '1/2-1/2'
           AND ((g.south_account = $1 AND g.north_account = $2)
             OR (g.south_account = $2 AND g.north_account = $1))
           AND (SELECT COUNT(*) FROM moves m WHERE m.game = g.id) < $5",
        &[
            (&names[0]).into(),
            (&names[1]).into(),
            (at - DAY_MS).into(),
            id.into(),
            (SHORT_GAME_PLIES as i64).into(),
        ],
        "n",
    )
}

/// Rates game `id` (ending now, at `at`): both players' ratings are read, aged, updated and
/// written with a point of history each, and the game's `ratings` column gets the change. In
/// PostgreSQL the rating rows are locked first, so that two games of one player ending at once
/// on two instances are rated one after the other.
pub(in crate::store) fn rate(
    db: &mut dyn Sql,
    id: &str,
    at: i64,
    start: Option<&str>,
    r: &RateGame,
) -> StoreResult<rating::GameRatings> {
    let mut before = [Rating::DEFAULT; 2];
    let mut idle = [0i64; 2];
    for (i, name) in r.names.iter().enumerate() {
        (before[i], idle[i]) = rating_before(db, name, r, at)?;
    }
    let short = r.plies < SHORT_GAME_PLIES && r.score_south != 0.5;
    if short && short_wins_of_pair(db, id, at, &r.names)? >= SHORT_WINS_PER_DAY {
        // Shown as a change of nothing, so that both players see why nothing moved.
        return record_change(db, id, start, before, before);
    }
    let after = rating::after_rated_game(before, idle, r.score_south);
    for (name, a) in r.names.iter().zip(after) {
        db.execute(
            "UPDATE ratings SET rating = $4, deviation = $5, volatility = $6, games = games + 1,
                at = $7
             WHERE account = $1 AND category = $2 AND rules = $3",
            &[
                name.into(),
                (&r.category).into(),
                (&r.rules).into(),
                a.rating.into(),
                a.deviation.into(),
                a.volatility.into(),
                at.into(),
            ],
        )?;
        let point = RatingPoint {
            category: r.category.clone(),
            rules: r.rules.clone(),
            at,
            rating: a.rating,
            deviation: a.deviation,
            game: id.to_string(),
        };
        add_point(db, name, &point)?;
    }
    record_change(db, id, start, before, after)
}

/// A player's rating in the game's category and rules before it (made at the default if
/// there is none, locked when `lock`), and for how long it has been idle at `at`.
fn rating_before(
    db: &mut dyn Sql,
    name: &str,
    r: &RateGame,
    at: i64,
) -> StoreResult<(Rating, i64)> {
    // Made first, so that there is a row to lock.
    db.execute(
        "INSERT INTO ratings (account, category, rules, rating, deviation, volatility, games, at)
         VALUES ($1, $2, $3, $4, $5, $6, 0, $7)
         ON CONFLICT (account, category, rules) DO NOTHING",
        &[
            name.into(),
            (&r.category).into(),
            (&r.rules).into(),
            Rating::DEFAULT.rating.into(),
            Rating::DEFAULT.deviation.into(),
            Rating::DEFAULT.volatility.into(),
            at.into(),
        ],
    )?;
    let for_update = db.dialect().for_update();
    let rows = db.query(
        &format!(
            "SELECT rating, deviation, volatility, games, at FROM ratings
             WHERE account = $1 AND category = $2 AND rules = $3{for_update}"
        ),
        &[name.into(), (&r.category).into(), (&r.rules).into()],
    )?;
    let Some(row) = rows.first() else {
        return Ok((Rating::DEFAULT, 0));
    };
    // A first game starts from the default deviation, which ageing cannot raise.
    let idle = if row.int("games")? == 0 {
        0
    } else {
        at - row.int("at")?
    };
    Ok((Rating::from_row(row)?, idle))
}

/// A point of player `name`'s rating history.
pub(in crate::store) fn add_point(
    db: &mut dyn Sql,
    name: &str,
    p: &RatingPoint,
) -> StoreResult<()> {
    db.execute(
        "INSERT INTO rating_history (account, category, rules, at, rating, deviation, game)
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
        &[
            name.into(),
            (&p.category).into(),
            (&p.rules).into(),
            p.at.into(),
            p.rating.into(),
            p.deviation.into(),
            (&p.game).into(),
        ],
    )?;
    Ok(())
}

/// Writes what game `id` did to its players' ratings into its `ratings` column, and returns
/// it.
fn record_change(
    db: &mut dyn Sql,
    id: &str,
    start: Option<&str>,
    before: [Rating; 2],
    after: [Rating; 2],
) -> StoreResult<rating::GameRatings> {
    let mut ratings = rating::GameRatings::from_json(start);
    ratings.change = Some([
        rating::Change::new(before[0], after[0]),
        rating::Change::new(before[1], after[1]),
    ]);
    db.execute(
        "UPDATE games SET ratings = $2 WHERE id = $1",
        &[id.into(), ratings.to_json().into()],
    )?;
    Ok(ratings)
}

impl FromRow for Rating {
    fn from_row(r: &Row) -> StoreResult<Rating> {
        Ok(Rating {
            rating: r.real("rating")?,
            deviation: r.real("deviation")?,
            volatility: r.real("volatility")?,
        })
    }
}

impl FromRow for RatingRow {
    fn from_row(r: &Row) -> StoreResult<RatingRow> {
        Ok(RatingRow {
            category: r.text("category")?,
            rules: r.text("rules")?,
            rating: Rating::from_row(r)?,
            games: r.int("games")?,
            at: r.int("at")?,
        })
    }
}

impl FromRow for RatingPoint {
    fn from_row(r: &Row) -> StoreResult<RatingPoint> {
        Ok(RatingPoint {
            category: r.text("category")?,
            rules: r.text("rules")?,
            at: r.int("at")?,
            rating: r.real("rating")?,
            deviation: r.real("deviation")?,
            game: r.text("game")?,
        })
    }
}

pub(super) fn ratings(db: &mut dyn Sql, name: &str) -> StoreResult<Vec<RatingRow>> {
    db.rows(
        "SELECT category, rules, rating, deviation, volatility, games, at FROM ratings
         WHERE account = $1 AND games > 0 ORDER BY games DESC, category, rules",
        &[name.into()],
    )
}

/// The player's rating history, oldest first: the last `limit` points.
pub(super) fn history(db: &mut dyn Sql, name: &str, limit: usize) -> StoreResult<Vec<RatingPoint>> {
    db.rows(
        "SELECT category, rules, at, rating, deviation, game FROM (
            SELECT category, rules, at, rating, deviation, game FROM rating_history
            WHERE account = $1 ORDER BY at DESC LIMIT $2) h ORDER BY at",
        &[name.into(), (limit as i64).into()],
    )
}
