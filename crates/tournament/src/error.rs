//! Why a pairing cannot be made from what was given.

use std::collections::HashSet;

/// A tournament's state that cannot be paired, naming the player or field at fault.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PairError {
    /// Two players share an id.
    #[error("player \"{id}\" is listed twice")]
    DuplicateId {
        /// The id listed twice.
        id: String,
    },
    /// A player's id is empty.
    #[error("a player has an empty id")]
    EmptyId,
    /// A score that is negative, not a number, or not a whole number of half points.
    #[error("player \"{id}\": score {score} is not a whole number of half points from 0 up")]
    BadScore {
        /// The player.
        id: String,
        /// The score given.
        score: f64,
    },
    /// More players than the format pairs.
    #[error("{count} players: this format pairs at most {max}")]
    TooMany {
        /// Players given.
        count: usize,
        /// The most the format takes.
        max: usize,
    },
    /// A forbidden pair names someone who is not playing, or the same player twice.
    #[error("forbidden pair [\"{a}\", \"{b}\"]: {why}")]
    BadForbidden {
        /// The pair's first id.
        a: String,
        /// The pair's second id.
        b: String,
        /// What is wrong with it.
        why: &'static str,
    },
}

/// The players' ids, checked as every format needs them: at most `max`, none empty, none twice.
pub(crate) fn checked_ids<'a>(
    ids: impl ExactSizeIterator<Item = &'a str>,
    max: usize,
) -> Result<HashSet<&'a str>, PairError> {
    if ids.len() > max {
        return Err(PairError::TooMany {
            count: ids.len(),
            max,
        });
    }
    let mut seen = HashSet::new();
    for id in ids {
        if id.is_empty() {
            return Err(PairError::EmptyId);
        }
        if !seen.insert(id) {
            return Err(PairError::DuplicateId { id: id.into() });
        }
    }
    Ok(seen)
}
