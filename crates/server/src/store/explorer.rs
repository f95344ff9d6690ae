//! The opening explorer's counts (issue 40, docs/api-bots.md "Opening explorer"): for each
//! position of a game's first [`EXPLORER_PLIES`] plies and the move played there, how many
//! games, how they ended and the players' ratings, by speed and rating band. One row per
//! (rules, position, move, speed, band); a query reads the rows of one position, never the
//! archive.
//!
//! A game that ends is queued (`explorer_queue`) in the transaction that ends it: exactly once,
//! and touching no shared row, so that games ending at once on several instances never wait
//! for each other (every game's first rows are the start position's: counting them in the
//! game's own transaction serialised, and could deadlock, every instance's writer). A fold
//! ([`Store::explorer_fold`]) takes queued games out and adds them to the counts in one
//! transaction, the keys in one order; a game taken by one fold is gone for any other.

use super::sql::{FromRow, Row, Sql};
use super::writer::Change;
use super::{Conn, Store, StoreResult};

/// Queued games one fold takes.
pub const FOLD: usize = 500;

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
CREATE TABLE IF NOT EXISTS explorer_queue (
    game TEXT PRIMARY KEY,
    body TEXT NOT NULL,
    at BIGINT NOT NULL
);
";

/// A finished game as the explorer counts it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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

/// Queues `g` for the counts (inside the transaction of the change that ends it).
pub(super) fn queue(db: &mut dyn Sql, g: &ExploreGame) -> StoreResult<()> {
    let body = serde_json::to_string(g)
        .map_err(|e| super::StoreError::Failed(format!("explorer: {e}")))?;
    db.execute(
        "INSERT INTO explorer_queue (game, body, at) VALUES ($1, $2, $3)
         ON CONFLICT (game) DO NOTHING",
        &[(&g.id).into(), body.into(), g.at.into()],
    )?;
    Ok(())
}

/// A row's key: rules, position, move, speed, band.
type Key = (String, i64, String, String, i64);

/// What some games add to one row.
#[derive(Default)]
struct Sum {
    games: i64,
    south: i64,
    draws: i64,
    north: i64,
    rating_sum: i64,
    rated: i64,
    last_game: String,
    last_at: i64,
}

/// Adds `games` to the counts: their rows' sums, written in the keys' order.
fn add_all(db: &mut dyn Sql, games: &[ExploreGame]) -> StoreResult<()> {
    let mut sums: std::collections::BTreeMap<Key, Sum> = std::collections::BTreeMap::new();
    for g in games {
        let (s, d, n) = match g.result.as_str() {
            "1-0" => (1i64, 0i64, 0i64),
            "0-1" => (0, 0, 1),
            _ => (0, 1, 0),
        };
        let band = band_of(g.rating);
        for (position, mv) in &g.plies {
            let key = (
                g.rules.clone(),
                *position,
                mv.clone(),
                g.speed.clone(),
                band,
            );
            let e = sums.entry(key).or_default();
            e.games += 1;
            e.south += s;
            e.draws += d;
            e.north += n;
            e.rating_sum += g.rating.unwrap_or(0);
            e.rated += i64::from(g.rating.is_some());
            if (g.at, &g.id) >= (e.last_at, &e.last_game) {
                e.last_at = g.at;
                e.last_game = g.id.clone();
            }
        }
    }
    for ((rules, position, mv, speed, band), e) in sums {
        db.execute(
            "INSERT INTO explorer (rules, position, mv, speed, band, games, south, draws, north,
                 rating_sum, rated_games, last_game, last_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
             ON CONFLICT (rules, position, mv, speed, band) DO UPDATE SET
                 games = explorer.games + excluded.games, south = explorer.south + excluded.south,
                 draws = explorer.draws + excluded.draws, north = explorer.north + excluded.north,
                 rating_sum = explorer.rating_sum + excluded.rating_sum,
                 rated_games = explorer.rated_games + excluded.rated_games,
                 last_game = CASE WHEN excluded.last_at >= explorer.last_at
                     THEN excluded.last_game ELSE explorer.last_game END,
                 last_at = CASE WHEN excluded.last_at >= explorer.last_at
                     THEN excluded.last_at ELSE explorer.last_at END",
            &[
                rules.into(),
                position.into(),
                mv.into(),
                speed.into(),
                band.into(),
                e.games.into(),
                e.south.into(),
                e.draws.into(),
                e.north.into(),
                e.rating_sum.into(),
                e.rated.into(),
                e.last_game.into(),
                e.last_at.into(),
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
        add_all(c.sql(), &self.0)
    }
}

/// Takes up to `limit` queued games out and adds them to the counts: how many.
struct Fold(usize);

impl Change for Fold {
    type Out = usize;

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<usize> {
        let db = c.sql();
        // Taken by deleting them: a game another fold took (committed) is not found again,
        // and one it is taking waits for it (PostgreSQL) or for the file (SQLite).
        let rows = db.query(
            "DELETE FROM explorer_queue WHERE game IN
                 (SELECT game FROM explorer_queue ORDER BY at, game LIMIT $1)
             RETURNING body",
            &[(self.0 as i64).into()],
        )?;
        let mut games = Vec::with_capacity(rows.len());
        for r in &rows {
            // A body this version cannot read (a newer server's) is dropped, not retried.
            if let Ok(g) = serde_json::from_str::<ExploreGame>(&r.text("body")?) {
                games.push(g);
            }
        }
        add_all(db, &games)?;
        Ok(rows.len())
    }
}

struct Clear;

impl Change for Clear {
    type Out = u64;

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<u64> {
        c.sql().execute("DELETE FROM explorer_queue", &[])?;
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

    /// Adds up to `limit` queued games to the counts: how many were taken.
    pub fn explorer_fold(&self, limit: usize) -> StoreResult<usize> {
        self.writer.call(Fold(limit))
    }

    /// Folds every queued game in: how many.
    pub fn explorer_fold_all(&self) -> StoreResult<usize> {
        let mut n = 0;
        loop {
            let k = self.explorer_fold(FOLD)?;
            n += k;
            if k < FOLD {
                return Ok(n);
            }
        }
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
