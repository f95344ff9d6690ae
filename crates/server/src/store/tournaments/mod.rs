//! Tournaments (issue 39, docs/tournaments.md): the tournament, its entrants, its games and the
//! rounds a player scored without a game. Scores are never stored: the standings are computed
//! from these rows (`anywoli_tournament::standings`), so they can always be recomputed.
//!
//! One instance at a time directs a tournament (pairs, settles, moves it on): it holds the
//! tournament's lease (`lease_owner`, `lease_until`), and every change it makes (`step.rs`)
//! checks the lease inside its own transaction, so an instance that lost it (paused, cut off,
//! killed) can never commit a pairing. A pairing also checks that both players are free
//! (`playing IS NULL`), so nobody is paired twice whatever the instances do.

mod rows;
mod schedules;
mod step;

use rows::TOURNAMENT_COLUMNS;
pub use rows::{EntryRow, MissedRow, TGameRow, TournamentRow, TournamentState, Unsettled};
pub use schedules::ScheduleRow;
pub(super) use schedules::SCHEDULE_TABLES;
pub use step::{NewGame, Progress, Settled, Step};

use super::sql::{FromRow, Sql, Val};
use super::writer::Change;
use super::{Conn, Store, StoreResult};

/// The tables, the same text in both backends.
pub(super) const TOURNAMENT_TABLES: &str = "
CREATE TABLE IF NOT EXISTS tournaments (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    system TEXT NOT NULL,
    rules TEXT NOT NULL,
    clock TEXT NOT NULL,
    rated BOOLEAN NOT NULL,
    created_by TEXT NOT NULL REFERENCES accounts (name),
    created BIGINT NOT NULL,
    starts BIGINT NOT NULL,
    minutes BIGINT,
    rounds BIGINT,
    settings TEXT NOT NULL,
    status TEXT NOT NULL,
    round BIGINT NOT NULL DEFAULT 0,
    next_round BIGINT,
    finished BIGINT,
    winner TEXT,
    version BIGINT NOT NULL DEFAULT 0,
    lease_owner TEXT,
    lease_until BIGINT
);
CREATE INDEX IF NOT EXISTS tournaments_by_status ON tournaments (status, starts);
CREATE TABLE IF NOT EXISTS tournament_players (
    tournament TEXT NOT NULL REFERENCES tournaments (id),
    account TEXT NOT NULL REFERENCES accounts (name),
    joined BIGINT NOT NULL,
    rating BIGINT NOT NULL,
    state TEXT NOT NULL,
    since BIGINT NOT NULL,
    playing TEXT,
    bot BOOLEAN NOT NULL DEFAULT false,
    PRIMARY KEY (tournament, account)
);
CREATE INDEX IF NOT EXISTS tournament_players_by_account ON tournament_players (account);
CREATE TABLE IF NOT EXISTS tournament_games (
    game TEXT PRIMARY KEY REFERENCES games (id),
    tournament TEXT NOT NULL REFERENCES tournaments (id),
    round BIGINT NOT NULL,
    south TEXT NOT NULL,
    north TEXT NOT NULL,
    at BIGINT NOT NULL,
    result TEXT,
    plies BIGINT,
    berserk TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS tournament_games_by_tournament ON tournament_games (tournament, round);
CREATE TABLE IF NOT EXISTS tournament_missed (
    tournament TEXT NOT NULL REFERENCES tournaments (id),
    account TEXT NOT NULL,
    round BIGINT NOT NULL,
    kind TEXT NOT NULL,
    points DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (tournament, account, round)
);
";

/// An entrant's change of state by their own hand (join, pause, withdraw).
#[derive(Clone, Debug)]
pub struct Entry {
    pub tournament: String,
    pub account: String,
    pub now: i64,
    pub rating: i64,
    pub bot: bool,
    /// `active`, `paused` or `withdrawn`.
    pub state: String,
    /// Rounds scored without a game on joining late (Swiss).
    pub missed: Vec<MissedRow>,
}

struct SetEntry(Entry);

impl Change for SetEntry {
    type Out = bool;

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<bool> {
        let e = &self.0;
        let db = c.sql();
        let n = db.execute(
            "UPDATE tournament_players SET state = $3, since = $4
             WHERE tournament = $1 AND account = $2 AND state != $3",
            &[
                (&e.tournament).into(),
                (&e.account).into(),
                (&e.state).into(),
                e.now.into(),
            ],
        )?;
        let changed = if n == 0 && e.state == "active" {
            db.execute(
                "INSERT INTO tournament_players (tournament, account, joined, rating, state,
                    since, playing, bot)
                 VALUES ($1, $2, $3, $4, 'active', $3, NULL, $5)
                 ON CONFLICT (tournament, account) DO NOTHING",
                &[
                    (&e.tournament).into(),
                    (&e.account).into(),
                    e.now.into(),
                    e.rating.into(),
                    e.bot.into(),
                ],
            )? == 1
        } else {
            n == 1
        };
        if changed {
            for m in &e.missed {
                insert_missed(db, &e.tournament, m)?;
            }
            bump(db, &e.tournament)?;
        }
        Ok(changed)
    }
}

