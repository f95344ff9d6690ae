//! A rating period (Steps 1–8 of the paper): a game's two ratings, the deviation grown by
//! time without games, and the new volatility by the Illinois algorithm.

use std::f64::consts::PI;
use std::time::Duration;

use super::rating::{
    Rating, LOSS, MAX_DEVIATION, MAX_RATING, MAX_TAU, MAX_VOLATILITY, MIN_DEVIATION, MIN_RATING,
    MIN_TAU, MIN_VOLATILITY, ORIGIN, PERIOD, SCALE, TAU, WIN,
};

/// Step 5's convergence tolerance (the paper's ε).
const TOLERANCE: f64 = 1e-6;
/// Most Illinois iterations: it converges within about 10 on any input within bounds.
const MAX_ITERATIONS: u32 = 100;

/// The ratings of two players after a game between them, each rated from both ratings before
/// the game, the game a rating period of its own; `score_a` is `a`'s score ([`WIN`], [`DRAW`],
/// [`LOSS`]), `b` scores the rest. Age each rating by the time since the player's last game
/// ([`age`]) before calling. A NaN score changes nothing.
pub fn after_game(a: Rating, b: Rating, score_a: f64) -> (Rating, Rating) {
    if score_a.is_nan() {
        return (a.within_bounds(), b.within_bounds());
    }
    let score_a = score_a.clamp(LOSS, WIN);
    (
        rate(a, &[(b, score_a)], TAU),
        rate(b, &[(a, WIN - score_a)], TAU),
    )
}

/// The deviation after `periods` rating periods without a game (Step 6 for each): it grows
/// by the volatility, `φ' = √(φ² + periods·σ²)`, up to [`MAX_DEVIATION`]. Negative or NaN
/// `periods` count as none.
pub fn age(r: Rating, periods: f64) -> Rating {
    let r = r.within_bounds();
    let periods = if periods > 0.0 { periods } else { 0.0 };
    // Step 6 on the Glicko scale, which is exact when no time has passed.
    let step = SCALE * r.volatility;
    let grown = (r.deviation * r.deviation + periods * step * step).sqrt();
    Rating {
        deviation: grown.clamp(MIN_DEVIATION, MAX_DEVIATION),
        ..r
    }
}

/// How many rating periods (fractional) `idle` is, for [`age`].
pub fn periods(idle: Duration) -> f64 {
    idle.as_secs_f64() / PERIOD.as_secs_f64()
}

/// A player's rating after one rating period in which they played `games`, each the opponent's
/// rating (at the start of the period) and the player's score. With no games, only the
/// deviation grows (Step 6).
pub fn rate(player: Rating, games: &[(Rating, f64)], tau: f64) -> Rating {
    let p = player.within_bounds();
    if games.is_empty() {
        return age(p, 1.0);
    }
    if games.iter().any(|&(_, score)| score.is_nan()) {
        return p;
    }
    let tau = if tau.is_nan() {
        TAU
    } else {
        tau.clamp(MIN_TAU, MAX_TAU)
    };

    // Step 2.
    let mu = (p.rating - ORIGIN) / SCALE;
    let phi = p.deviation / SCALE;

    // Steps 3 and 4: `v` is the estimated variance of the rating from the games alone, and
    // `improvement` is Σ g(φⱼ)(sⱼ − E), so that Δ = v · improvement.
    let mut information = 0.0;
    let mut improvement = 0.0;
    for &(opponent, score) in games {
        let o = opponent.within_bounds();
        let g = g(o.deviation / SCALE);
        let e = expected(mu, (o.rating - ORIGIN) / SCALE, g);
        information += g * g * e * (1.0 - e);
        improvement += g * (score.clamp(LOSS, WIN) - e);
    }
    // Within bounds, ratings differ by at most 20.7 on the Glicko-2 scale and g ≥ 0.66, so E
    // stays at least 1e-6 from 0 and 1: the information is positive. The guard is for safety.
    if !information.is_finite() || information <= 0.0 {
        return p;
    }
    let v = 1.0 / information;
    let delta = v * improvement;

    // Step 5.
    let sigma = new_volatility(phi, v, delta, p.volatility, tau);

    // Step 6.
    let phi_star = (phi * phi + sigma * sigma).sqrt();

    // Step 7.
    let phi_new = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
    let mu_new = mu + phi_new * phi_new * improvement;

    // Step 8.
    let rating = SCALE * mu_new + ORIGIN;
    let deviation = SCALE * phi_new;
    if !rating.is_finite() || !deviation.is_finite() {
        return p;
    }
    Rating {
        rating: rating.clamp(MIN_RATING, MAX_RATING),
        deviation: deviation.clamp(MIN_DEVIATION, MAX_DEVIATION),
        volatility: sigma,
    }
}

/// Step 3's g(φ): how much a game tells, less the more uncertain the opponent's rating is.
pub(super) fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (PI * PI)).sqrt()
}

/// Step 3's E(μ, μⱼ, φⱼ): the player's expected score.
pub(super) fn expected(mu: f64, mu_opponent: f64, g: f64) -> f64 {
    1.0 / (1.0 + (-g * (mu - mu_opponent)).exp())
}

/// Step 5: the new volatility σ', the root of the paper's f(x), x = ln σ'², found by the
/// Illinois algorithm (a regula falsi that halves the stale end's value so that it does not
/// stall).
pub(super) fn new_volatility(phi: f64, v: f64, delta: f64, sigma: f64, tau: f64) -> f64 {
    let a = (sigma * sigma).ln();
    let phi2_v = phi * phi + v;
    let delta2 = delta * delta;
    let f = |x: f64| {
        let ex = x.exp();
        ex * (delta2 - phi2_v - ex) / (2.0 * (phi2_v + ex) * (phi2_v + ex)) - (x - a) / (tau * tau)
    };

    // Step 5.2: bracket the root between A and B.
    let mut big_a = a;
    let mut big_b = if delta2 > phi2_v {
        (delta2 - phi2_v).ln()
    } else {
        // Here the first term of f lies in (−½, 0], so f(a − kτ) ≥ k/τ − ½: k = 1 suffices
        // for τ ≤ 2, and the bound is only a guard.
        let mut k = 1.0;
        while f(a - k * tau) < 0.0 && k < 1000.0 {
            k += 1.0;
        }
        a - k * tau
    };

    // Steps 5.3 and 5.4.
    let mut f_a = f(big_a);
    let mut f_b = f(big_b);
    for _ in 0..MAX_ITERATIONS {
        if (big_b - big_a).abs() <= TOLERANCE {
            break;
        }
        let big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
        if !big_c.is_finite() {
            break;
        }
        let f_c = f(big_c);
        if f_c * f_b <= 0.0 {
            big_a = big_b;
            f_a = f_b;
        } else {
            f_a /= 2.0;
        }
        big_b = big_c;
        f_b = f_c;
    }

    // Step 5.5.
    let sigma_new = (big_a / 2.0).exp();
    if sigma_new.is_finite() {
        sigma_new.clamp(MIN_VOLATILITY, MAX_VOLATILITY)
    } else {
        sigma
    }
}
