//! What the writer runs: [`Op`], the changes that answer whether they took effect, and the
//! changes that answer something else (a puzzle attempt's ratings, how many rows an import
//! wrote), each a [`Change`] with its own answer's type.

#[cfg(test)]
use std::sync::mpsc::{Receiver, SyncSender};

use super::Change;
use crate::store::games;
use crate::store::sql::Sql;
use crate::store::{Conn, EngineClaim, GameRow, Head, Heard, HeardMove, StatusRow, StoreResult};

/// A change to the database, owning what it writes (it crosses to the writer's thread),
/// that answers whether it took effect (`claim_engine`, a new account, a puzzle, lessons);
/// true for the others, which either take effect or fail.
pub(in crate::store) enum Op {
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
    /// Not a change of any game.
    Account(crate::store::AccountOp),
    /// A game's review (not a change of the game).
    SaveReview(crate::store::ReviewRow),
    /// A community puzzle (not a change of any game); answers false when its position is a
    /// puzzle already.
    SavePuzzle(crate::store::PuzzleRow),
    /// Exercises of the course an account has done (not a change of any game); answers
    /// whether any was new.
    LessonsDone {
        account: String,
        exercises: Vec<String>,
        at: i64,
    },
    /// A message for the other instances' lobbies (PostgreSQL's `NOTIFY`).
    Publish {
        channel: String,
        payload: String,
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
    SetReadOnly(bool),
    /// Runs SQL as a change of its own, for tests that need a batch to fail in some way.
    #[cfg(test)]
    Sql(&'static str),
    /// Runs `first`, says so on `entered`, then keeps the batch's transaction open until
    /// `resume` hears from the test (or is dropped).
    #[cfg(test)]
    Hold {
        first: Box<Op>,
        entered: SyncSender<()>,
        resume: Receiver<()>,
    },
}

impl Change for Op {
    type Out = bool;

    /// `PRAGMA query_only` is a setting of the connection, not a change in a transaction: it
    /// runs between batches, so the changes sent before it are committed under the old
    /// setting and those sent after it run under the new one.
    fn between_batches(&self) -> bool {
        matches!(self, Op::SetReadOnly(_))
    }

    /// What the other instances must hear of this change once committed, if it changed a
    /// game they may hold.
    fn heard(&self) -> Option<Heard> {
        let (head, mv) = match self {
            Op::AppendMove { head, ply, mv, .. } => (
                head,
                Some(HeardMove {
                    ply: *ply,
                    mv: mv.clone(),
                    at: head.at,
                    engine: head.engine.clone(),
                    clock: head.clock.clone(),
                }),
            ),
            Op::TruncateMoves { head, .. }
            | Op::SetStatus { head, .. }
            | Op::Touch { head }
            | Op::ClaimSeat { head, .. }
            | Op::SetSeating { head, .. }
            | Op::CreateRematch { head, .. } => (head, None),
            #[cfg(test)]
            Op::Hold { first, .. } => return first.heard(),
            _ => return None,
        };
        Some(Heard {
            id: head.id.clone(),
            revision: head.expect + 1,
            mv,
        })
    }

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<bool> {
        match self {
            Op::CreateGame { row, moves } => games::insert_game(c.sql(), row, moves)?,
            Op::AppendMove {
                head,
                ply,
                mv,
                status,
            } => games::append_move(c, head, *ply, mv, status)?,
            Op::TruncateMoves { head, keep } => games::truncate_moves(c, head, *keep)?,
            Op::SetStatus { head, status } => games::set_status(c, head, status)?,
            Op::Touch { head } => games::touch(c, head)?,
            Op::ClaimSeat {
                head,
                seat,
                secret,
                account,
            } => games::claim_seat(c, head, *seat, secret, account.as_ref())?,
            Op::SetSeating {
                head,
                accounts,
                public,
            } => games::set_seating(c, head, accounts, *public)?,
            Op::CreateRematch { head, next } => games::create_rematch(c, head, next)?,
            Op::ClaimEngine {
                id,
                expect,
                claim,
                now,
            } => return games::claim_engine(c.sql(), id, *expect, claim, *now),
            Op::SetReadOnly(on) => c.set_read_only(*on)?,
            Op::Publish { channel, payload } => c.notify(channel, payload)?,
            #[cfg(test)]
            Op::Sql(sql) => c.exec(sql)?,
            #[cfg(test)]
            Op::Hold {
                first,
                entered,
                resume,
            } => {
                let took = first.apply(c)?;
                let _ = entered.send(());
                let _ = resume.recv();
                return Ok(took);
            }
            other => return other.apply_other(c.sql()),
        }
        Ok(true)
    }
}

impl Op {
    /// The changes that are not changes of a game, in SQL both backends share.
    fn apply_other(&self, db: &mut dyn Sql) -> StoreResult<bool> {
        match self {
            Op::Account(op) => return crate::store::accounts::apply(db, op),
            Op::SaveReview(r) => crate::store::reviews::save(db, r)?,
            Op::SavePuzzle(p) => return crate::store::puzzles::save(db, p),
            Op::LessonsDone {
                account,
                exercises,
                at,
            } => return Ok(crate::store::lessons::record(db, account, exercises, *at)? > 0),
            _ => unreachable!("Op::apply runs the changes of games itself"),
        }
        Ok(true)
    }
}

/// A solver's attempt at a puzzle, rated if it is the first: the ratings before and after,
/// `None` when nothing changed.
pub(in crate::store) struct RatePuzzle(pub(in crate::store) crate::store::Attempt);

impl Change for RatePuzzle {
    type Out = Option<crate::store::Rated>;

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<Self::Out> {
        crate::store::puzzle_ratings::rate(c.sql(), &self.0)
    }
}

/// Puzzle ratings copied from another store (`anywoli db migrate`): how many rows it wrote.
pub(in crate::store) struct ImportPuzzleRatings(pub(in crate::store) crate::store::RatingsDump);

impl Change for ImportPuzzleRatings {
    type Out = u64;

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<u64> {
        crate::store::puzzle_ratings::import(c.sql(), &self.0)
    }
}

/// Course progress copied from another store (`anywoli db migrate`): how many rows it wrote.
pub(in crate::store) struct ImportLessonProgress(pub(in crate::store) Vec<(String, String, i64)>);

impl Change for ImportLessonProgress {
    type Out = u64;

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<u64> {
        crate::store::lessons::import(c.sql(), &self.0)
    }
}
