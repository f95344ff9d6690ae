//! Accounts, sessions, ratings and the lists of games, in SQL that both backends run as it is
//! (`sql.rs`). Changes go through the writer like a game's (`AccountOp`); a rated game's
//! ratings change in the transaction that ends it (`rate`).

use std::sync::{Arc, Mutex};

use super::sql::{FromRow, Row, Sql, Val};
use super::{StoreResult, Summary};
use crate::rating::{self, Rating};

/// An account as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccountRow {
    /// The name in lower case: what makes two names the same.
    pub key: String,
    /// The name as typed.
    pub name: String,
    /// The password's Argon2id hash (PHC string).
    pub hash: String,
    pub created: i64,
}

/// A session: the SHA-256 of its cookie, whose account, and its CSRF token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionRow {
    pub token: String,
    pub name: String,
    pub csrf: String,
    pub created: i64,
}

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
    /// One player's games: live ones too when `all` (the player asking), else only those
    /// another person may see (finished, or public).
    Player {
        name: String,
        all: bool,
        outcome: Option<Outcome>,
        category: Option<String>,
        rated: Option<bool>,
        /// Only games last changed before this (paging).
        before: Option<i64>,
        limit: usize,
    },
}

/// A change to accounts, run by the writer.
#[derive(Clone, Debug)]
pub enum AccountOp {
    /// A new account and its first session; refused (answering false) if the name is taken.
    Create {
        account: AccountRow,
        session: SessionRow,
    },
    AddSession(SessionRow),
    /// Ends the account's sessions, but for `except` (a session's token).
    EndSessions {
        name: String,
        except: Option<String>,
    },
    EndSession {
        token: String,
    },
    SetPassword {
        name: String,
        hash: String,
    },
    /// Claims seek `id` for whoever accepts, cancels or drops it: false if another did first
    /// (on any instance). Claims older than a day go.
    TakeSeek {
        id: String,
        at: i64,
    },
    AddChallenge(ChallengeRow),
    /// An account copied from another store with its ratings and their history
    /// (`anywoli db migrate`); false if the name is there already.
    Import {
        account: AccountRow,
        ratings: Vec<RatingRow>,
        history: Vec<RatingPoint>,
    },
    /// Removes challenge `id`: false if it was gone already (answered elsewhere).
    TakeChallenge {
        id: String,
    },
}

/// A challenge waiting for its answer; `body` is crate::lobby::message::Challenge as JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChallengeRow {
    pub id: String,
    pub from: String,
    pub to: String,
    pub body: String,
    pub at: i64,
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
    pub out: Arc<Mutex<Option<rating::GameRatings>>>,
}

pub(super) fn apply(db: &mut dyn Sql, op: &AccountOp) -> StoreResult<bool> {
    match op {
        AccountOp::Create { account, session } => {
            if !insert_account(db, account)? {
                return Ok(false);
            }
            add_session(db, session)?;
        }
        AccountOp::AddSession(s) => add_session(db, s)?,
        AccountOp::EndSessions { name, except } => {
            db.execute(
                "DELETE FROM sessions WHERE account = $1 AND token != $2",
                &[name.into(), except.clone().unwrap_or_default().into()],
            )?;
        }
        AccountOp::EndSession { token } => {
            db.execute("DELETE FROM sessions WHERE token = $1", &[token.into()])?;
        }
        AccountOp::SetPassword { name, hash } => {
            db.execute(
                "UPDATE accounts SET hash = $2 WHERE name = $1",
                &[name.into(), hash.into()],
            )?;
        }
        AccountOp::TakeSeek { id, at } => {
            db.execute(
                "DELETE FROM seek_claims WHERE at < $1",
                &[(at - 24 * 3600 * 1000).into()],
            )?;
            let n = db.execute(
                "INSERT INTO seek_claims (id, at) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING",
                &[id.into(), (*at).into()],
            )?;
            return Ok(n == 1);
        }
        AccountOp::AddChallenge(c) => {
            db.execute(
                "INSERT INTO challenges (id, from_account, to_account, body, at)
                 VALUES ($1, $2, $3, $4, $5)",
                &[
                    (&c.id).into(),
                    (&c.from).into(),
                    (&c.to).into(),
                    (&c.body).into(),
                    c.at.into(),
                ],
            )?;
        }
        AccountOp::Import {
            account,
            ratings,
            history,
        } => return import(db, account, ratings, history),
        AccountOp::TakeChallenge { id } => {
            let n = db.execute("DELETE FROM challenges WHERE id = $1", &[id.into()])?;
            return Ok(n == 1);
        }
    }
    Ok(true)
}

