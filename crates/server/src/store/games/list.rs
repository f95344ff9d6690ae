//! The lists of games (the archive, the live games, a player's games with their filters) and
//! a player's wins, draws and losses: the same SQL in both backends.

use super::Summary;
use crate::store::sql::{FromRow, Row, Sql, Val};
use crate::store::{StoreError, StoreResult};

/// A player's finished games.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub games: i64,
    pub wins: i64,
    pub draws: i64,
    pub losses: i64,
}

/// How a game ended for one player, for a list's filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Win,
    Draw,
    Loss,
}

/// Which games a list holds, newest change first.
#[derive(Clone, Debug, PartialEq)]
pub enum Listing {
    /// Every finished game, and games in play that are public.
    Public { limit: usize },
    /// Public games in play, to watch: those changed since `active_since` (milliseconds since
    /// the epoch), and correspondence games whatever their last change (days per move).
    Live { limit: usize, active_since: i64 },
    /// One player's games.
    Player(PlayerGames),
}

/// One player's games: live ones too when `all` (the player asking), else only those another
/// person may see (finished, or public); the other fields narrow them.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerGames {
    pub name: String,
    pub all: bool,
    pub outcome: Option<Outcome>,
    pub category: Option<String>,
    pub rated: Option<bool>,
    /// Only games last changed before this (paging).
    pub before: Option<i64>,
    pub limit: usize,
}

impl PlayerGames {
    /// The newest `limit` of them, not narrowed.
    pub fn new(name: String, all: bool, limit: usize) -> PlayerGames {
        PlayerGames {
            name,
            all,
            outcome: None,
            category: None,
            rated: None,
            before: None,
            limit,
        }
    }
}

/// `result` as a win for the player whose seat column is `side`: `1-0` for South. A game the
/// player held both seats of (one screen) is neither won nor lost: it would be both.
const WIN_SQL: &str =
    "((south_account = $1 AND result = '1-0' AND COALESCE(north_account, '') != $1)
    OR (north_account = $1 AND result = '0-1' AND COALESCE(south_account, '') != $1))";
const LOSS_SQL: &str =
    "((south_account = $1 AND result = '0-1' AND COALESCE(north_account, '') != $1)
    OR (north_account = $1 AND result = '1-0' AND COALESCE(south_account, '') != $1))";
const MINE_SQL: &str = "(south_account = $1 OR north_account = $1)";

pub(super) fn counts(db: &mut dyn Sql, name: &str) -> StoreResult<Counts> {
    let sql = format!(
        "SELECT COUNT(*) AS games,
            COALESCE(SUM(CASE WHEN {WIN_SQL} THEN 1 ELSE 0 END), 0) AS wins,
            COALESCE(SUM(CASE WHEN result = '1/2-1/2' THEN 1 ELSE 0 END), 0) AS draws,
            COALESCE(SUM(CASE WHEN {LOSS_SQL} THEN 1 ELSE 0 END), 0) AS losses
         FROM games WHERE {MINE_SQL} AND status = 'over'"
    );
    let rows = db.query(&sql, &[name.into()])?;
    let r = rows
        .first()
        .ok_or_else(|| StoreError::Failed("database: no count".to_string()))?;
    Ok(Counts {
        games: r.int("games")?,
        wins: r.int("wins")?,
        draws: r.int("draws")?,
        losses: r.int("losses")?,
    })
}

/// The games of a list (see [`Listing`]). The order ends on the id in byte order in both
/// backends (`COLLATE "C"` in PostgreSQL).
pub(super) fn list(db: &mut dyn Sql, l: &Listing) -> StoreResult<Vec<Summary>> {
    let collate = db.dialect().byte_order();
    let mut params: Vec<Val> = Vec::new();
    let (filter, limit) = match l {
        Listing::Public { limit } => ("(g.status != 'playing' OR g.public)".to_string(), *limit),
        Listing::Live {
            limit,
            active_since,
        } => {
            params.push((*active_since).into());
            (
                "(g.status = 'playing' AND g.public
                  AND (g.category = 'correspondence' OR g.updated > $1))"
                    .to_string(),
                *limit,
            )
        }
        Listing::Player(p) => {
            params.push((&p.name).into());
            let mut f = vec![MINE_SQL.to_string()];
            if !p.all {
                f.push("(g.status != 'playing' OR g.public)".to_string());
            }
            match p.outcome {
                Some(Outcome::Win) => f.push(format!("g.status = 'over' AND {WIN_SQL}")),
                Some(Outcome::Loss) => f.push(format!("g.status = 'over' AND {LOSS_SQL}")),
                Some(Outcome::Draw) => f.push("g.result = '1/2-1/2'".to_string()),
                None => {}
            }
            if let Some(c) = &p.category {
                params.push(c.into());
                f.push(format!("g.category = ${}", params.len()));
            }
            if let Some(r) = p.rated {
                params.push(r.into());
                f.push(format!("g.rated = ${}", params.len()));
            }
            if let Some(b) = p.before {
                params.push(b.into());
                f.push(format!("g.updated < ${}", params.len()));
            }
            (f.join(" AND "), p.limit)
        }
    };
    params.push((limit as i64).into());
    let sql = format!(
        "SELECT g.id AS id, g.created AS created, g.updated AS updated, g.mode AS mode,
            g.rules AS rules, g.south AS south, g.north AS north, g.status AS status,
            g.result AS result, (SELECT COUNT(*) FROM moves m WHERE m.game = g.id) AS moves,
            g.south_account AS south_account, g.north_account AS north_account,
            g.rated AS rated, g.clock AS clock
         FROM games g WHERE {filter}
         ORDER BY g.updated DESC, g.id {collate} LIMIT ${}",
        params.len()
    );
    db.rows(&sql, &params)
}

impl FromRow for Summary {
    fn from_row(r: &Row) -> StoreResult<Summary> {
        Ok(Summary {
            id: r.text("id")?,
            created: r.int("created")?,
            updated: r.int("updated")?,
            mode: r.text("mode")?,
            rules: r.text("rules")?,
            seats: [r.text("south")?, r.text("north")?],
            status: r.text("status")?,
            result: r.text("result")?,
            moves: r.int("moves")?,
            accounts: [r.opt_text("south_account")?, r.opt_text("north_account")?],
            rated: r.bool("rated")?,
            clock: r.opt_text("clock")?,
        })
    }
}
