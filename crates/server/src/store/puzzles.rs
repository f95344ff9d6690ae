//! Community puzzles (issue 13): positions people composed in the board editor and the
//! solver proved, kept with their whole solution so that judging an attempt needs no solver,
//! as the committed collection's do.

use super::sql::{FromRow, Row, Sql, Val};
use super::writer::Change;
use super::StoreResult;
use super::{Conn, Store};

/// The table, the same text in both backends. A position is a puzzle once per rules (and
/// lottery seed): composing it again finds the puzzle already there.
pub(super) const PUZZLE_TABLES: &str = "
CREATE TABLE IF NOT EXISTS community_puzzles (
    id TEXT PRIMARY KEY,
    position TEXT NOT NULL,
    rules TEXT NOT NULL,
    seed TEXT NOT NULL,
    line TEXT NOT NULL,
    grade BIGINT NOT NULL,
    plies BIGINT NOT NULL,
    defences BIGINT NOT NULL,
    themes TEXT NOT NULL,
    author TEXT,
    created BIGINT NOT NULL,
    UNIQUE (position, rules, seed)
);
CREATE INDEX IF NOT EXISTS community_puzzles_by_created ON community_puzzles (created);
";

/// A stored community puzzle. `line` is the solution's moves separated by spaces, `themes`
/// the theme names separated by commas (`anywoli_engine::themes::join`), `seed` the lottery's
/// game seed ("" under other rules).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PuzzleRow {
    pub id: String,
    pub position: String,
    pub rules: String,
    pub seed: String,
    pub line: String,
    pub grade: i64,
    pub plies: i64,
    pub defences: i64,
    pub themes: String,
    pub author: Option<String>,
    pub created: i64,
}

const COLUMNS: &str =
    "id, position, rules, seed, line, grade, plies, defences, themes, author, created";

impl FromRow for PuzzleRow {
    fn from_row(r: &Row) -> StoreResult<PuzzleRow> {
        Ok(PuzzleRow {
            id: r.text("id")?,
            position: r.text("position")?,
            rules: r.text("rules")?,
            seed: r.text("seed")?,
            line: r.text("line")?,
            grade: r.int("grade")?,
            plies: r.int("plies")?,
            defences: r.int("defences")?,
            themes: r.text("themes")?,
            author: r.opt_text("author")?,
            created: r.int("created")?,
        })
    }
}

/// Stores `p`; false (and nothing changed) when its position is a puzzle already.
/// A community puzzle to store (not a change of any game): false when its position is a
/// puzzle already.
struct SavePuzzle(PuzzleRow);

impl Change for SavePuzzle {
    type Out = bool;

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<bool> {
        save(c.sql(), &self.0)
    }
}

fn save(db: &mut dyn Sql, p: &PuzzleRow) -> StoreResult<bool> {
    let n = db.execute(
        &format!(
            "INSERT INTO community_puzzles ({COLUMNS})
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
             ON CONFLICT DO NOTHING"
        ),
        &[
            (&p.id).into(),
            (&p.position).into(),
            (&p.rules).into(),
            (&p.seed).into(),
            (&p.line).into(),
            p.grade.into(),
            p.plies.into(),
            p.defences.into(),
            (&p.themes).into(),
            p.author.as_ref().into(),
            p.created.into(),
        ],
    )?;
    Ok(n == 1)
}

pub(super) fn by_id(db: &mut dyn Sql, id: &str) -> StoreResult<Option<PuzzleRow>> {
    db.row(
        &format!("SELECT {COLUMNS} FROM community_puzzles WHERE id = $1"),
        &[id.into()],
    )
}

pub(super) fn by_position(
    db: &mut dyn Sql,
    position: &str,
    rules: &str,
    seed: &str,
) -> StoreResult<Option<PuzzleRow>> {
    db.row(
        &format!(
            "SELECT {COLUMNS} FROM community_puzzles
             WHERE position = $1 AND rules = $2 AND seed = $3"
        ),
        &[position.into(), rules.into(), seed.into()],
    )
}

/// The newest puzzles first, `limit` of them after skipping `offset`; with `theme`, only
/// those with that theme (a name of `anywoli_engine::themes::Theme`, which has no comma or
/// `%`, so the pattern matches it as a whole item of the list).
pub(super) fn list(
    db: &mut dyn Sql,
    theme: Option<&str>,
    limit: i64,
    offset: i64,
) -> StoreResult<(Vec<PuzzleRow>, i64)> {
    let (filter, params): (&str, Vec<Val>) = match theme {
        Some(t) => (
            "WHERE (',' || themes || ',') LIKE $1",
            vec![format!("%,{t},%").into()],
        ),
        None => ("", Vec::new()),
    };
    let n = params.len();
    let total = db.count(
        &format!("SELECT COUNT(*) AS n FROM community_puzzles {filter}"),
        &params,
        "n",
    )?;
    let mut all = params;
    all.push(limit.into());
    all.push(offset.into());
    let rows = db.rows(
        &format!(
            "SELECT {COLUMNS} FROM community_puzzles {filter}
             ORDER BY created DESC, id LIMIT ${} OFFSET ${}",
            n + 1,
            n + 2
        ),
        &all,
    )?;
    Ok((rows, total))
}

/// Community puzzles.
impl Store {
    /// Stores a community puzzle; false (nothing stored) when its position, rules and seed
    /// are a puzzle already.
    pub fn save_puzzle(&self, p: PuzzleRow) -> StoreResult<bool> {
        self.writer.call(SavePuzzle(p))
    }

    /// The community puzzle `id`, if any.
    pub fn puzzle(&self, id: &str) -> StoreResult<Option<PuzzleRow>> {
        self.readers.sql(|db| by_id(db, id))
    }

    /// The community puzzle of a position under `rules` (and lottery `seed`, "" otherwise).
    pub fn puzzle_of(
        &self,
        position: &str,
        rules: &str,
        seed: &str,
    ) -> StoreResult<Option<PuzzleRow>> {
        self.readers
            .sql(|db| by_position(db, position, rules, seed))
    }

    /// Community puzzles, newest first (`limit` after `offset`; with `theme`, those with
    /// it), and how many there are in all.
    pub fn puzzles(
        &self,
        theme: Option<&str>,
        limit: i64,
        offset: i64,
    ) -> StoreResult<(Vec<PuzzleRow>, i64)> {
        self.readers.sql(|db| list(db, theme, limit, offset))
    }
}
