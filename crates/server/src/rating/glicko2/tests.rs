//! The paper's example step by step, bounds on bad input, and properties over many ratings.

use std::time::Duration;

use super::period::{expected, g, new_volatility};
use super::*;

fn r(rating: f64, deviation: f64) -> Rating {
    Rating {
        rating,
        deviation,
        volatility: DEFAULT_VOLATILITY,
    }
}

/// The paper's example: 1500/200/0.06 beats 1400/30, loses to 1550/100 and to 1700/300,
/// τ = 0.5.
#[test]
fn paper_example() {
    let player = r(1500.0, 200.0);
    let games = [
        (r(1400.0, 30.0), WIN),
        (r(1550.0, 100.0), LOSS),
        (r(1700.0, 300.0), LOSS),
    ];
    let after = rate(player, &games, 0.5);
    assert!((after.rating - 1464.06).abs() < 0.01, "{after:?}");
    assert!((after.deviation - 151.52).abs() < 0.01, "{after:?}");
    assert!((after.volatility - 0.05999).abs() < 1e-5, "{after:?}");
}

/// The paper's intermediate figures: v = 1.7785, Δ = −0.4834, σ' = 0.05999.
#[test]
fn paper_example_steps() {
    let mu = 0.0;
    let phi: f64 = 1.1513;
    let opponents = [
        (-0.5756, 0.1727, 1.0),
        (0.2878, 0.5756, 0.0),
        (1.1513, 1.7269, 0.0),
    ];
    let mut information = 0.0;
    let mut improvement = 0.0;
    for (mu_j, phi_j, s) in opponents {
        let g = g(phi_j);
        let e = expected(mu, mu_j, g);
        information += g * g * e * (1.0 - e);
        improvement += g * (s - e);
    }
    let v = 1.0 / information;
    let delta = v * improvement;
    assert!((v - 1.7785).abs() < 1e-3, "v = {v}");
    assert!((delta - -0.4834).abs() < 1e-3, "Δ = {delta}");
    let sigma = new_volatility(phi, v, delta, 0.06, 0.5);
    assert!((sigma - 0.05999).abs() < 1e-5, "σ' = {sigma}");
    let phi_star = (phi * phi + sigma * sigma).sqrt();
    assert!((phi_star - 1.152862).abs() < 1e-4, "φ* = {phi_star}");
}

#[test]
fn no_games_only_grows_the_deviation() {
    let player = Rating {
        rating: 1620.0,
        deviation: 200.0,
        volatility: 0.07,
    };
    let after = rate(player, &[], 0.5);
    let phi: f64 = 200.0 / SCALE;
    let expected = SCALE * (phi * phi + 0.07 * 0.07).sqrt();
    assert_eq!(after.rating, 1620.0);
    assert_eq!(after.volatility, 0.07);
    assert!((after.deviation - expected).abs() < 1e-9, "{after:?}");
    assert!(after.deviation > 200.0);
    // One period of aging is the same thing.
    assert_eq!(age(player, 1.0), after);
}

#[test]
fn aging() {
    let player = r(1700.0, 60.0);
    assert_eq!(age(player, 0.0), player);
    assert_eq!(age(player, f64::NAN), player);
    assert_eq!(age(player, -3.0), player);
    // Periods add up: two of one are one of two.
    let twice = age(age(player, 1.0), 1.0);
    assert!((twice.deviation - age(player, 2.0).deviation).abs() < 1e-9);
    // A year away makes an established player provisional, a bit less does not.
    let year = periods(Duration::from_secs(365 * 86_400));
    assert!((year - 78.2).abs() < 0.1, "{year}");
    assert!(!age(player, year - 1.0).is_provisional());
    assert!(age(player, year + 1.0).is_provisional());
    // Never above the default.
    assert_eq!(age(player, 1e9).deviation, MAX_DEVIATION);
    assert_eq!(age(player, f64::INFINITY).deviation, MAX_DEVIATION);
    assert_eq!(age(player, 1e9).rating, 1700.0);
}

#[test]
fn equal_players_draw() {
    let p = r(1500.0, 200.0);
    let (a, b) = after_game(p, p, DRAW);
    assert_eq!(a, b);
    assert!((a.rating - 1500.0).abs() < 1e-9, "{a:?}");
    assert!(a.deviation < 200.0, "{a:?}");
    // The volatility moves only a little (an expected result is a sign of steadiness).
    assert!((a.volatility - DEFAULT_VOLATILITY).abs() < 1e-3, "{a:?}");
}

#[test]
fn equal_players_win() {
    for p in [Rating::DEFAULT, r(1830.0, 75.0), r(1200.0, 160.0)] {
        let (a, b) = after_game(p, p, WIN);
        assert!(a.rating > p.rating && b.rating < p.rating, "{a:?} {b:?}");
        assert!(
            ((a.rating - p.rating) + (b.rating - p.rating)).abs() < 1e-9,
            "{a:?} {b:?}"
        );
        assert_eq!(a.deviation, b.deviation);
        assert_eq!(a.volatility, b.volatility);
        // And the other way round.
        let (a2, b2) = after_game(p, p, LOSS);
        assert_eq!((a2, b2), (b, a));
    }
}

#[test]
fn new_player_becomes_established() {
    // A new player who beats and loses to established players in turn.
    let established = r(1500.0, 60.0);
    let mut p = Rating::DEFAULT;
    let mut games = 0;
    while p.is_provisional() {
        let score = if games % 2 == 0 { WIN } else { LOSS };
        p = after_game(p, established, score).0;
        games += 1;
        assert!(games < 30, "{p:?}");
    }
    assert!((8..=14).contains(&games), "{games} games: {p:?}");
}

