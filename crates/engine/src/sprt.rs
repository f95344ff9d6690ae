//! The sequential probability ratio test of a match, on pentanomial counts.
//!
//! A match plays each opening twice with the sides swapped; the two games are one *pair*, and
//! a pair scores 0, ½, 1, 1½ or 2 points for the first player. Counting pairs rather than
//! games (the *pentanomial* model, as fishtest does) takes out most of the openings' noise:
//! an opening that favours South shows up as 1–1 pairs, not as a win and a loss.
//!
//! The test weighs H0 "the first player is `elo0` stronger" against H1 "`elo1` stronger"
//! (logistic Elo: a score `s` is `400 log10(s / (1 - s))` Elo). Its statistic is the
//! generalised log-likelihood ratio: for each hypothesis, the pentanomial distribution of the
//! largest likelihood whose mean is that hypothesis's score, as M. Van den Bergh derives it
//! ("Comments on the SPRT", fishtest): `p_i = q_i / (1 + λ (a_i - s))` with `q` the observed
//! frequencies, `a` the pair scores and `λ` the root that makes `p` sum to 1. The test stops
//! once the ratio leaves `(ln(β / (1 - α)), ln((1 - β) / α))`: H1 is accepted above, H0 below,
//! with error rates at most `α` and `β`.

/// The five pair scores, as fractions of the pair's 2 points.
const PAIR_SCORES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

/// Counts of the pairs that scored 0, ½, 1, 1½ and 2 points for the first player.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial(pub [u64; 5]);

impl Pentanomial {
    /// Adds a pair from the first player's points in its two games (each 0, ½ or 1).
    pub fn add(&mut self, first: f64, second: f64) {
        let k = ((first + second) * 2.0).round().clamp(0.0, 4.0) as usize;
        self.0[k] += 1;
    }

    /// Pairs counted.
    pub fn pairs(&self) -> u64 {
        self.0.iter().sum()
    }

    /// The first player's points over the pairs' games.
    pub fn points(&self) -> f64 {
        self.0
            .iter()
            .zip(PAIR_SCORES)
            .map(|(&n, a)| n as f64 * a * 2.0)
            .sum()
    }

    /// The frequencies of the five results, zero counts replaced by a thousandth of a pair
    /// so that the likelihoods stay finite (as fishtest regularises); `None` with no pairs.
    fn frequencies(&self) -> Option<[f64; 5]> {
        let n = self.pairs();
        if n == 0 {
            return None;
        }
        let counts = self.0.map(|c| if c == 0 { 1e-3 } else { c as f64 });
        let total: f64 = counts.iter().sum();
        Some(counts.map(|c| c / total))
    }

    /// The Elo difference the pairs measure, with the half-width of its 95% interval from the
    /// pairs' own variance (infinite when the interval reaches a score of 0 or 1).
    pub fn elo(&self) -> PairElo {
        let n = self.pairs();
        if n == 0 {
            return PairElo {
                elo: 0.0,
                error: f64::INFINITY,
            };
        }
        let q = self.0.map(|c| c as f64 / n as f64);
        let mean: f64 = q.iter().zip(PAIR_SCORES).map(|(q, a)| q * a).sum();
        let var: f64 = q
            .iter()
            .zip(PAIR_SCORES)
            .map(|(q, a)| q * (a - mean) * (a - mean))
            .sum();
        let se = (var / n as f64).sqrt();
        let (lo, hi) = (mean - 1.96 * se, mean + 1.96 * se);
        let elo = elo_of_score(mean.clamp(1e-9, 1.0 - 1e-9)).clamp(-1200.0, 1200.0);
        let error = if lo <= 0.0 || hi >= 1.0 {
            f64::INFINITY
        } else {
            (elo_of_score(hi) - elo_of_score(lo)) / 2.0
        };
        PairElo { elo, error }
    }
}

impl std::fmt::Display for Pentanomial {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let [a, b, c, d, e] = self.0;
        write!(f, "[{a}, {b}, {c}, {d}, {e}]")
    }
}

/// An Elo difference measured on pairs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairElo {
    /// The first player's advantage.
    pub elo: f64,
    /// Half-width of the 95% interval.
    pub error: f64,
}

/// The logistic Elo difference of an expected score.
pub fn elo_of_score(s: f64) -> f64 {
    -400.0 * (1.0 / s - 1.0).log10()
}

