//! Puzzle ratings (issue 13): every puzzle and every solver has a Glicko-2 rating, and a
//! solver's first attempt at a puzzle is a game between the two, won by the solver when the
//! puzzle is solved without a mistake and lost on a wrong move or a look at the solution.
//! Later attempts at the same puzzle change nothing: the answer is known by then.

use super::sql::{FromRow, Row, Sql, Val};
use super::writer::Change;
use super::StoreResult;
use super::{Conn, Store};
use crate::rating::{self, Rating};

/// The tables, the same text in both backends. `puzzle` is the collection's number or the
/// community puzzle's id; `solver` is `a:` and an account's name, or `b:` and the SHA-256 of
/// the random token a browser keeps (never the token itself).
pub(super) const PUZZLE_RATING_TABLES: &str = "
CREATE TABLE IF NOT EXISTS puzzle_ratings (
    puzzle TEXT PRIMARY KEY,
    rating DOUBLE PRECISION NOT NULL,
    deviation DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    attempts BIGINT NOT NULL,
    solved BIGINT NOT NULL,
    at BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS solver_ratings (
    solver TEXT PRIMARY KEY,
    rating DOUBLE PRECISION NOT NULL,
    deviation DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    attempts BIGINT NOT NULL,
    at BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS puzzle_attempts (
    puzzle TEXT NOT NULL,
    solver TEXT NOT NULL,
    won BOOLEAN NOT NULL,
    at BIGINT NOT NULL,
    PRIMARY KEY (puzzle, solver)
);
";

/// A solver's first attempt at a puzzle, to rate. `start` is the rating the puzzle starts
/// from when it has none yet (from its grade: `crate::puzzles::ratings`).
#[derive(Clone, Debug, PartialEq)]
pub struct Attempt {
    pub puzzle: String,
    pub solver: String,
    pub won: bool,
    pub at: i64,
    pub start: Rating,
}

/// Both ratings before and after an attempt.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rated {
    pub solver: [Rating; 2],
    pub puzzle: [Rating; 2],
}

/// A rating as stored, with its attempts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RatingRow {
    pub rating: Rating,
    pub attempts: i64,
    /// The puzzle's attempts that solved it (0 for a solver).
    pub solved: i64,
}

impl FromRow for RatingRow {
    fn from_row(r: &Row) -> StoreResult<RatingRow> {
        Ok(RatingRow {
            rating: Rating::from_row(r)?,
            attempts: r.int("attempts")?,
            solved: r.int("solved")?,
        })
    }
}

/// Rates `a` if it is the solver's first attempt at the puzzle: both ratings read (locked on
/// PostgreSQL, so that attempts on two instances are rated one after the other), aged, updated
/// and written. `None` when the solver had attempted the puzzle before: nothing changes.
fn rate(db: &mut dyn Sql, a: &Attempt) -> StoreResult<Option<Rated>> {
    let first = db.execute(
        "INSERT INTO puzzle_attempts (puzzle, solver, won, at) VALUES ($1, $2, $3, $4)
         ON CONFLICT DO NOTHING",
        &[
            (&a.puzzle).into(),
            (&a.solver).into(),
            a.won.into(),
            a.at.into(),
        ],
    )?;
    if first == 0 {
        return Ok(None);
    }
    // Made first, so that there are rows to lock.
    add_ratings(db, a)?;
    let for_update = db.dialect().for_update();
    let s = db.query(
        &format!(
            "SELECT rating, deviation, volatility, attempts, at FROM solver_ratings
             WHERE solver = $1{for_update}"
        ),
        &[(&a.solver).into()],
    )?;
    let p = db.query(
        &format!(
            "SELECT rating, deviation, volatility, attempts, at FROM puzzle_ratings
             WHERE puzzle = $1{for_update}"
        ),
        &[(&a.puzzle).into()],
    )?;
    let (Some(s), Some(p)) = (s.first(), p.first()) else {
        return Err(super::StoreError::Failed(
            "a puzzle rating row vanished while being rated".to_string(),
        ));
    };
    let before = [Rating::from_row(s)?, Rating::from_row(p)?];
    // A first attempt starts from the deviation it has, which ageing cannot raise.
    let idle = |row: &Row| -> StoreResult<i64> {
        Ok(if row.int("attempts")? == 0 {
            0
        } else {
            a.at - row.int("at")?
        })
    };
    let score = if a.won { rating::WIN } else { rating::LOSS };
    let after = rating::after_rated_game(before, [idle(s)?, idle(p)?], score);
    write(db, a, after)?;
    Ok(Some(Rated {
        solver: [before[0], after[0]],
        puzzle: [before[1], after[1]],
    }))
}

