//! The opening explorer (docs/api-bots.md, "Opening explorer"): which games it counts, the key
//! of a position, and a query's answer from the stored counts (crate::store's `explorer`).
//!
//! It counts every game that ended by its play (not aborted) between two people, with or
//! without accounts and clocks; games with the computer in a seat (a house bot's too) are the
//! engine's, not the community's, and are left out.

use std::collections::BTreeMap;

use anywoli_core::{Position, Side};
use serde::Serialize;

use crate::round::game::{Game, Player, Status};
use crate::store::{ExploreGame, ExplorerRow, EXPLORER_PLIES};

/// The key of a position in the explorer: FNV-1a of its position string without its two
/// counters (plies without capture, plies played), so that the same position reached by
/// different orders of moves is one.
pub fn position_key(pos: &Position) -> i64 {
    let text = pos.to_string();
    let fields: Vec<&str> = text.split_whitespace().collect();
    let head = fields[..fields.len().saturating_sub(2)].join(" ");
    let h = head.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    h as i64
}

/// The game as the explorer counts it, if it counts it (see the module).
pub fn explore_game(g: &Game) -> Option<ExploreGame> {
    let Status::Over { outcome, .. } = &g.status else {
        return None;
    };
    if g.players.iter().any(|p| matches!(p, Player::Computer(_))) {
        return None;
    }
    let mut pos = g.start;
    let mut plies = Vec::new();
    for mv in g.moves.iter().take(EXPLORER_PLIES) {
        plies.push((position_key(&pos), mv.to_string()));
        pos.play(*mv).ok()?;
    }
    let ratings: Vec<f64> = Side::ALL
        .iter()
        .filter_map(|s| g.people.ratings.start[*s].map(|r| r.rating))
        .collect();
    let rating = (ratings.len() == 2).then(|| ((ratings[0] + ratings[1]) / 2.0).round() as i64);
    Some(ExploreGame {
        id: g.id.clone(),
        rules: g.rules.name().to_string(),
        speed: g.category().map_or("untimed", |c| c.name()).to_string(),
        rating,
        result: outcome.as_str().to_string(),
        at: g.updated,
        plies,
    })
}

/// How often queued games are folded into the counts (the explorer is this far behind).
pub const FOLD_EVERY: std::time::Duration = std::time::Duration::from_millis(500);

/// Folds the games that ended into the explorer's counts, on the instance that holds the
/// `explorer` lease (one at a time: the others' folds would only wait for its own), until the
/// store is dropped.
pub async fn fold_loop(store: std::sync::Weak<crate::store::Store>) {
    let mut tick = tokio::time::interval(FOLD_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let Some(store) = store.upgrade() else { return };
        let r = tokio::task::spawn_blocking(move || {
            let now = crate::dates::now_ms();
            if store.lease("explorer", now, now + 5_000)? {
                store.explorer_fold_all()?;
            }
            Ok::<_, crate::store::StoreError>(())
        })
        .await;
        if let Ok(Err(e)) = r {
            tracing::warn!("the explorer's fold: {e}");
        }
    }
}

/// One move of a position, summed over the speeds and bands asked for.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MoveStats {
    #[serde(rename = "move")]
    pub mv: String,
    pub games: i64,
    pub south: i64,
    pub draws: i64,
    pub north: i64,
    /// The average of the games' average ratings, of those with one.
    pub rating: Option<i64>,
    #[serde(skip)]
    rating_sum: i64,
    #[serde(skip)]
    rated_games: i64,
}

/// A game recently played from the position.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Recent {
    pub id: String,
    #[serde(rename = "move")]
    pub mv: String,
    pub at: i64,
}

/// Which rows a query sums: speeds and bands (all when empty).
#[derive(Clone, Debug, Default)]
pub struct Wanted {
    pub speeds: Vec<String>,
    pub bands: Vec<i64>,
}

