//! The changes of a game, written once for both backends: each is one change of the game row
//! checked against its revision ([`GameChange`], whose SQL each backend runs in its own way:
//! `Conn::change`), what follows from it, and the new game a rematch makes.

use super::{ClockRow, EngineClaim, GameRow, Head, StatusRow};
use crate::rating::GameRatings;
use crate::store::sql::{Sql, Val};
use crate::store::{Conn, StoreError, StoreResult};

/// A change to a game row checked against its revision: the head's eleven columns (`$1`–`$11`:
/// id, expected revision, engine owner and until, South's and North's clocks, since,
/// deadline, offer, South and North away) and the columns `set` names (from `$12`), where
/// `cond` holds too; then a statement on the changed game, in each dialect's form.
pub(crate) struct GameChange {
    /// SQLite's: the `UPDATE`, then the statement that follows it, if any.
    pub(crate) sqlite: (&'static str, Option<&'static str>),
    /// PostgreSQL's: one statement (the update in a `WITH`, what follows on its row) that
    /// answers how many rows it changed, for one round trip per change.
    pub(crate) postgres: &'static str,
}

/// A [`GameChange`] from its `set` and `cond` clauses and the statement after it in both
/// dialects: SQLite's on its own, PostgreSQL's as a `WITH` item on the updated row `g`.
macro_rules! game_change {
    ($set:literal, $cond:literal) => {
        game_change!($set, $cond, None, "")
    };
    ($set:literal, $cond:literal, $sqlite_then:expr, $pg_then:literal) => {
        GameChange {
            sqlite: (
                concat!(
                    head_update!(),
                    $set,
                    " WHERE id = $1 AND revision = $2",
                    $cond
                ),
                $sqlite_then,
            ),
            postgres: concat!(
                "WITH g AS (",
                head_update!(),
                $set,
                " WHERE id = $1 AND revision = $2",
                $cond,
                " RETURNING id)",
                $pg_then,
                " SELECT COUNT(*) AS n FROM g"
            ),
        }
    };
}

/// The head's columns, the same in every change.
macro_rules! head_update {
    () => {
        "UPDATE games SET revision = revision + 1, engine_owner = $3, engine_until = $4, \
         clock_south = $5, clock_north = $6, clock_since = $7, deadline = $8, offer = $9, \
         south_away = $10, north_away = $11"
    };
}

const APPEND_MOVE: GameChange = game_change!(
    ", updated = $12, status = $13, result = $14, termination = $15",
    "",
    Some("INSERT INTO moves (game, ply, mv, at) VALUES ($1, $16, $17, $12)"),
    ", m AS (INSERT INTO moves (game, ply, mv, at) SELECT id, $16, $17, $12 FROM g)"
);
const TRUNCATE_MOVES: GameChange = game_change!(
    ", updated = $12, status = 'playing', result = '*', termination = NULL",
    "",
    Some("DELETE FROM moves WHERE game = $1 AND ply > $13"),
    ", d AS (DELETE FROM moves WHERE game IN (SELECT id FROM g) AND ply > $13)"
);
const SET_STATUS: GameChange = game_change!(
    ", updated = $12, status = $13, result = $14, termination = $15",
    ""
);
const TOUCH: GameChange = game_change!("", "");
// The join's time is when the first move became due (Game::first_move_deadline).
const CLAIM_SOUTH: GameChange = game_change!(
    ", south_secret = $12, south_account = $13, updated = $14",
    " AND south_secret IS NULL"
);
const CLAIM_NORTH: GameChange = game_change!(
    ", north_secret = $12, north_account = $13, updated = $14",
    " AND north_secret IS NULL"
);
const SET_SEATING: GameChange = game_change!(
    ", south_account = $12, north_account = $13, public = $14",
    ""
);
const RETAG: GameChange = game_change!(", tags = $12", "");
const LINK_REMATCH: GameChange = game_change!(", rematch = $12", " AND rematch IS NULL");

