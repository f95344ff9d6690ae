//! Fitting the evaluation weights to self-play games (docs/tuning.md).
//!
//! Each sample is one position of a self-play game: its features and what the side to move
//! went on to win from there (final store difference minus the current one, in centiseeds).
//! Least squares with a small ridge term gives the weights that predict that best. The
//! procedure is deterministic for a given seed. [`net`] trains the network that corrects the
//! linear evaluation, on positions labelled by a deeper search ([`labels`]).

pub mod labels;
pub mod net;
pub mod winprob;

use std::num::ParseIntError;
use std::time::Duration;

use anywoli_core::{Position, Rules, Side};

use thiserror::Error;

use crate::arena::{openings, play_game};
use crate::eval::{features, Weights, FEATURES};
use crate::net::Quantized;
use crate::players::{LevelPlayer, LevelSpec, Player};

/// One position of a self-play game, as the fit sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// The position's features (those of [`crate::eval::features`]).
    pub features: [i32; FEATURES],
    /// Centiseeds the side to move won from here to the end.
    pub target: i32,
}

/// Plays `games` self-play games (a depth-`depth` search with `noise` centiseeds of noise
/// against itself, with evaluation `weights`, from openings of 4 random plies) and returns one
/// sample per position reached, every `every`-th position.
pub fn generate(
    games: usize,
    depth: u32,
    noise: i32,
    weights: &Weights,
    seed: u64,
    every: usize,
) -> Vec<Sample> {
    self_play(games, depth, noise, weights, None, seed, every)
        .into_iter()
        .map(|(pos, target)| Sample {
            features: features(&pos),
            target,
        })
        .collect()
}

/// The positions of [`generate`]'s games, each with the centiseeds its side to move went on
/// to win from there (final store difference minus the current one). The players evaluate
/// with `weights` and `net`: `None` makes the data depend on the weights alone.
pub fn self_play(
    games: usize,
    depth: u32,
    noise: i32,
    weights: &Weights,
    net: Option<&'static Quantized>,
    seed: u64,
    every: usize,
) -> Vec<(Position, i32)> {
    let start = Position::start(Rules::Anywoli);
    let lines = openings(&start, games, 4, seed);
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let mut p = start;
        for &m in line {
            let _ = p.play(m);
        }
        let spec = LevelSpec {
            level: 0,
            depth: Some(depth),
            noise,
        };
        let mut a = LevelPlayer::with_spec(spec, seed ^ (2 * i as u64), 16, 1);
        let mut b = LevelPlayer::with_spec(spec, seed ^ (2 * i as u64 + 1), 16, 1);
        a.engine_mut().weights = *weights;
        b.engine_mut().weights = *weights;
        a.engine_mut().net = net;
        b.engine_mut().net = net;
        let game = play_game(
            [&mut a as &mut dyn Player, &mut b],
            p,
            Duration::from_secs(1),
        );
        if game.error.is_some() {
            continue;
        }
        let end = game.end;
        let mut pos = game.start;
        for (k, &mv) in game.moves.iter().enumerate() {
            if k % every.max(1) == 0 {
                if let Some(me) = pos.to_move() {
                    out.push((pos, future_gain(&pos, &end, me)));
                }
            }
            if pos.play(mv).is_err() {
                break;
            }
        }
    }
    out
}

/// Centiseeds `me` wins from `pos` to `end`, net of the other side.
fn future_gain(pos: &Position, end: &Position, me: Side) -> i32 {
    let diff = |p: &Position| p.store(me) as i32 - p.store(me.opponent()) as i32;
    (diff(end) - diff(pos)) * 100
}

/// Least-squares weights with ridge `lambda`, by the normal equations.
pub fn fit(samples: &[Sample], lambda: f64) -> [f64; FEATURES] {
    let mut a = [[0f64; FEATURES]; FEATURES];
    let mut b = [0f64; FEATURES];
    for s in samples {
        for ((row, bi), &fi) in a.iter_mut().zip(b.iter_mut()).zip(&s.features) {
            let fi = fi as f64;
            *bi += fi * s.target as f64;
            for (aij, &fj) in row.iter_mut().zip(&s.features) {
                *aij += fi * fj as f64;
            }
        }
    }
    for (i, row) in a.iter_mut().enumerate() {
        row[i] += lambda * samples.len().max(1) as f64;
    }
    solve(a, b)
}

