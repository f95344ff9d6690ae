//! An arena's pairing wave: whoever waits now is paired, near in the standings.
//!
//! Hard rules: no immediate rematch (a player's last opponent), and no third game in a row on
//! the same side. Within them the wave pairs as many players as it can, so that nobody who
//! has waited [`MAX_WAIT_MS`] or more is left while a partner they may play is also left
//! (whoever can be paired is); then it leaves out bots before humans and the most recent
//! arrivals before those who waited longer; then it makes the pairs as close as it can in rank
//! and rating, each player on the side they are due.

use anywoli_core::Side;
use serde::{Deserialize, Serialize};

use crate::error::checked_ids;
use crate::matching::{min_cost_pairs, Scale};
use crate::{PairError, Sides};

/// A wait after which a player is never left unpaired while a partner they may play waits.
pub const MAX_WAIT_MS: i64 = 5_000;

/// The most players one wave pairs.
pub const MAX_PLAYERS: usize = 2_000;

/// A waiting player, as `anywoli tournament pair --system arena` reads them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Player {
    /// The player's id (an account name).
    pub id: String,
    /// When they began to wait, in ms on the same clock as [`Wave::now`].
    pub waiting_since: i64,
    /// Place in the standings (1 = the leader).
    pub rank: u32,
    /// The opponent of their last game, if any.
    #[serde(default)]
    pub last_opponent: Option<String>,
    /// Rating.
    #[serde(default)]
    pub rating: i32,
    /// Sides of their games so far in this arena.
    #[serde(default)]
    pub sides: Sides,
    /// A bot account: paired after humans when both wait.
    #[serde(default)]
    pub bot: bool,
}

/// The players waiting at `now`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Wave {
    /// The time of the wave, in ms.
    pub now: i64,
    /// Everyone waiting for a game.
    pub players: Vec<Player>,
    /// Pairs who must never meet (one blocked the other), either way round.
    #[serde(default)]
    pub forbidden: Vec<(String, String)>,
}

/// The games a wave starts: South's id, then North's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pairs {
    /// Each game: the South player's id, then the North player's.
    pub pairs: Vec<(String, String)>,
}

/// The side `a` takes against `b`, if the side rule lets them meet: whoever is due a side
/// gets it; the higher-ranked decides a tie.
pub fn orient(a: &Player, b: &Player) -> Option<Side> {
    let fits = |a_side: Side| {
        !a.sides.twice_in_a_row(a_side) && !b.sides.twice_in_a_row(a_side.opponent())
    };
    let (first, second) = if a.rank <= b.rank { (a, b) } else { (b, a) };
    let wanted = match (first.sides.due(), second.sides.due()) {
        (Some(s), _) => {
            if std::ptr::eq(first, a) {
                s
            } else {
                s.opponent()
            }
        }
        (None, Some(s)) => {
            if std::ptr::eq(second, a) {
                s
            } else {
                s.opponent()
            }
        }
        (None, None) => Side::South,
    };
    [wanted, wanted.opponent()].into_iter().find(|&s| fits(s))
}

/// Whether `a` and `b` may meet now.
pub fn may_meet(a: &Player, b: &Player) -> bool {
    a.last_opponent.as_deref() != Some(b.id.as_str())
        && b.last_opponent.as_deref() != Some(a.id.as_str())
        && orient(a, b).is_some()
}

fn check(wave: &Wave) -> Result<(), PairError> {
    checked_ids(wave.players.iter().map(|p| p.id.as_str()), MAX_PLAYERS).map(|_| ())
}

/// Players one matching takes at most: a wave of more is matched by slices of neighbours in
/// the standings, then those left over together. The matching is cubic in its size (500
/// waiting players took 90–110 ms, 128 take about 3 ms); neighbours in rank are whom the
/// costs pair anyway, and the last pass over everyone left pairs any two who may meet, so the
/// wave still leaves nobody beside a possible partner.
pub const SLICE: usize = 128;

/// The pairs a wave makes now.
pub fn pair(wave: &Wave) -> Result<Pairs, PairError> {
    check(wave)?;
    if wave.players.len() <= SLICE {
        return pair_all(wave);
    }
    let mut order: Vec<&Player> = wave.players.iter().collect();
    order.sort_by(|a, b| a.rank.cmp(&b.rank).then(a.id.cmp(&b.id)));
    let slices = order.len().div_ceil(SLICE);
    let size = order.len().div_ceil(slices);
    let mut pairs = Vec::new();
    let mut left = Vec::new();
    for slice in order.chunks(size) {
        let part = Wave {
            now: wave.now,
            players: slice.iter().map(|p| (*p).clone()).collect(),
            forbidden: wave.forbidden.clone(),
        };
        let made = pair_all(&part)?.pairs;
        let paired: std::collections::HashSet<&str> = made
            .iter()
            .flat_map(|(s, n)| [s.as_str(), n.as_str()])
            .collect();
        left.extend(
            part.players
                .iter()
                .filter(|p| !paired.contains(p.id.as_str()))
                .cloned(),
        );
        pairs.extend(made);
    }
    let rest = Wave {
        now: wave.now,
        players: left,
        forbidden: wave.forbidden.clone(),
    };
    // Few are left in practice; many (hard rules everywhere) are sliced again while slicing
    // pairs some, and matched whole once it pairs none.
    let last = if rest.players.len() < wave.players.len() {
        pair(&rest)?
    } else {
        pair_all(&rest)?
    };
    pairs.extend(last.pairs);
    Ok(Pairs { pairs })
}

