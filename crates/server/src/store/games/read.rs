//! Reading games: a game with its moves (in one snapshot), the pages of every game's id, and
//! the games with something overdue. The same SQL in both backends.

use super::{ClockRow, EngineClaim, GameRow};
use crate::store::sql::{FromRow, Row, Sql};
use crate::store::{Conn, StoreResult};

const GAME_COLUMNS: &str = "SELECT id, created, updated, mode, rules, seed, start, south, north,
    south_secret, north_secret, status, result, termination, rematch, tags, hints, invite,
    revision, engine_owner, engine_until, clock, clock_south, clock_north, clock_since, deadline,
    offer, south_away, north_away, south_account, north_account, rated, public, ratings,
    category FROM games";

impl FromRow for GameRow {
    fn from_row(r: &Row) -> StoreResult<GameRow> {
        let mode = r.text("mode")?;
        Ok(GameRow {
            id: r.text("id")?,
            created: r.int("created")?,
            updated: r.int("updated")?,
            rules: r.text("rules")?,
            seed: r.text("seed")?,
            start: r.text("start")?,
            seats: [r.text("south")?, r.text("north")?],
            secrets: [r.opt_text("south_secret")?, r.opt_text("north_secret")?],
            status: r.text("status")?,
            result: r.text("result")?,
            termination: r.opt_text("termination")?,
            rematch: r.opt_text("rematch")?,
            tags: r.text("tags")?,
            hints: hints_or_default(r.opt_bool("hints")?, &mode),
            invite: r.opt_text("invite")?,
            revision: r.int("revision")?,
            engine: claim(r.opt_text("engine_owner")?, r.opt_int("engine_until")?),
            clock: clock_row(
                r.opt_text("clock")?,
                [r.opt_int("clock_south")?, r.opt_int("clock_north")?],
                r.opt_int("clock_since")?,
                r.opt_int("deadline")?,
            ),
            offer: r.opt_text("offer")?,
            away: [r.opt_int("south_away")?, r.opt_int("north_away")?],
            accounts: [r.opt_text("south_account")?, r.opt_text("north_account")?],
            rated: r.bool("rated")?,
            public: r.bool("public")?,
            ratings: r.opt_text("ratings")?,
            category: r.opt_text("category")?,
            mode,
        })
    }
}

/// Game `id` with its moves, read in one snapshot: without it a move committed between the
/// two queries would give a game row and a move list that never existed together.
pub(crate) fn load(c: &mut dyn Conn, id: &str) -> StoreResult<Option<(GameRow, Vec<String>)>> {
    c.begin_snapshot()?;
    let read = load_in(c.sql(), id);
    // Nothing was written: ending the snapshot either way only lets it go.
    let end = c.exec(if read.is_ok() { "COMMIT" } else { "ROLLBACK" });
    let game = read?;
    end?;
    Ok(game)
}

fn load_in(db: &mut dyn Sql, id: &str) -> StoreResult<Option<(GameRow, Vec<String>)>> {
    let Some(row) = db.row::<GameRow>(&format!("{GAME_COLUMNS} WHERE id = $1"), &[id.into()])?
    else {
        return Ok(None);
    };
    let moves = db
        .query(
            "SELECT mv FROM moves WHERE game = $1 ORDER BY ply",
            &[id.into()],
        )?
        .iter()
        .map(|r| r.text("mv"))
        .collect::<StoreResult<Vec<String>>>()?;
    Ok(Some((row, moves)))
}

/// Up to `limit` game ids greater than `after`, in byte order.
pub(crate) fn ids_after(db: &mut dyn Sql, after: &str, limit: usize) -> StoreResult<Vec<String>> {
    let c = db.dialect().byte_order();
    ids(
        db,
        &format!("SELECT id FROM games WHERE id {c} > $1 ORDER BY id {c} LIMIT $2"),
        &[after.into(), (limit as i64).into()],
    )
}

/// Games with something overdue at `now`: an engine claim that ran out, or a clock whose
/// deadline passed (up to `limit` of each).
pub(crate) fn due(db: &mut dyn Sql, now: i64, limit: usize) -> StoreResult<Vec<String>> {
    ids(
        db,
        "SELECT id FROM (SELECT id FROM games WHERE engine_owner IS NOT NULL
                AND engine_until < $1 ORDER BY engine_until LIMIT $2) claims
         UNION
         SELECT id FROM (SELECT id FROM games WHERE deadline < $1
                ORDER BY deadline LIMIT $2) clocks",
        &[now.into(), (limit as i64).into()],
    )
}

fn ids(db: &mut dyn Sql, sql: &str, params: &[crate::store::sql::Val]) -> StoreResult<Vec<String>> {
    db.query(sql, params)?
        .iter()
        .map(|r| r.text("id"))
        .collect()
}

/// The clocks from their columns: none without a time control.
fn clock_row(
    control: Option<String>,
    left: [Option<i64>; 2],
    since: Option<i64>,
    deadline: Option<i64>,
) -> Option<ClockRow> {
    Some(ClockRow {
        control: control?,
        left: [left[0].unwrap_or(0), left[1].unwrap_or(0)],
        since,
        deadline,
    })
}

/// The engine claim from its two columns (both set or neither).
fn claim(owner: Option<String>, until: Option<i64>) -> Option<EngineClaim> {
    Some(EngineClaim {
        owner: owner?,
        until: until?,
    })
}

/// Games stored before the `hints` column: friend games get none (nobody agreed to them),
/// the others keep the hints they always had.
fn hints_or_default(stored: Option<bool>, mode: &str) -> bool {
    stored.unwrap_or(mode != "friend")
}
