//! A game as the server holds it: the stored row, the moves and the position they lead to, and
//! the JSON views of it that the API sends.

use anywoli_core::{parse_position, EndReason, Event, Move, Position, Record, Rules, Side, Trace};
use serde::Serialize;

use crate::store::{GameRow, Summary};
use crate::trace_json::side_name;

/// How the seats are held.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mode {
    /// One person against the engine.
    Computer,
    /// Two people on two devices; each seat has its own secret.
    Friend,
    /// Two people on one screen: one secret holds both seats.
    Local,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Computer => "computer",
            Mode::Friend => "friend",
            Mode::Local => "local",
        }
    }

    pub fn from_name(s: &str) -> Option<Mode> {
        match s {
            "computer" => Some(Mode::Computer),
            "friend" => Some(Mode::Friend),
            "local" => Some(Mode::Local),
            _ => None,
        }
    }
}

/// Who sits in a seat.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Seat {
    Human,
    Computer(u8),
}

impl Seat {
    pub fn to_db(self) -> String {
        match self {
            Seat::Human => "human".to_string(),
            Seat::Computer(l) => format!("level:{l}"),
        }
    }

    pub fn from_db(s: &str) -> Option<Seat> {
        if s == "human" {
            return Some(Seat::Human);
        }
        let level: u8 = s.strip_prefix("level:")?.parse().ok()?;
        (1..=10).contains(&level).then_some(Seat::Computer(level))
    }
}

/// A game in memory. `pos` is always the position after `moves` from `start`.
#[derive(Clone, Debug)]
pub struct Game {
    pub row: GameRow,
    pub mode: Mode,
    pub rules: Rules,
    pub seats: [Seat; 2],
    pub start: Position,
    pub moves: Vec<Move>,
    pub pos: Position,
    /// Goes up with every change, so that a client can tell a newer state from an older one.
    pub version: u64,
    /// The engine is choosing a move for this game.
    pub thinking: bool,
}

