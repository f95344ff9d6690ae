//! The check at the end: the games are read back and each must hold every move the tool knows
//! is stored, and must replay with `anywoli_core`, from its start position and under its
//! rules, to the position the server stores. The second catches what the first cannot: a
//! store whose moves and position disagree (a half-applied change, or an instance that took
//! over a game from a stale copy).

use std::fmt;
use std::sync::Arc;

use anywoli_core::{parse_position, Move, Rules};
use serde::Serialize;
use serde_json::Value;

use super::ctx::Ctx;
use super::failover::Req;
use super::live::move_list;
use super::stats::Played;

#[derive(Serialize)]
pub(super) struct Check {
    pub games_played: usize,
    pub games_checked: usize,
    /// The acknowledged moves of the games checked, and those found stored after an unknown
    /// outcome.
    pub moves_checked: u64,
    pub lost_moves: u64,
    pub games_with_lost_moves: u64,
    pub failed: u64,
    /// Games read back and replayed.
    pub replayed: u64,
    /// Games whose stored moves do not lead to their stored position.
    pub replay_mismatches: u64,
    /// The first of those, and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_mismatch: Option<String>,
}

/// What reading one game back found.
enum Verdict {
    /// It could not be read (counted as an error by the request).
    Unread,
    Read {
        lost: u64,
        replay: Result<(), ReplayError>,
    },
}

/// Reads back games (all, or a random sample of `most`), checks that the server's moves start
/// with every move the tool knows is stored, and replays each.
pub(super) async fn check(ctx: &Arc<Ctx>, most: usize) -> Check {
    let mut played = std::mem::take(&mut *ctx.stats.played.lock().unwrap());
    let games_played = played.len();
    if played.len() > most {
        // A uniform sample: a partial Fisher-Yates shuffle.
        for i in 0..most {
            let j = rand::random_range(i..played.len());
            played.swap(i, j);
        }
        played.truncate(most);
    }
    let mut c = Check {
        games_played,
        games_checked: played.len(),
        moves_checked: played.iter().map(|p| p.known.len() as u64).sum(),
        lost_moves: 0,
        games_with_lost_moves: 0,
        failed: 0,
        replayed: 0,
        replay_mismatches: 0,
        first_mismatch: None,
    };
    let mut tasks = tokio::task::JoinSet::new();
    for p in played {
        let ctx = ctx.clone();
        tasks.spawn(async move { check_game(&ctx, p).await });
    }
    while let Some(r) = tasks.join_next().await {
        let (id, verdict) = match r {
            Ok(x) => x,
            Err(_) => {
                c.failed += 1;
                continue;
            }
        };
        match verdict {
            Verdict::Unread => c.failed += 1,
            Verdict::Read { lost, replay } => {
                if lost > 0 {
                    c.lost_moves += lost;
                    c.games_with_lost_moves += 1;
                }
                c.replayed += 1;
                if let Err(e) = replay {
                    c.replay_mismatches += 1;
                    c.first_mismatch.get_or_insert(format!("game {id}: {e}"));
                }
            }
        }
    }
    if c.lost_moves > 0 {
        ctx.error_n(
            "check: acknowledged moves missing from the stored game".to_string(),
            c.lost_moves,
        );
    }
    if c.replay_mismatches > 0 {
        ctx.error_n(
            "check: the stored moves do not replay to the stored position".to_string(),
            c.replay_mismatches,
        );
    }
    c
}

async fn check_game(ctx: &Ctx, p: Played) -> (String, Verdict) {
    let path = format!("/api/games/{}", p.id);
    let mut target = p.target;
    let Ok((g, _)) = ctx.call(&mut target, Req::get("check", &path)).await else {
        return (p.id, Verdict::Unread);
    };
    let stored = move_list(&g);
    let kept = p
        .known
        .iter()
        .zip(&stored)
        .take_while(|(k, s)| k == s)
        .count();
    let lost = (p.known.len() - kept) as u64;
    (
        p.id,
        Verdict::Read {
            lost,
            replay: replay(&g),
        },
    )
}