/// Runs `change` on game `head.id` with the head's parameters and then `more`; a
/// [`StoreError::Conflict`] if the game is no longer at `head.expect` (or `cond` fails).
fn run(c: &mut dyn Conn, head: &Head, change: &GameChange, more: Vec<Val>) -> StoreResult<()> {
    let (owner, until) = claim_columns(head.engine.as_ref());
    let (south, north, since, deadline) = clock_columns(head.clock.as_ref());
    let mut params: Vec<Val> = vec![
        (&head.id).into(),
        head.expect.into(),
        owner.into(),
        until.into(),
        south.into(),
        north.into(),
        since.into(),
        deadline.into(),
        head.offer.as_ref().into(),
        head.away[0].into(),
        head.away[1].into(),
    ];
    params.extend(more);
    if c.change(change, &params)? == 1 {
        Ok(())
    } else {
        Err(conflict(&head.id))
    }
}

/// Appends move `ply` with the game's new status (rating it if it ends: then its ratings'
/// change).
pub(crate) fn append_move(
    c: &mut dyn Conn,
    head: &Head,
    ply: i64,
    mv: &str,
    status: &StatusRow,
) -> StoreResult<Option<GameRatings>> {
    let mut more = status_params(head, status);
    more.extend([ply.into(), mv.into()]);
    run(c, head, &APPEND_MOVE, more)?;
    explore(c, status)?;
    rate(c, head, status)
}

/// Keeps the first `keep` moves; the game is playing.
pub(crate) fn truncate_moves(c: &mut dyn Conn, head: &Head, keep: i64) -> StoreResult<()> {
    run(c, head, &TRUNCATE_MOVES, vec![head.at.into(), keep.into()])
}

/// The game's new status (rating it if it ends: then its ratings' change).
pub(crate) fn set_status(
    c: &mut dyn Conn,
    head: &Head,
    status: &StatusRow,
) -> StoreResult<Option<GameRatings>> {
    run(c, head, &SET_STATUS, status_params(head, status))?;
    if let Some(o) = &status.offence {
        crate::store::offences::record(c.sql(), o)?;
    }
    explore(c, status)?;
    rate(c, head, status)
}

/// A change of what the head carries only.
pub(crate) fn touch(c: &mut dyn Conn, head: &Head) -> StoreResult<()> {
    run(c, head, &TOUCH, Vec::new())
}

/// Gives an untaken seat its secret; a conflict if someone took it first.
pub(crate) fn claim_seat(
    c: &mut dyn Conn,
    head: &Head,
    seat: usize,
    secret: &str,
    account: Option<&String>,
) -> StoreResult<()> {
    let change = if seat == 0 {
        &CLAIM_SOUTH
    } else {
        &CLAIM_NORTH
    };
    let more = vec![secret.into(), account.into(), head.at.into()];
    run(c, head, change, more)
}

/// Who holds each seat, and whether the game is listed while played.
pub(crate) fn set_seating(
    c: &mut dyn Conn,
    head: &Head,
    accounts: &[Option<String>; 2],
    public: bool,
) -> StoreResult<()> {
    let more = vec![
        accounts[0].as_ref().into(),
        accounts[1].as_ref().into(),
        public.into(),
    ];
    run(c, head, &SET_SEATING, more)
}

/// The game's tags, with its head (a berserk: the clock and the tag that says so together).
pub(crate) fn retag(c: &mut dyn Conn, head: &Head, tags: &str) -> StoreResult<()> {
    run(c, head, &RETAG, vec![tags.into()])
}

/// Links the game to its rematch `next` and creates it; a conflict if it has one already.
pub(crate) fn create_rematch(c: &mut dyn Conn, head: &Head, next: &GameRow) -> StoreResult<()> {
    run(c, head, &LINK_REMATCH, vec![(&next.id).into()])?;
    insert_game(c.sql(), next, &[])
}

/// Claims the engine's turn (not a change of the game: its revision stays): whether granted.
pub(crate) fn claim_engine(
    db: &mut dyn Sql,
    id: &str,
    expect: i64,
    claim: &EngineClaim,
    now: i64,
) -> StoreResult<bool> {
    let n = db.execute(
        "UPDATE games SET engine_owner = $3, engine_until = $4
         WHERE id = $1 AND revision = $2
           AND (engine_owner IS NULL OR engine_until < $5 OR engine_owner = $3)",
        &[
            id.into(),
            expect.into(),
            (&claim.owner).into(),
            claim.until.into(),
            now.into(),
        ],
    )?;
    Ok(n == 1)
}

