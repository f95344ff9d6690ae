//! What an arena's director computes every second for 500 players: the standings after
//! 20,000 games, and waves of 125, 250 and 500 waiting players (docs/tournaments.md, "Load and faults").

use std::hint::black_box;

use anywoli_tournament::arena::{self, ScoringRules};
use anywoli_tournament::standings::{standings, Entrant, GameResult, Played, System};
use criterion::{criterion_group, criterion_main, Criterion};

/// A small deterministic generator: the bench needs the same tournament each run.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

fn arena_of(players: usize, games: usize) -> (Vec<Entrant>, Vec<Played>) {
    let mut rng = Lcg(7);
    let entrants: Vec<Entrant> = (0..players)
        .map(|i| Entrant {
            id: format!("player{i:04}"),
            rating: 1200 + rng.next(800) as i32,
        })
        .collect();
    let played = (0..games)
        .map(|g| {
            let s = rng.next(players as u64) as usize;
            let n = (s + 1 + rng.next(players as u64 - 1) as usize) % players;
            let result = match rng.next(3) {
                0 => GameResult::South,
                1 => GameResult::North,
                _ => GameResult::Draw,
            };
            Played {
                game: format!("game{g:06}"),
                round: 0,
                at: g as i64,
                south: entrants[s].id.clone(),
                north: entrants[n].id.clone(),
                result: Some(result),
                plies: 20 + rng.next(80) as u32,
                berserk: [false, false],
            }
        })
        .collect();
    (entrants, played)
}

fn bench(c: &mut Criterion) {
    let (entrants, games) = arena_of(500, 20_000);
    let system = System::Arena(ScoringRules::ANYWOLI);
    c.bench_function("standings of 500 players after 20,000 arena games", |b| {
        b.iter(|| standings(system, black_box(&entrants), black_box(&games), &[]))
    });
    let rows = standings(system, &entrants, &games, &[]);
    let wave_of = |step: usize| arena::Wave {
        now: 10_000,
        players: rows
            .iter()
            .step_by(step)
            .map(|s| arena::Player {
                id: s.id.clone(),
                waiting_since: 0,
                rank: s.rank,
                last_opponent: s.last_opponent.clone(),
                rating: s.rating,
                sides: s.sides.clone(),
                bot: false,
            })
            .collect(),
        forbidden: Vec::new(),
    };
    for (step, what) in [(4, "125"), (2, "250"), (1, "500")] {
        let wave = wave_of(step);
        c.bench_function(&format!("an arena wave of {what} waiting players"), |b| {
            b.iter(|| arena::pair(black_box(&wave)).unwrap())
        });
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench
}
criterion_main!(benches);
