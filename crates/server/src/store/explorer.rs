//! The opening explorer's counts (issue 40, docs/api-bots.md "Opening explorer"): for each
//! position of a game's first [`EXPLORER_PLIES`] plies and the move played there, how many
//! games, how they ended and the players' ratings, by speed and rating band. One row per
//! (rules, position, move, speed, band), added to in the transaction that ends the game, so the
//! counts are always those of the games stored; a query reads the rows of one position, never
//! the archive.

use super::sql::{FromRow, Row, Sql};
use super::writer::Change;
use super::{Conn, Store, StoreResult};

/// Plies of each game counted: the opening, and then some.
pub const EXPLORER_PLIES: usize = 24;

/// The rating bands, by their lowest rating: a game's band is its players' average rating's.
/// `-1`: a player without a rating (no account, or an untimed game).
pub const BANDS: [i64; 8] = [0, 1200, 1400, 1600, 1800, 2000, 2200, 2500];

pub(super) const EXPLORER_TABLES: &str = "
CREATE TABLE IF NOT EXISTS explorer (
    rules TEXT NOT NULL,
    position BIGINT NOT NULL,
    mv TEXT NOT NULL,
    speed TEXT NOT NULL,
    band BIGINT NOT NULL,
    games BIGINT NOT NULL,
    south BIGINT NOT NULL,
    draws BIGINT NOT NULL,
    north BIGINT NOT NULL,
    rating_sum BIGINT NOT NULL,
    rated_games BIGINT NOT NULL,
    last_game TEXT NOT NULL,
    last_at BIGINT NOT NULL,
    PRIMARY KEY (rules, position, mv, speed, band)
);
";

/// A finished game as the explorer counts it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExploreGame {
    pub id: String,
    pub rules: String,
    /// Its rating category, or `untimed`.
    pub speed: String,
    /// The players' average rating, if both have one.
    pub rating: Option<i64>,
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: String,
    /// When it ended.
    pub at: i64,
    /// Each of its first plies: the key of the position before it, and the move.
    pub plies: Vec<(i64, String)>,
}

/// The band of an average rating.
pub fn band_of(rating: Option<i64>) -> i64 {
    match rating {
        None => -1,
        Some(r) => BANDS.iter().copied().filter(|b| *b <= r).max().unwrap_or(0),
    }
}

/// Adds `g` to the counts (inside the transaction of the change that ends it).
pub(super) fn add(db: &mut dyn Sql, g: &ExploreGame) -> StoreResult<()> {
    let (s, d, n) = match g.result.as_str() {
        "1-0" => (1i64, 0i64, 0i64),
        "0-1" => (0, 0, 1),
        _ => (0, 1, 0),
    };
    let band = band_of(g.rating);
    let (rating_sum, rated) = g.rating.map_or((0, 0), |r| (r, 1));
    for (position, mv) in &g.plies {
        db.execute(
            "INSERT INTO explorer (rules, position, mv, speed, band, games, south, draws, north,
                 rating_sum, rated_games, last_game, last_at)
             VALUES ($1, $2, $3, $4, $5, 1, $6, $7, $8, $9, $10, $11, $12)
             ON CONFLICT (rules, position, mv, speed, band) DO UPDATE SET
                 games = explorer.games + 1, south = explorer.south + excluded.south,
                 draws = explorer.draws + excluded.draws, north = explorer.north + excluded.north,
                 rating_sum = explorer.rating_sum + excluded.rating_sum,
                 rated_games = explorer.rated_games + excluded.rated_games,
                 last_game = CASE WHEN excluded.last_at >= explorer.last_at
                     THEN excluded.last_game ELSE explorer.last_game END,
                 last_at = CASE WHEN excluded.last_at >= explorer.last_at
                     THEN excluded.last_at ELSE explorer.last_at END",
            &[
                (&g.rules).into(),
                (*position).into(),
                mv.into(),
                (&g.speed).into(),
                band.into(),
                s.into(),
                d.into(),
                n.into(),
                rating_sum.into(),
                rated.into(),
                (&g.id).into(),
                g.at.into(),
            ],
        )?;
    }
    Ok(())
}

/// One stored row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExplorerRow {
    pub mv: String,
    pub speed: String,
    pub band: i64,
    pub games: i64,
    pub south: i64,
    pub draws: i64,
    pub north: i64,
    pub rating_sum: i64,
    pub rated_games: i64,
    pub last_game: String,
    pub last_at: i64,
}

impl FromRow for ExplorerRow {
    fn from_row(r: &Row) -> StoreResult<ExplorerRow> {
        Ok(ExplorerRow {
            mv: r.text("mv")?,
            speed: r.text("speed")?,
            band: r.int("band")?,
            games: r.int("games")?,
            south: r.int("south")?,
            draws: r.int("draws")?,
            north: r.int("north")?,
            rating_sum: r.int("rating_sum")?,
            rated_games: r.int("rated_games")?,
            last_game: r.text("last_game")?,
            last_at: r.int("last_at")?,
        })
    }
}

/// Adds games to the counts in one transaction (a rebuild, a bench).
struct AddMany(Vec<ExploreGame>);

impl Change for AddMany {
    type Out = ();

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<()> {
        let db = c.sql();
        for g in &self.0 {
            add(db, g)?;
        }
        Ok(())
    }
}

struct Clear;

impl Change for Clear {
    type Out = u64;

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<u64> {
        c.sql().execute("DELETE FROM explorer", &[])
    }
}

/// The explorer's counts.
impl Store {
    /// The rows of `position` under `rules` (every move, speed and band).
    pub fn explorer_rows(&self, rules: &str, position: i64) -> StoreResult<Vec<ExplorerRow>> {
        self.readers.sql(|db| {
            db.rows(
                "SELECT mv, speed, band, games, south, draws, north, rating_sum, rated_games,
                    last_game, last_at
                 FROM explorer WHERE rules = $1 AND position = $2",
                &[rules.into(), position.into()],
            )
        })
    }

    /// Adds `games` to the counts, in one transaction.
    pub fn explorer_add(&self, games: Vec<ExploreGame>) -> StoreResult<()> {
        self.writer.call(AddMany(games))
    }

    /// Empties the counts (before a rebuild): how many rows there were.
    pub fn explorer_clear(&self) -> StoreResult<u64> {
        self.writer.call(Clear)
    }

    /// How many rows the counts hold.
    pub fn explorer_count(&self) -> StoreResult<i64> {
        self.readers
            .sql(|db| db.count("SELECT COUNT(*) AS n FROM explorer", &[], "n"))
    }

    /// Every row, for a recount's comparison: (rules, position, row).
    pub fn explorer_dump(&self) -> StoreResult<Vec<(String, i64, ExplorerRow)>> {
        self.readers.sql(|db| {
            db.query(
                "SELECT rules, position, mv, speed, band, games, south, draws, north,
                    rating_sum, rated_games, last_game, last_at FROM explorer",
                &[],
            )?
            .iter()
            .map(|r| {
                Ok((
                    r.text("rules")?,
                    r.int("position")?,
                    ExplorerRow::from_row(r)?,
                ))
            })
            .collect()
        })
    }
}
