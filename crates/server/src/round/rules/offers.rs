//! What two people offer each other (a draw, a take-back) and the win claimed from a player
//! gone long enough.

use anywoli_core::Side;

use super::Refusal;
use crate::round::change::Change;
use crate::round::game::{claim_after_ms, Game, Mode, Offer, OfferKind};

/// The one side who holds `held` plays in a game between two people: offers are between them.
pub fn one_of_two(g: &Game, held: &[Side]) -> Result<Side, Refusal> {
    match (held, g.mode) {
        ([side], Mode::Friend) => Ok(*side),
        _ => Err(Refusal::OffersBetweenPeople),
    }
}

/// What an offer comes to.
#[derive(Debug)]
pub enum OfferStep {
    /// The player's same offer already waits: nothing changes.
    Standing,
    /// The other player made the same offer: both want it, so it is accepted.
    Accept,
    /// A new offer: store it.
    Make(Change),
}

/// `me` offers a draw or asks to take their last move back.
pub fn offer(g: &Game, me: Side, kind: OfferKind) -> Result<OfferStep, Refusal> {
    if !g.is_playing() {
        return Err(Refusal::GameOver);
    }
    match g.offer {
        Some(o) if o.by == me && o.kind == kind => return Ok(OfferStep::Standing),
        Some(o) if o.kind == kind => return Ok(OfferStep::Accept),
        Some(o) => {
            return Err(Refusal::OfferWaiting {
                by: o.by,
                kind: o.kind,
            })
        }
        None => {}
    }
    if kind == OfferKind::TakeBack && g.line().take_back_to(&[me]).is_none() {
        return Err(Refusal::NoMoveOfYours);
    }
    Ok(OfferStep::Make(Change::Offer(Offer { kind, by: me })))
}

/// `me` accepts or declines the waiting offer (declining one's own withdraws it).
pub fn answer(g: &Game, me: Side, accept: bool, at: i64) -> Result<Change, Refusal> {
    if !g.is_playing() {
        return Err(Refusal::GameOver);
    }
    let offer = g.offer.ok_or(Refusal::NoOffer)?;
    if !accept {
        return Ok(Change::Decline { by: me });
    }
    if offer.by == me {
        return Err(Refusal::OfferIsYours);
    }
    Ok(match offer.kind {
        OfferKind::Draw => Change::Draw { at },
        OfferKind::TakeBack => {
            let keep = g
                .line()
                .take_back_to(&[offer.by])
                .ok_or(Refusal::NoMoveToTakeBack)?;
            Change::TakeBack { keep, at }
        }
    })
}

/// `me` claims the win from an opponent away for at least [`claim_after_ms`].
pub fn claim(g: &Game, me: Side, now: i64) -> Result<Change, Refusal> {
    if !g.is_playing() {
        return Err(Refusal::GameOver);
    }
    let wait_ms = claim_after_ms(g.category()).ok_or(Refusal::ClockDecides)?;
    let other = me.opponent();
    let since = g.away[other].ok_or(Refusal::OpponentHere { other })?;
    let gone_ms = now - since;
    if gone_ms < wait_ms {
        return Err(Refusal::TooSoonToClaim {
            other,
            gone_ms,
            wait_ms,
        });
    }
    Ok(Change::Claim {
        winner: me,
        at: now,
    })
}