impl Game {
    /// Rebuilds a game from its stored row and moves, replaying every move.
    pub fn from_row(row: GameRow, moves: &[String]) -> Result<Game, String> {
        let bad = |what: String| format!("stored game {} is damaged: {what}", row.id);
        let mode = Mode::from_name(&row.mode).ok_or_else(|| bad(format!("mode {}", row.mode)))?;
        let seed: u64 = row
            .seed
            .parse()
            .map_err(|_| bad(format!("seed {}", row.seed)))?;
        let rules = Rules::from_name(&row.rules, seed).map_err(|e| bad(e.to_string()))?;
        let start = parse_position(&row.start, rules).map_err(|e| bad(e.to_string()))?;
        let mut seats = [Seat::Human; 2];
        for (i, s) in row.seats.iter().enumerate() {
            seats[i] = Seat::from_db(s).ok_or_else(|| bad(format!("seat {s}")))?;
        }
        let mut pos = start;
        let mut mv_list = Vec::with_capacity(moves.len());
        for (i, m) in moves.iter().enumerate() {
            let mv: Move = m.parse().map_err(|e| bad(format!("move {}: {e}", i + 1)))?;
            pos.play(mv)
                .map_err(|e| bad(format!("move {}: {e}", i + 1)))?;
            mv_list.push(mv);
        }
        Ok(Game {
            row,
            mode,
            rules,
            seats,
            start,
            moves: mv_list,
            pos,
            // Starting from the clock keeps versions rising across server restarts, so a page
            // that reconnects to a restarted server never mistakes new states for old ones.
            version: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_millis() as u64),
            thinking: false,
        })
    }

    /// Who takes the last seeds whatever happens in the game, if the rules say so up front.
    pub fn last_seeds_to(&self) -> Option<Side> {
        match self.rules {
            Rules::Lottery { seed } => Some(anywoli_core::lottery_draw(seed)),
            Rules::It => Some(Side::South),
            Rules::Anywoli | Rules::FirstFinal => None,
        }
    }

    pub fn is_playing(&self) -> bool {
        self.row.status == "playing"
    }

    /// The seats (0 South, 1 North) that `secret` holds.
    pub fn seats_of(&self, secret: &str) -> Vec<usize> {
        (0..2)
            .filter(|&i| {
                self.row.secrets[i]
                    .as_deref()
                    .is_some_and(|s| constant_time_eq(s.as_bytes(), secret.as_bytes()))
            })
            .collect()
    }

    /// The engine's level when it is the engine's turn in a game still going on.
    pub fn computer_to_move(&self) -> Option<u8> {
        if !self.is_playing() {
            return None;
        }
        match self.seats[self.pos.to_move()?.index()] {
            Seat::Computer(level) => Some(level),
            Seat::Human => None,
        }
    }

    /// The status, result and termination after the position `pos` was reached by `trace`.
    pub fn outcome_after(trace: &Trace) -> (&'static str, String, Option<&'static str>) {
        match trace.after.outcome() {
            None => ("playing", "*".to_string(), None),
            Some(o) => {
                let why = trace.events.iter().rev().find_map(|e| match e {
                    Event::GameOver {
                        reason: EndReason::Quiet { .. },
                    } => Some("quiet"),
                    Event::GameOver {
                        reason: EndReason::LastSeeds { .. },
                    } => Some("last_seeds"),
                    _ => None,
                });
                ("over", o.as_str().to_string(), why)
            }
        }
    }

    /// The positions from the start through every move.
    pub fn positions(&self) -> Vec<String> {
        let mut out = Vec::with_capacity(self.moves.len() + 1);
        let mut p = self.start;
        out.push(p.to_string());
        for &mv in &self.moves {
            // Every stored move was checked when it was played and again when loaded.
            if p.play(mv).is_err() {
                break;
            }
            out.push(p.to_string());
        }
        out
    }

    /// The position before move `n` (counting from 1), if there is such a move.
    pub fn before_move(&self, n: usize) -> Option<Position> {
        if n == 0 || n > self.moves.len() {
            return None;
        }
        let mut p = self.start;
        for &mv in &self.moves[..n - 1] {
            p.play(mv).ok()?;
        }
        Some(p)
    }

    /// The game as a record ([docs/record-format.md]).
    pub fn record(&self) -> Record {
        let mut r = Record::new(self.start);
        let tags: Vec<(String, String)> = serde_json::from_str(&self.row.tags).unwrap_or_default();
        for (k, v) in &tags {
            r.set_tag(k, v);
        }
        if r.tag("Event").is_none() {
            r.set_tag("Event", "Anywoli web game");
        }
        if r.tag("Date").is_none() {
            r.set_tag("Date", &date_of(self.row.created));
        }
        for (i, tag) in ["South", "North"].into_iter().enumerate() {
            if r.tag(tag).is_none() {
                let name = match self.seats[i] {
                    Seat::Human => "Player".to_string(),
                    Seat::Computer(l) => format!("Anywoli engine, level {l}"),
                };
                r.set_tag(tag, &name);
            }
        }
        if let Rules::Lottery { seed } = self.rules {
            // The Seed tag fixes the draw already; this says it in words for people.
            let winner = if anywoli_core::lottery_draw(seed) == Side::South {
                "South"
            } else {
                "North"
            };
            r.set_tag("LastSeeds", winner);
        }
        if let Some(t) = &self.row.termination {
            let text = match t.as_str() {
                "last_seeds" => "last seeds",
                "quiet" => "quiet rule",
                other => other,
            };
            r.set_tag("Termination", text);
        }
        r.moves = self.moves.clone();
        r.result = self.row.result.clone();
        r
    }

    pub fn view(&self) -> GameView {
        let seat = |i: usize| SeatView {
            kind: match self.seats[i] {
                Seat::Human => "human",
                Seat::Computer(_) => "computer",
            },
            level: match self.seats[i] {
                Seat::Computer(l) => Some(l),
                Seat::Human => None,
            },
            taken: self.seats[i] == Seat::Human && self.row.secrets[i].is_some(),
        };
        GameView {
            id: self.row.id.clone(),
            mode: self.mode.name(),
            rules: self.rules.name(),
            seed: self.rules.seed().map(|s| s.to_string()),
            start: self.start.to_string(),
            position: self.pos.to_string(),
            holes: self.pos.holes().to_vec(),
            stores: [self.pos.store(Side::South), self.pos.store(Side::North)],
            to_move: if self.is_playing() {
                self.pos.to_move().map(side_name)
            } else {
                None
            },
            legal: if self.is_playing() {
                self.pos.moves().map(|m| m.to_string()).collect()
            } else {
                Vec::new()
            },
            moves: self.moves.iter().map(|m| m.to_string()).collect(),
            ply: self.moves.len(),
            status: if self.is_playing() { "playing" } else { "over" },
            result: self.row.result.clone(),
            termination: self.row.termination.clone(),
            seats: SeatsView {
                south: seat(0),
                north: seat(1),
            },
            thinking: self.thinking,
            rematch: self.row.rematch.clone(),
            hints: self.row.hints,
            last_seeds_to: self.last_seeds_to().map(side_name),
            version: self.version,
            created: self.row.created,
            updated: self.row.updated,
        }
    }
}

