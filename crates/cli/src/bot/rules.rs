//! Which challenges a bot takes, as lichess-bot's `challenge` settings say it: rules, speeds,
//! rated or casual, the challenger's rating, BOT or person, and how many games at once.

use serde_json::Value;

/// Rated games, casual ones, or both.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum RatedChoice {
    Rated,
    Casual,
    Both,
}

/// What the bot accepts.
#[derive(Clone, Debug)]
pub struct Accept {
    /// Rules names; empty: all.
    pub variants: Vec<String>,
    /// Speeds (bullet, blitz, rapid, classical, correspondence); empty: all.
    pub speeds: Vec<String>,
    pub rated: RatedChoice,
    pub min_rating: Option<i64>,
    pub max_rating: Option<i64>,
    /// Challenges from other BOT accounts.
    pub bots: bool,
    /// Games at once.
    pub concurrency: usize,
}

/// Why a challenge is declined, as lichess's `reason` words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decline {
    Variant,
    TimeControl,
    Rated,
    Casual,
    Rating,
    NoBot,
    Later,
}

impl Decline {
    pub fn reason(self) -> &'static str {
        match self {
            Decline::Variant => "variant",
            Decline::TimeControl => "timeControl",
            Decline::Rated => "rated",
            Decline::Casual => "casual",
            Decline::Rating => "generic",
            Decline::NoBot => "noBot",
            Decline::Later => "later",
        }
    }
}

impl Accept {
    /// Whether to accept `challenge` (lichess's shape) with `playing` games going on.
    pub fn decide(&self, challenge: &Value, playing: usize) -> Result<(), Decline> {
        let variant = challenge["variant"]["key"].as_str().unwrap_or("anywoli");
        if !self.variants.is_empty() && !self.variants.iter().any(|v| v == variant) {
            return Err(Decline::Variant);
        }
        let speed = challenge["speed"].as_str().unwrap_or("correspondence");
        if !self.speeds.is_empty() && !self.speeds.iter().any(|s| s == speed) {
            return Err(Decline::TimeControl);
        }
        match (self.rated, challenge["rated"].as_bool().unwrap_or(false)) {
            (RatedChoice::Casual, true) => return Err(Decline::Casual),
            (RatedChoice::Rated, false) => return Err(Decline::Rated),
            _ => {}
        }
        let who = &challenge["challenger"];
        if who["title"] == "BOT" && !self.bots {
            return Err(Decline::NoBot);
        }
        if let Some(r) = who["rating"].as_i64() {
            let low = self.min_rating.is_some_and(|m| r < m);
            let high = self.max_rating.is_some_and(|m| r > m);
            if low || high {
                return Err(Decline::Rating);
            }
        }
        if playing >= self.concurrency {
            return Err(Decline::Later);
        }
        Ok(())
    }
}

/// How long to think about a move with `left` ms on the clock and `increment` ms added
/// after it: about a thirtieth of what is left and most of the increment, never more than a
/// third of what is left, less a margin for the network; `None` (an untimed game): 1 s.
pub fn movetime_ms(left: Option<i64>, increment: i64, max: i64) -> i64 {
    let Some(left) = left else {
        return max.min(1000);
    };
    // What the moves sent over the network cost: kept off the clock.
    let margin = 300;
    let t = left / 30 + increment * 3 / 4;
    t.min(left / 3).min(left - margin).clamp(10, max.max(10))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn accept() -> Accept {
        Accept {
            variants: vec!["anywoli".into()],
            speeds: vec!["blitz".into(), "rapid".into()],
            rated: RatedChoice::Both,
            min_rating: Some(1000),
            max_rating: Some(2000),
            bots: false,
            concurrency: 2,
        }
    }

    fn challenge(variant: &str, speed: &str, rated: bool, rating: i64, title: Value) -> Value {
        json!({
            "variant": {"key": variant}, "speed": speed, "rated": rated,
            "challenger": {"name": "Ana", "rating": rating, "title": title},
        })
    }

    #[test]
    fn challenges_are_taken_or_declined_by_the_rules() {
        let a = accept();
        let ok = challenge("anywoli", "blitz", true, 1500, Value::Null);
        assert_eq!(a.decide(&ok, 0), Ok(()));
        assert_eq!(a.decide(&ok, 2), Err(Decline::Later));
        let c = challenge("anywoli-it", "blitz", true, 1500, Value::Null);
        assert_eq!(a.decide(&c, 0), Err(Decline::Variant));
        let c = challenge("anywoli", "bullet", true, 1500, Value::Null);
        assert_eq!(a.decide(&c, 0), Err(Decline::TimeControl));
        let c = challenge("anywoli", "rapid", false, 2500, Value::Null);
        assert_eq!(a.decide(&c, 0), Err(Decline::Rating));
        let c = challenge("anywoli", "rapid", false, 1500, json!("BOT"));
        assert_eq!(a.decide(&c, 0), Err(Decline::NoBot));
        let casual_only = Accept {
            rated: RatedChoice::Casual,
            ..accept()
        };
        assert_eq!(casual_only.decide(&ok, 0), Err(Decline::Casual));
        let all = Accept {
            variants: vec![],
            speeds: vec![],
            min_rating: None,
            max_rating: None,
            bots: true,
            ..accept()
        };
        let c = challenge("anywoli-it", "bullet", false, 2500, json!("BOT"));
        assert_eq!(all.decide(&c, 1), Ok(()));
        assert_eq!(Decline::TimeControl.reason(), "timeControl");
    }

    #[test]
    fn the_time_for_a_move_comes_from_the_clock() {
        // 3 minutes and 2 s: 6 s + 1.5 s.
        assert_eq!(movetime_ms(Some(180_000), 2000, 10_000), 7500);
        // Capped by --movetime-max.
        assert_eq!(movetime_ms(Some(180_000), 2000, 1000), 1000);
        // Little left: a third, less the margin, at least 10 ms.
        assert_eq!(movetime_ms(Some(900), 0, 10_000), 30);
        assert_eq!(movetime_ms(Some(200), 0, 10_000), 10);
        assert_eq!(movetime_ms(None, 0, 5000), 1000);
        for left in [0, 1, 50, 1000, 60_000, 3_600_000] {
            for inc in [0, 1000, 30_000] {
                let t = movetime_ms(Some(left), inc, 60_000);
                assert!((10..=60_000).contains(&t), "{left} {inc}: {t}");
                assert!(t <= (left / 3).max(10), "{left} {inc}: {t}");
            }
        }
    }
}
