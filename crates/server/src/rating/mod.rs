//! Ratings (issue 12): Glicko-2 ([`glicko2`]), one rating per speed category and rules variant
//! ([`RatingKey`]). Pure arithmetic: storing ratings and showing them is the caller's.
//!
//! # Categories
//!
//! A clock of `initial` seconds plus `increment` seconds a move is sorted by its estimated
//! duration for each player, `initial + 40 × increment` ([`MOVES_PER_GAME`]), as lichess sorts
//! chess clocks. 40 moves a player fits Anywoli too: the annotated example game in
//! docs/rules.md ends at ply 84, 42 moves each.
//!
//! | estimated duration | category | examples |
//! |---|---|---|
//! | under 180 s (3 min) | bullet | 1+0, 2+1 |
//! | under 480 s (8 min) | blitz | 3+0, 3+2, 5+3 |
//! | under 1500 s (25 min) | rapid | 10+0, 10+5, 15+10 |
//! | 1500 s and more | classical | 25+0, 15+15, 30+20 |
//!
//! Games with days per move rather than a clock are correspondence, whatever the days.

pub mod glicko2;

use std::fmt;

use anywoli_core::BySide;
use serde::{Deserialize, Serialize};

pub use glicko2::{after_game, age, periods, rate, Rating, DRAW, LOSS, WIN};

/// Moves a player is expected to make in a game, to weigh the increment.
pub const MOVES_PER_GAME: u64 = 40;
/// Estimated durations (seconds) below this are bullet.
pub const BULLET_BELOW: u64 = 180;
/// Estimated durations (seconds) below this are blitz, if not bullet.
pub const BLITZ_BELOW: u64 = 480;
/// Estimated durations (seconds) below this are rapid, if not blitz; the rest are classical.
pub const RAPID_BELOW: u64 = 1500;

/// A speed category: players are rated separately in each, since being quick and playing
/// well with time to think are different skills.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    Bullet,
    Blitz,
    Rapid,
    Classical,
    Correspondence,
}

impl Category {
    /// Every category, fastest first.
    pub const ALL: [Category; 5] = [
        Category::Bullet,
        Category::Blitz,
        Category::Rapid,
        Category::Classical,
        Category::Correspondence,
    ];

    /// The category of a clock of `initial_secs` plus `increment_secs` a move (see the module
    /// documentation for the boundaries).
    pub fn from_clock(initial_secs: u32, increment_secs: u32) -> Category {
        let estimate = u64::from(initial_secs) + MOVES_PER_GAME * u64::from(increment_secs);
        if estimate < BULLET_BELOW {
            Category::Bullet
        } else if estimate < BLITZ_BELOW {
            Category::Blitz
        } else if estimate < RAPID_BELOW {
            Category::Rapid
        } else {
            Category::Classical
        }
    }

    /// The category of a game with `days` per move: always correspondence. Splitting it by
    /// the days would split its few players into pools too small to rate one another.
    pub fn from_days_per_move(_days: u32) -> Category {
        Category::Correspondence
    }

    /// The name in URLs, the API and the store.
    pub fn name(self) -> &'static str {
        match self {
            Category::Bullet => "bullet",
            Category::Blitz => "blitz",
            Category::Rapid => "rapid",
            Category::Classical => "classical",
            Category::Correspondence => "correspondence",
        }
    }

    /// The category named `name` ([`Category::name`]).
    pub fn from_name(name: &str) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.name() == name)
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a rating is for: a speed category and a rules variant, by the variant's name
/// (`anywoli`, `anywoli-first-final`, `anywoli-lottery`, `anywoli-it`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RatingKey {
    pub category: Category,
    pub variant: String,
}

impl RatingKey {
    pub fn new(category: Category, variant: impl Into<String>) -> RatingKey {
        RatingKey {
            category,
            variant: variant.into(),
        }
    }
}

/// A rating as a game shows it beside a player's name.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Shown {
    pub rating: f64,
    pub provisional: bool,
}

impl From<Rating> for Shown {
    fn from(r: Rating) -> Shown {
        Shown {
            rating: r.rating,
            provisional: r.is_provisional(),
        }
    }
}

impl From<Change> for Shown {
    fn from(c: Change) -> Shown {
        Shown {
            rating: c.after,
            provisional: c.provisional,
        }
    }
}

/// What a rated game did to one player's rating.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Change {
    pub before: f64,
    pub after: f64,
    /// The difference of the ratings as shown (rounded), so that it adds up with them.
    pub diff: i32,
    /// Provisional after the game.
    pub provisional: bool,
}

