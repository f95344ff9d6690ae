//! Tunes the evaluation from self-play: `generate`, `fit`, `compare`; and the network that
//! corrects it: `positions`, `label`, `fitnet` (docs/tuning.md).

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anywoli_core::{Position, Rules};
use anywoli_engine::arena::{elo, play_game};
use anywoli_engine::eval::{Weights, FEATURE_NAMES, TUNED, UNTUNED};
use anywoli_engine::net::{Net, Quantized};
use anywoli_engine::players::{LevelPlayer, Player};
use anywoli_engine::tune::{self, labels};

fn usage() -> ! {
    eprintln!(
        "usage: anywoli-tune generate GAMES DEPTH NOISE SEED OUT.csv [WEIGHTS] | fit DATA.csv | compare GAMES DEPTH [BASELINE [CANDIDATE]]\n\
         \x20      anywoli-tune positions GAMES DEPTH NOISE SEED OUT.txt [EVAL] | label IN.txt DEPTH OUT.txt [EVAL] | fitnet IN.txt LAMBDA EPOCHS OUT.bin | fitwin IN.txt\n\
         WEIGHTS: untuned, zero, round1 or tuned (generate's default: tuned)\n\
         EVAL: what positions' players and label's search evaluate with, named as BASELINE below (default: tuned, the linear evaluation alone)\n\
         BASELINE, CANDIDATE: those, or net (tuned and the shipped network) or net:FILE (tuned and that network); compare's defaults: untuned against tuned"
    );
    std::process::exit(2)
}

fn arg<T: std::str::FromStr>(args: &[String], i: usize) -> T {
    args.get(i)
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| usage())
}

/// A fixed-depth player with given weights and network (the same search, only the
/// evaluation differs).
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

/// An evaluation the tool can name: linear weights and maybe a network.
#[derive(Clone, Copy)]
struct Evaluation {
    weights: Weights,
    net: Option<&'static Quantized>,
}

fn weighted(e: Evaluation, depth: u32) -> Weighted {
    let mut player = LevelPlayer::new(10, 0, 16, 1).expect("level 10 exists");
    player.engine_mut().weights = e.weights;
    player.engine_mut().net = e.net;
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

fn named_evaluation(name: &str) -> Evaluation {
    let net = match name {
        "net" => Some(anywoli_engine::net::shipped()),
        _ => match name.strip_prefix("net:") {
            Some(path) => Some(&*Box::leak(Box::new(read_net(path).quantize()))),
            None => {
                return Evaluation {
                    weights: named_weights(name),
                    net: None,
                }
            }
        },
    };
    Evaluation {
        weights: TUNED,
        net,
    }
}

fn read_net(path: &str) -> Net {
    let bytes = std::fs::read(path).unwrap_or_else(|e| fail(&format!("{path}: {e}")));
    Net::from_bytes(&bytes).unwrap_or_else(|e| fail(&format!("{path}: {e}")))
}

fn fail(msg: &str) -> ! {
    eprintln!("error: {msg}");
    std::process::exit(2)
}

fn read_labelled(path: &str) -> Vec<labels::Labelled> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| fail(&format!("{path}: {e}")));
    labels::from_text(&text).unwrap_or_else(|e| fail(&format!("{path}: {e}")))
}

/// Runs `f` on two threads, each on one half of `items` (so a file's neighbours, one game's
/// positions, stay on one thread, where its table helps), and puts the results back in order.
fn on_two_threads<T: Send, R: Send>(items: Vec<T>, f: impl Fn(Vec<T>) -> Vec<R> + Sync) -> Vec<R> {
    let n = items.len();
    let half = n.div_ceil(2);
    let mut first = items;
    let second = first.split_off(half);
    let (a, b) = std::thread::scope(|s| {
        let h = s.spawn(|| f(second));
        (f(first), h.join().expect("worker thread"))
    });
    a.into_iter().chain(b).collect()
}

