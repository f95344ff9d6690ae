//! A line of play: its positions, the positions before and after a move, the sides that have
//! moved and the take-back rule, against a plain replay of random games.

use anywoli_core::{BySide, Line, Move, PlayError, Position, Rules, Side, XorShift};
use proptest::prelude::*;

use crate::properties::rules_strategy;

/// A random game of at most `plies` plies from the start under `rules`.
fn random_game(rules: Rules, seed: u64, plies: usize) -> (Position, Vec<Move>) {
    let start = Position::start(rules);
    let mut rng = XorShift::new(seed | 1);
    let (mut p, mut moves, mut refused) = (start, Vec::new(), 0);
    // A sowing that never ends is refused (none is known): another move is tried.
    while !p.is_over() && moves.len() < plies && refused < 100 {
        let legal = p.moves();
        let mv = legal.nth(rng.below(legal.len() as u64) as usize).unwrap();
        match p.play(mv) {
            Ok(()) => (moves.push(mv), refused = 0).0,
            Err(_) => refused += 1,
        }
    }
    (start, moves)
}

/// Every position of a game, replayed one move at a time.
fn replayed(start: Position, moves: &[Move]) -> Vec<Position> {
    let mut out = vec![start];
    let mut p = start;
    for &mv in moves {
        p.play(mv).unwrap();
        out.push(p);
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn a_line_reads_as_its_replay(rules in rules_strategy(), seed in any::<u64>(), plies in 0usize..400) {
        let (start, moves) = random_game(rules, seed, plies);
        let line = Line::new(start, &moves);
        let all = replayed(start, &moves);
        prop_assert_eq!(line.positions().collect::<Vec<_>>(), all.clone());
        prop_assert_eq!(line.end(), Ok(*all.last().unwrap()));
        for (n, p) in all.iter().enumerate() {
            prop_assert_eq!(line.after(n), *p);
            prop_assert_eq!(line.before(n + 1), (n < moves.len()).then_some(*p));
        }
        prop_assert_eq!(line.after(moves.len() + 5), *all.last().unwrap());
        prop_assert_eq!(line.before(0), None);
        let mut moved = BySide::both(false);
        for p in &all[..moves.len()] {
            moved[p.to_move().unwrap()] = true;
        }
        prop_assert_eq!(line.sides_moved(), moved);
    }

    #[test]
    fn a_take_back_undoes_the_last_move_of_the_sides_named(
        rules in rules_strategy(),
        seed in any::<u64>(),
        plies in 0usize..200,
    ) {
        let (start, moves) = random_game(rules, seed, plies);
        let line = Line::new(start, &moves);
        let all = replayed(start, &moves);
        for sides in [&[Side::South][..], &[Side::North], &[Side::South, Side::North]] {
            let mover = |k: usize| all[k].to_move().unwrap();
            match line.take_back_to(sides) {
                // Move `keep` is theirs, and none after it.
                Some(keep) => {
                    prop_assert!(sides.contains(&mover(keep)));
                    prop_assert!((keep + 1..moves.len()).all(|k| !sides.contains(&mover(k))));
                }
                None => prop_assert!((0..moves.len()).all(|k| !sides.contains(&mover(k)))),
            }
        }
        prop_assert_eq!(line.take_back_to(&[]), None);
        prop_assert_eq!(
            line.take_back_to(&Side::ALL),
            moves.len().checked_sub(1),
            "both sides: the last move goes"
        );
    }
}

#[test]
fn a_line_stops_at_a_move_that_cannot_be_played() {
    let start = Position::start(Rules::Anywoli);
    // North's hole where South is to move: move 2 is illegal.
    let moves: Vec<Move> = ["e", "a", "F"].iter().map(|m| m.parse().unwrap()).collect();
    let line = Line::new(start, &moves);
    let e = line.end().unwrap_err();
    assert_eq!(e.n, 2);
    assert!(matches!(e.error, PlayError::WrongSide { .. }), "{e}");
    assert!(e.to_string().starts_with("move 2 is illegal: "), "{e}");
    let after_one = line.after(1);
    assert_eq!(line.positions().count(), 2, "the start and after move 1");
    assert_eq!(line.after(3), after_one);
    assert_eq!(line.before(3), Some(after_one));
    assert_eq!(line.sides_moved(), BySide::new(true, true));
    assert_eq!(line.take_back_to(&[Side::North]), Some(1));
}

#[test]
fn an_empty_line_is_its_start() {
    let start = Position::start(Rules::It);
    let line = Line::new(start, &[]);
    assert_eq!(line.positions().collect::<Vec<_>>(), vec![start]);
    assert_eq!(line.end(), Ok(start));
    assert_eq!(line.after(7), start);
    assert_eq!(line.before(1), None);
    assert_eq!(line.sides_moved(), BySide::both(false));
    assert_eq!(line.take_back_to(&Side::ALL), None);
}