fn insert_missed(db: &mut dyn Sql, tournament: &str, m: &MissedRow) -> StoreResult<()> {
    db.execute(
        "INSERT INTO tournament_missed (tournament, account, round, kind, points)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (tournament, account, round) DO NOTHING",
        &[
            tournament.into(),
            (&m.account).into(),
            m.round.into(),
            (&m.kind).into(),
            m.points.into(),
        ],
    )?;
    Ok(())
}

fn bump(db: &mut dyn Sql, tournament: &str) -> StoreResult<()> {
    db.execute(
        "UPDATE tournaments SET version = version + 1 WHERE id = $1",
        &[tournament.into()],
    )?;
    Ok(())
}

struct Create(TournamentRow);

impl Change for Create {
    type Out = ();

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<()> {
        let t = &self.0;
        c.sql().execute(
            "INSERT INTO tournaments (id, name, system, rules, clock, rated, created_by, created,
                starts, minutes, rounds, settings, status, round, next_round, finished, version)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, 0, NULL, NULL, 0)",
            &[
                (&t.id).into(),
                (&t.name).into(),
                (&t.system).into(),
                (&t.rules).into(),
                (&t.clock).into(),
                t.rated.into(),
                (&t.created_by).into(),
                t.created.into(),
                t.starts.into(),
                t.minutes.into(),
                t.rounds.into(),
                (&t.settings).into(),
                (&t.status).into(),
            ],
        )?;
        Ok(())
    }
}

/// The organiser's hand: starts an upcoming tournament now, or the next round of a running
/// Swiss or round robin (the director pairs it at its next tick, once the round is over).
struct Start {
    tournament: String,
    by: String,
    now: i64,
}

impl Change for Start {
    type Out = bool;

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<bool> {
        let db = c.sql();
        let params: [Val; 3] = [
            (&self.tournament).into(),
            (&self.by).into(),
            self.now.into(),
        ];
        let n = db.execute(
            "UPDATE tournaments SET starts = $3, version = version + 1
             WHERE id = $1 AND created_by = $2 AND status = 'upcoming'",
            &params,
        )?;
        if n == 1 {
            return Ok(true);
        }
        let n = db.execute(
            "UPDATE tournaments SET next_round = $3, version = version + 1
             WHERE id = $1 AND created_by = $2 AND status = 'running' AND system != 'arena'",
            &params,
        )?;
        Ok(n == 1)
    }
}

/// Takes or renews the lease of a tournament: whether this instance holds it until `until`.
struct Lease {
    tournament: String,
    owner: String,
    now: i64,
    until: i64,
}

impl Change for Lease {
    type Out = bool;

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<bool> {
        let n = c.sql().execute(
            "UPDATE tournaments SET lease_owner = $2, lease_until = $4
             WHERE id = $1 AND (lease_owner IS NULL OR lease_owner = $2 OR lease_until < $3)",
            &[
                (&self.tournament).into(),
                (&self.owner).into(),
                self.now.into(),
                self.until.into(),
            ],
        )?;
        Ok(n == 1)
    }
}

