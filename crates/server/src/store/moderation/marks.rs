//! Marks (issue 38): a moderator marks an account computer-assisted or a booster. A marked
//! account's rated games stop counting: in the transaction that marks it, every opponent gets
//! back the rating points they lost to it in its recent rated games (once per game and
//! opponent, whatever the marks and unmarks after), and from then on it is left off the
//! leaderboards and TV and plays casual games only (docs/community.md, "Marks").

use std::collections::BTreeMap;

use super::super::accounts::{add_point, RatingPoint};
use super::super::sql::{FromRow, Row, Sql};
use super::super::StoreResult;
use crate::rating::Rating;

/// The tables (both backends), and an index that finds a game's rating points, which a refund
/// reads for the opponent's.
pub(in crate::store) const MARK_TABLES: &str = "
CREATE TABLE IF NOT EXISTS account_marks (
    account TEXT NOT NULL REFERENCES accounts (name),
    kind TEXT NOT NULL,
    at BIGINT NOT NULL,
    moderator TEXT NOT NULL,
    PRIMARY KEY (account, kind)
);
CREATE TABLE IF NOT EXISTS rating_refunds (
    game TEXT NOT NULL,
    account TEXT NOT NULL REFERENCES accounts (name),
    points DOUBLE PRECISION NOT NULL,
    at BIGINT NOT NULL,
    marked TEXT NOT NULL,
    PRIMARY KEY (game, account)
);
CREATE INDEX IF NOT EXISTS rating_history_by_game ON rating_history (game);
";

/// SQL true when the account named by the column `col` is marked: what the leaderboards and
/// TV leave out, written once here.
pub fn marked_sql(col: &str) -> String {
    format!("EXISTS (SELECT 1 FROM account_marks mk WHERE mk.account = {col})")
}

/// How far back a mark gives points back: 90 days of the marked account's rated games.
pub const REFUND_WINDOW_MS: i64 = 90 * 86_400_000;
/// The most of the marked account's rated games one mark looks at (the newest): with the
/// opponent's point, their marks and their point before it, a mark reads at most four times a
/// game.
pub const REFUND_GAMES_MAX: i64 = 1000;
/// What a refund's point of history names as its game: the game refunded, so prefixed.
pub const REFUND_PREFIX: &str = "refund:";

/// The two marks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MarkKind {
    /// Played with a computer's help.
    Computer,
    /// Handed or took rating points on purpose (lost games away, or won them from a friend).
    Booster,
}

impl MarkKind {
    pub const ALL: [MarkKind; 2] = [MarkKind::Computer, MarkKind::Booster];

    pub fn as_str(self) -> &'static str {
        match self {
            MarkKind::Computer => "computer",
            MarkKind::Booster => "booster",
        }
    }

    pub fn parse(s: &str) -> Option<MarkKind> {
        MarkKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// A mark as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MarkRow {
    pub kind: MarkKind,
    pub at: i64,
    pub moderator: String,
}

impl FromRow for MarkRow {
    fn from_row(r: &Row) -> StoreResult<MarkRow> {
        Ok(MarkRow {
            // A kind this version does not know (a newer one's) still marks: read as booster.
            kind: MarkKind::parse(&r.text("kind")?).unwrap_or(MarkKind::Booster),
            at: r.int("at")?,
            moderator: r.text("moderator")?,
        })
    }
}

/// What one mark gave back.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Refunded {
    /// The marked account's rated games looked at.
    pub games: usize,
    /// Refunds made (one per game and opponent that lost points in it).
    pub refunds: usize,
    /// Rating points given back, all opponents together.
    pub points: f64,
}

/// `name`'s marks, oldest first.
pub(super) fn marks(db: &mut dyn Sql, name: &str) -> StoreResult<Vec<MarkRow>> {
    db.rows(
        "SELECT kind, at, moderator FROM account_marks WHERE account = $1 ORDER BY at, kind",
        &[name.into()],
    )
}

/// Marks `name` (a mark it has already keeps its first time and moderator).
pub(super) fn set(
    db: &mut dyn Sql,
    name: &str,
    kind: MarkKind,
    by: &str,
    at: i64,
) -> StoreResult<()> {
    db.execute(
        "INSERT INTO account_marks (account, kind, at, moderator) VALUES ($1, $2, $3, $4)
         ON CONFLICT (account, kind) DO NOTHING",
        &[name.into(), kind.as_str().into(), at.into(), by.into()],
    )?;
    Ok(())
}

/// Lifts a mark. The points given back stay given (docs/community.md, "Marks").
pub(super) fn unset(db: &mut dyn Sql, name: &str, kind: MarkKind) -> StoreResult<()> {
    db.execute(
        "DELETE FROM account_marks WHERE account = $1 AND kind = $2",
        &[name.into(), kind.as_str().into()],
    )?;
    Ok(())
}

