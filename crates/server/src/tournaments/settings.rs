//! What a tournament is: its format, and the settings an organiser chooses (checked here, once,
//! for the API and `anywoli admin`).

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{ApiError, ApiResult};
use crate::round::clock::TimeControl;
use crate::store::TournamentRow;

/// The three formats, named as `anywoli tournament pair --system` names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum System {
    #[serde(rename = "arena")]
    Arena,
    #[serde(rename = "swiss")]
    Swiss,
    #[serde(rename = "round-robin")]
    RoundRobin,
}

impl System {
    pub fn name(self) -> &'static str {
        match self {
            System::Arena => "arena",
            System::Swiss => "swiss",
            System::RoundRobin => "round-robin",
        }
    }

    pub fn from_name(s: &str) -> Option<System> {
        [System::Arena, System::Swiss, System::RoundRobin]
            .into_iter()
            .find(|x| x.name() == s)
    }
}

/// An arena's length in minutes.
pub const ARENA_MINUTES: std::ops::RangeInclusive<i64> = 20..=180;
/// A Swiss's rounds.
pub const SWISS_ROUNDS: std::ops::RangeInclusive<i64> = 3..=15;
/// A tournament's name, in characters.
pub const NAME_CHARS: std::ops::RangeInclusive<usize> = 2..=40;
pub const DESCRIPTION_CHARS: usize = 1_000;
/// The longest gap between rounds: a day.
pub const MAX_ROUND_GAP_S: i64 = 86_400;
/// How far ahead a tournament may be scheduled.
pub const MAX_AHEAD_MS: i64 = 30 * 86_400_000;
/// How long a Swiss or round robin made without a start time waits for players.
pub const JOIN_WINDOW_MS: i64 = 5 * 60_000;
/// How long past its start a Swiss or round robin with fewer than two players waits for more
/// before it is cancelled.
pub const MAX_WAIT_FOR_PLAYERS_MS: i64 = 60 * 60_000;
/// Tournaments one account may have upcoming or running that it created.
pub const PER_ORGANISER: usize = 5;
/// Entrants of one tournament (a round robin: `anywoli_tournament::robin::MAX_PLAYERS`).
pub const MAX_ENTRANTS: i64 = 1_000;

/// The settings stored beside a tournament's columns, as JSON.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub min_rating: Option<i64>,
    #[serde(default)]
    pub min_rated_games: i64,
    /// SHA-256 of the tournament's id, a colon and the password, in hex: never the password.
    #[serde(default)]
    pub password: Option<String>,
    #[serde(default)]
    pub bots: bool,
    /// A round robin played twice, sides swapped.
    #[serde(default)]
    pub double: bool,
    /// Seconds between the end of a round's last game and the next round (Swiss, round
    /// robin); `None`: the organiser starts each round.
    #[serde(default)]
    pub round_gap_s: Option<i64>,
}

impl Settings {
    pub fn of(row: &TournamentRow) -> Settings {
        serde_json::from_str(&row.settings).unwrap_or_default()
    }

    /// Whether `given` is the tournament's password (any, when it has none).
    pub fn admits(&self, id: &str, given: Option<&str>) -> bool {
        match (&self.password, given) {
            (None, _) => true,
            (Some(hash), Some(p)) => {
                let h = password_hash(id, p);
                // Equal lengths; compare every byte so the time says nothing.
                h.len() == hash.len()
                    && h.bytes()
                        .zip(hash.bytes())
                        .fold(0u8, |a, (x, y)| a | (x ^ y))
                        == 0
            }
            (Some(_), None) => false,
        }
    }
}

fn password_hash(id: &str, password: &str) -> String {
    let d = Sha256::digest(format!("{id}:{password}").as_bytes());
    d.iter().map(|b| format!("{b:02x}")).collect()
}

/// The gap between rounds when the organiser does not choose: seconds for fast games, a
/// minute for rapid ones, five for slower.
pub fn default_round_gap_s(clock: &TimeControl) -> i64 {
    match *clock {
        TimeControl::RealTime { initial_ms, .. } if initial_ms < 10 * 60_000 => 20,
        TimeControl::RealTime { initial_ms, .. } if initial_ms < 30 * 60_000 => 60,
        _ => 300,
    }
}

/// `POST /api/tournaments`, as sent (and as a schedule keeps it).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CreateRequest {
    pub name: String,
    pub system: System,
    pub clock: String,
    #[serde(default)]
    pub rated: bool,
    #[serde(default)]
    pub rules: Option<String>,
    #[serde(default)]
    pub starts_at: Option<i64>,
    #[serde(default)]
    pub minutes: Option<i64>,
    #[serde(default)]
    pub rounds: Option<i64>,
    #[serde(default)]
    pub double: bool,
    #[serde(default)]
    pub min_rating: Option<i64>,
    #[serde(default)]
    pub min_rated_games: Option<i64>,
    #[serde(default)]
    pub password: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub bots: bool,
    #[serde(
        default,
        deserialize_with = "some_or_null",
        skip_serializing_if = "Option::is_none"
    )]
    pub round_gap_s: Option<Option<i64>>,
    #[serde(default)]
    pub manual_rounds: bool,
}

