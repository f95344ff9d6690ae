//! Game review (issue 13): every position of a game searched within a bounded effort, each
//! move scored against the engine's best, the moves that threw seeds away marked, and an
//! accuracy figure for each player. `anywoli review` prints it; the web app stores it with the
//! game.
//!
//! A move's **loss** is what the engine's best move was worth to the mover minus what the
//! played move was worth, both searched from the same position with the same limits (the
//! played move alone, with the root restricted to it, when it was not the best). Losses are
//! in centiseeds of final store difference. The marks and the accuracy curve are in
//! docs/decisions.md ("Game review").

use std::sync::atomic::AtomicBool;

use anywoli_core::{Move, PlayError, Position, Side};
use serde::Serialize;

use crate::search::{Engine, Limits};

/// Seeds thrown away (in centiseeds) from which a move is an inaccuracy.
pub const INACCURACY: i32 = 200;
/// From which a move is a mistake, in centiseeds.
pub const MISTAKE: i32 = 500;
/// From which a move is a blunder, in centiseeds.
pub const BLUNDER: i32 = 1000;
/// A move that throws `ACCURACY_SCALE` centiseeds away scores 1/e (37 %) of a perfect move.
pub const ACCURACY_SCALE: f64 = 800.0;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
/// How bad a move was, by the seeds it threw away.
pub enum Mark {
    /// [`INACCURACY`] centiseeds or more, below [`MISTAKE`].
    Inaccuracy,
    /// [`MISTAKE`] centiseeds or more, below [`BLUNDER`].
    Mistake,
    /// [`BLUNDER`] centiseeds or more.
    Blunder,
}

impl Mark {
    /// The mark of a move that lost `loss` centiseeds, if any.
    pub fn of(loss: i32) -> Option<Mark> {
        match loss {
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
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MoveReview {
    /// The move's number in the game, from 1.
    pub ply: usize,
    /// Who played it.
    #[serde(serialize_with = "side_name")]
    pub mover: Side,
    /// The move played.
    #[serde(serialize_with = "move_letter")]
    pub played: Move,
    /// The engine's choice in the position the move was played from.
    #[serde(serialize_with = "move_letter")]
    pub best: Move,
    /// What the best and the played move were worth to the mover (centiseeds of final store
    /// difference, stores included).
    pub best_score: i32,
    /// See `best_score`.
    pub played_score: i32,
    /// `best_score - played_score`, at least 0.
    pub loss: i32,
    /// The mark its loss earns, if any.
    pub mark: Option<Mark>,
}

/// A whole game, judged.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Review {
    /// The engine's view of every position from the start to the last, from South's side
    /// (centiseeds): what the evaluation graph draws. The last is the final store difference
    /// when the game is over.
    pub evals: Vec<i32>,
    /// Every move, in order.
    pub moves: Vec<MoveReview>,
    /// Each player's accuracy (South, North), 0 to 100; `None` for a side that did not move.
    pub accuracy: [Option<f64>; 2],
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
        let loss = (best.score - played_score).max(0);
        reviewed.push(MoveReview {
            ply: i + 1,
            mover,
            played: mv,
            best: best_move,
            best_score: best.score,
            played_score,
            loss,
            mark: Mark::of(loss),
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
    Ok(Review {
        accuracy: [Side::South, Side::North].map(|s| accuracy(&reviewed, s)),
        evals,
        moves: reviewed,
    })
}

/// A side's accuracy: the mean over its moves of 100·e^(−loss/[`ACCURACY_SCALE`]) (a perfect
/// move 100, two seeds thrown away 78, five 54, ten 29).
pub fn accuracy(moves: &[MoveReview], side: Side) -> Option<f64> {
    let mine: Vec<f64> = moves
        .iter()
        .filter(|m| m.mover == side)
        .map(|m| 100.0 * (-(m.loss as f64) / ACCURACY_SCALE).exp())
        .collect();
    (!mine.is_empty()).then(|| mine.iter().sum::<f64>() / mine.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_by_seeds_thrown_away() {
        assert_eq!(Mark::of(0), None);
        assert_eq!(Mark::of(199), None);
        assert_eq!(Mark::of(200), Some(Mark::Inaccuracy));
        assert_eq!(Mark::of(499), Some(Mark::Inaccuracy));
        assert_eq!(Mark::of(500), Some(Mark::Mistake));
        assert_eq!(Mark::of(1000), Some(Mark::Blunder));
        assert_eq!(Mark::of(9600), Some(Mark::Blunder));
    }
}