/// Tournaments by status, for the lists: `upcoming` soonest first, others newest first.
fn list(db: &mut dyn Sql, status: &str, limit: usize) -> StoreResult<Vec<TournamentRow>> {
    let order = if status == "upcoming" {
        "t.starts ASC"
    } else {
        "t.starts DESC"
    };
    db.rows(
        &format!("{TOURNAMENT_COLUMNS} WHERE t.status = $1 ORDER BY {order}, t.id LIMIT $2"),
        &[status.into(), (limit as i64).into()],
    )
}

fn state_in(db: &mut dyn Sql, id: &str) -> StoreResult<Option<TournamentState>> {
    let Some(tournament) = db.row::<TournamentRow>(
        &format!("{TOURNAMENT_COLUMNS} WHERE t.id = $1"),
        &[id.into()],
    )?
    else {
        return Ok(None);
    };
    let entries = db.rows(
        "SELECT account, joined, rating, state, since, playing, bot FROM tournament_players
         WHERE tournament = $1 ORDER BY joined, account",
        &[id.into()],
    )?;
    let games = db.rows(
        "SELECT game, round, south, north, at, result, plies, berserk FROM tournament_games
         WHERE tournament = $1 ORDER BY at, game",
        &[id.into()],
    )?;
    let missed = db.rows(
        "SELECT account, round, kind, points FROM tournament_missed WHERE tournament = $1
         ORDER BY round, account",
        &[id.into()],
    )?;
    let blocks = db
        .query(
            "SELECT b.blocker, b.blocked FROM blocks b
             JOIN tournament_players p ON p.account = b.blocker AND p.tournament = $1
             JOIN tournament_players q ON q.account = b.blocked AND q.tournament = $1",
            &[id.into()],
        )?
        .iter()
        .map(|r| Ok((r.text("blocker")?, r.text("blocked")?)))
        .collect::<StoreResult<Vec<_>>>()?;
    Ok(Some(TournamentState {
        tournament,
        entries,
        games,
        missed,
        blocks,
    }))
}

/// Tournaments, their entrants and games.
impl Store {
    pub fn create_tournament(&self, t: TournamentRow) -> StoreResult<()> {
        self.writer.call(Create(t))
    }

    /// Joins (or comes back), pauses or withdraws: whether anything changed.
    pub fn set_entry(&self, e: Entry) -> StoreResult<bool> {
        self.writer.call(SetEntry(e))
    }

    /// Starts tournament `id` now, or its next round, by its organiser `by`: whether it did.
    pub fn start_tournament(&self, id: &str, by: &str, now: i64) -> StoreResult<bool> {
        self.writer.call(Start {
            tournament: id.to_string(),
            by: by.to_string(),
            now,
        })
    }

    /// Tournaments `name` created that are upcoming or running.
    pub fn tournaments_organised(&self, name: &str) -> StoreResult<i64> {
        self.readers.sql(|db| {
            db.count(
                "SELECT COUNT(*) AS n FROM tournaments
                 WHERE created_by = $1 AND status IN ('upcoming', 'running')",
                &[name.into()],
                "n",
            )
        })
    }

    /// Takes or renews tournament `id`'s lease for `owner` until `until`: whether it holds it.
    pub fn lease_tournament(
        &self,
        id: &str,
        owner: &str,
        now: i64,
        until: i64,
    ) -> StoreResult<bool> {
        self.writer.call(Lease {
            tournament: id.to_string(),
            owner: owner.to_string(),
            now,
            until,
        })
    }

    /// One step of a tournament's director, all or nothing (see `step.rs`).
    pub fn tournament_step(&self, s: Step) -> StoreResult<()> {
        self.writer.call(s)
    }