#[test]
fn settles_within_bounds() {
    // Two players playing each other every period, trading wins, settle well above the
    // minimum deviation.
    let (mut a, mut b) = (Rating::DEFAULT, Rating::DEFAULT);
    for n in 0..500 {
        let score = if n % 2 == 0 { WIN } else { LOSS };
        (a, b) = after_game(a, b, score);
    }
    assert!(a.deviation > MIN_DEVIATION && a.deviation < 80.0, "{a:?}");
    assert!((a.rating - 1500.0).abs() < 50.0, "{a:?}");
}

#[test]
fn bad_input() {
    let nan = f64::NAN;
    let inf = f64::INFINITY;
    // A NaN score changes nothing.
    let (a, b) = (r(1600.0, 80.0), r(1400.0, 120.0));
    assert_eq!(after_game(a, b, nan), (a, b));
    assert_eq!(rate(a, &[(b, WIN), (b, nan)], TAU), a);
    // Out-of-range scores are wins and losses.
    assert_eq!(after_game(a, b, 7.0), after_game(a, b, WIN));
    assert_eq!(after_game(a, b, -inf), after_game(a, b, LOSS));
    // Garbage ratings are brought within bounds.
    let garbage = [
        Rating {
            rating: nan,
            deviation: nan,
            volatility: nan,
        },
        Rating {
            rating: inf,
            deviation: inf,
            volatility: inf,
        },
        Rating {
            rating: -inf,
            deviation: -inf,
            volatility: -inf,
        },
        Rating {
            rating: 1e300,
            deviation: 0.0,
            volatility: 0.0,
        },
    ];
    for x in garbage {
        for y in garbage.iter().copied().chain([a, b]) {
            for s in [WIN, DRAW, LOSS, nan] {
                for tau in [TAU, nan, 0.0, -1.0, inf, 1e9] {
                    let (x2, y2) = (rate(x, &[(y, s)], tau), rate(y, &[(x, 1.0 - s)], tau));
                    check(x2);
                    check(y2);
                }
            }
        }
        check(age(x, 10.0));
        check(rate(x, &[], nan));
    }
}

/// Ratings returned are finite and within bounds.
fn check(r: Rating) {
    assert!(r.rating.is_finite() && r.deviation.is_finite() && r.volatility.is_finite());
    assert!((MIN_RATING..=MAX_RATING).contains(&r.rating), "{r:?}");
    assert!((0.0..=MAX_DEVIATION).contains(&r.deviation), "{r:?}");
    assert!(r.volatility > 0.0, "{r:?}");
    assert!(
        (MIN_VOLATILITY..=MAX_VOLATILITY).contains(&r.volatility),
        "{r:?}"
    );
}

/// splitmix64: deterministic cases without a dependency.
struct Cases(u64);

impl Cases {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [lo, hi].
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn rating(&mut self) -> Rating {
        Rating {
            rating: self.range(MIN_RATING, MAX_RATING),
            deviation: self.range(MIN_DEVIATION, MAX_DEVIATION),
            volatility: self.range(MIN_VOLATILITY, MAX_VOLATILITY),
        }
    }
}

#[test]
fn properties() {
    let mut cases = Cases(12);
    for _ in 0..20_000 {
        let (a, b) = (cases.rating(), cases.rating());
        let (a_won, b_lost) = after_game(a, b, WIN);
        let (a_drew, b_drew) = after_game(a, b, DRAW);
        let (a_lost, b_won) = after_game(a, b, LOSS);
        for x in [a_won, b_lost, a_drew, b_drew, a_lost, b_won] {
            check(x);
            assert!(x.deviation >= MIN_DEVIATION, "{x:?}");
        }
        // The winner never loses points, the loser never gains.
        assert!(
            a_won.rating >= a.rating && b_won.rating >= b.rating,
            "{a:?} {b:?}"
        );
        assert!(
            a_lost.rating <= a.rating && b_lost.rating <= b.rating,
            "{a:?} {b:?}"
        );
        // A draw takes points from the higher rated, never more than a loss would.
        if a.rating < b.rating {
            assert!(a_drew.rating >= a.rating && b_drew.rating <= b.rating);
        }
        assert!(a_lost.rating <= a_drew.rating && a_drew.rating <= a_won.rating);
        // Aging grows the deviation only.
        let aged = age(a, cases.range(0.0, 1000.0));
        check(aged);
        assert!(aged.deviation >= a.deviation && aged.rating == a.rating);

        // A rating period of several games, any scores.
        let games: Vec<(Rating, f64)> = (0..cases.next() % 12)
            .map(|_| (cases.rating(), cases.range(-0.5, 1.5)))
            .collect();
        let tau = cases.range(0.0, 3.0);
        let x = rate(a, &games, tau);
        check(x);
        assert!(x.deviation >= MIN_DEVIATION);
    }
}

#[test]
fn provisional_and_display() {
    assert!(Rating::DEFAULT.is_provisional());
    assert_eq!(Rating::default().to_string(), "1500?");
    assert!(!r(1464.06, 110.0).is_provisional());
    assert!(r(1464.06, 110.01).is_provisional());
    assert_eq!(r(1464.56, 60.0).to_string(), "1465");
    assert!(r(1500.0, f64::NAN).is_provisional());
}
