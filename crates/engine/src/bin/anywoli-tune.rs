//! Tunes the evaluation from self-play: `generate`, `fit`, `compare` (docs/tuning.md).

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anywoli_core::{Position, Rules};
use anywoli_engine::arena::{elo, play_game};
use anywoli_engine::eval::{Weights, FEATURE_NAMES, TUNED, UNTUNED};
use anywoli_engine::players::{LevelPlayer, Player};
use anywoli_engine::tune;

fn usage() -> ! {
    eprintln!(
        "usage: anywoli-tune generate GAMES DEPTH NOISE SEED OUT.csv [WEIGHTS] | fit DATA.csv | compare GAMES DEPTH [BASELINE]\n\
         WEIGHTS and BASELINE: untuned, zero, round1 or tuned (generate's default: tuned; compare's: untuned)"
    );
    std::process::exit(2)
}

fn arg<T: std::str::FromStr>(args: &[String], i: usize) -> T {
    args.get(i)
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| usage())
}

/// A fixed-depth player with given weights (the same search, only the evaluation differs).
struct Weighted {
    player: LevelPlayer,
    depth: u32,
}

impl Player for Weighted {
    fn name(&self) -> String {
        format!("depth {}", self.depth)
    }
    fn new_game(&mut self) {
        self.player.engine_mut().clear();
    }
    fn choose(&mut self, pos: &Position, _t: Duration) -> Option<anywoli_core::Move> {
        let stop = AtomicBool::new(false);
        self.player
            .engine_mut()
            .search(
                pos,
                &anywoli_engine::Limits::depth(self.depth),
                &stop,
                &mut |_| {},
            )
            .best
    }
}

fn weighted(w: Weights, depth: u32) -> Weighted {
    let mut player = LevelPlayer::new(10, 0, 16, 1).expect("level 10 exists");
    player.engine_mut().weights = w;
    Weighted { player, depth }
}

fn named_weights(name: &str) -> Weights {
    match name {
        "untuned" => UNTUNED,
        "zero" => [0; anywoli_engine::eval::FEATURES],
        "round1" => anywoli_engine::eval::ROUND1,
        "tuned" => TUNED,
        _ => usage(),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("generate") => {
            let games: usize = arg(&args, 2);
            let depth: u32 = arg(&args, 3);
            let noise: i32 = arg(&args, 4);
            let seed: u64 = arg(&args, 5);
            let out: String = arg(&args, 6);
            let weights = named_weights(args.get(7).map(String::as_str).unwrap_or("tuned"));
            // Two threads, each half the games with its own seed, so the data is reproducible.
            let halves: Vec<Vec<tune::Sample>> = std::thread::scope(|s| {
                let hs: Vec<_> = (0..2u64)
                    .map(|k| {
                        s.spawn(move || {
                            tune::generate(games / 2, depth, noise, &weights, seed * 2 + k, 3)
                        })
                    })
                    .collect();
                hs.into_iter()
                    .map(|h| h.join().expect("generator thread"))
                    .collect()
            });
            let all: Vec<tune::Sample> = halves.into_iter().flatten().collect();
            std::fs::write(&out, tune::to_csv(&all)).expect("write data");
            eprintln!("{} samples written to {out}", all.len());
        }
        Some("fit") => {
            let path: String = arg(&args, 2);
            let text = std::fs::read_to_string(&path).expect("read data");
            let samples = tune::from_csv(&text).unwrap_or_else(|e| {
                eprintln!("{path}: {e}");
                std::process::exit(2)
            });
            let w = tune::fit(&samples, 0.001);
            let rounded: Weights = w.map(|x| x.round() as i32);
            for (n, x) in FEATURE_NAMES.iter().zip(w) {
                println!("{n:>14} {x:9.2}");
            }
            println!("pub const TUNED: Weights = {rounded:?};");
            println!(
                "mse (seeds^2): untuned {:.2}  tuned now {:.2}  fitted {:.2}",
                tune::mse(&samples, &UNTUNED),
                tune::mse(&samples, &TUNED),
                tune::mse(&samples, &rounded)
            );
        }
        Some("compare") => {
            let games: usize = arg(&args, 2);
            let depth: u32 = arg(&args, 3);
            let baseline = named_weights(args.get(4).map(String::as_str).unwrap_or("untuned"));
            let start = Position::start(Rules::Anywoli);
            let lines =
                anywoli_engine::arena::balanced_openings(&start, games.div_ceil(2), 4, 99, 8, 300);
            let results: Vec<f64> = std::thread::scope(|s| {
                let chunks: Vec<Vec<(usize, Vec<anywoli_core::Move>)>> = (0..2)
                    .map(|k| {
                        lines
                            .iter()
                            .cloned()
                            .enumerate()
                            .filter(|(i, _)| i % 2 == k)
                            .collect()
                    })
                    .collect();
                let hs: Vec<_> = chunks
                    .into_iter()
                    .map(|chunk| {
                        s.spawn(move || {
                            let mut r = Vec::new();
                            for (_, line) in chunk {
                                let mut p = start;
                                for &m in &line {
                                    let _ = p.play(m);
                                }
                                for tuned_south in [true, false] {
                                    let mut t = weighted(TUNED, depth);
                                    let mut u = weighted(baseline, depth);
                                    let g = if tuned_south {
                                        play_game([&mut t, &mut u], p, Duration::from_secs(1))
                                    } else {
                                        play_game([&mut u, &mut t], p, Duration::from_secs(1))
                                    };
                                    let s = g.south_score();
                                    r.push(if tuned_south { s } else { 1.0 - s });
                                }
                            }
                            r
                        })
                    })
                    .collect();
                hs.into_iter()
                    .flat_map(|h| h.join().expect("match thread"))
                    .collect()
            });
            let e = elo(&results);
            println!(
                "tuned vs {} at depth {depth}: {} / {} = {:.1}%, Elo {:+.0} ± {:.0}",
                args.get(4).map_or("untuned", String::as_str),
                e.score,
                e.games,
                100.0 * e.score / e.games as f64,
                e.elo,
                e.error
            );
        }
        _ => usage(),
    }
}
