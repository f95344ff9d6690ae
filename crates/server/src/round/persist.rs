//! Storing a change: the same [`Change`] that is applied to memory, written in one
//! transaction (the store's methods), with the game as it will be after it.

use crate::round::game::{Change, Game};
use crate::store::{Head, StatusRow, Store, StoreResult};

/// Stores `change`, whose result is `after` (the game with the change applied, its revision
/// one past the one the change was checked against, and its engine claim set). Fails,
/// changing nothing, if the store refuses it, or with a conflict if another server changed
/// the game first: the caller then leaves the game in memory as it was.
pub fn persist(store: &Store, change: &Change, after: &Game) -> StoreResult<()> {
    let row = after.to_row();
    let head = Head {
        id: after.id.clone(),
        expect: after.revision - 1,
        at: after.updated,
        engine: row.engine,
        clock: row.clock,
        offer: row.offer,
        away: row.away,
    };
    let (status, result, termination) = after.status_columns();
    let status = StatusRow {
        status: status.to_string(),
        result: result.to_string(),
        termination,
    };
    match change {
        Change::Move { trace, .. } => {
            store.append_move(head, after.moves.len(), &trace.mv.to_string(), status)
        }
        Change::TakeBack { keep, .. } => store.truncate_moves(head, *keep),
        Change::Resign { .. }
        | Change::Flag { .. }
        | Change::Abort { .. }
        | Change::Draw { .. }
        | Change::Claim { .. } => store.set_status(head, status),
        Change::Offer(_) | Change::Decline { .. } | Change::Presence { .. } => store.touch(head),
        Change::Join { seat, secret } => store.claim_seat(head, seat.index(), secret),
        Change::Rematch { next } => store.create_rematch(head, &next.to_row()),
    }
}
