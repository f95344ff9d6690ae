//! Who sits where: the free seat taken by an invite, seats given to an account, a game made
//! public.

use anywoli_core::Side;

use super::Refusal;
use crate::round::change::Change;
use crate::round::game::{Game, Mode};

/// The free seat of a friend game, taken with `invite` by whoever holds `secret` from now on.
pub fn join(
    g: &Game,
    invite: Option<&str>,
    account: Option<&str>,
    secret: &str,
    at: i64,
) -> Result<(Side, Change), Refusal> {
    let seat = g
        .free_seat()
        .filter(|_| g.mode == Mode::Friend)
        .ok_or(Refusal::SeatTaken)?;
    if !g.invite_matches(invite) {
        return Err(Refusal::WrongInvite);
    }
    let change = Change::Join {
        seat,
        secret: secret.to_string(),
        account: account.map(str::to_string),
        at,
    };
    Ok((seat, change))
}

/// The seats in `held` that belong to nobody become `name`'s: how many, and the change if any.
pub fn own(g: &Game, held: &[Side], name: &str) -> (usize, Option<Change>) {
    let mut accounts = g.people.accounts.clone();
    let mut owned = 0;
    for side in held {
        if accounts[*side].is_none() {
            accounts[*side] = Some(name.to_string());
            owned += 1;
        }
    }
    let public = g.people.public;
    (
        owned,
        (owned > 0).then_some(Change::Seating { accounts, public }),
    )
}

/// Lists the game while it is played, or not: the change if it is one.
pub fn publish(g: &Game, public: bool) -> Option<Change> {
    (g.people.public != public).then(|| Change::Seating {
        accounts: g.people.accounts.clone(),
        public,
    })
}