/// A point of someone's rating history, as a refund reads it.
struct Point {
    account: String,
    category: String,
    rules: String,
    at: i64,
    rating: f64,
}

impl FromRow for Point {
    fn from_row(r: &Row) -> StoreResult<Point> {
        Ok(Point {
            account: r.text("account")?,
            category: r.text("category")?,
            rules: r.text("rules")?,
            at: r.int("at")?,
            rating: r.real("rating")?,
        })
    }
}

/// Gives back, at `at`, what `name`'s opponents lost in its rated games of the
/// [`REFUND_WINDOW_MS`] before (the newest [`REFUND_GAMES_MAX`]), each game and opponent once;
/// each opponent's refunds in one category and rules rise their rating in one step, one point
/// of their history (named after the newest game refunded).
pub(super) fn refund(db: &mut dyn Sql, name: &str, at: i64) -> StoreResult<Refunded> {
    let ids = db.query(
        "SELECT game FROM rating_history WHERE account = $1 AND at > $2 ORDER BY at DESC LIMIT $3",
        &[
            name.into(),
            (at - REFUND_WINDOW_MS).into(),
            REFUND_GAMES_MAX.into(),
        ],
    )?;
    let mut done = Refunded {
        games: ids.len(),
        ..Refunded::default()
    };
    // (opponent, category, rules) → (points, the newest game refunded).
    let mut owed: BTreeMap<(String, String, String), (f64, String)> = BTreeMap::new();
    for row in ids {
        let game = row.text("game")?;
        // The game's other player (a game has two; LIMIT bounds a damaged table).
        let theirs: Vec<Point> = db.rows(
            "SELECT account, category, rules, at, rating FROM rating_history
             WHERE game = $1 AND account <> $2 LIMIT 2",
            &[(&game).into(), name.into()],
        )?;
        for p in theirs {
            // A marked opponent (two accounts boosting each other) gets nothing back.
            if !marks(db, &p.account)?.is_empty() {
                continue;
            }
            let lost = rating_before(db, &p)? - p.rating;
            if lost > 0.0 && record(db, &game, &p.account, lost, name, at)? {
                done.refunds += 1;
                done.points += lost;
                let e = owed.entry((p.account, p.category, p.rules));
                // Games come newest first: the first one met names the point.
                e.or_insert((0.0, game.clone())).0 += lost;
            }
        }
    }
    for ((who, category, rules), (points, game)) in owed {
        give_back(db, [&who, &category, &rules], points, &game, at)?;
    }
    Ok(done)
}

/// The opponent's rating before the game of point `p`: their point before it in the same
/// category and rules, or the rating every player starts from.
fn rating_before(db: &mut dyn Sql, p: &Point) -> StoreResult<f64> {
    let before: Option<Point> = db.row(
        "SELECT account, category, rules, at, rating FROM rating_history
         WHERE account = $1 AND category = $2 AND rules = $3 AND at < $4
         ORDER BY at DESC LIMIT 1",
        &[
            (&p.account).into(),
            (&p.category).into(),
            (&p.rules).into(),
            p.at.into(),
        ],
    )?;
    Ok(before.map_or(Rating::DEFAULT.rating, |b| b.rating))
}

/// Records the refund of `lost` points of game `game` to `account`: false if it was refunded
/// before (by an earlier mark), which makes it nothing to give.
fn record(
    db: &mut dyn Sql,
    game: &str,
    account: &str,
    lost: f64,
    marked: &str,
    at: i64,
) -> StoreResult<bool> {
    let new = db.execute(
        "INSERT INTO rating_refunds (game, account, points, at, marked) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (game, account) DO NOTHING",
        &[
            game.into(),
            account.into(),
            lost.into(),
            at.into(),
            marked.into(),
        ],
    )?;
    Ok(new == 1)
}

/// Raises the rating `[account, category, rules]` by `points` and adds a point of its history.
fn give_back(
    db: &mut dyn Sql,
    [who, cat, rules]: [&str; 3],
    points: f64,
    game: &str,
    at: i64,
) -> StoreResult<()> {
    db.execute(
        "UPDATE ratings SET rating = rating + $4 WHERE account = $1 AND category = $2 AND rules = $3",
        &[who.into(), cat.into(), rules.into(), points.into()],
    )?;
    let now: Option<Rating> = db.row(
        "SELECT rating, deviation, volatility FROM ratings
         WHERE account = $1 AND category = $2 AND rules = $3",
        &[who.into(), cat.into(), rules.into()],
    )?;
    let Some(now) = now else {
        return Ok(());
    };
    let point = RatingPoint {
        category: cat.to_string(),
        rules: rules.to_string(),
        at,
        rating: now.rating,
        deviation: now.deviation,
        game: format!("{REFUND_PREFIX}{game}"),
    };
    add_point(db, who, &point)
}
