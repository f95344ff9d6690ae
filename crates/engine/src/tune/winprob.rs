//! Fitting the win-probability curve ([`crate::winprob`]) to labelled self-play positions:
//! each position's depth-N search value gives the margin the search expects, the game's end
//! the result (1 a win for the side to move, ½ a draw, 0 a loss). The fit maximises the
//! likelihood of the results (docs/tuning.md, "Win probability").

use crate::winprob::Curve;

use super::labels::Labelled;

/// One position: the final margin the search expects for the side to move (stores included),
/// the seeds in play, and the result the side to move got.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WinSample {
    /// Centiseeds of final store difference the search expects.
    pub margin_cs: i32,
    /// Seeds in play.
    pub seeds: u8,
    /// 1, ½ or 0.
    pub score: f64,
}

/// The samples of the searched rows (rows without a search value are left out).
pub fn samples(rows: &[Labelled]) -> Vec<WinSample> {
    rows.iter()
        .filter_map(|r| {
            let me = r.pos.to_move()?;
            let stores = (r.pos.store(me) as i32 - r.pos.store(me.opponent()) as i32) * 100;
            let end = stores + r.outcome;
            Some(WinSample {
                margin_cs: stores + r.value?,
                seeds: r.pos.seeds_in_play(),
                score: match end.signum() {
                    1 => 1.0,
                    0 => 0.5,
                    _ => 0.0,
                },
            })
        })
        .collect()
}

/// The mean log-loss of `curve` on `samples` (lower is better).
pub fn log_loss(curve: &Curve, samples: &[WinSample]) -> f64 {
    let eps = 1e-12;
    let sum: f64 = samples
        .iter()
        .map(|s| {
            let p = curve.expected(s.margin_cs, s.seeds).clamp(eps, 1.0 - eps);
            -(s.score * p.ln() + (1.0 - s.score) * (1.0 - p).ln())
        })
        .sum();
    sum / samples.len().max(1) as f64
}

/// The curve of least log-loss: a grid over both parameters, then halving steps around the
/// best point until they are a thousandth of a seed.
pub fn fit(samples: &[WinSample]) -> Curve {
    let mut best = Curve {
        base: 1.0,
        per_seed: 0.1,
    };
    let mut best_loss = f64::INFINITY;
    for i in 1..=40 {
        for j in 0..=40 {
            let c = Curve {
                base: i as f64 * 0.25,
                per_seed: j as f64 * 0.01,
            };
            let l = log_loss(&c, samples);
            if l < best_loss {
                (best, best_loss) = (c, l);
            }
        }
    }
    let (mut step_a, mut step_b) = (0.125, 0.005);
    while step_a > 1e-3 {
        let mut moved = false;
        for (da, db) in [(1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)] {
            let c = Curve {
                base: (best.base + da * step_a).max(0.01),
                per_seed: (best.per_seed + db * step_b).max(0.0),
            };
            let l = log_loss(&c, samples);
            if l < best_loss {
                (best, best_loss, moved) = (c, l, true);
            }
        }
        if !moved {
            step_a /= 2.0;
            step_b /= 2.0;
        }
    }
    best
}

/// One row of a calibration table: the samples whose predicted score falls in `[lo, hi)`,
/// how many, what the curve predicted on average and what they scored.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bin {
    /// The bin's lower edge (0 to 1).
    pub lo: f64,
    /// Its upper edge.
    pub hi: f64,
    /// Samples in it.
    pub count: usize,
    /// Their mean predicted score.
    pub predicted: f64,
    /// Their mean actual score.
    pub actual: f64,
}

/// The calibration of `curve` in ten bins of predicted score.
pub fn calibration(curve: &Curve, samples: &[WinSample]) -> Vec<Bin> {
    let mut bins: Vec<Bin> = (0..10)
        .map(|i| Bin {
            lo: i as f64 / 10.0,
            hi: (i + 1) as f64 / 10.0,
            count: 0,
            predicted: 0.0,
            actual: 0.0,
        })
        .collect();
    for s in samples {
        let p = curve.expected(s.margin_cs, s.seeds);
        let b = &mut bins[((p * 10.0) as usize).min(9)];
        b.count += 1;
        b.predicted += p;
        b.actual += s.score;
    }
    for b in &mut bins {
        if b.count > 0 {
            b.predicted /= b.count as f64;
            b.actual /= b.count as f64;
        }
    }
    bins
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Samples drawn from a known curve are fitted back to it.
    #[test]
    fn a_known_curve_is_recovered() {
        let truth = Curve {
            base: 2.0,
            per_seed: 0.07,
        };
        let mut s: u64 = 99;
        let mut rnd = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut samples = Vec::new();
        for _ in 0..40_000 {
            let seeds = 4 + (rnd() * 92.0) as u8;
            let margin_cs = ((rnd() - 0.5) * 4000.0) as i32;
            let p = truth.expected(margin_cs, seeds);
            let score = if rnd() < p { 1.0 } else { 0.0 };
            samples.push(WinSample {
                margin_cs,
                seeds,
                score,
            });
        }
        let got = fit(&samples);
        assert!((got.base - truth.base).abs() < 0.4, "{got:?}");
        assert!((got.per_seed - truth.per_seed).abs() < 0.015, "{got:?}");
        assert!(log_loss(&got, &samples) <= log_loss(&truth, &samples) + 1e-9);
        let cal = calibration(&got, &samples);
        for b in cal.iter().filter(|b| b.count > 500) {
            assert!((b.predicted - b.actual).abs() < 0.05, "{b:?}");
        }
    }
}
