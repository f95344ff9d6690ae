//! A game's changes as the writer runs them ([`GameOp`]): what each owns to cross to the
//! writer's thread, what the other instances hear of it once committed, and which of the
//! changes in `change.rs` it runs.

use super::change::{
    append_move, claim_engine, claim_seat, create_rematch, insert_game, retag, set_seating,
    set_status, touch, truncate_moves,
};
use super::{EngineClaim, GameRow, Head, StatusRow};
use crate::rating::GameRatings;
use crate::store::writer::Change;
use crate::store::{Conn, Heard, HeardMove, StoreResult};

/// A change of a game (or of who plays its engine's move), owning what it writes; answers
/// with [`GameDone`].
pub(in crate::store) enum GameOp {
    CreateGame {
        row: GameRow,
        moves: Vec<String>,
    },
    AppendMove {
        head: Head,
        ply: i64,
        mv: String,
        status: StatusRow,
    },
    TruncateMoves {
        head: Head,
        keep: i64,
    },
    SetStatus {
        head: Head,
        status: StatusRow,
    },
    /// Only what the head carries changes (an offer).
    Touch {
        head: Head,
    },
    Retag {
        head: Head,
        tags: String,
    },
    ClaimSeat {
        head: Head,
        seat: usize,
        secret: String,
        /// The account of whoever took the seat.
        account: Option<String>,
    },
    SetSeating {
        head: Head,
        accounts: [Option<String>; 2],
        public: bool,
    },
    CreateRematch {
        head: Head,
        next: GameRow,
    },
    /// Not a change of the game (its revision stays): who plays the engine's move.
    ClaimEngine {
        id: String,
        expect: i64,
        claim: EngineClaim,
        now: i64,
    },
}

/// What a game change did: whether it took effect (`ClaimEngine` may not; the others take
/// effect or fail), and the change of its players' ratings if it ended a rated game (written in
/// the same transaction).
#[derive(Debug)]
pub(in crate::store) struct GameDone {
    pub(in crate::store) took: bool,
    pub(in crate::store) ratings: Option<GameRatings>,
}

impl Change for GameOp {
    type Out = GameDone;

    /// What the other instances must hear of this change once committed: every change of a
    /// game they may hold, with the move if it is one.
    fn heard(&self) -> Option<Heard> {
        let (head, mv) = match self {
            GameOp::AppendMove { head, ply, mv, .. } => (
                head,
                Some(HeardMove {
                    ply: *ply,
                    mv: mv.clone(),
                    at: head.at,
                    engine: head.engine.clone(),
                    clock: head.clock.clone(),
                }),
            ),
            GameOp::TruncateMoves { head, .. }
            | GameOp::SetStatus { head, .. }
            | GameOp::Touch { head }
            | GameOp::Retag { head, .. }
            | GameOp::ClaimSeat { head, .. }
            | GameOp::SetSeating { head, .. }
            | GameOp::CreateRematch { head, .. } => (head, None),
            GameOp::CreateGame { .. } | GameOp::ClaimEngine { .. } => return None,
        };
        Some(Heard {
            id: head.id.clone(),
            revision: head.expect + 1,
            mv,
        })
    }

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<GameDone> {
        match self {
            GameOp::CreateGame { row, moves } => insert_game(c.sql(), row, moves)?,
            GameOp::AppendMove {
                head,
                ply,
                mv,
                status,
            } => return done(append_move(c, head, *ply, mv, status)?),
            GameOp::TruncateMoves { head, keep } => truncate_moves(c, head, *keep)?,
            GameOp::SetStatus { head, status } => return done(set_status(c, head, status)?),
            GameOp::Touch { head } => touch(c, head)?,
            GameOp::Retag { head, tags } => retag(c, head, tags)?,
            GameOp::ClaimSeat {
                head,
                seat,
                secret,
                account,
            } => claim_seat(c, head, *seat, secret, account.as_ref())?,
            GameOp::SetSeating {
                head,
                accounts,
                public,
            } => set_seating(c, head, accounts, *public)?,
            GameOp::CreateRematch { head, next } => create_rematch(c, head, next)?,
            GameOp::ClaimEngine {
                id,
                expect,
                claim,
                now,
            } => {
                let took = claim_engine(c.sql(), id, *expect, claim, *now)?;
                return Ok(GameDone {
                    took,
                    ratings: None,
                });
            }
        }
        done(None)
    }
}

/// A change that took effect, with the ratings' change if it made one.
fn done(ratings: Option<GameRatings>) -> StoreResult<GameDone> {
    Ok(GameDone {
        took: true,
        ratings,
    })
}
