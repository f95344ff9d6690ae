//! Game review (issue 13, judged by expected score since issue 41): every position of a game
//! searched within a bounded effort, each move scored against the engine's best, the moves
//! that threw the game away marked, and an accuracy figure for each player. `anywoli review`
//! prints it; the web app stores it with the game.
//!
//! A move's **loss** is what the engine's best move was worth to the mover minus what the
//! played move was worth, both searched from the same position with the same limits (the
//! played move alone, with the root restricted to it, when it was not the best), in
//! centiseeds of final store difference. Its **win loss** is the same difference turned into
//! expected score ([`crate::winprob`]: a margin means more with fewer seeds in play), in
//! percentage points: the marks and the accuracy are counted on that, so that seeds thrown
//! away in a won or lost position cost little and a move that throws the game away costs
//! everything. docs/decisions.md, "Game review", has the thresholds and the formulas.

use std::sync::atomic::AtomicBool;

use anywoli_core::{Move, PlayError, Position, Side};
use serde::{Deserialize, Serialize};

use crate::search::{Engine, Limits};
use crate::winprob::win_percent;

/// Points of expected score thrown away from which a move is an inaccuracy (as lichess marks
/// chess moves: 0.1 of its winning chances, which run from −1 to 1).
pub const INACCURACY: f64 = 5.0;
/// From which a move is a mistake, in points of expected score.
pub const MISTAKE: f64 = 10.0;
/// From which a move is a blunder, in points of expected score.
pub const BLUNDER: f64 = 15.0;
/// The version of the stored form: 2 since reviews are judged by expected score. A stored
/// review of version 1 is judged again from its scores ([`rescore`]) when read.
pub const VERSION: u32 = 2;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
/// How bad a move was, by the expected score it threw away.
pub enum Mark {
    /// [`INACCURACY`] points or more, below [`MISTAKE`].
    Inaccuracy,
    /// [`MISTAKE`] points or more, below [`BLUNDER`].
    Mistake,
    /// [`BLUNDER`] points or more.
    Blunder,
}

impl Mark {
    /// The mark of a move that threw `win_loss` points of expected score away, if any.
    pub fn of(win_loss: f64) -> Option<Mark> {
        match win_loss {
            l if l >= BLUNDER => Some(Mark::Blunder),
            l if l >= MISTAKE => Some(Mark::Mistake),
            l if l >= INACCURACY => Some(Mark::Inaccuracy),
            _ => None,
        }
    }

    /// The stable lower-case name (as serialised).
    pub fn name(self) -> &'static str {
        match self {
            Mark::Inaccuracy => "inaccuracy",
            Mark::Mistake => "mistake",
            Mark::Blunder => "blunder",
        }
    }
}

/// One move of the game, judged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoveReview {
    /// The move's number in the game, from 1.
    pub ply: usize,
    /// Who played it.
    #[serde(serialize_with = "side_name", deserialize_with = "side_of")]
    pub mover: Side,
    /// The move played.
    #[serde(serialize_with = "move_letter", deserialize_with = "move_of")]
    pub played: Move,
    /// The engine's choice in the position the move was played from.
    #[serde(serialize_with = "move_letter", deserialize_with = "move_of")]
    pub best: Move,
    /// What the best and the played move were worth to the mover (centiseeds of final store
    /// difference, stores included).
    pub best_score: i32,
    /// See `best_score`.
    pub played_score: i32,
    /// `best_score - played_score`, at least 0.
    pub loss: i32,
    /// The mover's expected score (0 to 100) after the best move, and after the move played.
    #[serde(default)]
    pub best_win: f64,
    /// See `best_win`.
    #[serde(default)]
    pub played_win: f64,
    /// `best_win - played_win`, at least 0: points of expected score thrown away.
    #[serde(default)]
    pub win_loss: f64,
    /// The mark its win loss earns, if any.
    pub mark: Option<Mark>,
}

/// A whole game, judged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Review {
    /// The stored form's version ([`VERSION`]; 1 when absent).
    #[serde(default = "version_one")]
    pub version: u32,
    /// The engine's view of every position from the start to the last, from South's side
    /// (centiseeds). The last is the final store difference when the game is over.
    pub evals: Vec<i32>,
    /// South's expected score in each of those positions, 0 to 100: what the graph draws.
    #[serde(default)]
    pub wins: Vec<f64>,
    /// Every move, in order.
    pub moves: Vec<MoveReview>,
    /// Each player's accuracy (South, North), 0 to 100; `None` for a side that did not move.
    pub accuracy: [Option<f64>; 2],
}

