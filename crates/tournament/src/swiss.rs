//! A Swiss round: everyone paired at once, by the FIDE Dutch system's priorities.
//!
//! In this order: (1) no rematch when a pairing without one exists (else as few as possible),
//! and never a pair the organiser forbids when another pairing exists; (2) the side rules:
//! nobody plays the same side three times in a row, and nobody's South and North games differ
//! by more than [`MAX_SIDE_GAP`] after the round; (3) the least sum over the pairs of the
//! score difference; (4) side preferences (the one due South plays South); (5) within a score
//! group, the upper half meets the lower half, as the Dutch system pairs it. The odd player
//! out gets a bye: the lowest-ranked (score, then rating) who has had none.
//!
//! All five are one minimum-cost perfect matching whose costs rank them strictly
//! ([`crate::matching::Scale`]); the side each plays follows from the pair.

use std::collections::{HashMap, HashSet};

use anywoli_core::Side;
use serde::{Deserialize, Serialize};

use crate::error::checked_ids;
use crate::matching::{min_cost_pairs, Scale};
use crate::{PairError, Sides};

/// The largest difference between a player's South and North games after a round.
pub const MAX_SIDE_GAP: usize = 2;

/// The most players one Swiss round pairs (the matching takes time as the cube of it).
pub const MAX_PLAYERS: usize = 1_000;

/// A player of the round, as `anywoli tournament pair --system swiss` reads them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Player {
    /// The player's id (an account name).
    pub id: String,
    /// Points so far: 1 a win or a bye, ½ a draw.
    pub score: f64,
    /// Rating, for the order within a score.
    #[serde(default)]
    pub rating: i32,
    /// Sides played so far, one per round.
    #[serde(default)]
    pub sides: Sides,
    /// Ids of the opponents met so far.
    #[serde(default)]
    pub opponents: Vec<String>,
    /// Byes had so far.
    #[serde(default)]
    pub byes: u32,
}

/// One round to pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Round {
    /// The round's number, from 1 (for the reader; the pairing does not need it).
    #[serde(default)]
    pub round: u32,
    /// Everyone to pair this round (the withdrawn and paused left out).
    pub players: Vec<Player>,
    /// Pairs the organiser forbids (or who blocked one another), as two ids.
    #[serde(default)]
    pub forbidden: Vec<(String, String)>,
}

/// The round's pairs, South first, and who has the bye.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pairing {
    /// Each game: the South player's id, then the North player's.
    pub pairs: Vec<(String, String)>,
    /// The player with the bye (a point, no game), or `None` with an even count.
    pub bye: Option<String>,
}

/// A score in half points, checked.
fn half_points(p: &Player) -> Result<i64, PairError> {
    let h = p.score * 2.0;
    if !h.is_finite() || h < 0.0 || h.fract() != 0.0 || h > 1e9 {
        return Err(PairError::BadScore {
            id: p.id.clone(),
            score: p.score,
        });
    }
    Ok(h as i64)
}

/// The players' indices from first to last: score, then rating, then id.
pub fn ranking(players: &[Player]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..players.len()).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (&players[a], &players[b]);
        b.score
            .total_cmp(&a.score)
            .then(b.rating.cmp(&a.rating))
            .then(a.id.cmp(&b.id))
    });
    order
}

/// Who gets the bye among `players` ranked as `order`: the lowest-ranked with none so far, or
/// the lowest-ranked when all have had one; nobody with an even count.
pub fn bye(players: &[Player], order: &[usize]) -> Option<usize> {
    if players.len().is_multiple_of(2) {
        return None;
    }
    order
        .iter()
        .rev()
        .copied()
        .find(|&i| players[i].byes == 0)
        .or(order.last().copied())
}

