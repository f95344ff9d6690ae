//! Round robin: everyone meets everyone, in rounds laid out from the start (Berger tables).

use serde::{Deserialize, Serialize};

use crate::error::checked_ids;
use crate::PairError;

/// The most players of a round robin.
pub const MAX_PLAYERS: usize = 16;

/// What `anywoli tournament pair --system round-robin` reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The players' ids, in seeding order (seed 1 first).
    pub players: Vec<String>,
    /// Twice round, sides swapped the second time.
    #[serde(default)]
    pub double: bool,
}

/// One round of the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Round {
    /// Each game: the South player's id, then the North player's.
    pub pairs: Vec<(String, String)>,
    /// Who sits this round out (an odd number of players), or `None`.
    pub bye: Option<String>,
}

/// Every round, as `anywoli tournament pair --system round-robin` prints them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Table {
    /// The rounds in order.
    pub rounds: Vec<Round>,
}

/// Berger's table for `n` seats (`n` even): for each round, the pairs of seats, South first.
/// Seat `n - 1` stays put while the others turn, and changes side each round; the others'
/// sides alternate as they turn, so nobody's South and North games differ by more than one.
pub fn berger(n: usize) -> Vec<Vec<(usize, usize)>> {
    assert!(
        n >= 2 && n.is_multiple_of(2),
        "Berger tables need an even count"
    );
    let turning = n - 1;
    (0..turning)
        .map(|r| {
            let mut pairs = Vec::with_capacity(n / 2);
            let moving = (r * (n / 2)) % turning;
            pairs.push(if r % 2 == 0 {
                (moving, turning)
            } else {
                (turning, moving)
            });
            for k in 1..n / 2 {
                let a = (moving + k) % turning;
                let b = (moving + turning - k) % turning;
                pairs.push((a, b));
            }
            pairs
        })
        .collect()
}

/// The table of `entry`: every round, single or double.
pub fn table(entry: &Entry) -> Result<Table, PairError> {
    let ids = &entry.players;
    checked_ids(ids.iter().map(String::as_str), MAX_PLAYERS)?;
    if ids.len() < 2 {
        return Ok(Table { rounds: Vec::new() });
    }
    let seats = ids.len() + ids.len() % 2;
    let name = |s: usize| ids.get(s).cloned();
    let round = |pairs: &[(usize, usize)], swap: bool| {
        let mut out = Round {
            pairs: Vec::new(),
            bye: None,
        };
        for &(a, b) in pairs {
            match (name(a), name(b)) {
                (Some(a), Some(b)) => out.pairs.push(if swap { (b, a) } else { (a, b) }),
                (Some(x), None) | (None, Some(x)) => out.bye = Some(x),
                (None, None) => {}
            }
        }
        out
    };
    let once = berger(seats);
    let mut rounds: Vec<Round> = once.iter().map(|p| round(p, false)).collect();
    if entry.double {
        rounds.extend(once.iter().map(|p| round(p, true)));
    }
    Ok(Table { rounds })
}
