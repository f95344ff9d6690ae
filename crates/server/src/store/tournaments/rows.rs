//! A tournament's rows as the store reads them: the tournament, its entrants, its games, the
//! rounds scored without a game, and the games not yet settled as `games` holds them.

use crate::store::sql::{FromRow, Row};
use crate::store::StoreResult;

/// A tournament as stored, with its count of entrants.
#[derive(Clone, Debug, PartialEq)]
pub struct TournamentRow {
    pub id: String,
    pub name: String,
    /// `arena`, `swiss` or `round-robin`.
    pub system: String,
    pub rules: String,
    /// The time control (`3+2`).
    pub clock: String,
    pub rated: bool,
    pub created_by: String,
    pub created: i64,
    pub starts: i64,
    /// An arena's length.
    pub minutes: Option<i64>,
    /// A Swiss's rounds (a round robin's, once started).
    pub rounds: Option<i64>,
    /// The rest, as JSON (the server's `tournaments::Settings`).
    pub settings: String,
    /// `upcoming`, `running`, `finished` or `cancelled`.
    pub status: String,
    /// The round being played (0 before the first).
    pub round: i64,
    /// When the next round's games start.
    pub next_round: Option<i64>,
    pub finished: Option<i64>,
    /// The first in the final standings.
    pub winner: Option<String>,
    /// Grows with every change: what watchers are told.
    pub version: i64,
    /// Entrants, withdrawn ones included.
    pub players: i64,
}

pub(super) const TOURNAMENT_COLUMNS: &str =
    "SELECT t.id, t.name, t.system, t.rules, t.clock, t.rated,
    t.created_by, t.created, t.starts, t.minutes, t.rounds, t.settings, t.status, t.round,
    t.next_round, t.finished, t.winner, t.version,
    (SELECT COUNT(*) FROM tournament_players p WHERE p.tournament = t.id) AS players
    FROM tournaments t";

impl FromRow for TournamentRow {
    fn from_row(r: &Row) -> StoreResult<TournamentRow> {
        Ok(TournamentRow {
            id: r.text("id")?,
            name: r.text("name")?,
            system: r.text("system")?,
            rules: r.text("rules")?,
            clock: r.text("clock")?,
            rated: r.bool("rated")?,
            created_by: r.text("created_by")?,
            created: r.int("created")?,
            starts: r.int("starts")?,
            minutes: r.opt_int("minutes")?,
            rounds: r.opt_int("rounds")?,
            settings: r.text("settings")?,
            status: r.text("status")?,
            round: r.int("round")?,
            next_round: r.opt_int("next_round")?,
            finished: r.opt_int("finished")?,
            winner: r.opt_text("winner")?,
            version: r.int("version")?,
            players: r.int("players")?,
        })
    }
}

/// An entrant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryRow {
    pub account: String,
    pub joined: i64,
    /// Rating in the tournament's category as they joined.
    pub rating: i64,
    /// `active`, `paused` (arena) or `withdrawn`.
    pub state: String,
    /// Since when the state holds or, for an active player who is not playing, since when
    /// they wait for a game.
    pub since: i64,
    /// The game being played.
    pub playing: Option<String>,
    pub bot: bool,
}

impl FromRow for EntryRow {
    fn from_row(r: &Row) -> StoreResult<EntryRow> {
        Ok(EntryRow {
            account: r.text("account")?,
            joined: r.int("joined")?,
            rating: r.int("rating")?,
            state: r.text("state")?,
            since: r.int("since")?,
            playing: r.opt_text("playing")?,
            bot: r.bool("bot")?,
        })
    }
}

/// A tournament game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TGameRow {
    pub game: String,
    pub round: i64,
    pub south: String,
    pub north: String,
    pub at: i64,
    /// `1-0`, `0-1`, `1/2-1/2` or `aborted` once settled.
    pub result: Option<String>,
    pub plies: Option<i64>,
    /// `S`, `N`, `SN` or empty: who berserked.
    pub berserk: String,
}

impl FromRow for TGameRow {
    fn from_row(r: &Row) -> StoreResult<TGameRow> {
        Ok(TGameRow {
            game: r.text("game")?,
            round: r.int("round")?,
            south: r.text("south")?,
            north: r.text("north")?,
            at: r.int("at")?,
            result: r.opt_text("result")?,
            plies: r.opt_int("plies")?,
            berserk: r.text("berserk")?,
        })
    }
}

/// A round scored without a game: a bye, or a round missed.
#[derive(Clone, Debug, PartialEq)]
pub struct MissedRow {
    pub account: String,
    pub round: i64,
    /// `bye` or `absent`.
    pub kind: String,
    pub points: f64,
}

impl FromRow for MissedRow {
    fn from_row(r: &Row) -> StoreResult<MissedRow> {
        Ok(MissedRow {
            account: r.text("account")?,
            round: r.int("round")?,
            kind: r.text("kind")?,
            points: r.real("points")?,
        })
    }
}

/// Everything a tournament's standings and its director need, read in one snapshot.
#[derive(Clone, Debug, PartialEq)]
pub struct TournamentState {
    pub tournament: TournamentRow,
    pub entries: Vec<EntryRow>,
    pub games: Vec<TGameRow>,
    pub missed: Vec<MissedRow>,
    /// Pairs of entrants where one blocked the other.
    pub blocks: Vec<(String, String)>,
}

/// A game of the tournament not yet settled, as its row in `games` stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsettled {
    pub game: String,
    /// `playing`, `over` or `aborted`.
    pub status: String,
    pub result: String,
    pub plies: i64,
    /// Who never made a first move, when the game was aborted for that.
    pub no_show: Option<String>,
    /// The game's tags as stored (JSON): who berserked.
    pub tags: String,
}

impl FromRow for Unsettled {
    fn from_row(r: &Row) -> StoreResult<Unsettled> {
        Ok(Unsettled {
            game: r.text("game")?,
            status: r.text("status")?,
            result: r.text("result")?,
            plies: r.int("plies")?,
            no_show: r.opt_text("no_show")?,
            tags: r.text("tags")?,
        })
    }
}