/// `updated`, `status`, `result` and `termination` ($12–$15).
fn status_params(head: &Head, s: &StatusRow) -> Vec<Val> {
    vec![
        head.at.into(),
        (&s.status).into(),
        (&s.result).into(),
        s.termination.as_ref().into(),
    ]
}

/// Queues the game `status` ends for the opening explorer.
fn explore(c: &mut dyn Conn, status: &StatusRow) -> StoreResult<()> {
    match &status.explore {
        Some(g) => crate::store::explorer::queue(c.sql(), g),
        None => Ok(()),
    }
}

/// The ratings of a rated game that `status` ends (see `accounts::rate`).
fn rate(c: &mut dyn Conn, head: &Head, status: &StatusRow) -> StoreResult<Option<GameRatings>> {
    let Some(rate) = &status.rate else {
        return Ok(None);
    };
    let db = c.sql();
    let start = db
        .query(
            "SELECT ratings FROM games WHERE id = $1",
            &[(&head.id).into()],
        )?
        .first()
        .map(|r| r.opt_text("ratings"))
        .transpose()?
        .flatten();
    crate::store::accounts::rate(db, &head.id, head.at, start.as_deref(), rate).map(Some)
}

/// The refusal of a change checked against a revision the game has left.
fn conflict(id: &str) -> StoreError {
    StoreError::Conflict { id: id.to_string() }
}

/// `clock_south`, `clock_north`, `clock_since` and `deadline` as stored.
fn clock_columns(c: Option<&ClockRow>) -> (Option<i64>, Option<i64>, Option<i64>, Option<i64>) {
    match c {
        Some(c) => (Some(c.left[0]), Some(c.left[1]), c.since, c.deadline),
        None => (None, None, None, None),
    }
}

/// `engine_owner` and `engine_until` as stored.
fn claim_columns(c: Option<&EngineClaim>) -> (Option<&str>, Option<i64>) {
    (c.map(|c| c.owner.as_str()), c.map(|c| c.until))
}

/// Creates game `g` with its `moves`.
pub(crate) fn insert_game(db: &mut dyn Sql, g: &GameRow, moves: &[String]) -> StoreResult<()> {
    let (owner, until) = claim_columns(g.engine.as_ref());
    let (south, north, since, deadline) = clock_columns(g.clock.as_ref());
    let control = g.clock.as_ref().map(|c| c.control.as_str());
    let values: Vec<Val> = vec![
        (&g.id).into(),
        g.created.into(),
        g.updated.into(),
        (&g.mode).into(),
        (&g.rules).into(),
        (&g.seed).into(),
        (&g.start).into(),
        (&g.seats[0]).into(),
        (&g.seats[1]).into(),
        g.secrets[0].as_ref().into(),
        g.secrets[1].as_ref().into(),
        (&g.status).into(),
        (&g.result).into(),
        g.termination.as_ref().into(),
        g.rematch.as_ref().into(),
        (&g.tags).into(),
        g.hints.into(),
        g.invite.as_ref().into(),
        g.revision.into(),
        owner.into(),
        until.into(),
        control.into(),
        south.into(),
        north.into(),
        since.into(),
        deadline.into(),
        g.offer.as_ref().into(),
        g.away[0].into(),
        g.away[1].into(),
        g.accounts[0].as_ref().into(),
        g.accounts[1].as_ref().into(),
        g.rated.into(),
        g.public.into(),
        g.ratings.as_ref().into(),
        g.category.as_ref().into(),
    ];
    db.execute(
        "INSERT INTO games (id, created, updated, mode, rules, seed, start, south, north,
            south_secret, north_secret, status, result, termination, rematch, tags, hints, invite,
            revision, engine_owner, engine_until, clock, clock_south, clock_north, clock_since,
            deadline, offer, south_away, north_away, south_account, north_account, rated, public,
            ratings, category)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18,
            $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32, $33, $34, $35)",
        &values,
    )?;
    for (i, mv) in moves.iter().enumerate() {
        db.execute(
            "INSERT INTO moves (game, ply, mv, at) VALUES ($1, $2, $3, $4)",
            &[
                (&g.id).into(),
                (i as i64 + 1).into(),
                mv.into(),
                g.created.into(),
            ],
        )?;
    }
    Ok(())
}