/// Compares secrets without stopping at the first difference, so that response times do not
/// tell an attacker how much of a guess was right.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// `YYYY.MM.DD` (UTC) of a time in milliseconds since the epoch, as records write dates.
pub fn date_of(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}.{m:02}.{d:02}")
}

#[derive(Serialize, Clone, Debug)]
pub struct SeatView {
    /// `human` or `computer`.
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<u8>,
    /// A person holds this seat's secret.
    pub taken: bool,
}

#[derive(Serialize, Clone, Debug)]
pub struct SeatsView {
    pub south: SeatView,
    pub north: SeatView,
}

/// A game as the API shows it to everyone; secrets are never in it.
#[derive(Serialize, Clone, Debug)]
pub struct GameView {
    pub id: String,
    pub mode: &'static str,
    pub rules: &'static str,
    /// The lottery's game seed, as a string (it may not fit a JavaScript number).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<String>,
    pub start: String,
    pub position: String,
    pub holes: Vec<u8>,
    pub stores: [u8; 2],
    pub to_move: Option<&'static str>,
    pub legal: Vec<String>,
    pub moves: Vec<String>,
    pub ply: usize,
    pub status: &'static str,
    pub result: String,
    pub termination: Option<String>,
    pub seats: SeatsView,
    pub thinking: bool,
    pub rematch: Option<String>,
    /// Hints may be asked for (by the player to move, with their secret).
    pub hints: bool,
    /// Who takes the last seeds, when the rules fix it before the game starts (the lottery's
    /// draw, South in `anywoli-it`): both players see what the engine knows.
    pub last_seeds_to: Option<&'static str>,
    pub version: u64,
    pub created: i64,
    pub updated: i64,
}

#[derive(Serialize, Clone, Debug)]
pub struct SummaryView {
    pub id: String,
    pub mode: String,
    pub rules: String,
    pub south: String,
    pub north: String,
    pub status: String,
    pub result: String,
    pub moves: i64,
    pub created: i64,
    pub updated: i64,
}

impl From<Summary> for SummaryView {
    fn from(s: Summary) -> SummaryView {
        let [south, north] = s.seats;
        SummaryView {
            id: s.id,
            mode: s.mode,
            rules: s.rules,
            south,
            north,
            status: s.status,
            result: s.result,
            moves: s.moves,
            created: s.created,
            updated: s.updated,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_civil_dates() {
        assert_eq!(date_of(0), "1970.01.01");
        // 2026-11-30T12:00:00Z
        assert_eq!(date_of(1_796_040_000_000), "2026.11.30");
        assert_eq!(date_of(951_782_400_000), "2000.02.29");
    }

    #[test]
    fn seats_round_trip_through_the_database_form() {
        for s in [Seat::Human, Seat::Computer(1), Seat::Computer(10)] {
            assert_eq!(Seat::from_db(&s.to_db()), Some(s));
        }
        assert_eq!(Seat::from_db("level:11"), None);
        assert_eq!(Seat::from_db("robot"), None);
    }
}