fn version_one() -> u32 {
    1
}

fn side_name<S: serde::Serializer>(s: &Side, ser: S) -> Result<S::Ok, S::Error> {
    ser.serialize_str(match s {
        Side::South => "south",
        Side::North => "north",
    })
}

fn move_letter<S: serde::Serializer>(m: &Move, ser: S) -> Result<S::Ok, S::Error> {
    ser.serialize_str(&m.to_string())
}

fn side_of<'de, D: serde::Deserializer<'de>>(de: D) -> Result<Side, D::Error> {
    match String::deserialize(de)?.as_str() {
        "south" => Ok(Side::South),
        "north" => Ok(Side::North),
        other => Err(serde::de::Error::custom(format!("no side '{other}'"))),
    }
}

fn move_of<'de, D: serde::Deserializer<'de>>(de: D) -> Result<Move, D::Error> {
    String::deserialize(de)?
        .parse()
        .map_err(serde::de::Error::custom)
}

/// The value of `pos` to South (centiseeds): the search's score for the side to move, turned
/// to South's side; the final store difference when the game is over.
fn for_south(pos: &Position, score_for_mover: Option<i32>) -> i32 {
    match (pos.to_move(), score_for_mover) {
        (Some(Side::South), Some(s)) => s,
        (Some(Side::North), Some(s)) => -s,
        _ => (pos.store(Side::South) as i32 - pos.store(Side::North) as i32) * 100,
    }
}

/// Why a game cannot be reviewed: the move (numbered from 1) that cannot be judged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReviewError {
    /// A move comes after the game is over.
    #[error("move {ply} is played after the game ended")]
    AfterGameEnd {
        /// The move's number, from 1.
        ply: usize,
    },
    /// The engine found no move in the position before this one.
    #[error("move {ply}: no move to play")]
    NoMove {
        /// The move's number, from 1.
        ply: usize,
    },
    /// The engine's search restricted to the move did not play it: the move is illegal.
    #[error("move {ply} ({mv}) is not legal here")]
    NotLegal {
        /// The move's number, from 1.
        ply: usize,
        /// The move.
        mv: Move,
    },
    /// The move could not be played.
    #[error("move {ply} ({mv}): {error}")]
    Play {
        /// The move's number, from 1.
        ply: usize,
        /// The move.
        mv: Move,
        /// Why it could not be played.
        error: PlayError,
    },
}

/// Reviews the game of `moves` from `start` with `engine` (its settings are the caller's: its
/// table size, threads, databases; its table is cleared before each search), each search
/// within `limits` (a depth makes the review the same on every machine; a time bounds it). `progress(done, total)` is called
/// after each move; `stop` ends the review early (what was reviewed is returned).
pub fn review(
    engine: &mut Engine,
    start: &Position,
    moves: &[Move],
    limits: &Limits,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Review, ReviewError> {
    let mut pos = *start;
    let mut evals = Vec::with_capacity(moves.len() + 1);
    let mut reviewed = Vec::with_capacity(moves.len());
    engine.set_multipv(1);
    for (i, &mv) in moves.iter().enumerate() {
        let mover = pos
            .to_move()
            .ok_or(ReviewError::AfterGameEnd { ply: i + 1 })?;
        // Each search starts from an empty table, so that a position's judgement does not
        // depend on what was searched before it: the same game always gets the same review.
        engine.set_root_moves(None);
        engine.clear();
        let best = engine.search(&pos, limits, stop, &mut |_| {});
        let best_move = best.best.ok_or(ReviewError::NoMove { ply: i + 1 })?;
        let played_score = if best_move == mv {
            best.score
        } else {
            engine.set_root_moves(Some(vec![mv]));
            engine.clear();
            let alone = engine.search(&pos, limits, stop, &mut |_| {});
            engine.set_root_moves(None);
            if alone.best != Some(mv) {
                return Err(ReviewError::NotLegal { ply: i + 1, mv });
            }
            alone.score
        };
        evals.push(for_south(&pos, Some(best.score)));
        reviewed.push(MoveReview {
            ply: i + 1,
            mover,
            played: mv,
            best: best_move,
            best_score: best.score,
            played_score,
            loss: 0,
            best_win: 0.0,
            played_win: 0.0,
            win_loss: 0.0,
            mark: None,
        });
        pos.play(mv).map_err(|error| ReviewError::Play {
            ply: i + 1,
            mv,
            error,
        })?;
        progress(i + 1, moves.len());
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            break;
        }
    }
    evals.push(if pos.is_over() || reviewed.len() < moves.len() {
        for_south(&pos, None)
    } else {
        engine.clear();
        let last = engine.search(&pos, limits, stop, &mut |_| {});
        for_south(&pos, Some(last.score))
    });
    Ok(judged(start, evals, reviewed))
}