/// The expected score of a logistic Elo difference.
pub fn score_of_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// A test's hypotheses and error rates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// H0: the first player is this many Elo stronger.
    pub elo0: f64,
    /// H1: the first player is this many Elo stronger (above `elo0`).
    pub elo1: f64,
    /// The largest chance of accepting H1 when H0 holds.
    pub alpha: f64,
    /// The largest chance of accepting H0 when H1 holds.
    pub beta: f64,
}

/// Where a test stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The ratio is above the upper bound: H1 (`elo1`) is accepted.
    AcceptH1,
    /// The ratio is below the lower bound: H0 (`elo0`) is accepted.
    AcceptH0,
    /// Neither bound is reached: more pairs are needed.
    Continue,
}

/// Why a test's parameters cannot be used.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum SprtError {
    /// `elo1` must be above `elo0`, both within ±1000.
    #[error("elo1 ({elo1}) must be above elo0 ({elo0}), both between -1000 and 1000")]
    Hypotheses {
        /// The given H0.
        elo0: f64,
        /// The given H1.
        elo1: f64,
    },
    /// An error rate outside (0, 0.5).
    #[error("{name} must be above 0 and below 0.5 (got {value})")]
    Rate {
        /// `alpha` or `beta`.
        name: &'static str,
        /// The value given.
        value: f64,
    },
}