impl Change {
    pub fn new(before: Rating, after: Rating) -> Change {
        Change {
            before: before.rating,
            after: after.rating,
            diff: after.rounded() - before.rounded(),
            provisional: after.is_provisional(),
        }
    }
}

/// A game's ratings, as its `ratings` column keeps them: each player's as the game began
/// (South, North; none for an anonymous seat), and once a rated game has ended, what it did.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GameRatings {
    pub start: BySide<Option<Shown>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<[Change; 2]>,
}

impl GameRatings {
    pub fn from_json(text: Option<&str>) -> GameRatings {
        // A column this version cannot read shows no ratings rather than failing the game.
        text.and_then(|t| serde_json::from_str(t).ok())
            .unwrap_or_default()
    }

    pub fn to_json(&self) -> Option<String> {
        (*self != GameRatings::default()).then(|| serde_json::to_string(self).unwrap_or_default())
    }
}

/// Two players' ratings after a game they played, each first aged by the time since their
/// last rated game (`idle`, in milliseconds), `score_south` South's score.
pub fn after_rated_game(before: [Rating; 2], idle_ms: [i64; 2], score_south: f64) -> [Rating; 2] {
    let aged = |r: Rating, ms: i64| {
        age(
            r,
            periods(std::time::Duration::from_millis(ms.max(0) as u64)),
        )
    };
    let (s, n) = after_game(
        aged(before[0], idle_ms[0]),
        aged(before[1], idle_ms[1]),
        score_south,
    );
    [s, n]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_s_ratings_column_keeps_its_json() {
        // The column's form, as older servers wrote it: the start is `[south, north]`.
        let text = r#"{"start":[null,{"rating":1500.5,"provisional":true}]}"#;
        let r = GameRatings::from_json(Some(text));
        assert_eq!(r.start[anywoli_core::Side::South], None);
        assert_eq!(
            r.start[anywoli_core::Side::North],
            Some(Shown {
                rating: 1500.5,
                provisional: true
            })
        );
        assert_eq!(r.to_json().as_deref(), Some(text));
    }

    #[test]
    fn categories() {
        let minutes = |m: u32, inc: u32| Category::from_clock(m * 60, inc);
        assert_eq!(minutes(1, 0), Category::Bullet);
        assert_eq!(minutes(2, 1), Category::Bullet);
        assert_eq!(minutes(3, 0), Category::Blitz);
        assert_eq!(minutes(3, 2), Category::Blitz);
        assert_eq!(minutes(5, 3), Category::Blitz);
        assert_eq!(minutes(10, 0), Category::Rapid);
        assert_eq!(minutes(10, 5), Category::Rapid);
        assert_eq!(minutes(15, 10), Category::Rapid);
        assert_eq!(minutes(25, 0), Category::Classical);
        assert_eq!(minutes(15, 15), Category::Classical);
        assert_eq!(minutes(30, 20), Category::Classical);
        // At the boundaries.
        assert_eq!(Category::from_clock(179, 0), Category::Bullet);
        assert_eq!(Category::from_clock(180, 0), Category::Blitz);
        assert_eq!(Category::from_clock(0, 4), Category::Bullet);
        assert_eq!(Category::from_clock(0, 5), Category::Blitz);
        assert_eq!(Category::from_clock(479, 0), Category::Blitz);
        assert_eq!(Category::from_clock(480, 0), Category::Rapid);
        assert_eq!(Category::from_clock(1499, 0), Category::Rapid);
        assert_eq!(Category::from_clock(1500, 0), Category::Classical);
        // No overflow.
        assert_eq!(
            Category::from_clock(u32::MAX, u32::MAX),
            Category::Classical
        );
        assert_eq!(Category::from_days_per_move(3), Category::Correspondence);
    }

    #[test]
    fn names() {
        for c in Category::ALL {
            assert_eq!(Category::from_name(c.name()), Some(c));
            assert_eq!(c.to_string(), c.name());
            assert_eq!(
                serde_json::to_string(&c).unwrap(),
                format!("\"{}\"", c.name())
            );
        }
        assert_eq!(Category::from_name("Blitz"), None);
        assert_eq!(Category::from_name(""), None);
    }

    #[test]
    fn keys() {
        let blitz = RatingKey::new(Category::Blitz, "anywoli");
        assert_eq!(
            blitz,
            RatingKey::new(Category::Blitz, "anywoli".to_string())
        );
        assert_ne!(blitz, RatingKey::new(Category::Rapid, "anywoli"));
        assert_ne!(blitz, RatingKey::new(Category::Blitz, "anywoli-it"));
    }
}
