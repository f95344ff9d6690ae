//! Multi-PV: the best N root moves get exact scores and lines of their own, which agree with
//! what the engine says of each move searched alone (single-PV, restricted to that move), on
//! fixed positions and depths; and one line is the search it always was.

use std::sync::atomic::AtomicBool;

use anywoli_engine::core::{Move, Position, Rules};
use anywoli_engine::{Engine, Limits, SearchResult};

/// The position after `plies` moves, the `k`-th legal move each time (k = 7·ply mod the count):
/// fixed positions from the opening into the middle game.
fn after(plies: usize) -> Position {
    let mut p = Position::start(Rules::Anywoli);
    for ply in 0..plies {
        let moves: Vec<Move> = p.moves().collect();
        p.play(moves[(7 * ply) % moves.len()]).unwrap();
    }
    p
}

/// A search on a fresh engine: one thread, so that the result is the same every run, and no
/// selective search (reductions, reverse futility), under which what a move is worth at a fixed depth depends on the
/// order its siblings were searched in (so "the move alone" would be another search); without
/// them the search is an exact alpha-beta, and a line's score must be its move's.
fn search(pos: &Position, depth: u32, multipv: usize, only: Option<Vec<Move>>) -> SearchResult {
    let mut e = Engine::new(16, 1);
    e.selective = false;
    e.set_multipv(multipv);
    e.set_root_moves(only);
    let stop = AtomicBool::new(false);
    e.search(pos, &Limits::depth(depth), &stop, &mut |_| {})
}

const POSITIONS: [usize; 4] = [0, 1, 6, 20];

#[test]
fn each_line_is_worth_what_its_move_is_worth_alone() {
    for moves in POSITIONS {
        let pos = after(moves);
        for depth in [2, 4, 6] {
            let multi = search(&pos, depth, 3, None);
            assert_eq!(
                multi.lines.len(),
                3.min(pos.moves().count()),
                "{moves:?} depth {depth}"
            );
            assert_eq!(multi.depth, depth);
            for (k, line) in multi.lines.iter().enumerate() {
                let first = line.pv[0];
                let alone = search(&pos, depth, 1, Some(vec![first]));
                assert_eq!(
                    (alone.best, alone.score),
                    (Some(first), line.score),
                    "{moves:?} depth {depth} line {}: {:?}",
                    k + 1,
                    multi.lines
                );
                // A line is a game that can be played from the position.
                let mut p = pos;
                for &m in &line.pv {
                    p.play(m).unwrap();
                }
            }
            // Best first, and no move outside the lines does better than the last of them.
            for w in multi.lines.windows(2) {
                assert!(w[0].score >= w[1].score, "{:?}", multi.lines);
            }
            let last = multi.lines.last().unwrap().score;
            let shown: Vec<Move> = multi.lines.iter().map(|l| l.pv[0]).collect();
            for mv in pos.moves().filter(|m| !shown.contains(m)) {
                let alone = search(&pos, depth, 1, Some(vec![mv]));
                assert!(
                    alone.score <= last,
                    "{moves:?} depth {depth}: {mv} {} > {last}",
                    alone.score
                );
            }
        }
    }
}

#[test]
fn one_line_is_the_single_pv_search() {
    for moves in POSITIONS {
        let pos = after(moves);
        let single = search(&pos, 6, 1, None);
        assert_eq!(single.lines.len(), 1);
        assert_eq!(single.lines[0].score, single.score);
        assert_eq!(single.lines[0].pv, single.pv);
        assert_eq!(Some(single.pv[0]), single.best);
        // The best line of a multi-PV search is the single-PV answer.
        let multi = search(&pos, 6, 4, None);
        assert_eq!(multi.lines[0].score, single.score, "{moves:?}");
        assert_eq!(multi.score, single.score);
    }
}

/// A search stopped in the middle of a depth answers with the last finished depth's lines:
/// its best move and score are the first line's, wherever the stop falls.
#[test]
fn a_stopped_search_answers_with_its_first_line() {
    let stop = AtomicBool::new(false);
    for moves in POSITIONS {
        let pos = after(moves);
        for nodes in (5_000..200_000).step_by(13_000) {
            let mut e = Engine::new(16, 1);
            e.set_multipv(3);
            let r = e.search(&pos, &Limits::nodes(nodes), &stop, &mut |_| {});
            let first = &r.lines[0];
            assert_eq!(
                r.best,
                first.pv.first().copied(),
                "after {moves}, {nodes} nodes"
            );
            assert_eq!(r.score, first.score, "after {moves}, {nodes} nodes");
        }
    }
}
