//! Storing a change: the same [`Change`] that is applied to memory, written in one
//! transaction (the store's methods), with the game as it will be after it.

use crate::rating::GameRatings;
use crate::round::change::Change;
use crate::round::game::Game;
use crate::store::{Head, OffenceRow, RateGame, StatusRow, Store, StoreResult};

/// Stores `change`, whose result is `after` (the game with the change applied, its revision
/// one past the one the change was checked against, and its engine claim set). Fails,
/// changing nothing, if the store refuses it, or with a conflict if another server changed
/// the game first: the caller then leaves the game in memory as it was.
///
/// A change that ends a rated game rates it in the same transaction: the answer is then the
/// game's ratings with what the game did to them. So is `offence`, a player's fault that it
/// ends the game with (crate::round::offence).
pub fn persist(
    store: &Store,
    change: &Change,
    after: &Game,
    offence: Option<OffenceRow>,
) -> StoreResult<Option<GameRatings>> {
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
    let rate = match (after.score_to_rate(), after.category()) {
        (Some(score_south), Some(category)) => Some(RateGame {
            names: after
                .people
                .accounts
                .clone()
                .map(Option::unwrap_or_default)
                .into(),
            category: category.name().to_string(),
            rules: after.rules.name().to_string(),
            score_south,
            plies: after.moves.len(),
        }),
        _ => None,
    };
    // Counted in the explorer in the transaction that ends the game, once: `change` ends it.
    let ends = !matches!(after.status, crate::round::game::Status::Playing)
        && matches!(
            change,
            Change::Move { .. }
                | Change::Resign { .. }
                | Change::Flag { .. }
                | Change::Draw { .. }
                | Change::Claim { .. }
        );
    let status = StatusRow {
        status: status.to_string(),
        result: result.to_string(),
        termination,
        rate,
        offence,
        explore: ends.then(|| crate::explorer::explore_game(after)).flatten(),
    };
    stored(store, change, after, head, status)
}

fn stored(
    store: &Store,
    change: &Change,
    after: &Game,
    head: Head,
    status: StatusRow,
) -> StoreResult<Option<GameRatings>> {
    // Only the changes that can end a game can rate it.
    let unrated = |r: StoreResult<()>| r.map(|()| None);
    match change {
        Change::Move { trace, .. } => {
            store.append_move(head, after.moves.len(), &trace.mv.to_string(), status)
        }
        Change::TakeBack { keep, .. } => unrated(store.truncate_moves(head, *keep)),
        Change::Resign { .. }
        | Change::Flag { .. }
        | Change::Abort { .. }
        | Change::Draw { .. }
        | Change::Claim { .. } => store.set_status(head, status),
        Change::Offer(_) | Change::Decline { .. } | Change::Presence { .. } => {
            unrated(store.touch(head))
        }
        Change::Join {
            seat,
            secret,
            account,
            ..
        } => unrated(store.claim_seat(head, seat.index(), secret, account.as_deref())),
        Change::Seating { accounts, public } => {
            unrated(store.set_seating(head, accounts.clone().into(), *public))
        }
        Change::Rematch { next } => unrated(store.create_rematch(head, &next.to_row())),
        Change::Berserk { .. } => unrated(store.retag(head, &after.to_row().tags)),
    }
}
