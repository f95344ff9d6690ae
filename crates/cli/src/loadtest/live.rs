//! A game while the load plays it: its seats, its last known state, the moves known to be
//! stored and the one whose fate is still to be found out.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::Value;

/// A game being played.
pub(super) struct LiveGame {
    pub(super) id: String,
    /// The server its requests go to: another one after a failover.
    pub(super) target: usize,
    /// The secret of each side: [south, north].
    pub(super) secrets: [String; 2],
    /// The game as the last answer showed it.
    pub(super) state: Value,
    /// The moves known to be stored, in order.
    pub(super) known: Vec<String>,
    /// A move read back after a failover and not found, until the game moves on.
    pub(super) unsettled: Option<Pending>,
}

/// A move sent when the game switched servers: whether it was stored is to be found out.
pub(super) struct Pending {
    pub mv: String,
    /// No server's answer was read: it may or may not have been stored.
    pub unknown: bool,
    /// Read back once already and not found there.
    pub looked: bool,
}

impl Pending {
    pub(super) fn new(mv: String, unknown: bool) -> Pending {
        Pending {
            mv,
            unknown,
            looked: false,
        }
    }
}

/// Ply -> when the move that made it was sent (for the watchers' delivery times).
pub(super) type SentTimes = Arc<Mutex<Vec<Option<Instant>>>>;

/// A game's moves as the API shows them.
pub(super) fn move_list(game: &Value) -> Vec<String> {
    game["moves"]
        .as_array()
        .map(|m| {
            m.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}
