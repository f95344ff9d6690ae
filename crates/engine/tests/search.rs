//! The search against plain minimax: with a zero evaluation, alpha-beta, the table, extra
//! moves and passes must give exactly the store difference that minimax gives.

use std::sync::atomic::AtomicBool;

use anywoli_core::{Position, Rules, Side, XorShift};
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
    let mut rng = XorShift::new(seed);
    let mut out = Vec::new();
    let mut p = Position::start(Rules::Anywoli);
    while out.len() < n {
        if p.is_over() {
            p = Position::start(Rules::Anywoli);
        }
        let ms = p.moves();
        let x = rng.next();
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
    engine.net = None;
    // Reductions and pruning trade exactness for depth; without them the search must be exact.
    engine.selective = false;
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

/// Every `info` line's principal variation, and the result's, is a playable line from the
/// root, with one thread and with helpers filling the table (the line is partly read back from
/// the table, which helpers write at the same time).
#[test]
fn principal_variations_are_playable_lines() {
    for threads in [1, 2] {
        for (i, pos) in random_positions(12, 0x9e37_79b9_7f4a_7c15)
            .iter()
            .enumerate()
        {
            let engine = Engine::new(4, threads);
            let stop = AtomicBool::new(false);
            let playable = |pv: &[anywoli_core::Move], depth: u32| {
                let mut p = *pos;
                for (k, &mv) in pv.iter().enumerate() {
                    assert!(
                        p.play(mv).is_ok(),
                        "threads {threads}, position {i} {pos}, depth {depth}: pv move {k} ({mv}) of {pv:?} is not playable"
                    );
                }
            };
            let r = engine.search(pos, &Limits::depth(9), &stop, &mut |info| {
                assert!(!info.pv.is_empty(), "threads {threads}, position {i}");
                playable(&info.pv, info.depth);
            });
            playable(&r.pv, r.depth);
            assert_eq!(r.pv.first().copied(), r.best);
        }
    }
}

/// With helper threads a search to depth D answers at depth D, whichever thread finished it
/// first: the last `info` is that depth, and asking for two lines still gets two exact lines
/// (only the main thread searches several).
#[test]
fn helpers_answer_at_the_asked_depth() {
    let stop = AtomicBool::new(false);
    for threads in [2, 3] {
        for (i, pos) in random_positions(8, 0x5eed_0002).iter().enumerate() {
            for multipv in [1, 2] {
                let mut engine = Engine::new(4, threads);
                engine.set_multipv(multipv);
                let mut last = 0;
                let r = engine.search(pos, &Limits::depth(10), &stop, &mut |info| {
                    assert!(
                        info.depth >= last,
                        "threads {threads}, position {i}: depths go back"
                    );
                    last = info.depth;
                });
                let at = format!("threads {threads}, multipv {multipv}, position {i} {pos}");
                assert_eq!((r.depth, last), (10, 10), "{at}");
                assert_eq!(r.lines.len(), multipv.min(pos.moves().len()), "{at}");
                assert!(pos.moves().contains(r.best.unwrap()), "{at}");
                assert_eq!(r.lines[0].score, r.score, "{at}");
            }
        }
    }
}