/// One matching over the whole wave.
fn pair_all(wave: &Wave) -> Result<Pairs, PairError> {
    let players = &wave.players;
    let real = players.len();
    // An odd player out is matched to nobody: a vertex of its own.
    let n = real + real % 2;
    // Seconds waited, capped: beyond ten minutes everyone is equally overdue.
    let waited =
        |p: &Player| (wave.now.saturating_sub(p.waiting_since).clamp(0, 600_000) / 1_000) as i128;
    let ranks = players
        .iter()
        .map(|p| i128::from(p.rank))
        .max()
        .unwrap_or(0);
    let ratings = players
        .iter()
        .map(|p| i128::from(p.rating))
        .max()
        .unwrap_or(0)
        - players
            .iter()
            .map(|p| i128::from(p.rating))
            .min()
            .unwrap_or(0);
    // Criteria: pairs not made; humans left out; seconds waited by those left out; the rank
    // gap; the rating gap; sides not as due.
    let scale = Scale::new(&[1, 2, 1_200, ranks, ratings, 2], n / 2).ok_or(PairError::TooMany {
        count: real,
        max: MAX_PLAYERS,
    })?;
    let forbidden: std::collections::HashSet<(&str, &str)> = wave
        .forbidden
        .iter()
        .flat_map(|(a, b)| [(a.as_str(), b.as_str()), (b.as_str(), a.as_str())])
        .collect();
    let meet = |a: &Player, b: &Player| {
        may_meet(a, b) && !forbidden.contains(&(a.id.as_str(), b.id.as_str()))
    };
    let left = |p: &Player| (i128::from(!p.bot), waited(p));
    let cost = |i: usize, j: usize| {
        if j >= real {
            let (humans, secs) = left(&players[i]);
            return scale.cost(&[1, humans, secs, 0, 0, 0]);
        }
        let (a, b) = (&players[i], &players[j]);
        if !meet(a, b) {
            let ((ha, sa), (hb, sb)) = (left(a), left(b));
            return scale.cost(&[1, ha + hb, sa + sb, 0, 0, 0]);
        }
        let side = orient(a, b).unwrap_or(Side::South);
        let unmet = i128::from(a.sides.due().is_some_and(|d| d != side))
            + i128::from(b.sides.due().is_some_and(|d| d != side.opponent()));
        scale.cost(&[
            0,
            0,
            0,
            (i128::from(a.rank) - i128::from(b.rank)).abs(),
            (i128::from(a.rating) - i128::from(b.rating)).abs(),
            unmet,
        ])
    };
    let pairs = min_cost_pairs(n, cost)
        .into_iter()
        .filter(|&(i, j)| j < real && meet(&players[i], &players[j]))
        .map(|(i, j)| {
            let (a, b) = (&players[i], &players[j]);
            match orient(a, b) {
                Some(Side::North) => (b.id.clone(), a.id.clone()),
                _ => (a.id.clone(), b.id.clone()),
            }
        })
        .collect();
    Ok(Pairs { pairs })
}

/// Points for a finished arena game, lichess's way: win 2, draw 1, loss 0; on a streak (the
/// two games before were both won) a win scores 4 and a draw 2; a berserked win that reached
/// `min_plies` earns one more; a draw in fewer than `min_draw_plies` scores nothing.
pub fn points(
    result: Outcome,
    on_streak: bool,
    berserk: bool,
    plies: u32,
    rules: ScoringRules,
) -> u32 {
    let base = match result {
        Outcome::Win => 2,
        Outcome::Draw if plies < rules.min_draw_plies => 0,
        Outcome::Draw => 1,
        Outcome::Loss => 0,
    };
    let doubled = if on_streak { base * 2 } else { base };
    let bonus = u32::from(berserk && result == Outcome::Win && plies >= rules.min_berserk_plies);
    doubled + bonus
}

/// A game's result for one player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// The player won.
    Win,
    /// A draw.
    Draw,
    /// The player lost.
    Loss,
}

/// The ply thresholds of arena scoring (docs/tournaments.md says how they were chosen).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScoringRules {
    /// A berserked win earns its extra point only from this many plies.
    pub min_berserk_plies: u32,
    /// A draw scores only from this many plies.
    pub min_draw_plies: u32,
}

impl ScoringRules {
    /// Anywoli's, from 300 measured games (levels 3–10, median 94 plies): the shortest decisive
    /// game played out was 20 plies, the shortest draw 33.
    pub const ANYWOLI: ScoringRules = ScoringRules {
        min_berserk_plies: 20,
        min_draw_plies: 30,
    };
}

/// Whether the next game is on a streak: the last two games were both wins (after a game that
/// is not a win, the streak starts again).
pub fn on_streak(results: &[Outcome]) -> bool {
    results.len() >= 2
        && results[results.len() - 2..]
            .iter()
            .all(|&r| r == Outcome::Win)
}
