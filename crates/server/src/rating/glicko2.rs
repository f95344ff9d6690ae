//! Glicko-2, as in Mark Glickman's "Example of the Glicko-2 system" (2013), Steps 1–8, with the
//! new volatility found by the Illinois algorithm (Step 5).
//!
//! Ratings are on the Glicko scale at the API (1500 ± deviation) and on the Glicko-2 scale
//! (μ, φ) inside. As on lichess, a game is a rating period of its own for both players
//! ([`after_game`]), so a rating changes the moment a game ends, and the time a player has not
//! played is accounted for separately by [`age`], with a period of [`PERIOD`].
//!
//! # Bounds, and what happens to bad input
//!
//! Nothing here panics or loops without end, and every rating returned is finite:
//!
//! - A rating given in is first brought within bounds: a NaN rating is taken as 1500, a NaN
//!   deviation as [`MAX_DEVIATION`], a NaN volatility as [`DEFAULT_VOLATILITY`]; the rating is
//!   clamped to [[`MIN_RATING`], [`MAX_RATING`]], the deviation to [0, [`MAX_DEVIATION`]] and
//!   the volatility to [[`MIN_VOLATILITY`], [`MAX_VOLATILITY`]]. A deviation below
//!   [`MIN_DEVIATION`] is accepted as given (the paper's example has an opponent at 30):
//!   the minimum bounds what this module returns.
//! - A score is clamped to [0, 1] (so ±∞ is a win or a loss); a NaN score is a result nobody
//!   knows, and the rating period it is in changes nothing: the players' ratings come back as
//!   they were (brought within bounds).
//! - τ is clamped to [[`MIN_TAU`], [`MAX_TAU`]], and a NaN τ is [`TAU`].
//! - Ratings returned have a deviation within [[`MIN_DEVIATION`], [`MAX_DEVIATION`]], a rating
//!   within [[`MIN_RATING`], [`MAX_RATING`]] and a volatility within [[`MIN_VOLATILITY`],
//!   [`MAX_VOLATILITY`]].

use std::f64::consts::PI;
use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The factor between the Glicko and the Glicko-2 scales (Step 2 and Step 8).
pub const SCALE: f64 = 173.7178;
/// The Glicko rating that is 0 on the Glicko-2 scale (Step 2 and Step 8).
const ORIGIN: f64 = 1500.0;

/// τ, the system constant that bounds how fast the volatility changes.
///
/// The paper suggests 0.3 to 1.2: smaller values keep the volatility from changing much, so
/// that a very improbable result does not make the rating swing. Anywoli has no rated games yet
/// to fit τ on, so it takes 0.75, the middle of that range and the value lichess uses with the
/// same scheme (each game a rating period of its own, which gives the volatility many small
/// updates rather than a few large ones). Once there are games, τ is worth fitting to them (by
/// the deviance of predicted against actual results).
pub const TAU: f64 = 0.75;
/// Lowest τ taken: below it, the volatility freezes.
pub const MIN_TAU: f64 = 0.05;
/// Highest τ taken: far beyond the paper's range, and it keeps Step 5's bracket search short.
pub const MAX_TAU: f64 = 2.0;

/// The deviation of a new player, and the most it ever is: the paper's default. A player
/// who has not played for years comes back as uncertain as a new one, never more.
pub const MAX_DEVIATION: f64 = 350.0;
/// The least deviation this module returns.
///
/// A player who keeps playing equal opponents settles near 55–60 (with a volatility of 0.06,
/// where the growth of Step 6 in each game balances what the game teaches); only a
/// volatility drifting far down would take the deviation lower, and a deviation near 0 would
/// freeze the rating: each game would move it by almost nothing, so a player who improves
/// could not climb. At 45 (lichess's minimum) a win against an equal opponent still moves the
/// rating by about 6 points (10 at 60).
pub const MIN_DEVIATION: f64 = 45.0;
/// A rating whose deviation is above this is provisional, shown with a "?".
///
/// 110 is lichess's threshold. A new player at [`MAX_DEVIATION`] gets below it after 10 or 11
/// games against established opponents, by when a win against an equal moves the rating by
/// about 30 points rather than 175 for the first game; an established player (near 60)
/// becomes provisional again after a year without games (see [`PERIOD`]).
pub const PROVISIONAL_DEVIATION: f64 = 110.0;

