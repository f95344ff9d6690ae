//! A rating and its bounds: the scales, the limits every rating returned keeps within, the
//! scores, and a rating given in brought within them.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The factor between the Glicko and the Glicko-2 scales (Step 2 and Step 8).
pub const SCALE: f64 = 173.7178;
/// The Glicko rating that is 0 on the Glicko-2 scale (Step 2 and Step 8).
pub(super) const ORIGIN: f64 = 1500.0;

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

    pub(super) fn within_bounds(self) -> Rating {
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