/// The solver's and the puzzle's ratings as they start, unless they have one already.
fn add_ratings(db: &mut dyn Sql, a: &Attempt) -> StoreResult<()> {
    let d = Rating::DEFAULT;
    db.execute(
        "INSERT INTO solver_ratings (solver, rating, deviation, volatility, attempts, at)
         VALUES ($1, $2, $3, $4, 0, $5) ON CONFLICT DO NOTHING",
        &[
            (&a.solver).into(),
            d.rating.into(),
            d.deviation.into(),
            d.volatility.into(),
            a.at.into(),
        ],
    )?;
    db.execute(
        "INSERT INTO puzzle_ratings (puzzle, rating, deviation, volatility, attempts, solved, at)
         VALUES ($1, $2, $3, $4, 0, 0, $5) ON CONFLICT DO NOTHING",
        &[
            (&a.puzzle).into(),
            a.start.rating.into(),
            a.start.deviation.into(),
            a.start.volatility.into(),
            a.at.into(),
        ],
    )?;
    Ok(())
}

/// The solver's and the puzzle's ratings after attempt `a`.
fn write(db: &mut dyn Sql, a: &Attempt, after: [Rating; 2]) -> StoreResult<()> {
    db.execute(
        "UPDATE solver_ratings SET rating = $2, deviation = $3, volatility = $4,
            attempts = attempts + 1, at = $5 WHERE solver = $1",
        &[
            (&a.solver).into(),
            after[0].rating.into(),
            after[0].deviation.into(),
            after[0].volatility.into(),
            a.at.into(),
        ],
    )?;
    db.execute(
        "UPDATE puzzle_ratings SET rating = $2, deviation = $3, volatility = $4,
            attempts = attempts + 1, solved = solved + $5, at = $6 WHERE puzzle = $1",
        &[
            (&a.puzzle).into(),
            after[1].rating.into(),
            after[1].deviation.into(),
            after[1].volatility.into(),
            i64::from(a.won).into(),
            a.at.into(),
        ],
    )?;
    Ok(())
}

/// The solver's rating, if it has one.
pub(super) fn solver(db: &mut dyn Sql, solver: &str) -> StoreResult<Option<RatingRow>> {
    db.row(
        "SELECT rating, deviation, volatility, attempts, 0 AS solved FROM solver_ratings
         WHERE solver = $1",
        &[solver.into()],
    )
}

/// The ratings of the puzzles that have one, by puzzle.
pub(super) fn puzzles(db: &mut dyn Sql, ids: &[String]) -> StoreResult<Vec<(String, RatingRow)>> {
    let mut out = Vec::new();
    // In slices, so that no statement grows past the backends' parameter limits.
    for chunk in ids.chunks(200) {
        let marks: Vec<String> = (1..=chunk.len()).map(|i| format!("${i}")).collect();
        let params: Vec<Val> = chunk.iter().map(Val::from).collect();
        let rows = db.query(
            &format!(
                "SELECT rating, deviation, volatility, attempts, solved, puzzle
                 FROM puzzle_ratings WHERE puzzle IN ({})",
                marks.join(", ")
            ),
            &params,
        )?;
        for r in rows {
            out.push((r.text("puzzle")?, RatingRow::from_row(&r)?));
        }
    }
    Ok(out)
}

/// The puzzles the solver has attempted.
pub(super) fn attempted(db: &mut dyn Sql, solver: &str) -> StoreResult<Vec<String>> {
    db.query(
        "SELECT puzzle FROM puzzle_attempts WHERE solver = $1",
        &[solver.into()],
    )?
    .iter()
    .map(|r| r.text("puzzle"))
    .collect()
}

/// Every puzzle rating, solver rating and attempt, for `anywoli db migrate`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RatingsDump {
    /// (solver, rating, attempts, at)
    pub solvers: Vec<(String, Rating, i64, i64)>,
    /// (puzzle, rating, attempts, solved, at)
    pub puzzles: Vec<(String, Rating, i64, i64, i64)>,
    /// (puzzle, solver, won, at)
    pub attempts: Vec<(String, String, bool, i64)>,
}