/// Makes an account copied from another store, with its ratings and their history: false
/// (making nothing) if its name is taken.
fn import(
    db: &mut dyn Sql,
    account: &AccountRow,
    ratings: &[RatingRow],
    history: &[RatingPoint],
) -> StoreResult<bool> {
    if !insert_account(db, account)? {
        return Ok(false);
    }
    for r in ratings {
        db.execute(
            "INSERT INTO ratings (account, category, rules, rating, deviation, volatility,
                games, at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            &[
                (&account.name).into(),
                (&r.category).into(),
                (&r.rules).into(),
                r.rating.rating.into(),
                r.rating.deviation.into(),
                r.rating.volatility.into(),
                r.games.into(),
                r.at.into(),
            ],
        )?;
    }
    for p in history {
        add_point(db, &account.name, p)?;
    }
    Ok(true)
}

impl FromRow for ChallengeRow {
    fn from_row(r: &Row) -> StoreResult<ChallengeRow> {
        Ok(ChallengeRow {
            id: r.text("id")?,
            from: r.text("from_account")?,
            to: r.text("to_account")?,
            body: r.text("body")?,
            at: r.int("at")?,
        })
    }
}

const CHALLENGE_COLUMNS: &str = "SELECT id, from_account, to_account, body, at FROM challenges";

pub(super) fn challenge(db: &mut dyn Sql, id: &str) -> StoreResult<Option<ChallengeRow>> {
    db.row(&format!("{CHALLENGE_COLUMNS} WHERE id = $1"), &[id.into()])
}

pub(super) fn challenges(db: &mut dyn Sql, name: &str) -> StoreResult<Vec<ChallengeRow>> {
    db.rows(
        &format!("{CHALLENGE_COLUMNS} WHERE from_account = $1 OR to_account = $1 ORDER BY at, id"),
        &[name.into()],
    )
}

pub(super) fn old_challenges(db: &mut dyn Sql, before: i64) -> StoreResult<Vec<ChallengeRow>> {
    db.rows(
        &format!("{CHALLENGE_COLUMNS} WHERE at < $1 ORDER BY at LIMIT 500"),
        &[before.into()],
    )
}

/// How long a session lasts (the cookie's `Max-Age` says the same to the browser).
pub const SESSION_MS: i64 = 30 * 24 * 3600 * 1000;

/// Makes `account`: false (making nothing) if its name is taken.
fn insert_account(db: &mut dyn Sql, account: &AccountRow) -> StoreResult<bool> {
    let taken = db.query(
        "SELECT 1 FROM accounts WHERE key = $1",
        &[(&account.key).into()],
    )?;
    if !taken.is_empty() {
        return Ok(false);
    }
    db.execute(
        "INSERT INTO accounts (key, name, hash, created) VALUES ($1, $2, $3, $4)",
        &[
            (&account.key).into(),
            (&account.name).into(),
            (&account.hash).into(),
            account.created.into(),
        ],
    )?;
    Ok(true)
}

