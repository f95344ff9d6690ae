//! Criterion benchmarks: move application and perft.

use anywoli_core::{perft, Move, Position, Rules, XorShift};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;

/// Positions along one fixed line of play, so the benchmark covers opening, middle and ending.
fn sample_positions() -> Vec<Position> {
    let mut out = Vec::new();
    let mut p = Position::start(Rules::Anywoli);
    let mut rng = XorShift::new(0x1234_5678);
    while !p.is_over() && out.len() < 200 {
        out.push(p);
        let moves = p.moves();
        let mv = moves.nth(rng.below(moves.len() as u64) as usize).unwrap();
        let _ = p.play_unchecked(mv);
    }
    out
}

fn bench_play(c: &mut Criterion) {
    let positions = sample_positions();
    let pairs: Vec<(Position, Move)> = positions
        .iter()
        .flat_map(|p| p.moves().map(move |m| (*p, m)))
        .collect();
    c.bench_function("play_unchecked (all moves of 200 positions)", |b| {
        b.iter(|| {
            let mut sum = 0u64;
            for &(p, m) in &pairs {
                let mut q = p;
                let _ = q.play_unchecked(black_box(m));
                sum = sum.wrapping_add(q.hash());
            }
            sum
        })
    });
    c.bench_function("play (checked, start position, every move)", |b| {
        let start = Position::start(Rules::Anywoli);
        b.iter(|| {
            let mut sum = 0u64;
            for m in start.moves() {
                let mut q = start;
                q.play(black_box(m)).unwrap();
                sum = sum.wrapping_add(q.hash());
            }
            sum
        })
    });
}

fn bench_perft(c: &mut Criterion) {
    let start = Position::start(Rules::Anywoli);
    let mut g = c.benchmark_group("perft");
    for depth in [3u32, 4] {
        g.bench_with_input(BenchmarkId::from_parameter(depth), &depth, |b, &d| {
            b.iter(|| perft(black_box(&start), d))
        });
    }
    g.finish();
}

criterion_group!(benches, bench_play, bench_perft);
criterion_main!(benches);
