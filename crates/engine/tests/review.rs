//! Game review: every mark and score agrees with the engine's own single-PV searches of the
//! same positions (the best move searched freely, the played move alone), and a game with bad
//! moves on one side gets them marked and a lower accuracy there.

use std::sync::atomic::AtomicBool;

use anywoli_engine::core::{Move, Position, Rules, Side};
use anywoli_engine::review::{rescore, review, Mark, Review, BLUNDER, VERSION};
use anywoli_engine::winprob::win_percent;
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
        // Judged by expected score: the scores through the curve, with the seeds in play.
        let n = pos.seeds_in_play();
        assert_eq!(m.best_win, win_percent(best.score, n), "ply {}", m.ply);
        assert_eq!(m.played_win, win_percent(played, n), "ply {}", m.ply);
        assert_eq!(m.win_loss, (m.best_win - m.played_win).max(0.0));
        assert_eq!(m.mark, Mark::of(m.win_loss), "ply {}", m.ply);
        assert_eq!(m.mover, pos.to_move().unwrap());
        // The graph's point for this position is the best score, from South's side.
        let south = if m.mover == Side::South {
            best.score
        } else {
            -best.score
        };
        assert_eq!(r.evals[m.ply - 1], south, "ply {}", m.ply);
        assert_eq!(r.wins[m.ply - 1], win_percent(south, n), "ply {}", m.ply);
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
    assert!(south.unwrap() > 99.99, "{south:?}");
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

/// A game both sides play with the engine's move, but for one move that throws away the
/// most seeds it can while the game is still open: that move is a blunder, and its player's
/// accuracy falls far below the other's (the review by seeds alone gave it over 95%).
#[test]
fn one_move_that_throws_the_game_away_is_a_blunder_and_costs_accuracy() {
    let start = Position::start(Rules::Anywoli);
    let mut pos = start;
    let mut moves = Vec::new();
    let mut blunderer = None;
    for ply in 0..48 {
        let Some(side) = pos.to_move() else { break };
        let best = search(&pos, None);
        // Past the first plies, while the side to move's own search is within 4 seeds of
        // even: a throw-away there decides the game, where in a game already decided it
        // would cost little expected score.
        let mv = if blunderer.is_none() && ply >= 4 && best.score.abs() <= 400 {
            blunderer = Some(side);
            pos.moves()
                .min_by_key(|&m| search(&pos, Some(vec![m])).score)
                .unwrap()
        } else {
            best.best.unwrap()
        };
        moves.push(mv);
        pos.play(mv).unwrap();
    }
    let who = blunderer.expect("the game was never within 4 seeds of even after ply 4");
    let r = reviewed(&start, &moves);
    let worst = r
        .moves
        .iter()
        .max_by(|a, b| a.win_loss.total_cmp(&b.win_loss))
        .unwrap();
    assert_eq!(worst.mover, who);
    assert!(worst.loss >= 500, "{worst:?}");
    assert!(worst.win_loss >= BLUNDER, "{worst:?}");
    assert_eq!(worst.mark, Some(Mark::Blunder));
    let accuracy = r.accuracy.map(Option::unwrap);
    let (clean, spoilt) = match who {
        Side::South => (accuracy[1], accuracy[0]),
        Side::North => (accuracy[0], accuracy[1]),
    };
    assert!(clean > 99.99, "{clean}");
    assert!(spoilt < 92.0, "{spoilt}");
    // The review before expected scores: the mean of 100 e^(-loss / 800) over the moves.
    let their_moves: Vec<f64> = r
        .moves
        .iter()
        .filter(|m| m.mover == who)
        .map(|m| 100.0 * (-(m.loss as f64) / 800.0).exp())
        .collect();
    let old = their_moves.iter().sum::<f64>() / their_moves.len() as f64;
    // One thrown-away game: the new accuracy falls more than twice as far below 100 (round
    // 9's network: 86.8 against 95.5, 2.9 times as far).
    assert!(
        old > 95.0 && 100.0 - spoilt >= 2.5 * (100.0 - old),
        "{old} {spoilt}"
    );
    // The graph's scale is expected score (South's): it jumps across the blunder.
    let (before, after) = (r.wins[worst.ply - 1], r.wins[worst.ply]);
    assert!((after - before).abs() >= BLUNDER, "{before} -> {after}");
    assert!(r.wins.iter().all(|w| (0.0..=100.0).contains(w)));
}

/// A review stored before expected scores (version 1: no `version`, `wins`, `best_win`…) is
/// read back and judged again to exactly what a review made now says.
#[test]
fn a_stored_review_of_version_one_is_judged_again() {
    let (start, moves) = lopsided_game(16);
    let r = reviewed(&start, &moves);
    assert_eq!(r.version, VERSION);
    let mut old: serde_json::Value = serde_json::to_value(&r).unwrap();
    let o = old.as_object_mut().unwrap();
    o.remove("version");
    o.remove("wins");
    for m in o["moves"].as_array_mut().unwrap() {
        let m = m.as_object_mut().unwrap();
        for k in ["best_win", "played_win", "win_loss"] {
            m.remove(k);
        }
    }
    let parsed: Review = serde_json::from_value(old).unwrap();
    assert_eq!(parsed.version, 1);
    assert_eq!(rescore(&start, parsed), r);
}