/// Tells a field sent as `null` (`Some(None)`) from one not sent (`None`).
fn some_or_null<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<i64>>, D::Error> {
    Option::<i64>::deserialize(d).map(Some)
}

fn text_ok(s: &str) -> bool {
    !s.chars().any(|c| c.is_control() && c != '\n' && c != '\t')
}

impl CreateRequest {
    /// The tournament this request makes, checked, as `by` creates it at `now` with id `id`.
    pub fn into_row(self, id: String, by: &str, now: i64) -> ApiResult<TournamentRow> {
        let bad = |m: String| Err(ApiError::malformed(m));
        let name = self.name.split_whitespace().collect::<Vec<_>>().join(" ");
        if !NAME_CHARS.contains(&name.chars().count()) || !text_ok(&name) {
            return bad(format!(
                "name: {} to {} characters",
                NAME_CHARS.start(),
                NAME_CHARS.end()
            ));
        }
        let clock =
            TimeControl::parse(&self.clock).map_err(|e| ApiError::malformed(e.to_string()))?;
        if matches!(clock, TimeControl::Correspondence { .. }) {
            return bad(
                "clock: a tournament is played at a real-time control (3+2), not days".into(),
            );
        }
        let rules = self.rules.unwrap_or_else(|| "anywoli".to_string());
        anywoli_core::Rules::from_name(&rules, 0)
            .map_err(|e| ApiError::malformed(e.to_string()))?;
        // An arena starts at once and players come as it runs; a Swiss or round robin pairs
        // everyone at its start, so without a time it gives players five minutes to join (its
        // organiser may start it sooner).
        let by_default = match self.system {
            System::Arena => now,
            _ => now + JOIN_WINDOW_MS,
        };
        let starts = self.starts_at.unwrap_or(by_default).max(now);
        if starts > now + MAX_AHEAD_MS {
            return bad("starts_at: at most 30 days ahead".into());
        }
        let (minutes, rounds) = match self.system {
            System::Arena => match self.minutes {
                Some(m) if ARENA_MINUTES.contains(&m) => (Some(m), None),
                _ => {
                    return bad(format!(
                        "minutes: an arena lasts {} to {} minutes",
                        ARENA_MINUTES.start(),
                        ARENA_MINUTES.end()
                    ))
                }
            },
            System::Swiss => match self.rounds {
                Some(r) if SWISS_ROUNDS.contains(&r) => (None, Some(r)),
                _ => {
                    return bad(format!(
                        "rounds: a Swiss has {} to {} rounds",
                        SWISS_ROUNDS.start(),
                        SWISS_ROUNDS.end()
                    ))
                }
            },
            System::RoundRobin => (None, None),
        };
        let description = self.description.unwrap_or_default();
        if description.chars().count() > DESCRIPTION_CHARS || !text_ok(&description) {
            return bad(format!(
                "description: at most {DESCRIPTION_CHARS} characters, no control characters"
            ));
        }
        if let Some(r) = self.min_rating {
            if !(0..=4000).contains(&r) {
                return bad("min_rating: 0 to 4000".into());
            }
        }
        let min_rated_games = self.min_rated_games.unwrap_or(0);
        if !(0..=1000).contains(&min_rated_games) {
            return bad("min_rated_games: 0 to 1000".into());
        }
        let password = match self.password.filter(|p| !p.is_empty()) {
            Some(p) if p.chars().count() > 100 => {
                return bad("password: at most 100 characters".into())
            }
            Some(p) => Some(password_hash(&id, &p)),
            None => None,
        };
        let round_gap_s = match (self.manual_rounds, self.round_gap_s) {
            _ if self.system == System::Arena => None,
            (true, _) | (false, Some(None)) => None,
            (false, Some(Some(s))) if (0..=MAX_ROUND_GAP_S).contains(&s) => Some(s),
            (false, Some(Some(_))) => {
                return bad(format!("round_gap_s: 0 to {MAX_ROUND_GAP_S}"));
            }
            (false, None) => Some(default_round_gap_s(&clock)),
        };
        let settings = Settings {
            description,
            min_rating: self.min_rating,
            min_rated_games,
            password,
            bots: self.bots,
            double: self.double && self.system == System::RoundRobin,
            round_gap_s,
        };
        Ok(TournamentRow {
            id,
            name,
            system: self.system.name().to_string(),
            rules,
            clock: clock.name(),
            rated: self.rated,
            created_by: by.to_string(),
            created: now,
            starts,
            minutes,
            rounds,
            settings: serde_json::to_string(&settings).unwrap_or_else(|_| "{}".to_string()),
            status: "upcoming".to_string(),
            round: 0,
            next_round: None,
            finished: None,
            winner: None,
            version: 0,
            players: 0,
        })
    }
}
