//! What keeps games between people fair when a player stops playing or hands points over
//! (issue 36): which games are too short to rate, how long a first move may take, how long a
//! player may be away before the opponent claims the win. The game (`game.rs`) asks these.

use crate::rating::Category;

/// A rated game that its players end themselves (a resignation, an agreed draw, a claim of the
/// win from a player who left) changes ratings only if it ended after this many plies (each
/// side moved twice). Issue 36: two accounts of one person took one from 1500 to 1842 in ten
/// games resigned at ply 0. No game of Anywoli ends by its rules this early (92 seeds are
/// still in play), and a flag needs both clocks run down first (15 s at the least), so these
/// are the quick ways to hand ratings over; lichess likewise rates no game under 2 plies.
pub const MIN_RATED_PLIES: usize = 4;

/// How long a player of a real-time game between two people has for their first move, from
/// the moment it is theirs (both seats taken, or the opponent's first move), by the clock's
/// category; past it the game is aborted (no result, no rating). Issue 36: a 10+5 game with no
/// move was still live 31 minutes later. lichess aborts after 20 to 35 s by speed; these are a
/// little longer, for a phone on a slow network, and at most 60 s as the issue asks. A
/// correspondence game (days per move) has none: its clock runs from the first move.
pub fn first_move_ms(category: Category) -> Option<i64> {
    match category {
        Category::Bullet | Category::Blitz => Some(30_000),
        Category::Rapid => Some(45_000),
        Category::Classical => Some(60_000),
        Category::Correspondence => None,
    }
}

/// How long a player of a game between two people must have been away (no connection to the
/// game) before the opponent may claim the win, by the clock's category (`None`: untimed).
/// lichess waits 40 s offline, twice that in rapid and three times in classical; a slower
/// game gives a phone more time to change networks, and its player has more time on the
/// clock to lose. A correspondence game has none: its days per move decide.
pub fn claim_after_ms(category: Option<Category>) -> Option<i64> {
    match category {
        None | Some(Category::Bullet | Category::Blitz) => Some(40_000),
        Some(Category::Rapid) => Some(80_000),
        Some(Category::Classical) => Some(120_000),
        Some(Category::Correspondence) => None,
    }
}
