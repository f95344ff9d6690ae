//! The search against plain minimax: with a zero evaluation, alpha-beta, the table, extra
//! moves and passes must give exactly the store difference that minimax gives.

use std::sync::atomic::AtomicBool;

use anywoli_core::{Position, Rules, Side};
use anywoli_engine::eval::FEATURES;
use anywoli_engine::{Engine, Limits};

/// Best final store difference for the side to move after `plies` plies, by plain minimax.
fn minimax(pos: &Position, me: Side, plies: u32) -> i32 {
    let diff = pos.store(me) as i32 - pos.store(me.opponent()) as i32;
    let Some(to_move) = pos.to_move() else {
        return diff;
    };
    if plies == 0 {
        return diff;
    }
    let vals = pos.moves().filter_map(|m| {
        let mut c = *pos;
        c.play_unchecked(m).ok()?;
        Some(minimax(&c, me, plies - 1))
    });
    if to_move == me {
        vals.max().unwrap()
    } else {
        vals.min().unwrap()
    }
}

fn random_positions(n: usize, seed: u64) -> Vec<Position> {
    let mut x = seed;
    let mut out = Vec::new();
    let mut p = Position::start(Rules::Anywoli);
    while out.len() < n {
        if p.is_over() {
            p = Position::start(Rules::Anywoli);
        }
        let ms = p.moves();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let m = ms.nth((x % ms.len() as u64) as usize).unwrap();
        p.play_unchecked(m).unwrap();
        if !p.is_over() && x.is_multiple_of(3) {
            out.push(p);
        }
    }
    out
}

#[test]
fn zero_evaluation_search_equals_minimax() {
    let mut engine = Engine::new(4, 1);
    engine.weights = [0; FEATURES];
    // Reductions trade exactness for depth; without them the search must be exact.
    engine.lmr = false;
    let stop = AtomicBool::new(false);
    for (i, pos) in random_positions(60, 0x9e3779b9).iter().enumerate() {
        let me = pos.to_move().unwrap();
        for depth in 1..=4 {
            let want = minimax(pos, me, depth) * 100;
            let r = engine.search(pos, &Limits::depth(depth), &stop, &mut |_| {});
            assert_eq!(r.score, want, "position {i} {pos} depth {depth}");
            // The move it chose is worth that score.
            let mut c = *pos;
            c.play(r.best.unwrap()).unwrap();
            let v = if depth == 1 {
                c.store(me) as i32 - c.store(me.opponent()) as i32
            } else {
                minimax(&c, me, depth - 1)
            };
            assert_eq!(v * 100, want, "position {i} {pos} depth {depth} move");
            let scored = engine.score_moves(pos, depth, &AtomicBool::new(false));
            assert_eq!(scored[0].1, want, "score_moves {i} {pos} depth {depth}");
            for (m, s) in scored {
                let mut c = *pos;
                c.play(m).unwrap();
                assert_eq!(
                    s,
                    minimax(&c, me, depth - 1) * 100,
                    "{pos} {m} depth {depth}"
                );
            }
        }
        engine.clear();
    }
}

/// Every `info` line's principal variation is a playable line from the root, with one
/// thread and with helpers filling the table, and at depth 9 it is at least 6 moves long
/// (lines used to stop at the first exact table hit, often after one or two moves).
#[test]
fn principal_variations_are_playable_lines() {
    for threads in [1, 2] {
        for (i, pos) in random_positions(12, 0x9e37_79b9_7f4a_7c15)
            .iter()
            .enumerate()
        {
            let engine = Engine::new(4, threads);
            let stop = AtomicBool::new(false);
            let mut last = 0;
            let r = engine.search(pos, &Limits::depth(9), &stop, &mut |info| {
                let mut p = *pos;
                for (k, &mv) in info.pv.iter().enumerate() {
                    assert!(
                        p.play(mv).is_ok(),
                        "threads {threads}, position {i} {pos}, depth {}: pv move {k} ({mv}) of {:?} is not playable",
                        info.depth,
                        info.pv
                    );
                }
                // A line that ends the game is as long as it can be.
                let len = if p.is_over() { usize::MAX } else { info.pv.len() };
                last = len;
            });
            assert_eq!(r.pv.first().copied(), r.best);
            if r.depth >= 9 {
                assert!(last >= 6, "threads {threads}, position {i}: pv of {last}");
            }
        }
    }
}