/// Why a stored game does not replay to its stored position.
#[derive(Debug, PartialEq)]
pub(super) enum ReplayError {
    /// The answer lacks a field, or has it in a form that is not the API's.
    Field(&'static str),
    Rules(String),
    Start(String),
    Move {
        n: usize,
        mv: String,
        why: String,
    },
    Differs {
        replayed: String,
        stored: String,
    },
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::Field(name) => write!(f, "the game read back has no valid `{name}`"),
            ReplayError::Rules(why) => write!(f, "its rules: {why}"),
            ReplayError::Start(why) => write!(f, "its start position: {why}"),
            ReplayError::Move { n, mv, why } => write!(f, "move {n} ({mv}): {why}"),
            ReplayError::Differs { replayed, stored } => write!(
                f,
                "its moves lead to {replayed}, but the stored position is {stored}"
            ),
        }
    }
}

/// Plays a game as the API shows it (docs/api.md, "The game") from its `start` under its
/// `rules` (and `seed`), and compares the result with its `position`.
pub(super) fn replay(game: &Value) -> Result<(), ReplayError> {
    let field = |name: &'static str| game[name].as_str().ok_or(ReplayError::Field(name));
    let seed = match game.get("seed") {
        None | Some(Value::Null) => 0,
        Some(s) => s
            .as_str()
            .and_then(|s| s.parse::<u64>().ok())
            .ok_or(ReplayError::Field("seed"))?,
    };
    let rules =
        Rules::from_name(field("rules")?, seed).map_err(|e| ReplayError::Rules(e.to_string()))?;
    let mut pos =
        parse_position(field("start")?, rules).map_err(|e| ReplayError::Start(e.to_string()))?;
    let moves = game["moves"]
        .as_array()
        .ok_or(ReplayError::Field("moves"))?;
    for (i, m) in moves.iter().enumerate() {
        let text = m.as_str().ok_or(ReplayError::Field("moves"))?;
        let bad = |why: String| ReplayError::Move {
            n: i + 1,
            mv: text.to_string(),
            why,
        };
        let mv: Move = text.parse().map_err(|e| bad(format!("{e}")))?;
        pos.play(mv).map_err(|e| bad(e.to_string()))?;
    }
    let replayed = pos.to_string();
    let stored = field("position")?;
    if replayed != stored {
        return Err(ReplayError::Differs {
            replayed,
            stored: stored.to_string(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use anywoli_core::Position;
    use serde_json::json;

    fn game(moves: &[&str], position: &str) -> Value {
        json!({
            "rules": "anywoli",
            "start": Position::start(Rules::Anywoli).to_string(),
            "moves": moves,
            "position": position,
        })
    }

    fn after(moves: &[&str]) -> String {
        let mut p = Position::start(Rules::Anywoli);
        for m in moves {
            p.play(m.parse().unwrap()).unwrap();
        }
        p.to_string()
    }

    #[test]
    fn a_game_replays_to_its_position() {
        let moves = ["e", "A", "f"];
        assert_eq!(replay(&game(&moves, &after(&moves))), Ok(()));
        assert_eq!(replay(&game(&[], &after(&[]))), Ok(()));
    }

    #[test]
    fn a_position_that_the_moves_do_not_lead_to_is_a_mismatch() {
        let e = replay(&game(&["e", "A"], &after(&["e"]))).unwrap_err();
        assert!(matches!(e, ReplayError::Differs { .. }), "{e}");
    }

    #[test]
    fn an_illegal_or_unreadable_move_is_named() {
        // South moves first: North's hole A is not South's to sow.
        let e = replay(&game(&["A"], &after(&[]))).unwrap_err();
        assert!(matches!(e, ReplayError::Move { n: 1, .. }), "{e}");
        let e = replay(&game(&["e", "7"], &after(&["e"]))).unwrap_err();
        assert!(matches!(e, ReplayError::Move { n: 2, .. }), "{e}");
    }

    #[test]
    fn missing_fields_and_unknown_rules_are_named() {
        let mut g = game(&[], &after(&[]));
        g["rules"] = json!("chess");
        assert!(matches!(replay(&g), Err(ReplayError::Rules(_))));
        let mut g = game(&[], &after(&[]));
        g.as_object_mut().unwrap().remove("start");
        assert_eq!(replay(&g), Err(ReplayError::Field("start")));
        let mut g = game(&[], &after(&[]));
        g["seed"] = json!("not a number");
        assert_eq!(replay(&g), Err(ReplayError::Field("seed")));
    }
}
