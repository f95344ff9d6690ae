//! The check at the end: the tournament's games (every round), its standings (every page) and
//! each game itself, read back. **Double pairings**: a player in two games whose spans overlap
//! (a game's span: its `created` to its end, its `updated` once over). **Lost games**: a game
//! of the tournament that does not exist, one that ended but is not settled once the
//! tournament is finished, or a game a bot was sent to (or a score sheet names) that the
//! tournament does not list.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::Serialize;
use tokio::sync::Semaphore;

use super::Shared;
use crate::loadtest::args::TournamentSystem;
use crate::loadtest::failover::{CallError, Req};

/// Games read back at once.
const READS_AT_ONCE: usize = 32;
/// Examples kept of each kind of finding.
const EXAMPLES: usize = 5;

#[derive(Serialize, Default)]
pub(in crate::loadtest) struct Check {
    /// The tournament's status when read back.
    pub(in crate::loadtest) status: String,
    /// The rounds whose games were read (an arena's are all round 0).
    pub(in crate::loadtest) rounds: Vec<i64>,
    /// Games the tournament lists, and how they stand by the games themselves.
    pub(in crate::loadtest) games: u64,
    pub(in crate::loadtest) games_over: u64,
    pub(in crate::loadtest) games_aborted: u64,
    pub(in crate::loadtest) games_playing: u64,
    /// Games the bots were sent to.
    pub(in crate::loadtest) games_sent: u64,
    /// Listed games that only one of their two players' bots was sent to.
    pub(in crate::loadtest) games_sent_to_one: u64,
    pub(in crate::loadtest) standings_players: u64,
    /// A player's game that started more than `step_window_ms` before another of theirs ended.
    pub(in crate::loadtest) double_pairings: u64,
    /// Overlaps within the director's step (`step_window_ms`): a game started at the clock a
    /// director read before it read the end of the player's previous game. Not errors.
    pub(in crate::loadtest) overlaps_within_step: u64,
    pub(in crate::loadtest) step_window_ms: i64,
    /// The largest overlap of two games of one player, in ms.
    pub(in crate::loadtest) overlap_max_ms: Option<i64>,
    pub(in crate::loadtest) lost_games: u64,
    /// Listed, but `GET /api/games/{id}` says 404.
    pub(in crate::loadtest) lost_not_found: u64,
    /// Ended, and the finished tournament has no result for it.
    pub(in crate::loadtest) lost_unsettled: u64,
    /// Sent to a bot, or on a score sheet, but not in the tournament's list.
    pub(in crate::loadtest) lost_unlisted: u64,
    /// A settled result other than the game's own (or a game settled while still played).
    pub(in crate::loadtest) result_mismatches: u64,
    /// Players who joined and are not in the standings.
    pub(in crate::loadtest) players_missing: u64,
    /// Games or pages that could not be read (counted among the errors).
    pub(in crate::loadtest) unread: u64,
    pub(in crate::loadtest) examples: Vec<String>,
}

/// A game as the tournament lists it.
struct Listed {
    south: String,
    north: String,
    result: Option<String>,
}

/// A game as it says itself.
struct Stored {
    created: i64,
    updated: i64,
    status: String,
    result: String,
}

impl Check {
    fn example(&mut self, text: String) {
        if self.examples.len() < EXAMPLES * 3 {
            self.examples.push(text);
        }
    }
}

