//! The puzzle composer against the exact solver itself: a composed line is checked move by
//! move with fresh solves (the solver's move the only winner at each turn, the opponent's
//! the best defence), and every refusal is checked for the reason the solver gives.
//!
//! The positions have the quiet counter near its end (80-93), so that the search alone
//! (`Solver::searching`) proves them: the composer, which has the solver's own 8-seed layer,
//! is checked against a solver that has none.

use anywoli_core::{parse_position, Move, Position, Rules, Side};
use anywoli_engine::compose::{compose, compose_counting, ComposeLimits, Refusal};
use anywoli_engine::endgame::Solver;
use anywoli_engine::puzzles::Judgement;
use anywoli_engine::themes::{themes, Theme};

const BUDGET: u64 = 2_000_000;

fn pos(s: &str) -> Position {
    parse_position(s, Rules::Anywoli).unwrap()
}

fn moves(s: &str) -> Vec<Move> {
    s.chars().map(|c| c.to_string().parse().unwrap()).collect()
}

/// South to move, 8 seeds in play, 7 quiet plies left: South forces the capture along
/// d C e D f F g.
const SEVEN_PLIES: &str = "0,0,0,1,0,0,0,0,0,0,2,2/0,0,2,0,0,0,0,0,0,1,0,0 s 44 44 - - 93 93";
/// The same position for North: hole i becomes i + 12.
const SEVEN_PLIES_NORTH: &str = "0,0,2,0,0,0,0,0,0,1,0,0/0,0,0,1,0,0,0,0,0,0,2,2 n 44 44 - - 93 93";
/// Two first moves win (e and j).
const TWO_WINNERS: &str = "0,0,0,0,1,0,0,0,3,1,0,0/0,0,1,1,0,0,0,0,0,0,0,1 s 44 44 - - 89 89";

#[test]
fn a_composed_line_is_the_solvers_only_win_at_every_turn() {
    let start = pos(SEVEN_PLIES);
    let pz = compose(&start, None, ComposeLimits::nodes(BUDGET)).expect("a puzzle");
    assert_eq!(pz.line, moves("dCeDfFg"));
    assert_eq!(pz.plies, 7);
    assert_eq!(pz.side(), Side::South);
    assert_eq!(pz.solver_moves(), moves("defg"));

    let mut p = start;
    let mut solver = Solver::searching(None, 20_000_000);
    for (i, &mv) in pz.line.iter().enumerate() {
        let s = solver.solve(&p).unwrap();
        if p.to_move() == Some(Side::South) {
            assert_eq!(
                s.winning_moves(&p),
                vec![mv],
                "ply {i}: the only winning move"
            );
        } else {
            // The opponent's move is one of its best (its value equals the position's).
            let v = s.moves.iter().find(|m| m.0 == mv).unwrap().1;
            assert_eq!(v, s.value, "ply {i}: North's {mv} is a best defence");
        }
        p.play(mv).unwrap();
    }
    assert!(p.is_over());
    assert!(p.store(Side::South) > p.store(Side::North));

    // The line judges attempts as the collection's puzzles do.
    let mut played = Vec::new();
    for &mv in &pz.solver_moves() {
        played.push(mv);
        match pz.judge(&played) {
            Judgement::Right { replies } | Judgement::Solved { replies } => played.extend(replies),
            other => panic!("{mv}: {other:?}"),
        }
    }
    assert_eq!(played, pz.line);
    assert!(matches!(
        pz.judge(&played[..played.len()]),
        Judgement::Solved { .. }
    ));
    // Any other first move is wrong.
    for other in start.moves().filter(|&m| m != pz.line[0]) {
        assert_eq!(
            pz.judge(&[other]),
            Judgement::Wrong {
                expected: pz.line[0]
            }
        );
    }
}

#[test]
fn a_puzzle_for_north_is_the_same_puzzle_turned_round() {
    let south = compose(&pos(SEVEN_PLIES), None, ComposeLimits::nodes(BUDGET)).unwrap();
    let north = compose(&pos(SEVEN_PLIES_NORTH), None, ComposeLimits::nodes(BUDGET)).unwrap();
    assert_eq!(north.side(), Side::North);
    let turned: Vec<Move> = south
        .line
        .iter()
        .map(|m| m.to_string().chars().next().unwrap())
        .map(|c| {
            let t = if c.is_ascii_lowercase() {
                c.to_ascii_uppercase()
            } else {
                c.to_ascii_lowercase()
            };
            t.to_string().parse().unwrap()
        })
        .collect();
    assert_eq!(north.line, turned);
    assert_eq!((north.grade, north.defences), (south.grade, south.defences));
    assert_eq!(
        themes(&pos(SEVEN_PLIES_NORTH), &north.line),
        themes(&pos(SEVEN_PLIES), &south.line)
    );
}

#[test]
fn two_winning_first_moves_are_refused_with_both_named() {
    let p = pos(TWO_WINNERS);
    let want = Solver::searching(None, 20_000_000)
        .solve(&p)
        .unwrap()
        .winning_moves(&p);
    let mut want_sorted = want.clone();
    want_sorted.sort();
    assert_eq!(want_sorted, moves("ej"));
    let r = compose(&p, None, ComposeLimits::nodes(BUDGET)).unwrap_err();
    assert_eq!(r, Refusal::SeveralWinningFirstMoves { moves: want_sorted });
    assert_eq!(r.name(), "several_winning_first_moves");
    assert_eq!(
        r.to_string(),
        "2 first moves win (e, j): a puzzle needs exactly one"
    );
}