pub(super) fn dump(db: &mut dyn Sql) -> StoreResult<RatingsDump> {
    let mut d = RatingsDump::default();
    for r in db.query(
        "SELECT rating, deviation, volatility, attempts, at, solver FROM solver_ratings
         ORDER BY solver",
        &[],
    )? {
        d.solvers.push((
            r.text("solver")?,
            Rating::from_row(&r)?,
            r.int("attempts")?,
            r.int("at")?,
        ));
    }
    for r in db.query(
        "SELECT rating, deviation, volatility, attempts, at, puzzle, solved FROM puzzle_ratings
         ORDER BY puzzle",
        &[],
    )? {
        d.puzzles.push((
            r.text("puzzle")?,
            Rating::from_row(&r)?,
            r.int("attempts")?,
            r.int("solved")?,
            r.int("at")?,
        ));
    }
    for r in db.query(
        "SELECT puzzle, solver, won, at FROM puzzle_attempts ORDER BY puzzle, solver",
        &[],
    )? {
        d.attempts.push((
            r.text("puzzle")?,
            r.text("solver")?,
            r.bool("won")?,
            r.int("at")?,
        ));
    }
    Ok(d)
}

/// Writes `d`'s rows, leaving alone those whose keys are there already: how many were written.
fn import(db: &mut dyn Sql, d: &RatingsDump) -> StoreResult<u64> {
    let mut n = 0;
    for (solver, r, attempts, at) in &d.solvers {
        n += db.execute(
            "INSERT INTO solver_ratings (solver, rating, deviation, volatility, attempts, at)
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
            &[
                solver.into(),
                r.rating.into(),
                r.deviation.into(),
                r.volatility.into(),
                (*attempts).into(),
                (*at).into(),
            ],
        )?;
    }
    for (puzzle, r, attempts, solved, at) in &d.puzzles {
        n += db.execute(
            "INSERT INTO puzzle_ratings (puzzle, rating, deviation, volatility, attempts, solved, at)
             VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING",
            &[
                puzzle.into(),
                r.rating.into(),
                r.deviation.into(),
                r.volatility.into(),
                (*attempts).into(),
                (*solved).into(),
                (*at).into(),
            ],
        )?;
    }
    for (puzzle, solver, won, at) in &d.attempts {
        n += db.execute(
            "INSERT INTO puzzle_attempts (puzzle, solver, won, at) VALUES ($1, $2, $3, $4)
             ON CONFLICT DO NOTHING",
            &[puzzle.into(), solver.into(), (*won).into(), (*at).into()],
        )?;
    }
    Ok(n)
}

/// A solver's attempt at a puzzle, rated if it is the first: the ratings before and after,
/// `None` when nothing changed.
struct RatePuzzle(Attempt);

impl Change for RatePuzzle {
    type Out = Option<Rated>;

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<Self::Out> {
        rate(c.sql(), &self.0)
    }
}

/// Puzzle ratings copied from another store (`anywoli db migrate`): how many rows it wrote.
struct ImportPuzzleRatings(RatingsDump);

impl Change for ImportPuzzleRatings {
    type Out = u64;

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<u64> {
        import(c.sql(), &self.0)
    }
}

/// Puzzle ratings and attempts.
impl Store {
    /// Rates a solver's attempt at a puzzle if it is the solver's first at it: the ratings
    /// before and after, or `None` when nothing changed.
    pub fn rate_puzzle(&self, attempt: Attempt) -> StoreResult<Option<Rated>> {
        self.writer.call(RatePuzzle(attempt))
    }

    /// A solver's puzzle rating, if it has one.
    pub fn solver_rating(&self, solver: &str) -> StoreResult<Option<RatingRow>> {
        self.readers.sql(|db| self::solver(db, solver))
    }

    /// The ratings of those of `ids` that have one.
    pub fn puzzle_ratings(&self, ids: &[String]) -> StoreResult<Vec<(String, RatingRow)>> {
        self.readers.sql(|db| puzzles(db, ids))
    }

    /// Every puzzle rating, solver rating and attempt (`anywoli db migrate`).
    pub fn puzzle_ratings_dump(&self) -> StoreResult<RatingsDump> {
        self.readers.sql(dump)
    }

    /// Writes the rows of `dump` that are not there yet, in one transaction: how many.
    pub fn import_puzzle_ratings(&self, dump: RatingsDump) -> StoreResult<u64> {
        self.writer.call(ImportPuzzleRatings(dump))
    }

    /// The puzzles a solver has attempted.
    pub fn attempted(&self, solver: &str) -> StoreResult<Vec<String>> {
        self.readers.sql(|db| attempted(db, solver))
    }
}
