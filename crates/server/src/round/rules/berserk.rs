//! Berserk (an arena's games, docs/tournaments.md): a player halves their own clock and gives
//! up the increment, before their first move, for a point more if they win a game long enough.

use anywoli_core::Side;

use super::Refusal;
use crate::round::change::Change;
use crate::round::clock::TimeControl;
use crate::round::game::{berserk_tag, Game};

/// Berserks for who holds `held` (one seat: on one screen there is nobody to gain on).
pub fn berserk(g: &Game, held: &[Side], at: i64) -> Result<Change, Refusal> {
    if !g.is_playing() {
        return Err(Refusal::GameOver);
    }
    let [side] = held else {
        return Err(Refusal::NoBerserk);
    };
    let sides = berserk_tag(&g.tags).ok_or(Refusal::NoBerserk)?;
    let real_time = g
        .clock
        .is_some_and(|c| matches!(c.control, TimeControl::RealTime { .. }));
    if !real_time || g.moved[*side] {
        return Err(Refusal::NoBerserk);
    }
    let mark = if *side == Side::South { 'S' } else { 'N' };
    if sides.contains(mark) {
        return Err(Refusal::NoBerserk);
    }
    Ok(Change::Berserk { side: *side, at })
}
