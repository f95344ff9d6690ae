//! A game ended by its players before the rules end it: called off, or resigned.

use anywoli_core::Side;

use super::Refusal;
use crate::round::change::Change;
use crate::round::game::Game;

/// Calls the game off: only before each side has moved once.
pub fn abort(g: &Game, at: i64) -> Result<Change, Refusal> {
    if !g.is_playing() {
        return Err(Refusal::GameOver);
    }
    if !g.can_abort() {
        return Err(Refusal::BothMoved);
    }
    Ok(Change::Abort { at })
}

/// Resigns for who holds `held`: on one screen (both seats), the player to move.
pub fn resign(g: &Game, held: &[Side], at: i64) -> Result<Change, Refusal> {
    if !g.is_playing() {
        return Err(Refusal::GameOver);
    }
    let loser = match (held, g.pos.to_move()) {
        ([one], _) => *one,
        (_, Some(s)) => s,
        (_, None) => return Err(Refusal::GameOver),
    };
    Ok(Change::Resign { loser, at })
}
