//! Moves: who may play one, a move checked against the clock, a move taken back, a hint.

use anywoli_core::{Move, Position, Side};

use super::Refusal;
use crate::round::change::Change;
use crate::round::game::{Game, Mode};
use crate::round::lag::SeatLags;

/// The seats `secret` holds in `g` (South, North or both).
pub fn held(g: &Game, secret: &str) -> Result<Vec<Side>, Refusal> {
    let held = g.seats_of(secret);
    if held.is_empty() {
        return Err(Refusal::WrongSecret);
    }
    Ok(held)
}

/// What a move comes to.
#[derive(Debug)]
pub enum Played {
    /// The move stands: store it.
    Move(Change),
    /// The mover's flag fell before the move arrived: store the flag, and the move is refused
    /// ([`Refusal::OutOfTime`]).
    Flagged(Change),
}

/// A move `mv` by who holds `held`, sent after `ply` moves (if the sender said), arriving at
/// `now` with `lag_ms` of network claimed (bounded by the round trips `lags` measured).
pub fn play(
    g: &Game,
    held: &[Side],
    mv: Move,
    ply: Option<usize>,
    lag_ms: i64,
    lags: &SeatLags,
    now: i64,
) -> Result<Played, Refusal> {
    if !g.is_playing() {
        return Err(Refusal::GameOver);
    }
    // A move sent from an older state is stale, whoever's turn it is now.
    if let Some(sent) = ply.filter(|&p| p != g.moves.len()) {
        return Err(Refusal::Stale {
            sent,
            now: g.moves.len(),
        });
    }
    let to_move = g.pos.to_move().ok_or(Refusal::GameOver)?;
    if !held.contains(&to_move) {
        return Err(Refusal::NotYourTurn { to_move });
    }
    let trace = g.pos.trace(mv).map_err(Refusal::IllegalMove)?;
    let lag_ms = lag_ms.min(lags.allowed(to_move));
    if g.clock.is_some_and(|c| c.flagged(to_move, now, lag_ms)) {
        return Ok(Played::Flagged(Change::Flag {
            loser: to_move,
            at: now,
        }));
    }
    Ok(Played::Move(Change::Move {
        trace,
        at: now,
        lag_ms,
    }))
}

/// Takes back the last move of the caller's seats (and what followed it).
pub fn take_back(g: &Game, held: &[Side], at: i64) -> Result<Change, Refusal> {
    if g.mode == Mode::Friend {
        return Err(Refusal::TakeBackBetweenFriends);
    }
    if !g.is_playing() {
        return Err(Refusal::Final);
    }
    // Back to the last position where one of the caller's seats was to move, so that a
    // take-back against the computer also undoes the computer's replies.
    let keep = g.line().take_back_to(held).ok_or(Refusal::NoMoveOfYours)?;
    Ok(Change::TakeBack { keep, at })
}

/// The position to hint in and the number of moves played, for the player to move.
pub fn hint(g: &Game, held: &[Side]) -> Result<(Position, usize), Refusal> {
    if !g.is_playing() {
        return Err(Refusal::GameOver);
    }
    let to_move = g.pos.to_move().ok_or(Refusal::GameOver)?;
    if !g.hints {
        return Err(Refusal::HintsOff);
    }
    if !held.contains(&to_move) {
        return Err(Refusal::HintNotYourTurn { to_move });
    }
    Ok((g.pos, g.moves.len()))
}