/// Gaussian elimination with partial pivoting; a singular column gets weight 0.
fn solve(mut a: [[f64; FEATURES]; FEATURES], mut b: [f64; FEATURES]) -> [f64; FEATURES] {
    let n = FEATURES;
    for col in 0..n {
        let piv = (col..n)
            .max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))
            .unwrap_or(col);
        a.swap(col, piv);
        b.swap(col, piv);
        if a[col][col].abs() < 1e-12 {
            continue;
        }
        let pivot_row = a[col];
        for r in 0..n {
            if r != col {
                let f = a[r][col] / pivot_row[col];
                for (x, p) in a[r][col..].iter_mut().zip(&pivot_row[col..]) {
                    *x -= f * p;
                }
                b[r] -= f * b[col];
            }
        }
    }
    let mut x = [0f64; FEATURES];
    for i in 0..n {
        if a[i][i].abs() >= 1e-12 {
            x[i] = b[i] / a[i][i];
        }
    }
    x
}

/// Mean squared error of `w` on `samples`, in seeds².
pub fn mse(samples: &[Sample], w: &Weights) -> f64 {
    let n = samples.len().max(1) as f64;
    samples
        .iter()
        .map(|s| {
            let pred: i32 = s.features.iter().zip(w).map(|(f, w)| f * w).sum();
            let e = (pred - s.target) as f64 / 100.0;
            e * e
        })
        .sum::<f64>()
        / n
}

/// The samples as CSV: a header of the feature names and `target`, then one line each.
pub fn to_csv(samples: &[Sample]) -> String {
    let mut s = crate::eval::FEATURE_NAMES.join(",");
    s.push_str(",target\n");
    for x in samples {
        for f in x.features {
            s.push_str(&f.to_string());
            s.push(',');
        }
        s.push_str(&x.target.to_string());
        s.push('\n');
    }
    s
}

/// What is wrong with a line of a samples file (lines from 1).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum CsvError {
    /// A field is not a whole number.
    #[error("line {line}: {source}")]
    Number {
        /// The line, from 1 (the header is line 1).
        line: usize,
        /// Why it is not.
        source: ParseIntError,
    },
    /// The line has not one number a feature and the target.
    #[error("line {line}: {found} numbers, expected {expected}")]
    Count {
        /// The line, from 1 (the header is line 1).
        line: usize,
        /// Numbers on the line.
        found: usize,
        /// Numbers a line has.
        expected: usize,
    },
}

/// Reads [`to_csv`]'s output; errors name the line.
pub fn from_csv(text: &str) -> Result<Vec<Sample>, CsvError> {
    let mut out = Vec::new();
    for (i, text) in text.lines().enumerate().skip(1) {
        if text.trim().is_empty() {
            continue;
        }
        let line = i + 1;
        let nums: Result<Vec<i32>, _> = text.split(',').map(|t| t.trim().parse::<i32>()).collect();
        let nums = nums.map_err(|source| CsvError::Number { line, source })?;
        if nums.len() != FEATURES + 1 {
            return Err(CsvError::Count {
                line,
                found: nums.len(),
                expected: FEATURES + 1,
            });
        }
        let mut f = [0; FEATURES];
        f.copy_from_slice(&nums[..FEATURES]);
        out.push(Sample {
            features: f,
            target: nums[FEATURES],
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_recovers_known_weights() {
        // Targets made from known weights, with no noise, must be fitted back.
        let w = [
            10, 50, -20, 5, 40, 90, -80, 3, 30, 60, 7, -9, 11, 2, 4, -6, 8,
        ];
        let mut samples = Vec::new();
        let mut rng = anywoli_core::XorShift::new(7);
        for _ in 0..500 {
            let mut f = [0; FEATURES];
            for v in f.iter_mut() {
                *v = rng.below(21) as i32 - 10;
            }
            let target = f.iter().zip(&w).map(|(a, b)| a * b).sum();
            samples.push(Sample {
                features: f,
                target,
            });
        }
        let got = fit(&samples, 0.0);
        for (g, w) in got.iter().zip(w) {
            assert!((g - w as f64).abs() < 1e-6, "{got:?}");
        }
        assert_eq!(from_csv(&to_csv(&samples)).unwrap(), samples);
    }
}
