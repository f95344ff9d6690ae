//! Game review: every mark and score agrees with the engine's own single-PV searches of the
//! same positions (the best move searched freely, the played move alone), and a game with bad
//! moves on one side gets them marked and a lower accuracy there.

use std::sync::atomic::AtomicBool;

use anywoli_engine::core::{Move, Position, Rules, Side};
use anywoli_engine::review::{review, Mark, Review};
use anywoli_engine::{Engine, Limits, SearchResult};

const DEPTH: u32 = 4;

fn engine() -> Engine {
    // As in multipv.rs: no reductions or pruning, so that a move's value at a fixed depth
    // does not depend on what its siblings made of the move ordering.
    let mut e = Engine::new(8, 1);
    e.selective = false;
    e
}

fn search(pos: &Position, only: Option<Vec<Move>>) -> SearchResult {
    let mut e = engine();
    e.set_root_moves(only);
    e.search(
        pos,
        &Limits::depth(DEPTH),
        &AtomicBool::new(false),
        &mut |_| {},
    )
}

/// A game in which South plays the engine's move and North, every other time, the move that
/// gives South the most at once (the worst-looking of its moves), for `plies` plies.
fn lopsided_game(plies: usize) -> (Position, Vec<Move>) {
    let start = Position::start(Rules::Anywoli);
    let mut pos = start;
    let mut moves = Vec::new();
    for ply in 0..plies {
        let Some(side) = pos.to_move() else { break };
        let mv = if side == Side::North && ply % 2 == 1 {
            pos.moves()
                .min_by_key(|&m| {
                    let mut p = pos;
                    p.play(m).unwrap();
                    p.store(Side::North) as i32 - p.store(Side::South) as i32
                })
                .unwrap()
        } else {
            search(&pos, None).best.unwrap()
        };
        moves.push(mv);
        pos.play(mv).unwrap();
    }
    (start, moves)
}

fn reviewed(start: &Position, moves: &[Move]) -> Review {
    let mut done = Vec::new();
    let r = review(
        &mut engine(),
        start,
        moves,
        &Limits::depth(DEPTH),
        &AtomicBool::new(false),
        &mut |d, n| done.push((d, n)),
    )
    .unwrap();
    assert_eq!(done.len(), moves.len(), "progress after each move");
    assert_eq!(done.last(), Some(&(moves.len(), moves.len())));
    r
}

#[test]
fn marks_agree_with_single_pv_searches() {
    let (start, moves) = lopsided_game(24);
    let r = reviewed(&start, &moves);
    assert_eq!(r.moves.len(), moves.len());
    assert_eq!(r.evals.len(), moves.len() + 1);
    let mut pos = start;
    for (m, &mv) in r.moves.iter().zip(&moves) {
        let best = search(&pos, None);
        assert_eq!(
            (m.best, m.best_score),
            (best.best.unwrap(), best.score),
            "ply {}",
            m.ply
        );
        let played = if mv == m.best {
            best.score
        } else {
            search(&pos, Some(vec![mv])).score
        };
        assert_eq!(m.played_score, played, "ply {}", m.ply);
        assert_eq!(m.loss, (best.score - played).max(0), "ply {}", m.ply);
        assert_eq!(m.mark, Mark::of(m.loss), "ply {}", m.ply);
        assert_eq!(m.mover, pos.to_move().unwrap());
        // The graph's point for this position is the best score, from South's side.
        let south = if m.mover == Side::South {
            best.score
        } else {
            -best.score
        };
        assert_eq!(r.evals[m.ply - 1], south, "ply {}", m.ply);
        pos.play(mv).unwrap();
    }
    // North's giveaways are marked; South, playing the engine's moves, lost nothing.
    let north_marks = r
        .moves
        .iter()
        .filter(|m| m.mover == Side::North && m.mark.is_some())
        .count();
    assert!(north_marks > 0, "{:?}", r.moves);
    assert!(r
        .moves
        .iter()
        .filter(|m| m.mover == Side::South)
        .all(|m| m.loss == 0));
    let [south, north] = r.accuracy;
    assert_eq!(south, Some(100.0));
    assert!(
        north.unwrap() < 100.0 && north.unwrap() >= 0.0,
        "{:?}",
        r.accuracy
    );

    // The same game gets the same review.
    assert_eq!(reviewed(&start, &moves), r);
}

#[test]
fn a_finished_game_ends_on_its_final_difference() {
    // A game played out by the engine to the end.
    let mut pos = Position::start(Rules::Anywoli);
    let start = pos;
    let mut moves = Vec::new();
    while !pos.is_over() && moves.len() < 400 {
        let e = Engine::new(1, 1);
        let mv = e
            .search(
                &pos,
                &Limits::depth(1),
                &AtomicBool::new(false),
                &mut |_| {},
            )
            .best
            .unwrap();
        moves.push(mv);
        pos.play(mv).unwrap();
    }
    assert!(pos.is_over());
    let mut e = engine();
    let r = review(
        &mut e,
        &start,
        &moves,
        &Limits::depth(1),
        &AtomicBool::new(false),
        &mut |_, _| {},
    )
    .unwrap();
    let diff = (pos.store(Side::South) as i32 - pos.store(Side::North) as i32) * 100;
    assert_eq!(r.evals.last(), Some(&diff));
    // A move of the side not to move is refused, with its number.
    let mut after_two = start;
    after_two.play(moves[0]).unwrap();
    after_two.play(moves[1]).unwrap();
    let wrong: Move = match after_two.to_move() {
        Some(Side::South) => "A".parse().unwrap(),
        _ => "a".parse().unwrap(),
    };
    let mut bad = moves.clone();
    bad[2] = wrong;
    let err = review(
        &mut e,
        &start,
        &bad,
        &Limits::depth(1),
        &AtomicBool::new(false),
        &mut |_, _| {},
    );
    let err = err.unwrap_err().to_string();
    assert!(err.contains("move 3"), "{err}");
}
