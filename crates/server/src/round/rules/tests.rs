//! The rules on games in memory: no store, no actor, no clock but the one passed in.

use anywoli_core::{BySide, Position, Rules, Side};
use axum::http::StatusCode;

use super::*;
use crate::error::ErrorCode;
use crate::round::change::Change;
use crate::round::clock::TimeControl;
use crate::round::game::{Game, Mode, NewGame, OfferKind, People, Player, Status};
use crate::round::lag::SeatLags;

const SOUTH: &str = "south-secret";
const NORTH: &str = "north-secret";

/// A game in memory, both seats taken (the offence rules' tests make theirs here too).
pub(crate) fn game(mode: Mode, players: [Player; 2], clock: Option<&str>) -> Game {
    let secrets = match mode {
        Mode::Local => [Some(SOUTH.into()), Some(SOUTH.into())],
        _ => [Some(SOUTH.into()), Some(NORTH.into())],
    };
    Game::new(NewGame {
        id: "abcdefghijkm".into(),
        at: 1_000,
        mode,
        rules: Rules::Anywoli,
        players: players.into(),
        secrets: secrets.into(),
        start: Position::start(Rules::Anywoli),
        hints: true,
        invite: None,
        clock: clock.map(|c| TimeControl::parse(c).unwrap()),
        people: People::anonymous(mode),
    })
}

fn friends() -> Game {
    game(Mode::Friend, [Player::Human; 2], None)
}

/// Plays `moves` through the rules, as the actor would, each at `at`.
fn played(mut g: Game, moves: &[&str], at: i64) -> Game {
    for mv in moves {
        let to_move = g.pos.to_move().unwrap();
        let secret = if g.mode == Mode::Local || to_move == Side::South {
            SOUTH
        } else {
            NORTH
        };
        let held = held(&g, secret).unwrap();
        let lags = SeatLags::default();
        match play(&g, &held, mv.parse().unwrap(), None, 0, &lags, at).unwrap() {
            Played::Move(change) => g.apply(&change),
            Played::Flagged(_) => panic!("{mv} flagged"),
        };
    }
    g
}

#[test]
fn only_a_seat_s_secret_holds_it() {
    let g = friends();
    assert_eq!(held(&g, SOUTH), Ok(vec![Side::South]));
    assert_eq!(held(&g, "guess"), Err(Refusal::WrongSecret));
    let local = game(Mode::Local, [Player::Human; 2], None);
    assert_eq!(held(&local, SOUTH), Ok(vec![Side::South, Side::North]));
}