#[test]
fn a_position_that_is_not_a_win_is_refused_with_its_value() {
    // The start with a near-full quiet counter: the row split decides, 48-48 at best.
    let p = pos("0,0,0,2,0,0,0,1,0,0,0,0/1,0,0,0,1,0,1,0,0,2,0,0 s 44 44 - - 81 81");
    let value = Solver::searching(None, 20_000_000).value(&p).unwrap();
    assert!(value <= 0);
    assert_eq!(
        compose(&p, None, ComposeLimits::nodes(BUDGET)).unwrap_err(),
        Refusal::NotAWin {
            value,
            margin: value
        }
    );
}

#[test]
fn a_finished_game_and_a_spent_budget_are_refused() {
    let over = pos("0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 x 48 48 - - 0 10");
    assert_eq!(
        compose(&over, None, ComposeLimits::nodes(BUDGET)).unwrap_err(),
        Refusal::GameOver
    );
    let (r, used) = compose_counting(&pos(SEVEN_PLIES), None, ComposeLimits::nodes(50));
    assert_eq!(r.unwrap_err(), Refusal::Unproven { nodes: 50 });
    assert!(used <= 50, "{used}");
    // The limit on the solution's length is kept too.
    let short = ComposeLimits {
        nodes: BUDGET,
        max_plies: 3,
    };
    assert_eq!(
        compose(&pos(SEVEN_PLIES), None, short).unwrap_err(),
        Refusal::TooLong { max: 3 }
    );
}

#[test]
fn themes_are_read_from_the_line() {
    let start = pos(SEVEN_PLIES);
    let pz = compose(&start, None, ComposeLimits::nodes(BUDGET)).unwrap();
    let t = themes(&start, &pz.line);
    // Four moves of the solver: not short; 7 plies: no race of 10.
    assert!(!t.contains(&Theme::Short), "{t:?}");
    assert!(!t.contains(&Theme::Race), "{t:?}");
    // A one-move puzzle is short.
    let one = pos("0,0,0,0,0,0,0,1,0,0,2,0/3,0,0,1,0,0,0,0,0,0,0,1 s 44 44 - - 92 92");
    let pz = compose(&one, None, ComposeLimits::nodes(BUDGET)).unwrap();
    assert_eq!(pz.line, moves("k"));
    assert!(themes(&one, &pz.line).contains(&Theme::Short));
}

/// The web app's budget (`anywoli_server::COMPOSE_NODES`).
const WEB_BUDGET: u64 = 2_000_000;

/// Every puzzle of the collection, given to the composer with no database on disk, comes back
/// as the same puzzle: the solver's own 8-seed layer proves what a search within the budget
/// could not (48 of the 120 were "not proven" before it).
#[test]
fn every_built_in_puzzle_is_proven_without_databases() {
    let mut most = 0;
    for pz in anywoli_engine::puzzles::all() {
        let (r, used) = compose_counting(&pz.position, None, ComposeLimits::nodes(WEB_BUDGET));
        let got = r.unwrap_or_else(|e| panic!("puzzle {}: {e}", pz.id));
        assert_eq!(got.line, pz.line, "puzzle {}", pz.id);
        assert_eq!(
            (got.plies, got.grade, got.defences),
            (pz.plies, pz.grade, pz.defences),
            "puzzle {}",
            pz.id
        );
        most = most.max(used);
    }
    // Far inside the budget: an answer that does not depend on how loaded the machine is.
    assert!(most < WEB_BUDGET / 10, "{most}");
}

/// Issue 41's example: 8 seeds on b2, d1, E3, H2, South to move. Both b and d force the
/// capture 53 plies away, so it is no puzzle, and the composer says exactly that.
#[test]
fn a_composition_with_two_long_wins_is_refused_with_both() {
    let p = pos("0,2,0,1,0,0,0,0,0,0,0,0/0,0,0,0,3,0,0,2,0,0,0,0 s 44 44 - - 0 0");
    let r = compose(&p, None, ComposeLimits::nodes(WEB_BUDGET)).unwrap_err();
    assert_eq!(r, Refusal::SeveralWinningFirstMoves { moves: moves("bd") });
    let mut solver = Solver::new(None, WEB_BUDGET);
    let s = solver.solve(&p).unwrap();
    assert_eq!((s.value, s.margin), (8, 8));
    assert_eq!(s.line.len(), 53, "{:?}", s.line);
    assert_eq!(solver.distance(&p, Side::South, 200), Ok(53));
    // The line is a real game: played out, South makes the capture and wins 52-44.
    let mut end = p;
    for &m in &s.line {
        end.play(m).unwrap();
    }
    assert_eq!((end.store(Side::South), end.store(Side::North)), (52, 44));
    // The search alone, without the layer, cannot prove it within the budget.
    assert!(Solver::searching(None, WEB_BUDGET).value(&p).is_err());
}