/// The volatility of a new player: the paper's default.
pub const DEFAULT_VOLATILITY: f64 = 0.06;
/// The least volatility kept: Step 5 takes its logarithm, and a volatility near 0 would stop
/// the deviation from growing with time.
pub const MIN_VOLATILITY: f64 = 0.01;
/// The most volatility kept: a run of very improbable results can drive Step 5 to large
/// values, and the volatility is added to the deviation each period; lichess caps it at 0.1
/// too.
pub const MAX_VOLATILITY: f64 = 0.1;

/// The lowest rating: a beginner who loses game after game stops here, and need not win dozens
/// of games to climb back into the range where the others are (lichess's floor).
pub const MIN_RATING: f64 = 400.0;
/// The highest rating: far beyond anything reached from 1500; it only keeps the arithmetic
/// finite.
pub const MAX_RATING: f64 = 4000.0;

/// The length of a rating period for [`age`]: 4 days and 16 hours.
///
/// Chosen so that an established player, at a deviation near 60 with the default volatility,
/// is provisional again (above 110) after a year without a game: 78.2 periods, as
/// `(110² − 60²) / 173.7178² / 0.06²` says, 365 days / 78.2 = 4.67 days: 0.2143 periods a day,
/// as lichess's 0.21436. A day would make a player provisional after two and a half months
/// away; a week, only after a year and a half.
pub const PERIOD: Duration = Duration::from_secs((4 * 24 + 16) * 3600);

/// Step 5's convergence tolerance (the paper's ε).
const TOLERANCE: f64 = 1e-6;
/// Most Illinois iterations: it converges within about 10 on any input within bounds.
const MAX_ITERATIONS: u32 = 100;

/// A won game's score.
pub const WIN: f64 = 1.0;
/// A drawn game's score.
pub const DRAW: f64 = 0.5;
/// A lost game's score.
pub const LOSS: f64 = 0.0;

/// A player's rating in one category and variant, on the Glicko scale.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rating {
    pub rating: f64,
    /// The rating deviation (RD): one standard deviation of the uncertainty about `rating`.
    pub deviation: f64,
    /// σ, how erratic the player's results are (on the Glicko-2 scale, as in the paper).
    pub volatility: f64,
}

impl Rating {
    /// A new player's rating.
    pub const DEFAULT: Rating = Rating {
        rating: ORIGIN,
        deviation: MAX_DEVIATION,
        volatility: DEFAULT_VOLATILITY,
    };

    /// Whether the rating is provisional: its deviation is above [`PROVISIONAL_DEVIATION`]
    /// (a NaN deviation tells nothing about the player, so it is provisional too).
    pub fn is_provisional(&self) -> bool {
        self.deviation.is_nan() || self.deviation > PROVISIONAL_DEVIATION
    }

    /// The rating as shown, to the point. The change shown at the end of a game is the
    /// difference of the shown ratings, so that it adds up with what the player saw before.
    pub fn rounded(&self) -> i32 {
        // `as` saturates, and takes NaN to 0.
        self.rating.round() as i32
    }

    fn within_bounds(self) -> Rating {
        Rating {
            rating: if self.rating.is_nan() {
                ORIGIN
            } else {
                self.rating.clamp(MIN_RATING, MAX_RATING)
            },
            deviation: if self.deviation.is_nan() {
                MAX_DEVIATION
            } else {
                self.deviation.clamp(0.0, MAX_DEVIATION)
            },
            volatility: if self.volatility.is_nan() {
                DEFAULT_VOLATILITY
            } else {
                self.volatility.clamp(MIN_VOLATILITY, MAX_VOLATILITY)
            },
        }
    }
}

impl Default for Rating {
    fn default() -> Rating {
        Rating::DEFAULT
    }
}

/// "1464", or "1500?" when provisional.
impl fmt::Display for Rating {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mark = if self.is_provisional() { "?" } else { "" };
        write!(f, "{}{mark}", self.rounded())
    }
}

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
fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (PI * PI)).sqrt()
}

/// Step 3's E(μ, μⱼ, φⱼ): the player's expected score.
fn expected(mu: f64, mu_opponent: f64, g: f64) -> f64 {
    1.0 / (1.0 + (-g * (mu - mu_opponent)).exp())
}

/// Step 5: the new volatility σ', the root of the paper's f(x), x = ln σ'², found by the
/// Illinois algorithm (a regula falsi that halves the stale end's value so that it does not
/// stall).
fn new_volatility(phi: f64, v: f64, delta: f64, sigma: f64, tau: f64) -> f64 {
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

#[cfg(test)]
mod tests {
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
}
