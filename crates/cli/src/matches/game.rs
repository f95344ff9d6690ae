//! One game of a match: the two contestants, the moves until the end or a fault, and its
//! record.

use std::time::Duration;

use anywoli_core::{BySide, Move, Outcome, Position, Record, Rules, Side, QUIET_LIMIT};
use anywoli_engine::Player;

use super::external::{External, Fault, Turn};

pub(super) enum Contestant {
    /// A built-in player, and its own time a move if it has one.
    Builtin(Box<dyn Player>, Option<Duration>),
    External(External),
}

impl Contestant {
    fn new_game(&mut self, rules: Rules) -> Result<(), Fault> {
        match self {
            Contestant::Builtin(p, _) => {
                p.new_game();
                Ok(())
            }
            Contestant::External(e) => e.new_game(rules),
        }
    }

    fn choose(&mut self, turn: Turn<'_>, movetime: Duration) -> Result<Move, Fault> {
        match self {
            Contestant::Builtin(p, own) => p
                .choose(turn.pos, own.unwrap_or(movetime))
                .ok_or(Fault::NoMove),
            Contestant::External(e) => e.choose(turn, movetime),
        }
    }
}

/// A game to play.
pub(super) struct Game<'a> {
    pub(super) index: usize,
    pub(super) start: Position,
    pub(super) opening: &'a [Move],
    pub(super) a_is_south: bool,
}

/// One finished game.
pub(super) struct Played {
    pub(super) index: usize,
    pub(super) a_is_south: bool,
    pub(super) record: Record,
    pub(super) end: Position,
    /// Points of South: 1, ½ or 0.
    pub(super) south_score: f64,
    pub(super) termination: String,
}

/// Today's date as a record's `Date` tag says it (UTC).
pub(super) fn today() -> String {
    use anywoli_server::dates;
    dates::record_date(dates::now_ms())
}

/// The labels of South and North, `a_is_south` or not.
pub(super) fn sides(a_is_south: bool, labels: &[String; 2]) -> (&str, &str) {
    if a_is_south {
        (&labels[0], &labels[1])
    } else {
        (&labels[1], &labels[0])
    }
}

pub(super) fn play_one(
    game: &Game<'_>,
    labels: &[String; 2],
    players: [&mut Contestant; 2],
    movetime: Duration,
    date: &str,
) -> Played {
    let [a, b] = players;
    let mut seats = if game.a_is_south {
        BySide::new(a, b)
    } else {
        BySide::new(b, a)
    };
    let (south_label, north_label) = sides(game.a_is_south, labels);
    let start = game.start;
    let mut pos = start;
    let mut moves: Vec<Move> = Vec::new();
    for &m in game.opening {
        if pos.play(m).is_ok() {
            moves.push(m);
        }
    }
    let failure = play_out(&mut seats, start, &mut pos, &mut moves, movetime);
    let (south_score, result, termination) = match &failure {
        Some((side, why)) => {
            let label = if *side == Side::South {
                south_label
            } else {
                north_label
            };
            let t = format!("{side} ({label}) {why}");
            let outcome = Outcome::Win(side.opponent());
            (outcome.score_for(Side::South), outcome.as_str(), t)
        }
        None => ended(&pos),
    };
    let mut record = Record::new(start);
    record.moves = moves;
    record.result = result.to_string();
    record.set_tag("Event", "anywoli match");
    record.set_tag("Round", &(game.index + 1).to_string());
    record.set_tag("Date", date);
    record.set_tag("South", south_label);
    record.set_tag("North", north_label);
    let opening: Vec<String> = game.opening.iter().map(|m| m.to_string()).collect();
    record.set_tag("Opening", &opening.join(" "));
    record.set_tag("Termination", &termination);
    Played {
        index: game.index,
        a_is_south: game.a_is_south,
        record,
        end: pos,
        south_score,
        termination,
    }
}

/// Plays from `pos` (after `moves` from `start`) to the end; the side at fault and why, if a
/// player failed.
fn play_out(
    seats: &mut BySide<&mut Contestant>,
    start: Position,
    pos: &mut Position,
    moves: &mut Vec<Move>,
    movetime: Duration,
) -> Option<(Side, Fault)> {
    for side in Side::ALL {
        if let Err(e) = seats[side].new_game(start.rules()) {
            return Some((side, e));
        }
    }
    while let Some(side) = pos.to_move() {
        let turn = Turn {
            start: &start,
            moves,
            pos,
        };
        match seats[side].choose(turn, movetime) {
            Ok(mv) => match pos.play(mv) {
                Ok(()) => moves.push(mv),
                Err(source) => return Some((side, Fault::PlayedIllegal { mv, source })),
            },
            Err(e) => return Some((side, e)),
        }
    }
    None
}

/// South's points, the result and the termination of a game played to its end.
fn ended(pos: &Position) -> (f64, &'static str, String) {
    let outcome = pos.outcome();
    // A game played to its end has an outcome; ½ stands for one that somehow has none.
    let score = outcome.map_or(0.5, |o| o.score_for(Side::South));
    let t = if pos.quiet_plies() >= QUIET_LIMIT {
        "quiet rule"
    } else {
        "normal"
    };
    (score, outcome.map_or("*", Outcome::as_str), t.to_string())
}
