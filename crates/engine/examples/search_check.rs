//! What a change to the search's speed must not change: the best move, score and node count
//! of fixed-depth searches from the ladder's openings (20 balanced 4-ply lines, as
//! `anywoli match` plays them) and from the positions 40 and 80 plies into one seeded game.
//! Two builds that print the same lines searched the same tree; the last line is the speed.
//!
//! `cargo run --release -p anywoli-engine --example search_check [DEPTH]` (default 12).

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use anywoli_core::{Position, Rules};
use anywoli_engine::{arena, Engine, Limits};

fn main() {
    let depth: u32 = std::env::args()
        .nth(1)
        .map(|d| d.parse().expect("a depth"))
        .unwrap_or(12);
    let start = Position::start(Rules::Anywoli);
    let mut positions = vec![start];
    for line in arena::openings_near(&start, 20, 4, 1, 8, 300, arena::Centre::Start) {
        let mut p = start;
        for m in line {
            p.play(m).expect("an opening's move");
        }
        positions.push(p);
    }
    // A seeded game of good moves: its middle game and ending.
    let stop = AtomicBool::new(false);
    let mut p = start;
    let pick = Engine::new(16, 1);
    for ply in 1..=80 {
        if p.is_over() {
            break;
        }
        let r = pick.search(&p, &Limits::depth(4 + ply % 3), &stop, &mut |_| {});
        p.play(r.best.expect("a move")).expect("the engine's move");
        if ply % 40 == 0 && !p.is_over() {
            positions.push(p);
        }
    }
    let (mut nodes, mut secs) = (0u64, 0f64);
    for (i, pos) in positions.iter().enumerate() {
        // A fresh table each time, so that every position is searched alike by every build.
        let engine = Engine::new(64, 1);
        let t = Instant::now();
        let r = engine.search(pos, &Limits::depth(depth), &stop, &mut |_| {});
        secs += t.elapsed().as_secs_f64();
        nodes += r.nodes;
        let best = r.best.map_or("-".to_string(), |m| m.to_string());
        println!("{i:2} {best} {:+6} {:>10}  {pos}", r.score, r.nodes);
    }
    println!(
        "depth {depth}: {} positions, {nodes} nodes in {secs:.2} s: {:.2} M nodes/s",
        positions.len(),
        nodes as f64 / secs / 1e6
    );
}