#[test]
fn a_move_is_refused_out_of_turn_stale_or_illegal() {
    let g = played(friends(), &["e"], 2_000);
    let lags = SeatLags::default();
    let north_move = "F".parse().unwrap();
    let r = play(&g, &[Side::South], north_move, None, 0, &lags, 3_000).unwrap_err();
    assert_eq!(
        r,
        Refusal::NotYourTurn {
            to_move: Side::North
        }
    );
    assert_eq!(r.to_string(), "it is North's turn, and your seat is South");
    assert_eq!(r.code(), (StatusCode::CONFLICT, ErrorCode::NotYourTurn));
    let r = play(&g, &[Side::North], north_move, Some(0), 0, &lags, 3_000).unwrap_err();
    assert_eq!(r, Refusal::Stale { sent: 0, now: 1 });
    assert_eq!(r.code(), (StatusCode::CONFLICT, ErrorCode::Stale));
    let south_hole = "e".parse().unwrap();
    let r = play(&g, &[Side::North], south_hole, Some(1), 0, &lags, 3_000).unwrap_err();
    assert!(matches!(r, Refusal::IllegalMove(_)), "{r:?}");
    assert_eq!(r.code().0, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(matches!(
        play(&g, &[Side::North], north_move, Some(1), 0, &lags, 3_000),
        Ok(Played::Move(Change::Move { at: 3_000, .. }))
    ));
}

#[test]
fn a_move_after_the_flag_fell_stores_the_flag() {
    // 1+0: both sides move once, then South's minute runs out before the next move arrives.
    let g = game(Mode::Friend, [Player::Human; 2], Some("1+0"));
    let g = played(g, &["e", "F"], 2_000);
    let lags = SeatLags::default();
    let late = 2_000 + 60_001;
    match play(
        &g,
        &[Side::South],
        "a".parse().unwrap(),
        None,
        0,
        &lags,
        late,
    ) {
        Ok(Played::Flagged(Change::Flag { loser, at })) => {
            assert_eq!((loser, at), (Side::South, late));
        }
        other => panic!("expected the flag, got {other:?}"),
    }
    assert!(matches!(
        play(
            &g,
            &[Side::South],
            "a".parse().unwrap(),
            None,
            0,
            &lags,
            late - 2
        ),
        Ok(Played::Move(_))
    ));
}

#[test]
fn take_backs_belong_to_the_computer_and_one_screen_and_never_to_a_finished_game() {
    let friends_game = played(friends(), &["e"], 2);
    assert_eq!(
        take_back(&friends_game, &[Side::South], 3).unwrap_err(),
        Refusal::TakeBackBetweenFriends
    );
    let vs = game(Mode::Computer, [Player::Human, Player::Computer(3)], None);
    assert_eq!(
        take_back(&vs, &[Side::South], 3).unwrap_err(),
        Refusal::NoMoveOfYours
    );
    // South's move and the computer's reply go back together.
    let vs = played(vs, &["e", "F"], 2);
    let Ok(Change::TakeBack { keep: 0, at: 3 }) = take_back(&vs, &[Side::South], 3) else {
        panic!("the take-back keeps no move");
    };
    let mut over = vs;
    over.apply(&resign(&over, &[Side::South], 4).unwrap());
    assert_eq!(
        take_back(&over, &[Side::South], 5).unwrap_err(),
        Refusal::Final
    );
}

#[test]
fn offers_stand_meet_and_wait_their_turn() {
    let g = played(friends(), &["e", "F"], 2);
    assert_eq!(
        one_of_two(
            &game(Mode::Local, [Player::Human; 2], None),
            &[Side::South, Side::North]
        ),
        Err(Refusal::OffersBetweenPeople)
    );
    let Ok(OfferStep::Make(change)) = offer(&g, Side::South, OfferKind::Draw) else {
        panic!("a first offer is made");
    };
    let mut g = g;
    g.apply(&change);
    assert!(matches!(
        offer(&g, Side::South, OfferKind::Draw),
        Ok(OfferStep::Standing)
    ));
    assert!(matches!(
        offer(&g, Side::North, OfferKind::Draw),
        Ok(OfferStep::Accept)
    ));
    let r = offer(&g, Side::North, OfferKind::TakeBack).unwrap_err();
    assert_eq!(
        r.to_string(),
        "South has a draw offer waiting: answer it first"
    );
    assert_eq!(
        answer(&g, Side::South, true, 5).unwrap_err(),
        Refusal::OfferIsYours
    );
    assert!(matches!(
        answer(&g, Side::South, false, 5),
        Ok(Change::Decline { by: Side::South })
    ));
    assert!(matches!(
        answer(&g, Side::North, true, 5),
        Ok(Change::Draw { at: 5 })
    ));
    let fresh = friends();
    assert_eq!(
        offer(&fresh, Side::South, OfferKind::TakeBack).unwrap_err(),
        Refusal::NoMoveOfYours
    );
    assert_eq!(
        answer(&fresh, Side::North, true, 5).unwrap_err(),
        Refusal::NoOffer
    );
}

#[test]
fn a_win_is_claimed_only_from_a_player_away_long_enough() {
    let mut g = played(friends(), &["e", "F"], 2);
    assert_eq!(
        claim(&g, Side::South, 10).unwrap_err(),
        Refusal::OpponentHere { other: Side::North }
    );
    g.apply(&Change::Presence {
        side: Side::North,
        away: Some(1_000),
    });
    let r = claim(&g, Side::South, 1_000 + 39_999).unwrap_err();
    assert_eq!(
        r.to_string(),
        "North left 39 s ago: the win can be claimed once they have been away 40 s"
    );
    assert!(matches!(
        claim(&g, Side::South, 1_000 + 40_000),
        Ok(Change::Claim {
            winner: Side::South,
            ..
        })
    ));
    let days = game(Mode::Friend, [Player::Human; 2], Some("3d"));
    assert_eq!(
        claim(&days, Side::South, 10).unwrap_err(),
        Refusal::ClockDecides
    );
}

#[test]
fn an_abort_ends_only_a_game_not_yet_begun_and_a_resignation_any_game_going_on() {
    let g = played(friends(), &["e"], 2);
    assert!(matches!(abort(&g, 3), Ok(Change::Abort { at: 3 })));
    let mut g = played(g, &["F"], 2);
    assert_eq!(abort(&g, 3).unwrap_err(), Refusal::BothMoved);
    // On one screen the player to move resigns.
    let local = played(game(Mode::Local, [Player::Human; 2], None), &["e"], 2);
    assert!(matches!(
        resign(&local, &[Side::South, Side::North], 3),
        Ok(Change::Resign {
            loser: Side::North,
            ..
        })
    ));
    g.apply(&resign(&g, &[Side::North], 4).unwrap());
    assert!(matches!(g.status, Status::Over { .. }));
    assert_eq!(
        resign(&g, &[Side::South], 5).unwrap_err(),
        Refusal::GameOver
    );
    assert_eq!(abort(&g, 5).unwrap_err(), Refusal::GameOver);
}

#[test]
fn hints_are_for_the_player_to_move_in_a_game_that_allows_them() {
    let mut g = played(friends(), &["e"], 2);
    assert_eq!(hint(&g, &[Side::North]), Ok((g.pos, 1)));
    assert_eq!(
        hint(&g, &[Side::South]),
        Err(Refusal::HintNotYourTurn {
            to_move: Side::North
        })
    );
    g.hints = false;
    assert_eq!(hint(&g, &[Side::North]), Err(Refusal::HintsOff));
    assert_eq!(
        Refusal::HintsOff.code(),
        (StatusCode::FORBIDDEN, ErrorCode::HintsOff)
    );
}

#[test]
fn the_free_seat_opens_to_its_invite_only() {
    // Both seats of a friend game held: nothing to join.
    assert_eq!(
        join(&friends(), None, None, "new", 5).unwrap_err(),
        Refusal::SeatTaken
    );
    let mut made = Game::new(NewGame {
        id: "abcdefghijkn".into(),
        at: 0,
        mode: Mode::Friend,
        rules: Rules::Anywoli,
        players: BySide::both(Player::Human),
        secrets: BySide::new(Some(SOUTH.into()), None),
        start: Position::start(Rules::Anywoli),
        hints: false,
        invite: Some("t0ken".into()),
        clock: None,
        people: People::anonymous(Mode::Friend),
    });
    assert_eq!(
        join(&made, Some("guess"), None, "new", 5).unwrap_err(),
        Refusal::WrongInvite
    );
    let (seat, change) = join(&made, Some("t0ken"), Some("ada"), "new", 5).unwrap();
    assert_eq!(seat, Side::North);
    made.apply(&change);
    assert_eq!(held(&made, "new"), Ok(vec![Side::North]));
    assert_eq!(made.people.accounts[Side::North].as_deref(), Some("ada"));
}

#[test]
fn seats_are_owned_once_and_a_game_published_only_when_that_changes_it() {
    let g = game(Mode::Local, [Player::Human; 2], None);
    let (owned, change) = own(&g, &[Side::South, Side::North], "ada");
    assert_eq!(owned, 2);
    let mut g = g;
    g.apply(&change.unwrap());
    assert_eq!(own(&g, &[Side::South], "bob").0, 0);
    assert!(publish(&g, g.people.public).is_none());
    assert!(publish(&g, !g.people.public).is_some());
}

#[test]
fn a_rematch_changes_sides_and_keeps_the_secrets() {
    let g = played(friends(), &["e", "F"], 2);
    assert_eq!(
        rematch_of(&g, "abcdefghijkp".into(), 9, 7).unwrap_err(),
        Refusal::StillPlaying
    );
    let mut over = g;
    over.apply(&resign(&over, &[Side::North], 4).unwrap());
    let next = rematch_of(&over, "abcdefghijkp".into(), 9, 7).unwrap();
    assert_eq!(held(&next, SOUTH), Ok(vec![Side::North]));
    assert_eq!(held(&next, NORTH), Ok(vec![Side::South]));
    assert_eq!((next.created, next.moves.len()), (9, 0));
    assert_eq!(next.rules, Rules::Anywoli, "only a lottery draws again");
}

#[test]
fn berserk_halves_ones_own_clock_drops_the_increment_and_comes_once_before_ones_first_move() {
    let plain = game(Mode::Friend, [Player::Human; 2], Some("3+2"));
    assert_eq!(
        berserk(&plain, &[Side::South], 2).unwrap_err(),
        Refusal::NoBerserk,
        "not an arena's game"
    );
    let mut g = plain.clone();
    g.set_berserk_tag(String::new());
    let change = berserk(&g, &[Side::North], 2).unwrap();
    g.apply(&change);
    let c = g.clock.unwrap();
    assert_eq!(
        (c.left[Side::South], c.left[Side::North]),
        (180_000, 90_000)
    );
    assert_eq!(
        crate::round::game::berserk_tag(&g.tags),
        Some("N"),
        "the tag says who"
    );
    assert_eq!(
        berserk(&g, &[Side::North], 3).unwrap_err(),
        Refusal::NoBerserk,
        "once"
    );
    // South moves first, then may no longer berserk; North's moves earn no increment, South's do.
    let g = played(g, &["e"], 4);
    assert_eq!(
        berserk(&g, &[Side::South], 5).unwrap_err(),
        Refusal::NoBerserk
    );
    let to_north = g.pos.to_move() == Some(Side::North);
    assert!(to_north);
    let reply = g.pos.moves().next().unwrap().to_string();
    let g = played(g, &[&reply], 1_004);
    let again = g.pos.moves().next().unwrap().to_string();
    let mover = g.pos.to_move().unwrap();
    let before = g.clock.unwrap().left[mover];
    let g = played(g, &[&again], 2_004);
    let after = g.clock.unwrap().left[mover];
    let increment = if mover == Side::North { 0 } else { 2_000 };
    assert_eq!(after, before - 1_000 + increment, "{mover:?}");
    // The stored row keeps it: read back, North still has no increment.
    let back = Game::from_row(
        g.to_row(),
        &g.moves.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
    )
    .unwrap();
    assert!(back.clock.unwrap().no_increment[Side::North]);
    assert!(!back.clock.unwrap().no_increment[Side::South]);
}
