//! Criterion benchmarks: time to reach a fixed depth from fixed positions (opening, middle
//! game, ending), and the evaluation alone.

use std::hint::black_box;
use std::sync::atomic::AtomicBool;

use anywoli_core::{Position, Rules, XorShift};
use anywoli_engine::{eval, Engine, Limits};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};

/// The start position, then the positions after 40 and 120 plies of one fixed random game.
fn positions() -> Vec<(&'static str, Position)> {
    let mut out = vec![("start", Position::start(Rules::Anywoli))];
    let mut p = Position::start(Rules::Anywoli);
    let mut rng = XorShift::new(0x2545_f491_4f6c_dd1d);
    let mut ply = 0;
    while !p.is_over() && ply < 120 {
        let ms = p.moves();
        let _ = p.play_unchecked(ms.nth(rng.below(ms.len() as u64) as usize).unwrap());
        ply += 1;
        if ply == 40 {
            out.push(("ply40", p));
        }
    }
    if !p.is_over() {
        out.push(("ply120", p));
    }
    out
}

fn bench_depth(c: &mut Criterion) {
    let mut g = c.benchmark_group("search_to_depth_9");
    g.sample_size(10);
    for (name, pos) in positions() {
        g.bench_with_input(BenchmarkId::from_parameter(name), &pos, |b, pos| {
            b.iter(|| {
                // A fresh table each time: the figure is the cost of reaching the depth cold.
                let engine = Engine::new(16, 1);
                let stop = AtomicBool::new(false);
                engine
                    .search(black_box(pos), &Limits::depth(9), &stop, &mut |_| {})
                    .nodes
            })
        });
    }
    g.finish();
}

fn bench_eval(c: &mut Criterion) {
    let ps: Vec<Position> = positions().into_iter().map(|p| p.1).collect();
    c.bench_function("evaluate (3 positions)", |b| {
        b.iter(|| ps.iter().map(|p| eval::evaluate(black_box(p))).sum::<i32>())
    });
    // The linear terms alone: what the network's correction costs on top.
    c.bench_function("evaluate linear (3 positions)", |b| {
        b.iter(|| {
            ps.iter()
                .map(|p| eval::evaluate_with(black_box(p), &eval::TUNED))
                .sum::<i32>()
        })
    });
}

criterion_group!(benches, bench_depth, bench_eval);
criterion_main!(benches);
