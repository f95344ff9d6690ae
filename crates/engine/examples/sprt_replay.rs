//! The sequential test a finished fixed match would have run: reads `anywoli match`'s output
//! (stdin), takes its pairs in the order they finished, and prints where SPRT(elo0, elo1, α, β)
//! would have stopped. A match that plays every game still gets the test's verdict, from the
//! same games, without a second run.
//!
//! `cargo run --release -p anywoli-engine --example sprt_replay -- [ELO0 ELO1 ALPHA BETA] < match.log`
//! (default 0 50 0.05 0.05).

use std::collections::HashMap;
use std::io::BufRead;

use anywoli_engine::sprt::{Pentanomial, Sprt, Verdict};

fn main() {
    let args: Result<Vec<f64>, _> = std::env::args().skip(1).map(|a| a.parse()).collect();
    let test = match args.as_deref() {
        Ok([]) => Sprt::new(0.0, 50.0, 0.05, 0.05),
        Ok(&[a, b, c, d]) => Sprt::new(a, b, c, d),
        _ => refuse("give ELO0 ELO1 ALPHA BETA as numbers, or nothing for 0 50 0.05 0.05"),
    };
    let sprt = test.unwrap_or_else(|e| refuse(&e.to_string()));
    let Sprt {
        elo0,
        elo1,
        alpha,
        beta,
    } = sprt;
    let mut first = None::<String>;
    let mut halves: HashMap<usize, f64> = HashMap::new();
    let mut pairs = Pentanomial::default();
    let mut decided = None;
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else {
            refuse("the input is not readable text")
        };
        if let Some(rest) = line.strip_prefix("match: ") {
            first = rest.split(" vs ").next().map(str::to_string);
            continue;
        }
        let Some(game) = parse_game(&line, first.as_deref()) else {
            continue;
        };
        let pair = (game.index - 1) / 2;
        let Some(other) = halves.remove(&pair) else {
            halves.insert(pair, game.points);
            continue;
        };
        pairs.add(other, game.points);
        let verdict = sprt.verdict(&pairs);
        if decided.is_none() && verdict != Verdict::Continue {
            decided = Some((pairs, sprt.llr(&pairs), verdict));
        }
    }
    let (lower, upper) = sprt.bounds();
    println!(
        "sprt({elo0}, {elo1}, {alpha}, {beta}), bounds ({lower:.2}, {upper:.2}), on {} pairs {:?}: llr {:.2}",
        pairs.pairs(),
        pairs.0,
        sprt.llr(&pairs)
    );
    match decided {
        Some((at, llr, verdict)) => println!(
            "{verdict:?} after {} pairs {:?} (llr {llr:.2})",
            at.pairs(),
            at.0
        ),
        None => println!("no bound crossed"),
    }
}

/// One finished game of the log: its 1-based index and the first player's points.
struct Game {
    index: usize,
    points: f64,
}

/// `game I/N (done K): SOUTH (South) X-Y NORTH (North), RESULT …`, scored for `first`.
fn parse_game(line: &str, first: Option<&str>) -> Option<Game> {
    let rest = line.strip_prefix("game ")?;
    let index: usize = rest.split('/').next()?.parse().ok()?;
    let (_, after) = rest.split_once("): ")?;
    let (south, after) = after.split_once(" (South) ")?;
    let result = after.split(", ").nth(1)?.split_whitespace().next()?;
    let south_points = match result {
        "1-0" => 1.0,
        "0-1" => 0.0,
        "1/2-1/2" => 0.5,
        _ => return None,
    };
    let first_is_south = south == first?;
    Some(Game {
        index,
        points: if first_is_south {
            south_points
        } else {
            1.0 - south_points
        },
    })
}

/// Says why the arguments or input cannot be used, and exits with status 2.
fn refuse(why: &str) -> ! {
    eprintln!("sprt_replay: {why}");
    std::process::exit(2)
}
