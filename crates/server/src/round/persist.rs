//! Storing a change: the same [`Change`] that is applied to memory, written in one
//! transaction (the store's methods), with the game as it will be after it.

use crate::round::game::{Change, Game};
use crate::store::{Store, StoreResult};

/// Stores `change`, whose result is `after` (the game with the change applied). Fails, changing
/// nothing, if the store refuses it: the caller then leaves the game in memory as it was.
pub fn persist(store: &Store, change: &Change, after: &Game) -> StoreResult<()> {
    let (status, result, termination) = after.status_columns();
    match change {
        Change::Move { trace, at } => store.append_move(
            &after.id,
            after.moves.len(),
            &trace.mv.to_string(),
            *at,
            status,
            result,
            termination.as_deref(),
        ),
        Change::TakeBack { keep, at } => store.truncate_moves(&after.id, *keep, *at),
        Change::Resign { at, .. } => {
            store.set_status(&after.id, *at, status, result, termination.as_deref())
        }
        Change::Join { seat, secret } => {
            if store.claim_seat(&after.id, seat.index(), secret)? {
                Ok(())
            } else {
                Err(crate::store::StoreError(
                    "the seat was taken in the database meanwhile".to_string(),
                ))
            }
        }
        Change::Rematch { next } => {
            if store.create_rematch(&after.id, &next.to_row())? {
                Ok(())
            } else {
                Err(crate::store::StoreError(
                    "the game already has a rematch in the database".to_string(),
                ))
            }
        }
    }
}
