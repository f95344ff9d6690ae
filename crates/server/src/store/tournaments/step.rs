//! One step of a tournament's director, in one transaction: the games that ended are settled,
//! players who never moved are withdrawn, new games are made and their players marked as
//! playing, the tournament moves on. Nothing of it is written unless the director still holds
//! the lease and every player it pairs is free, so a crash or a second instance never leaves
//! half a pairing or a player in two games.

use super::{insert_missed, MissedRow};
use crate::store::games::GameRow;
use crate::store::sql::Sql;
use crate::store::writer::Change;
use crate::store::{Conn, StoreError, StoreResult};

/// A game that ended, as the tournament counts it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settled {
    pub game: String,
    /// `1-0`, `0-1`, `1/2-1/2` or `aborted`.
    pub result: String,
    pub plies: i64,
    /// Who berserked: `S`, `N`, `SN` or empty.
    pub berserk: String,
}

/// A game the step makes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewGame {
    pub row: GameRow,
    pub round: i64,
    pub south: String,
    pub north: String,
}

/// Where the tournament stands after the step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Progress {
    pub status: String,
    pub round: i64,
    pub next_round: Option<i64>,
    pub finished: Option<i64>,
    /// A round robin's rounds, known once it starts.
    pub rounds: Option<i64>,
    /// The first in the final standings, once finished.
    pub winner: Option<String>,
}

/// What a director does to tournament `tournament` at `now`, holding its lease as `owner`.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub tournament: String,
    pub owner: String,
    pub now: i64,
    pub settled: Vec<Settled>,
    /// Players whose state changes (`withdrawn` for a no-show, `paused`).
    pub states: Vec<(String, String)>,
    pub games: Vec<NewGame>,
    pub missed: Vec<MissedRow>,
    pub progress: Option<Progress>,
}

impl Step {
    /// Whether the step changes nothing.
    pub fn is_empty(&self) -> bool {
        self.settled.is_empty()
            && self.states.is_empty()
            && self.games.is_empty()
            && self.missed.is_empty()
            && self.progress.is_none()
    }

    fn lost(&self) -> StoreError {
        StoreError::Conflict {
            id: self.tournament.clone(),
        }
    }
}

impl Change for Step {
    type Out = ();

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<()> {
        let db = c.sql();
        let t = self.tournament.as_str();
        let held = db.execute(
            "UPDATE tournaments SET version = version + 1
             WHERE id = $1 AND lease_owner = $2 AND lease_until >= $3",
            &[t.into(), (&self.owner).into(), self.now.into()],
        )?;
        if held != 1 {
            return Err(self.lost());
        }
        for s in &self.settled {
            settle(db, t, s, self.now)?;
        }
        for (account, state) in &self.states {
            db.execute(
                "UPDATE tournament_players SET state = $3, since = $4
                 WHERE tournament = $1 AND account = $2",
                &[t.into(), account.into(), state.into(), self.now.into()],
            )?;
        }
        for g in &self.games {
            crate::store::games::insert_game(db, &g.row, &[])?;
            db.execute(
                "INSERT INTO tournament_games (game, tournament, round, south, north, at,
                    result, plies, berserk)
                 VALUES ($1, $2, $3, $4, $5, $6, NULL, NULL, '')",
                &[
                    (&g.row.id).into(),
                    t.into(),
                    g.round.into(),
                    (&g.south).into(),
                    (&g.north).into(),
                    self.now.into(),
                ],
            )?;
            for player in [&g.south, &g.north] {
                let free = db.execute(
                    "UPDATE tournament_players SET playing = $3, since = $4
                     WHERE tournament = $1 AND account = $2 AND playing IS NULL
                        AND state = 'active'",
                    &[t.into(), player.into(), (&g.row.id).into(), self.now.into()],
                )?;
                if free != 1 {
                    return Err(self.lost());
                }
            }
        }
        for m in &self.missed {
            insert_missed(db, t, m)?;
        }
        if let Some(p) = &self.progress {
            db.execute(
                "UPDATE tournaments SET status = $2, round = $3, next_round = $4, finished = $5,
                    rounds = COALESCE($6, rounds), winner = $7
                 WHERE id = $1",
                &[
                    t.into(),
                    (&p.status).into(),
                    p.round.into(),
                    p.next_round.into(),
                    p.finished.into(),
                    p.rounds.into(),
                    p.winner.as_ref().into(),
                ],
            )?;
        }
        Ok(())
    }
}

/// Records a game's result once, and frees its players.
fn settle(db: &mut dyn Sql, t: &str, s: &Settled, now: i64) -> StoreResult<()> {
    let n = db.execute(
        "UPDATE tournament_games SET result = $3, plies = $4, berserk = $5
         WHERE tournament = $1 AND game = $2 AND result IS NULL",
        &[
            t.into(),
            (&s.game).into(),
            (&s.result).into(),
            s.plies.into(),
            (&s.berserk).into(),
        ],
    )?;
    if n == 1 {
        db.execute(
            "UPDATE tournament_players SET playing = NULL, since = $3
             WHERE tournament = $1 AND playing = $2",
            &[t.into(), (&s.game).into(), now.into()],
        )?;
    }
    Ok(())
}
