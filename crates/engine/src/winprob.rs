//! An evaluation turned into an expected score: how often a side whose search says it will
//! end `m` seeds ahead, with `n` seeds still in play, goes on to win (a draw counting half).
//!
//! The curve is logistic in the margin, with a spread that grows with the seeds left to play
//! for: a 5-seed lead with 8 seeds in play is all but decided, with 80 it is not:
//! `E(m, n) = 1 / (1 + e^(−m / s(n)))`, `s(n) = SPREAD_BASE + SPREAD_PER_SEED × n` seeds.
//! The two constants were fitted by `anywoli-tune fitwin` (maximum likelihood) on self-play
//! games, each position searched to the depth a review uses; the data and the fit are in
//! docs/tuning.md, "Win probability".

/// The spread with no seed in play, in seeds.
pub const SPREAD_BASE: f64 = 2.115;
/// How much each seed in play adds to the spread, in seeds.
pub const SPREAD_PER_SEED: f64 = 0.0594;

/// The curve's two parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Curve {
    /// The spread with no seed in play, in seeds.
    pub base: f64,
    /// What each seed in play adds to it.
    pub per_seed: f64,
}

/// The shipped curve.
pub const CURVE: Curve = Curve {
    base: SPREAD_BASE,
    per_seed: SPREAD_PER_SEED,
};

impl Curve {
    /// The expected score (0 to 1) of the side whose final margin the search puts at
    /// `margin_cs` centiseeds, `seeds_in_play` seeds still on the board.
    pub fn expected(&self, margin_cs: i32, seeds_in_play: u8) -> f64 {
        let spread = self.base + self.per_seed * f64::from(seeds_in_play);
        1.0 / (1.0 + (-(f64::from(margin_cs) / 100.0) / spread).exp())
    }
}

/// [`Curve::expected`] of the shipped curve, as a percentage (0 to 100).
pub fn win_percent(margin_cs: i32, seeds_in_play: u8) -> f64 {
    100.0 * CURVE.expected(margin_cs, seeds_in_play)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn even_is_half_and_the_curve_is_symmetric_and_rising() {
        for n in [4u8, 8, 24, 96] {
            assert!((win_percent(0, n) - 50.0).abs() < 1e-9);
            let mut last = 0.0;
            for m in (-4800..=4800).step_by(100) {
                let w = win_percent(m, n);
                assert!(w >= last, "{m} {n}");
                assert!((w + win_percent(-m, n) - 100.0).abs() < 1e-9);
                last = w;
            }
        }
    }

    #[test]
    fn a_lead_counts_for_more_with_fewer_seeds_left() {
        assert!(win_percent(500, 8) > win_percent(500, 48));
        assert!(win_percent(500, 48) > win_percent(500, 96));
        // A 72-seed swing decides any game.
        assert!(win_percent(-7200, 96) < 1.0);
    }
}