/// `generate GAMES DEPTH NOISE SEED OUT.csv [WEIGHTS]`: self-play samples for `fit`.
fn generate(args: &[String]) {
    let games: usize = arg(args, 2);
    let depth: u32 = arg(args, 3);
    let noise: i32 = arg(args, 4);
    let seed: u64 = arg(args, 5);
    let out: String = arg(args, 6);
    let weights = named_weights(args.get(7).map(String::as_str).unwrap_or("tuned"));
    // Two threads, each half the games with its own seed, so the data is reproducible.
    let halves: Vec<Vec<tune::Sample>> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..2u64)
            .map(|k| {
                s.spawn(move || tune::generate(games / 2, depth, noise, &weights, seed * 2 + k, 3))
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

/// `fit DATA.csv`: the linear weights that fit the samples best.
fn fit_weights(args: &[String]) {
    let path: String = arg(args, 2);
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

/// `compare GAMES DEPTH [BASELINE [CANDIDATE]]`: a match between two evaluations.
fn compare(args: &[String]) {
    let games: usize = arg(args, 2);
    let depth: u32 = arg(args, 3);
    let baseline_name = args.get(4).map_or("untuned", String::as_str);
    let candidate_name = args.get(5).map_or("tuned", String::as_str);
    let baseline = named_evaluation(baseline_name);
    let candidate = named_evaluation(candidate_name);
    let start = Position::start(Rules::Anywoli);
    let lines = anywoli_engine::arena::openings_near(
        &start,
        games.div_ceil(2),
        4,
        99,
        8,
        300,
        anywoli_engine::arena::Centre::Start,
    );
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
                            let mut t = weighted(candidate, depth);
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
        "{candidate_name} vs {baseline_name} at depth {depth}: {} / {} = {:.1}%, Elo {:+.0} ± {:.0}",
        e.score,
        e.games,
        100.0 * e.score / e.games as f64,
        e.elo,
        e.error
    );
}

/// `positions GAMES DEPTH NOISE SEED OUT.txt [EVAL]`: self-play positions with their outcomes.
fn positions(args: &[String]) {
    let games: usize = arg(args, 2);
    let depth: u32 = arg(args, 3);
    let noise: i32 = arg(args, 4);
    let seed: u64 = arg(args, 5);
    let out: String = arg(args, 6);
    let e = named_evaluation(args.get(7).map_or("tuned", String::as_str));
    let seeds: Vec<u64> = vec![seed * 2, seed * 2 + 1];
    let rows = on_two_threads(seeds, |seeds| {
        seeds
            .into_iter()
            .flat_map(|sd| tune::self_play(games / 2, depth, noise, &e.weights, e.net, sd, 2))
            .map(|(pos, outcome)| labels::Labelled {
                pos,
                outcome,
                value: None,
            })
            .collect()
    });
    std::fs::write(&out, labels::to_text(&rows)).unwrap_or_else(|e| fail(&format!("{out}: {e}")));
    eprintln!("{} positions written to {out}", rows.len());
}

/// `label IN.txt DEPTH OUT.txt [EVAL]`: each position's value at a depth.
fn label(args: &[String]) {
    let input: String = arg(args, 2);
    let depth: u32 = arg(args, 3);
    let out: String = arg(args, 4);
    let e = named_evaluation(args.get(5).map_or("tuned", String::as_str));
    let rows = read_labelled(&input);
    let rows = on_two_threads(rows, |mut rows| {
        let mut engine = anywoli_engine::Engine::new(16, 1);
        engine.weights = e.weights;
        engine.net = e.net;
        labels::label(&mut rows, &mut engine, depth);
        rows
    });
    std::fs::write(&out, labels::to_text(&rows)).unwrap_or_else(|e| fail(&format!("{out}: {e}")));
    eprintln!(
        "{} positions labelled at depth {depth} in {out}",
        rows.len()
    );
}

/// `fitnet IN.txt LAMBDA EPOCHS OUT.bin`: trains the correcting network.
fn fitnet(args: &[String]) {
    let input: String = arg(args, 2);
    let lambda: f64 = arg(args, 3);
    let epochs: usize = arg(args, 4);
    let out: String = arg(args, 5);
    let rows = read_labelled(&input);
    // The last twentieth, whole games of the second thread's half, is held out.
    let split = rows.len() - rows.len() / 20;
    let train = tune::net::examples(&rows[..split], &TUNED, lambda);
    let held = tune::net::examples(&rows[split..], &TUNED, lambda);
    eprintln!(
        "{} training, {} held out; linear alone: {:.2} / {:.2} seeds^2",
        train.len(),
        held.len(),
        tune::net::mse(None, &train),
        tune::net::mse(None, &held)
    );
    let schedule = tune::net::Schedule {
        epochs,
        batch: 256,
        rate: 1e-3,
        seed: 1,
    };
    let net = tune::net::train(&train, &held, schedule, &mut |e, tr, he| {
        eprintln!("epoch {e:3}: training {tr:.2}  held out {he:.2} seeds^2");
    });
    std::fs::write(&out, net.to_bytes()).unwrap_or_else(|e| fail(&format!("{out}: {e}")));
    eprintln!(
        "best held-out error {:.2} seeds^2, written to {out}",
        tune::net::mse(Some(&net), &held)
    );
}

/// The endgame databases the level players use, as the command line finds them: the folder
/// `$ANYWOLI_TABLEBASES` names.
fn tablebases() -> Option<std::sync::Arc<anywoli_engine::endgame::Tablebase>> {
    let dir = std::env::var_os("ANYWOLI_TABLEBASES")?;
    let opened = anywoli_engine::endgame::open_folder(std::path::Path::new(&dir));
    opened.unwrap_or_else(|e| {
        eprintln!("anywoli: the endgame databases are not used: {e}");
        None
    })
}

/// `fitwin IN.txt`: the win-probability curve of least log-loss on labelled positions, its
/// calibration, and the shipped curve's for comparison.
fn fitwin(args: &[String]) {
    let input: String = arg(args, 2);
    let rows = read_labelled(&input);
    let samples = tune::winprob::samples(&rows);
    let shipped = anywoli_engine::winprob::CURVE;
    let fitted = tune::winprob::fit(&samples);
    let wins = samples.iter().filter(|s| s.score == 1.0).count();
    let draws = samples.iter().filter(|s| s.score == 0.5).count();
    println!(
        "{} positions: {wins} went on to win, {draws} to draw, {} to lose",
        samples.len(),
        samples.len() - wins - draws
    );
    for (name, c) in [("shipped", shipped), ("fitted", fitted)] {
        println!(
            "{name}: spread {:.3} + {:.4} x seeds in play, log-loss {:.4}",
            c.base,
            c.per_seed,
            tune::winprob::log_loss(&c, &samples)
        );
    }
    println!("predicted    count  mean predicted  mean scored");
    for b in tune::winprob::calibration(&fitted, &samples) {
        println!(
            "{:.1}-{:.1}  {:>8}  {:>14.3}  {:>11.3}",
            b.lo, b.hi, b.count, b.predicted, b.actual
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    anywoli_engine::endgame::set_loader(tablebases);
    match args.get(1).map(String::as_str) {
        Some("generate") => generate(&args),
        Some("fit") => fit_weights(&args),
        Some("compare") => compare(&args),
        Some("positions") => positions(&args),
        Some("label") => label(&args),
        Some("fitnet") => fitnet(&args),
        Some("fitwin") => fitwin(&args),
        _ => usage(),
    }
}