fn add_session(db: &mut dyn Sql, s: &SessionRow) -> StoreResult<()> {
    // The account's sessions past their time go as a new one comes: the table holds only
    // sessions that may still be used.
    db.execute(
        "DELETE FROM sessions WHERE account = $1 AND created < $2",
        &[(&s.name).into(), (s.created - SESSION_MS).into()],
    )?;
    db.execute(
        "INSERT INTO sessions (token, account, csrf, created) VALUES ($1, $2, $3, $4)",
        &[
            (&s.token).into(),
            (&s.name).into(),
            (&s.csrf).into(),
            s.created.into(),
        ],
    )?;
    Ok(())
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
pub(super) fn rate(
    db: &mut dyn Sql,
    id: &str,
    at: i64,
    start: Option<&str>,
    r: &RateGame,
) -> StoreResult<()> {
    let mut before = [Rating::DEFAULT; 2];
    let mut idle = [0i64; 2];
    for (i, name) in r.names.iter().enumerate() {
        (before[i], idle[i]) = rating_before(db, name, r, at)?;
    }
    let short = r.plies < SHORT_GAME_PLIES && r.score_south != 0.5;
    if short && short_wins_of_pair(db, id, at, &r.names)? >= SHORT_WINS_PER_DAY {
        // Shown as a change of nothing, so that both players see why nothing moved.
        return record_change(db, id, start, before, before, r);
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
    record_change(db, id, start, before, after, r)
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
fn add_point(db: &mut dyn Sql, name: &str, p: &RatingPoint) -> StoreResult<()> {
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

/// Writes what game `id` did to its players' ratings into its `ratings` column, and hands it
/// to the caller through `r.out`.
fn record_change(
    db: &mut dyn Sql,
    id: &str,
    start: Option<&str>,
    before: [Rating; 2],
    after: [Rating; 2],
    r: &RateGame,
) -> StoreResult<()> {
    let mut ratings = rating::GameRatings::from_json(start);
    ratings.change = Some([
        rating::Change::new(before[0], after[0]),
        rating::Change::new(before[1], after[1]),
    ]);
    db.execute(
        "UPDATE games SET ratings = $2 WHERE id = $1",
        &[id.into(), ratings.to_json().into()],
    )?;
    if let Ok(mut out) = r.out.lock() {
        *out = Some(ratings);
    }
    Ok(())
}

impl FromRow for AccountRow {
    fn from_row(r: &Row) -> StoreResult<AccountRow> {
        Ok(AccountRow {
            key: r.text("key")?,
            name: r.text("name")?,
            hash: r.text("hash")?,
            created: r.int("created")?,
        })
    }
}

impl FromRow for SessionRow {
    fn from_row(r: &Row) -> StoreResult<SessionRow> {
        Ok(SessionRow {
            token: r.text("token")?,
            name: r.text("account")?,
            csrf: r.text("csrf")?,
            created: r.int("created")?,
        })
    }
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

pub(super) fn account(db: &mut dyn Sql, key: &str) -> StoreResult<Option<AccountRow>> {
    db.row(
        "SELECT key, name, hash, created FROM accounts WHERE key = $1",
        &[key.into()],
    )
}

/// Up to `limit` accounts whose key is after `after`, in byte order (`""` for the first page).
pub(super) fn accounts_after(
    db: &mut dyn Sql,
    after: &str,
    limit: usize,
) -> StoreResult<Vec<AccountRow>> {
    let collate = db.dialect().byte_order();
    let sql = format!(
        "SELECT key, name, hash, created FROM accounts WHERE key {collate} > $1
         ORDER BY key {collate} LIMIT $2"
    );
    db.rows(&sql, &[after.into(), (limit as i64).into()])
}

/// The session whose token is `token`, unless it is past its time at `now`.
pub(super) fn session(db: &mut dyn Sql, token: &str, now: i64) -> StoreResult<Option<SessionRow>> {
    db.row(
        "SELECT token, account, csrf, created FROM sessions WHERE token = $1 AND created >= $2",
        &[token.into(), (now - SESSION_MS).into()],
    )
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
        .ok_or_else(|| super::StoreError::Failed("database: no count".to_string()))?;
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
        Listing::Player {
            name,
            all,
            outcome,
            category,
            rated,
            before,
            limit,
        } => {
            params.push(name.into());
            let mut f = vec![MINE_SQL.to_string()];
            if !all {
                f.push("(g.status != 'playing' OR g.public)".to_string());
            }
            match outcome {
                Some(Outcome::Win) => f.push(format!("g.status = 'over' AND {WIN_SQL}")),
                Some(Outcome::Loss) => f.push(format!("g.status = 'over' AND {LOSS_SQL}")),
                Some(Outcome::Draw) => f.push("g.result = '1/2-1/2'".to_string()),
                None => {}
            }
            if let Some(c) = category {
                params.push(c.into());
                f.push(format!("g.category = ${}", params.len()));
            }
            if let Some(r) = rated {
                params.push((*r).into());
                f.push(format!("g.rated = ${}", params.len()));
            }
            if let Some(b) = before {
                params.push((*b).into());
                f.push(format!("g.updated < ${}", params.len()));
            }
            (f.join(" AND "), *limit)
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