/// Sums `rows` that `w` asks for, by move (most played first), with up to `recent` games.
pub fn summarise(rows: &[ExplorerRow], w: &Wanted, recent: usize) -> (Vec<MoveStats>, Vec<Recent>) {
    let mut by_move: BTreeMap<&str, MoveStats> = BTreeMap::new();
    let mut last: Vec<Recent> = Vec::new();
    for r in rows {
        if !w.speeds.is_empty() && !w.speeds.contains(&r.speed) {
            continue;
        }
        if !w.bands.is_empty() && !w.bands.contains(&r.band) {
            continue;
        }
        let m = by_move.entry(&r.mv).or_insert_with(|| MoveStats {
            mv: r.mv.clone(),
            ..MoveStats::default()
        });
        m.games += r.games;
        m.south += r.south;
        m.draws += r.draws;
        m.north += r.north;
        m.rating_sum += r.rating_sum;
        m.rated_games += r.rated_games;
        last.push(Recent {
            id: r.last_game.clone(),
            mv: r.mv.clone(),
            at: r.last_at,
        });
    }
    let mut moves: Vec<MoveStats> = by_move
        .into_values()
        .map(|mut m| {
            m.rating = (m.rated_games > 0).then(|| m.rating_sum / m.rated_games);
            m
        })
        .collect();
    moves.sort_by(|a, b| b.games.cmp(&a.games).then(a.mv.cmp(&b.mv)));
    last.sort_by(|a, b| b.at.cmp(&a.at).then(a.id.cmp(&b.id)));
    last.dedup_by(|a, b| a.id == b.id);
    last.truncate(recent);
    (moves, last)
}

/// The band a rating query names (its lowest rating), if it is one.
pub fn band(text: &str) -> Option<i64> {
    let b: i64 = text.trim().parse().ok()?;
    (b == -1 || crate::store::BANDS.contains(&b)).then_some(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use anywoli_core::Rules;

    #[test]
    fn transpositions_share_a_key_and_other_positions_do_not() {
        let rules = Rules::from_name("anywoli", 0).unwrap();
        let start = Position::start(rules);
        let play = |moves: &[&str]| {
            let mut p = start;
            for m in moves {
                p.play(m.parse().unwrap()).unwrap();
            }
            p
        };
        assert_ne!(position_key(&start), position_key(&play(&["e"])));
        assert_ne!(position_key(&play(&["e"])), position_key(&play(&["f"])));
        assert_eq!(position_key(&start), position_key(&Position::start(rules)));
        // The counters do not count: the same holes, stores and turn are the same key.
        let text = start.to_string();
        let later = text.replace(" 0 0", " 7 9");
        let p = anywoli_core::parse_position(&later, rules);
        if let Ok(p) = p {
            assert_eq!(position_key(&p), position_key(&start));
        }
    }

    #[test]
    fn rows_sum_by_move_over_what_is_asked() {
        let row = |mv: &str, speed: &str, band: i64, games: i64, at: i64| ExplorerRow {
            mv: mv.into(),
            speed: speed.into(),
            band,
            games,
            south: games,
            draws: 0,
            north: 0,
            rating_sum: 1500 * games,
            rated_games: games,
            last_game: format!("g{at}"),
            last_at: at,
        };
        let rows = [
            row("e", "blitz", 1400, 3, 10),
            row("e", "rapid", 1600, 2, 20),
            row("a", "blitz", 1400, 4, 30),
        ];
        let (m, recent) = summarise(&rows, &Wanted::default(), 2);
        assert_eq!(m[0].mv, "e");
        assert_eq!((m[0].games, m[1].games), (5, 4));
        assert_eq!(m[0].rating, Some(1500));
        assert_eq!(recent.iter().map(|r| r.at).collect::<Vec<_>>(), [30, 20]);
        let blitz = Wanted {
            speeds: vec!["blitz".into()],
            bands: vec![],
        };
        let (m, _) = summarise(&rows, &blitz, 5);
        assert_eq!((m[0].mv.as_str(), m[0].games, m[1].games), ("a", 4, 3));
        let band = Wanted {
            speeds: vec![],
            bands: vec![1600],
        };
        assert_eq!(summarise(&rows, &band, 5).0.len(), 1);
        assert_eq!(super::band("1600"), Some(1600));
        assert_eq!(super::band("1650"), None);
        assert_eq!(super::band("-1"), Some(-1));
    }
}
