//! A game in the store's form: the row (everything but the moves) and back, every move
//! replayed.

use anywoli_core::{
    parse_position, BySide, IllegalMove, Line, Move, ParseMoveError, Position, Rules,
};

use super::clock::{Clock, TimeControl};
use super::game::{Game, Mode, Offer, People, Player, Status, Termination};
use crate::rating::GameRatings;
use crate::store::{ClockRow, GameRow};

/// A stored game that does not read back as a game.
#[derive(Debug, thiserror::Error)]
#[error("stored game {id} is damaged: {what}")]
pub struct DamagedGame {
    pub id: String,
    pub what: String,
}

impl Game {
    /// Rebuilds a game from its stored row and moves, replaying every move.
    pub fn from_row(row: GameRow, moves: &[String]) -> Result<Game, DamagedGame> {
        let bad = |what: String| DamagedGame {
            id: row.id.clone(),
            what,
        };
        let mode = Mode::from_name(&row.mode).ok_or_else(|| bad(format!("mode {}", row.mode)))?;
        let seed: u64 = row
            .seed
            .parse()
            .map_err(|_| bad(format!("seed {}", row.seed)))?;
        let rules = Rules::from_name(&row.rules, seed).map_err(|e| bad(e.to_string()))?;
        let start = parse_position(&row.start, rules).map_err(|e| bad(e.to_string()))?;
        let mut players = [Player::Human; 2];
        for (i, s) in row.seats.iter().enumerate() {
            players[i] = Player::from_db(s).ok_or_else(|| bad(format!("seat {s}")))?;
        }
        let (mv_list, pos) = replayed(start, moves).map_err(|e| bad(e.to_string()))?;
        let moved = Line::new(start, &mv_list).sides_moved();
        let tags: Vec<(String, String)> =
            serde_json::from_str(&row.tags).map_err(|e| bad(format!("tags: {e}")))?;
        let berserked = super::game::berserk_tag(&tags).unwrap_or_default();
        let clock = match &row.clock {
            None => None,
            Some(c) => Some(Clock {
                control: TimeControl::parse(&c.control).map_err(|e| bad(e.to_string()))?,
                left: c.left.into(),
                since: c.since,
                no_increment: BySide::new(berserked.contains('S'), berserked.contains('N')),
            }),
        };
        let status = match row.status.as_str() {
            "playing" => Status::Playing,
            "aborted" => Status::Aborted,
            "over" => Status::Over {
                outcome: row
                    .result
                    .parse()
                    .map_err(|_| bad(format!("result {}", row.result)))?,
                termination: row.termination.as_deref().map(Termination::from_db),
            },
            other => return Err(bad(format!("status {other}"))),
        };
        Ok(Game {
            id: row.id,
            created: row.created,
            updated: row.updated,
            mode,
            rules,
            players: players.into(),
            secrets: row.secrets.into(),
            start,
            moves: mv_list,
            pos,
            status,
            rematch: row.rematch,
            tags,
            hints: row.hints,
            invite: row.invite,
            revision: row.revision,
            flips: 0,
            engine: row.engine,
            clock,
            moved,
            offer: row.offer.as_deref().and_then(Offer::from_db),
            away: row.away.into(),
            thinking: false,
            people: People {
                accounts: row.accounts.into(),
                rated: row.rated,
                public: row.public,
                ratings: GameRatings::from_json(row.ratings.as_deref()),
            },
        })
    }

    /// The row the store keeps (everything but the moves).
    pub fn to_row(&self) -> GameRow {
        let (status, result, termination) = self.status_columns();
        GameRow {
            id: self.id.clone(),
            created: self.created,
            updated: self.updated,
            mode: self.mode.name().to_string(),
            rules: self.rules.name().to_string(),
            seed: self.rules.seed().unwrap_or(0).to_string(),
            start: self.start.to_string(),
            seats: self.players.map(Player::to_db).into(),
            secrets: self.secrets.clone().into(),
            status: status.to_string(),
            result: result.to_string(),
            termination,
            rematch: self.rematch.clone(),
            tags: serde_json::to_string(&self.tags).unwrap_or_else(|_| "[]".to_string()),
            hints: self.hints,
            invite: self.invite.clone(),
            revision: self.revision,
            engine: self.engine.clone(),
            clock: self.clock.map(|c| ClockRow {
                control: c.control.name(),
                left: c.left.into(),
                since: c.since,
                deadline: self.deadline(),
            }),
            offer: self.offer.map(Offer::to_db),
            away: self.away.into(),
            accounts: self.people.accounts.clone().into(),
            rated: self.people.rated,
            public: self.people.public,
            ratings: self.people.ratings.to_json(),
            category: self.category().map(|c| c.name().to_string()),
        }
    }

    /// `status`, `result` and `termination` as the store and the API write them.
    pub fn status_columns(&self) -> (&'static str, &'static str, Option<String>) {
        match &self.status {
            Status::Playing => ("playing", "*", None),
            Status::Over {
                outcome,
                termination,
            } => (
                "over",
                outcome.as_str(),
                termination.as_ref().map(|t| t.to_db().to_string()),
            ),
            Status::Aborted => ("aborted", "*", None),
        }
    }
}

/// A stored move that does not read back, or cannot be played; `n` counts from 1.
#[derive(Debug, thiserror::Error)]
enum BadMove {
    #[error("move {n}: {error}")]
    Unread { n: usize, error: ParseMoveError },
    #[error("move {}: {}", .0.n, .0.error)]
    Illegal(IllegalMove),
}

/// A stored game's moves read and replayed from `start`, with the position after them; the
/// first move that does not read or cannot be played otherwise.
fn replayed(start: Position, moves: &[String]) -> Result<(Vec<Move>, Position), BadMove> {
    // The moves up to the first that does not read; an illegal one before it is the first
    // thing wrong.
    let mut read = Vec::with_capacity(moves.len());
    let mut unread = None;
    for (i, m) in moves.iter().enumerate() {
        match m.parse::<Move>() {
            Ok(mv) => read.push(mv),
            Err(error) => {
                unread = Some(BadMove::Unread { n: i + 1, error });
                break;
            }
        }
    }
    let end = Line::new(start, &read).end().map_err(BadMove::Illegal)?;
    match unread {
        Some(e) => Err(e),
        None => Ok((read, end)),
    }
}