/// Reads the tournament back and checks it; `players` joined it; a director's step takes up
/// to `step_window_ms` (see [`Check::overlaps_within_step`]).
pub(super) async fn check(sh: &Arc<Shared>, players: &[String], step_window_ms: i64) -> Check {
    let ctx = &sh.ctx;
    let mut c = Check {
        step_window_ms,
        ..Check::default()
    };
    let mut target = 0;
    let page = format!("/api/tournaments/{}", sh.id);
    let Ok((t, _)) = ctx.call(&mut target, Req::get("check", &page)).await else {
        c.unread += 1;
        return c;
    };
    let t = &t["tournament"];
    c.status = t["status"].as_str().unwrap_or("").to_string();
    c.rounds = match sh.system {
        TournamentSystem::Arena => vec![0],
        TournamentSystem::Swiss => (1..=t["round"].as_i64().unwrap_or(0)).collect(),
    };

    // The games, round by round.
    let mut listed: BTreeMap<String, Listed> = BTreeMap::new();
    for r in c.rounds.clone() {
        let path = format!("/api/tournaments/{}/games?round={r}", sh.id);
        let Ok((v, _)) = ctx.call(&mut target, Req::get("check", &path)).await else {
            c.unread += 1;
            continue;
        };
        for g in v["games"].as_array().into_iter().flatten() {
            let text = |k: &str| g[k].as_str().unwrap_or("").to_string();
            listed.insert(
                text("game"),
                Listed {
                    south: text("south"),
                    north: text("north"),
                    result: g["result"].as_str().map(str::to_string),
                },
            );
        }
    }
    c.games = listed.len() as u64;

    // The standings, page by page: their players, and the games on their score sheets.
    let mut sheets: BTreeSet<String> = BTreeSet::new();
    let mut in_standings: BTreeSet<String> = BTreeSet::new();
    let mut page_no = 1;
    loop {
        let path = format!("/api/tournaments/{}/standings?page={page_no}", sh.id);
        let Ok((v, _)) = ctx.call(&mut target, Req::get("check", &path)).await else {
            c.unread += 1;
            break;
        };
        for s in v["players"].as_array().into_iter().flatten() {
            in_standings.insert(s["name"].as_str().unwrap_or("").to_string());
            for e in s["sheet"].as_array().into_iter().flatten() {
                if let Some(g) = e["game"].as_str() {
                    sheets.insert(g.to_string());
                }
            }
        }
        if page_no >= v["pages"].as_u64().unwrap_or(1) {
            break;
        }
        page_no += 1;
    }
    c.standings_players = in_standings.len() as u64;
    for p in players {
        if !in_standings.contains(p) {
            c.players_missing += 1;
            c.example(format!("{p} joined and is not in the standings"));
        }
    }

    // Every game named anywhere, read back.
    let sent = sh.seen.lock().unwrap().sent.clone();
    c.games_sent = sent.len() as u64;
    let mut ids: BTreeSet<String> = listed.keys().cloned().collect();
    ids.extend(sent.keys().cloned());
    ids.extend(sheets.iter().cloned());
    let stored = read_games(sh, ids, target, &mut c).await;

    let finished = c.status == "finished";
    for (id, l) in &listed {
        match stored.get(id) {
            Some(None) => {
                c.lost_not_found += 1;
                c.example(format!("game {id} is listed and not found"));
            }
            Some(Some(s)) => {
                match s.status.as_str() {
                    "playing" => c.games_playing += 1,
                    "aborted" => c.games_aborted += 1,
                    _ => c.games_over += 1,
                }
                match (&l.result, s.status.as_str()) {
                    (None, "over" | "aborted") if finished => {
                        c.lost_unsettled += 1;
                        c.example(format!(
                            "game {id} ended ({}) and the finished tournament has no result for it",
                            s.result
                        ));
                    }
                    (Some(r), "over") if *r != s.result => {
                        c.result_mismatches += 1;
                        c.example(format!(
                            "game {id}: the tournament says {r}, the game {}",
                            s.result
                        ));
                    }
                    (Some(r), "playing") => {
                        c.result_mismatches += 1;
                        c.example(format!("game {id}: settled as {r} while still played"));
                    }
                    _ => {}
                }
            }
            None => {}
        }
    }
    for (id, l) in &listed {
        let to = sent.get(id);
        let both = to.is_some_and(|w| w.contains(&l.south) && w.contains(&l.north));
        if !both {
            c.games_sent_to_one += 1;
            c.example(format!(
                "game {id} ({} - {}) was sent to {} only",
                l.south,
                l.north,
                to.map(|w| w.join(", "))
                    .unwrap_or_else(|| "nobody".to_string())
            ));
        }
    }
    for id in sent.keys().chain(sheets.iter()) {
        if !listed.contains_key(id) {
            c.lost_unlisted += 1;
            let who = sent.get(id).map(|w| w.join(", ")).unwrap_or_default();
            c.example(format!(
                "game {id} (sent to: {who}) is not in the tournament's list"
            ));
        }
    }
    c.lost_games = c.lost_not_found + c.lost_unsettled + c.lost_unlisted;
    double_pairings(&listed, &stored, &mut c);

    let ctx = &sh.ctx;
    if c.double_pairings > 0 {
        ctx.error_n(
            "check: double pairings (a player in two games at once)".to_string(),
            c.double_pairings,
        );
    }
    if c.lost_games > 0 {
        ctx.error_n("check: lost games".to_string(), c.lost_games);
    }
    if c.result_mismatches > 0 {
        ctx.error_n(
            "check: settled results that are not the game's".to_string(),
            c.result_mismatches,
        );
    }
    if c.players_missing > 0 {
        ctx.error_n(
            "check: players missing from the standings".to_string(),
            c.players_missing,
        );
    }
    if !finished {
        ctx.error(format!(
            "check: the tournament is {} at the end, not finished",
            c.status
        ));
    }
    c
}

