//! Which player, if any, a change that ends a game between two people finds at fault (issue 38,
//! docs/community.md, "Waits after leaving, stalling or never moving"): the one who left and
//! lost by a claim, the one whose first move never came, the one who sat on a lost position
//! until their flag fell. Decided from the game before the change, which the round holds.

use anywoli_core::{BySide, Side};

use super::change::Change;
use super::clock::TimeControl;
use super::game::{Game, Mode, Player};
use crate::store::{OffenceKind, OffenceRow};

/// A flag is "sitting" only if the loser's last turn lasted at least this long: a player who
/// runs short of time while thinking flags within seconds of their turn; one who lets 30 s and
/// more go by on a lost position is waiting for the opponent to give up (lichess's floor).
pub const STALL_MIN_MS: i64 = 30_000;

/// ... and only with the opponent this many seeds ahead in store (of 96; 49 win): an eighth of
/// the seeds, more than any one capture but the rarest brings, so the position was lost.
pub const STALL_BEHIND_SEEDS: u8 = 12;

/// The offence `change` commits against `before` (the game as it was), if any.
pub fn offence_of(before: &Game, change: &Change) -> Option<OffenceRow> {
    let (side, kind, at) = match *change {
        Change::Claim { winner, at } if !correspondence(before) => {
            (winner.opponent(), OffenceKind::Left, at)
        }
        Change::Abort { at } => {
            // Only the abort of a first move's wait: a player's own abort is no offence, and
            // the other player (whose move was not due) is not at fault.
            let due = before.first_move_deadline().is_some_and(|d| at >= d);
            (
                before.pos.to_move().filter(|_| due)?,
                OffenceKind::NoFirstMove,
                at,
            )
        }
        Change::Flag { loser, at } if sat(before, loser, at) => (loser, OffenceKind::Stalled, at),
        _ => return None,
    };
    if !between_people(before) {
        return None;
    }
    Some(OffenceRow {
        game: before.id.clone(),
        account: before.people.accounts[side].clone()?,
        kind,
        at,
    })
}

/// Two people on two devices, each with an account (not the computer, not one screen).
fn between_people(g: &Game) -> bool {
    g.mode == Mode::Friend
        && g.players == BySide::both(Player::Human)
        && g.people.accounts.iter().all(Option::is_some)
}

fn correspondence(g: &Game) -> bool {
    g.clock
        .is_some_and(|c| matches!(c.control, TimeControl::Correspondence { .. }))
}

/// Whether `loser`, flagged at `at`, sat on a lost position (see [`STALL_MIN_MS`]).
fn sat(g: &Game, loser: Side, at: i64) -> bool {
    let Some(clock) = g.clock.filter(|_| !correspondence(g)) else {
        return false;
    };
    let Some(since) = clock.since else {
        return false;
    };
    let turn = at - since;
    let behind = g
        .pos
        .store(loser.opponent())
        .saturating_sub(g.pos.store(loser));
    // At least half of what the loser had when the turn began went by in it (at a flag, all
    // of it did, unless the clock was restarted meanwhile): the rule as docs/community.md says.
    turn >= STALL_MIN_MS && turn * 2 >= clock.left[loser] && behind >= STALL_BEHIND_SEEDS
}

#[cfg(test)]
mod offence_tests {
    use anywoli_core::{Position, Rules};

    use super::*;
    use crate::round::clock::Clock;

    fn game(mode: Mode, clock: &str, accounts: bool) -> Game {
        let players = match mode {
            Mode::Computer => [Player::Human, Player::Computer(3)],
            _ => [Player::Human; 2],
        };
        let mut g = crate::round::rules::tests::game(mode, players, Some(clock));
        if accounts {
            g.people.accounts = BySide::from([Some("ann".to_string()), Some("bo".to_string())]);
        }
        g
    }

    fn kind(g: &Game, c: Change) -> Option<(String, OffenceKind)> {
        offence_of(g, &c).map(|o| (o.account, o.kind))
    }

    #[test]
    fn who_left_or_never_moved_is_at_fault_between_two_accounts_only() {
        let g = game(Mode::Friend, "3+2", true);
        let claim = Change::Claim {
            winner: Side::North,
            at: 5_000,
        };
        assert_eq!(
            kind(&g, claim.clone()),
            Some(("ann".into(), OffenceKind::Left))
        );
        assert_eq!(kind(&game(Mode::Friend, "3+2", false), claim.clone()), None);
        assert_eq!(
            kind(&game(Mode::Computer, "3+2", true), claim.clone()),
            None
        );
        assert_eq!(kind(&game(Mode::Friend, "2d", true), claim), None);
        // The first move's wait ran out: South's, not North's; a player's own abort is none.
        let due = g.first_move_deadline().unwrap();
        assert_eq!(
            kind(&g, Change::Abort { at: due }),
            Some(("ann".into(), OffenceKind::NoFirstMove))
        );
        assert_eq!(kind(&g, Change::Abort { at: due - 1 }), None);
    }

    #[test]
    fn a_flag_after_sitting_on_a_lost_position_is_stalling() {
        let mut g = game(Mode::Friend, "3+2", true);
        let mut holes = *g.pos.holes();
        // North has captured 16 seeds (from South's first four holes).
        holes[..4].copy_from_slice(&[0; 4]);
        let pos = Position::from_parts(
            holes,
            [0, 16],
            Some(Side::South),
            None,
            None,
            0,
            20,
            Rules::Anywoli,
        );
        g.pos = pos.unwrap();
        let control = TimeControl::parse("3+2").unwrap();
        g.clock = Some(Clock {
            control,
            left: BySide::from([40_000, 90_000]),
            since: Some(100_000),
            no_increment: BySide::both(false),
        });
        let flag = |at| Change::Flag {
            loser: Side::South,
            at,
        };
        assert_eq!(
            kind(&g, flag(140_000)),
            Some(("ann".into(), OffenceKind::Stalled))
        );
        // A short last turn (a scramble on a low clock) is no stalling.
        g.clock = g.clock.map(|c| Clock {
            left: BySide::from([20_000, 90_000]),
            ..c
        });
        assert_eq!(kind(&g, flag(120_000)), None);
        // Nor is a long one on an even position.
        g.clock = g.clock.map(|c| Clock {
            left: BySide::from([40_000, 90_000]),
            ..c
        });
        g.pos = Position::start(Rules::Anywoli);
        assert_eq!(kind(&g, flag(140_000)), None);
    }
}