impl Sprt {
    /// A test, checked.
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<Sprt, SprtError> {
        if !(elo0.is_finite() && elo1.is_finite() && elo0 < elo1)
            || elo0.abs() > 1000.0
            || elo1.abs() > 1000.0
        {
            return Err(SprtError::Hypotheses { elo0, elo1 });
        }
        for (name, value) in [("alpha", alpha), ("beta", beta)] {
            if !(value > 0.0 && value < 0.5) {
                return Err(SprtError::Rate { name, value });
            }
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    /// The lower and upper bounds of the log-likelihood ratio.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The log-likelihood ratio of H1 against H0 on these pairs (0 with none).
    pub fn llr(&self, pairs: &Pentanomial) -> f64 {
        let Some(q) = pairs.frequencies() else {
            return 0.0;
        };
        let n = pairs.pairs() as f64;
        let l0 = max_log_likelihood(&q, score_of_elo(self.elo0));
        let l1 = max_log_likelihood(&q, score_of_elo(self.elo1));
        n * (l1 - l0)
    }

    /// Whether the test has ended on these pairs.
    pub fn verdict(&self, pairs: &Pentanomial) -> Verdict {
        let llr = self.llr(pairs);
        let (lower, upper) = self.bounds();
        if llr >= upper {
            Verdict::AcceptH1
        } else if llr <= lower {
            Verdict::AcceptH0
        } else {
            Verdict::Continue
        }
    }
}

/// The mean log-likelihood `Σ q_i ln(p_i / q_i)` of the pentanomial distribution `p` of mean
/// `s` that makes the frequencies `q` likeliest: `p_i = q_i / (1 + λ (a_i - s))`.
fn max_log_likelihood(q: &[f64; 5], s: f64) -> f64 {
    let lambda = lagrange_multiplier(q, s);
    -q.iter()
        .zip(PAIR_SCORES)
        .map(|(q, a)| q * (1.0 + lambda * (a - s)).ln())
        .sum::<f64>()
}

/// The `λ` with `Σ q_i (a_i - s) / (1 + λ (a_i - s)) = 0`, found by bisection: the sum falls
/// as `λ` rises, between the values that keep every `1 + λ (a_i - s)` positive.
fn lagrange_multiplier(q: &[f64; 5], s: f64) -> f64 {
    let f = |lambda: f64| -> f64 {
        q.iter()
            .zip(PAIR_SCORES)
            .map(|(q, a)| q * (a - s) / (1.0 + lambda * (a - s)))
            .sum()
    };
    // Every score lies in [0, 1] and s inside it: 1 + λ (a - s) > 0 for λ in
    // (-1 / (1 - s), 1 / s).
    let (mut lo, mut hi) = (-1.0 / (1.0 - s), 1.0 / s);
    let shrink = 1e-12;
    lo += shrink * (hi - lo);
    hi -= shrink * (hi - lo);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn penta(c: [u64; 5]) -> Pentanomial {
        Pentanomial(c)
    }

    #[test]
    fn the_bounds_are_walds() {
        let t = Sprt::new(0.0, 50.0, 0.05, 0.05).unwrap();
        let (lo, hi) = t.bounds();
        assert!((lo + 2.944_438_979).abs() < 1e-6, "{lo}");
        assert!((hi - 2.944_438_979).abs() < 1e-6, "{hi}");
    }

    #[test]
    fn pairs_are_counted_by_their_points() {
        let mut p = Pentanomial::default();
        p.add(1.0, 1.0);
        p.add(1.0, 0.0);
        p.add(0.5, 0.0);
        p.add(0.5, 1.0);
        p.add(0.0, 0.0);
        assert_eq!(p, penta([1, 1, 1, 1, 1]));
        assert_eq!(p.points(), 5.0);
        assert_eq!(p.pairs(), 5);
    }

    #[test]
    fn an_even_sample_leans_to_h0_and_a_strong_one_to_h1() {
        let t = Sprt::new(0.0, 50.0, 0.05, 0.05).unwrap();
        let even = penta([30, 120, 300, 120, 30]);
        assert!(t.llr(&even) < -2.95, "{}", t.llr(&even));
        assert_eq!(t.verdict(&even), Verdict::AcceptH0);
        let strong = penta([10, 60, 200, 140, 50]);
        assert!(t.llr(&strong) > 2.95, "{}", t.llr(&strong));
        assert_eq!(t.verdict(&strong), Verdict::AcceptH1);
        let few = penta([1, 2, 3, 2, 1]);
        assert_eq!(t.verdict(&few), Verdict::Continue);
        assert_eq!(t.llr(&Pentanomial::default()), 0.0);
    }

    /// For small Elo differences the ratio is close to the normal approximation
    /// `N (s1 - s0) (2 m - s0 - s1) / (2 σ²)` that fishtest's early versions used.
    #[test]
    fn the_ratio_agrees_with_the_normal_approximation() {
        let t = Sprt::new(0.0, 10.0, 0.05, 0.05).unwrap();
        let p = penta([40, 210, 480, 230, 45]);
        let n = p.pairs() as f64;
        let q = p.0.map(|c| c as f64 / n);
        let m: f64 = q.iter().zip(PAIR_SCORES).map(|(q, a)| q * a).sum();
        let var: f64 = q
            .iter()
            .zip(PAIR_SCORES)
            .map(|(q, a)| q * (a - m) * (a - m))
            .sum();
        let (s0, s1) = (score_of_elo(0.0), score_of_elo(10.0));
        let approx = n * (s1 - s0) * (2.0 * m - s0 - s1) / (2.0 * var);
        let exact = t.llr(&p);
        assert!(
            (exact - approx).abs() < 0.02 * approx.abs().max(1.0),
            "{exact} {approx}"
        );
    }

    /// The ratio of the multinomial likelihoods: it equals the direct computation
    /// `Σ n_i ln(p1_i / p0_i)` with the fitted distributions, each of mean s.
    #[test]
    fn the_fitted_distributions_have_the_hypotheses_means() {
        let q = [0.1, 0.2, 0.4, 0.2, 0.1];
        for s in [0.45, 0.5, 0.571] {
            let l = lagrange_multiplier(&q, s);
            let p: Vec<f64> = q
                .iter()
                .zip(PAIR_SCORES)
                .map(|(q, a)| q / (1.0 + l * (a - s)))
                .collect();
            let sum: f64 = p.iter().sum();
            let mean: f64 = p.iter().zip(PAIR_SCORES).map(|(p, a)| p * a).sum();
            assert!((sum - 1.0).abs() < 1e-9, "{sum}");
            assert!((mean - s).abs() < 1e-9, "{mean} {s}");
        }
    }

    #[test]
    fn elo_from_pairs_matches_the_score() {
        let p = penta([0, 0, 10, 0, 0]);
        let e = p.elo();
        assert_eq!(e.elo, 0.0);
        // Every pair 1-1: no variance, a zero-width interval.
        assert_eq!(e.error, 0.0);
        let p = penta([10, 20, 40, 60, 70]);
        let e = p.elo();
        let mean = p.points() / (2.0 * p.pairs() as f64);
        assert!((e.elo - elo_of_score(mean)).abs() < 1e-9);
        assert!(e.error > 20.0 && e.error < 100.0, "{}", e.error);
    }

    #[test]
    fn bad_parameters_are_refused() {
        assert!(Sprt::new(50.0, 0.0, 0.05, 0.05).is_err());
        assert!(Sprt::new(0.0, 50.0, 0.0, 0.05).is_err());
        assert!(Sprt::new(0.0, 50.0, 0.05, 0.5).is_err());
        assert!(Sprt::new(f64::NAN, 50.0, 0.05, 0.05).is_err());
    }
}