    /// Tournament `id` with everything its standings need, in one snapshot.
    pub fn tournament_state(&self, id: &str) -> StoreResult<Option<TournamentState>> {
        self.readers.with(|c| {
            c.begin_snapshot()?;
            let read = state_in(c.sql(), id);
            let end = c.exec(if read.is_ok() { "COMMIT" } else { "ROLLBACK" });
            let state = read?;
            end?;
            Ok(state)
        })
    }

    /// Tournament `id`'s version (what grows with every change), if it exists.
    pub fn tournament_version(&self, id: &str) -> StoreResult<Option<i64>> {
        self.readers.sql(|db| {
            db.query(
                "SELECT version FROM tournaments WHERE id = $1",
                &[id.into()],
            )?
            .first()
            .map(|r| r.int("version"))
            .transpose()
        })
    }

    pub fn tournament(&self, id: &str) -> StoreResult<Option<TournamentRow>> {
        self.readers.sql(|db| {
            db.row(
                &format!("{TOURNAMENT_COLUMNS} WHERE t.id = $1"),
                &[id.into()],
            )
        })
    }

    /// Up to `limit` tournaments of `status`.
    pub fn tournaments(&self, status: &str, limit: usize) -> StoreResult<Vec<TournamentRow>> {
        self.readers.sql(|db| list(db, status, limit))
    }

    /// The tournaments a director may have work in at `now`: running ones, and upcoming ones
    /// whose start has come. With their versions (what watchers are told).
    pub fn tournaments_active(&self, now: i64) -> StoreResult<Vec<(String, i64)>> {
        self.readers.sql(|db| {
            db.query(
                "SELECT id, version FROM tournaments
                 WHERE status = 'running' OR (status = 'upcoming' AND starts <= $1)
                 ORDER BY starts LIMIT 1000",
                &[now.into()],
            )?
            .iter()
            .map(|r| Ok((r.text("id")?, r.int("version")?)))
            .collect()
        })
    }

    /// The versions of tournaments `ids` (those that exist).
    pub fn tournament_versions(&self, ids: &[String]) -> StoreResult<Vec<(String, i64)>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        self.readers.sql(|db| {
            let marks: Vec<String> = (1..=ids.len()).map(|i| format!("${i}")).collect();
            let params: Vec<Val> = ids.iter().map(Val::from).collect();
            db.query(
                &format!(
                    "SELECT id, version FROM tournaments WHERE id IN ({})",
                    marks.join(", ")
                ),
                &params,
            )?
            .iter()
            .map(|r| Ok((r.text("id")?, r.int("version")?)))
            .collect()
        })
    }

    /// The ratings of tournament `id`'s entrants in `category` and `rules` (those who have
    /// one), in one read: what the director's new games start from.
    pub fn entrants_ratings(
        &self,
        id: &str,
        category: &str,
        rules: &str,
    ) -> StoreResult<Vec<(String, crate::rating::Rating)>> {
        self.readers.sql(|db| {
            db.query(
                "SELECT r.account AS account, r.rating AS rating, r.deviation AS deviation,
                    r.volatility AS volatility
                 FROM ratings r JOIN tournament_players p
                    ON p.account = r.account AND p.tournament = $1
                 WHERE r.category = $2 AND r.rules = $3 AND r.games > 0",
                &[id.into(), category.into(), rules.into()],
            )?
            .iter()
            .map(|r| Ok((r.text("account")?, crate::rating::Rating::from_row(r)?)))
            .collect()
        })
    }

    /// The tournament's games not yet settled, as their rows in `games` stand.
    pub fn tournament_unsettled(&self, id: &str) -> StoreResult<Vec<Unsettled>> {
        self.readers.sql(|db| {
            db.rows(
                "SELECT tg.game AS game, g.status AS status, g.result AS result, g.tags AS tags,
                    (SELECT COUNT(*) FROM moves m WHERE m.game = tg.game) AS plies,
                    (SELECT MIN(o.account) FROM play_offences o
                        WHERE o.game = tg.game AND o.kind = 'no_first_move') AS no_show
                 FROM tournament_games tg JOIN games g ON g.id = tg.game
                 WHERE tg.tournament = $1 AND tg.result IS NULL",
                &[id.into()],
            )
        })
    }
}