/// Reads each game from `target` (a server that answered): `None` for a 404.
async fn read_games(
    sh: &Arc<Shared>,
    ids: BTreeSet<String>,
    target: usize,
    c: &mut Check,
) -> BTreeMap<String, Option<Stored>> {
    let gate = Arc::new(Semaphore::new(READS_AT_ONCE));
    let mut tasks = tokio::task::JoinSet::new();
    for id in ids {
        let (sh, gate) = (sh.clone(), gate.clone());
        tasks.spawn(async move {
            let _permit = gate.acquire().await;
            let path = format!("/api/games/{id}");
            let mut target = target;
            let r = sh
                .ctx
                .request(&mut target, Req::get("check game", &path), |_| {})
                .await;
            let read = match r {
                Ok((g, _)) => Ok(Some(Stored {
                    created: g["created"].as_i64().unwrap_or(0),
                    updated: g["updated"].as_i64().unwrap_or(0),
                    status: g["status"].as_str().unwrap_or("").to_string(),
                    result: g["result"].as_str().unwrap_or("").to_string(),
                })),
                Err(CallError::Status { status: 404, .. }) => Ok(None),
                Err(e) => {
                    sh.ctx.fail(target, "check game", &e);
                    Err(())
                }
            };
            (id, read)
        });
    }
    let mut out = BTreeMap::new();
    while let Some(r) = tasks.join_next().await {
        match r {
            Ok((id, Ok(s))) => {
                out.insert(id, s);
            }
            _ => c.unread += 1,
        }
    }
    out
}

/// Per player, the listed games by their start: one that starts before an earlier one ended
/// is a double pairing.
fn double_pairings(
    listed: &BTreeMap<String, Listed>,
    stored: &BTreeMap<String, Option<Stored>>,
    c: &mut Check,
) {
    let mut by_player: BTreeMap<&str, Vec<(i64, i64, &str)>> = BTreeMap::new();
    for (id, l) in listed {
        let Some(Some(s)) = stored.get(id) else {
            continue;
        };
        let end = if s.status == "playing" {
            i64::MAX
        } else {
            s.updated
        };
        if l.south == l.north {
            c.double_pairings += 1;
            c.example(format!("game {id}: {} plays themselves", l.south));
        }
        for p in [&l.south, &l.north] {
            by_player
                .entry(p.as_str())
                .or_default()
                .push((s.created, end, id.as_str()));
        }
    }
    for (p, mut games) in by_player {
        games.sort();
        let mut before: Option<(i64, &str)> = None;
        for (created, end, id) in games {
            if let Some((until, prev)) = before {
                if created < until {
                    let overlap = until.min(end) - created;
                    c.overlap_max_ms = Some(c.overlap_max_ms.unwrap_or(0).max(overlap));
                    if overlap > c.step_window_ms {
                        c.double_pairings += 1;
                        c.example(format!(
                            "{p}: game {id} started {overlap} ms before game {prev} ended"
                        ));
                    } else {
                        c.overlaps_within_step += 1;
                    }
                }
            }
            if before.is_none_or(|(until, _)| end > until) {
                before = Some((end, id));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn games(spans: &[(&str, &str, &str, i64, i64, &str)]) -> Check {
        let mut listed = BTreeMap::new();
        let mut stored = BTreeMap::new();
        for (id, south, north, created, updated, status) in spans {
            listed.insert(
                id.to_string(),
                Listed {
                    south: south.to_string(),
                    north: north.to_string(),
                    result: None,
                },
            );
            stored.insert(
                id.to_string(),
                Some(Stored {
                    created: *created,
                    updated: *updated,
                    status: status.to_string(),
                    result: String::new(),
                }),
            );
        }
        let mut c = Check::default();
        double_pairings(&listed, &stored, &mut c);
        c
    }

    #[test]
    fn games_one_after_the_other_are_no_double_pairing() {
        let c = games(&[
            ("a", "ana", "ben", 0, 100, "over"),
            ("b", "ana", "cai", 100, 200, "over"),
            ("c", "ben", "cai", 250, 300, "over"),
        ]);
        assert_eq!(c.double_pairings, 0);
        assert_eq!(c.overlap_max_ms, None);
    }

    #[test]
    fn a_player_in_two_games_at_once_is_a_double_pairing() {
        let c = games(&[
            ("a", "ana", "ben", 0, 100, "over"),
            ("b", "cai", "ana", 60, 200, "over"),
            // Still played: its span has no end, so a later game of ben's overlaps it.
            ("c", "ben", "dan", 300, 0, "playing"),
            ("d", "eva", "ben", 400, 500, "over"),
        ]);
        assert_eq!(c.double_pairings, 2, "{:?}", c.examples);
        assert_eq!(c.overlap_max_ms, Some(100));
        assert!(c.examples[0].contains("ana"), "{:?}", c.examples);
    }

    #[test]
    fn a_player_against_themselves_is_a_double_pairing() {
        let c = games(&[("a", "ana", "ana", 0, 100, "over")]);
        assert!(c.double_pairings >= 1);
    }
}