/// How a pair would play: who takes South, and what that costs in side rules broken and side
/// preferences unmet. The orientation that breaks fewer rules, then meets more preferences,
/// then gives the higher-ranked player their due side.
pub fn orient(a: &Player, b: &Player) -> (Side, usize, usize) {
    let costs = |a_side: Side| {
        let b_side = a_side.opponent();
        let broken = usize::from(!a.sides.may_play(a_side, MAX_SIDE_GAP))
            + usize::from(!b.sides.may_play(b_side, MAX_SIDE_GAP));
        let unmet =
            usize::from(a.sides.due() == Some(b_side)) + usize::from(b.sides.due() == Some(a_side));
        (broken, unmet)
    };
    let (south, north) = (costs(Side::South), costs(Side::North));
    // `a` is the higher-ranked of the two: its due side decides a tie.
    let a_south = match south.cmp(&north) {
        std::cmp::Ordering::Less => true,
        std::cmp::Ordering::Greater => false,
        std::cmp::Ordering::Equal => a.sides.due() != Some(Side::North),
    };
    let (side, (broken, unmet)) = if a_south {
        (Side::South, south)
    } else {
        (Side::North, north)
    };
    (side, broken, unmet)
}

fn check(round: &Round) -> Result<(), PairError> {
    let seen = checked_ids(round.players.iter().map(|p| p.id.as_str()), MAX_PLAYERS)?;
    for p in &round.players {
        half_points(p)?;
    }
    for (a, b) in &round.forbidden {
        let why = if a == b {
            Some("the same player twice")
        } else if !seen.contains(a.as_str()) || !seen.contains(b.as_str()) {
            Some("not a player of this round")
        } else {
            None
        };
        if let Some(why) = why {
            return Err(PairError::BadForbidden {
                a: a.clone(),
                b: b.clone(),
                why,
            });
        }
    }
    Ok(())
}

/// Pairs one Swiss round.
pub fn pair(round: &Round) -> Result<Pairing, PairError> {
    check(round)?;
    let players = &round.players;
    let order = ranking(players);
    let bye = bye(players, &order);
    let field: Vec<usize> = order.iter().copied().filter(|&i| Some(i) != bye).collect();
    let n = field.len();
    let scores: Vec<i64> = field
        .iter()
        .map(|&i| half_points(&players[i]))
        .collect::<Result<_, _>>()?;
    // Position in its score group and the group's size, for the Dutch upper-lower halves.
    let mut group: HashMap<i64, usize> = HashMap::new();
    let place: Vec<usize> = scores
        .iter()
        .map(|s| {
            let e = group.entry(*s).or_default();
            *e += 1;
            *e - 1
        })
        .collect();
    let met: HashSet<(&str, &str)> = players
        .iter()
        .flat_map(|p| p.opponents.iter().map(move |o| (p.id.as_str(), o.as_str())))
        .collect();
    let forbidden: HashSet<(&str, &str)> = round
        .forbidden
        .iter()
        .flat_map(|(a, b)| [(a.as_str(), b.as_str()), (b.as_str(), a.as_str())])
        .collect();
    let spread = scores.first().zip(scores.last()).map_or(0, |(a, b)| a - b);
    let scale = Scale::new(&[1, 1, 2, i128::from(spread), 2, n as i128], n / 2).ok_or(
        PairError::TooMany {
            count: players.len(),
            max: MAX_PLAYERS,
        },
    )?;
    let cost = |x: usize, y: usize| {
        let (a, b) = (&players[field[x]], &players[field[y]]);
        let pair = (a.id.as_str(), b.id.as_str());
        let rematch = met.contains(&pair) || met.contains(&(pair.1, pair.0));
        let (_, broken, unmet) = orient(a, b);
        let size = group[&scores[x]];
        let dutch = if scores[x] == scores[y] {
            (place[y] as i128 - place[x] as i128 - (size / 2) as i128).abs()
        } else {
            0
        };
        scale.cost(&[
            i128::from(forbidden.contains(&pair)),
            i128::from(rematch),
            broken as i128,
            i128::from((scores[x] - scores[y]).abs()),
            unmet as i128,
            dutch,
        ])
    };
    let pairs = min_cost_pairs(n, cost)
        .into_iter()
        .map(|(x, y)| {
            let (a, b) = (&players[field[x]], &players[field[y]]);
            match orient(a, b).0 {
                Side::South => (a.id.clone(), b.id.clone()),
                Side::North => (b.id.clone(), a.id.clone()),
            }
        })
        .collect();
    Ok(Pairing {
        pairs,
        bye: bye.map(|i| players[i].id.clone()),
    })
}