/// A stored review judged again from its searches' scores: how a review of an older
/// [`VERSION`] is read (the searches are what cost; the judgement is arithmetic).
pub fn rescore(start: &Position, old: Review) -> Review {
    judged(start, old.evals, old.moves)
}

/// Everything a review derives from its searches' scores (`evals`, and each move's
/// `best_score` and `played_score`): losses, expected scores, marks and accuracy.
fn judged(start: &Position, evals: Vec<i32>, mut moves: Vec<MoveReview>) -> Review {
    let mut pos = *start;
    let mut seeds = Vec::with_capacity(evals.len());
    for m in &mut moves {
        let n = pos.seeds_in_play();
        seeds.push(n);
        m.loss = (m.best_score - m.played_score).max(0);
        m.best_win = win_percent(m.best_score, n);
        m.played_win = win_percent(m.played_score, n);
        m.win_loss = (m.best_win - m.played_win).max(0.0);
        m.mark = Mark::of(m.win_loss);
        if pos.play(m.played).is_err() {
            break;
        }
    }
    seeds.push(pos.seeds_in_play());
    let wins = evals
        .iter()
        .zip(seeds.iter().chain(std::iter::repeat(&0)))
        .map(|(&e, &n)| win_percent(e, n))
        .collect();
    Review {
        version: VERSION,
        accuracy: [Side::South, Side::North].map(|s| accuracy(&moves, s)),
        evals,
        wins,
        moves,
    }
}

/// A move's accuracy from the points of expected score it threw away, 0 to 100: the curve
/// lichess fitted for chess, `103.1668 e^(−0.04354 l) − 3.1669` (0 points 100, 5 points 80,
/// 15 points 51, 50 points 8).
pub fn move_accuracy(win_loss: f64) -> f64 {
    (103.1668 * (-0.04354 * win_loss).exp() - 3.1669).clamp(0.0, 100.0)
}

/// A side's accuracy: the mean of the arithmetic and the harmonic means of its moves'
/// accuracies (each counted as at least 1 in the harmonic mean). The harmonic mean is what
/// makes one move that throws the game away count: 99 perfect moves and one at 0 give 99.0
/// and 50.3, so 74.6, where the plain mean would say 99.
pub fn accuracy(moves: &[MoveReview], side: Side) -> Option<f64> {
    let mine: Vec<f64> = moves
        .iter()
        .filter(|m| m.mover == side)
        .map(|m| move_accuracy(m.win_loss))
        .collect();
    if mine.is_empty() {
        return None;
    }
    let n = mine.len() as f64;
    let mean = mine.iter().sum::<f64>() / n;
    let harmonic = n / mine.iter().map(|a| 1.0 / a.max(1.0)).sum::<f64>();
    Some((mean + harmonic) / 2.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_by_expected_score_thrown_away() {
        assert_eq!(Mark::of(0.0), None);
        assert_eq!(Mark::of(4.99), None);
        assert_eq!(Mark::of(5.0), Some(Mark::Inaccuracy));
        assert_eq!(Mark::of(9.99), Some(Mark::Inaccuracy));
        assert_eq!(Mark::of(10.0), Some(Mark::Mistake));
        assert_eq!(Mark::of(15.0), Some(Mark::Blunder));
        assert_eq!(Mark::of(100.0), Some(Mark::Blunder));
    }

    #[test]
    fn move_accuracy_falls_with_the_points_thrown_away() {
        assert!((move_accuracy(0.0) - 100.0).abs() < 0.01);
        assert!((move_accuracy(5.0) - 80.0).abs() < 0.5);
        assert!((move_accuracy(15.0) - 50.6).abs() < 0.5);
        assert_eq!(move_accuracy(100.0), 0.0);
    }
}
