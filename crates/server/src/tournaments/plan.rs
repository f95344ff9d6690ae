//! What a tournament's director does next, decided from the stored state alone (no I/O, so it
//! is tested on worked states): settle the games that ended, start the tournament, pair a
//! wave or a round, finish.

use std::collections::HashSet;

use anywoli_tournament::standings::Standing;
use anywoli_tournament::{arena, robin, swiss, PairError};

use super::settings::{Settings, System, MAX_WAIT_FOR_PLAYERS_MS};
use super::standings_of;
use crate::store::{MissedRow, Progress, Settled, TournamentState, Unsettled};

/// An arena pairs a wave once someone has waited this long (or everyone waits), so that
/// players finishing about together meet the best opponents among them rather than the first
/// one free.
pub const WAVE_AFTER_MS: i64 = 2_000;
/// An arena stops pairing this long before its end (at most), so that no game starts that
/// cannot be played: half a minute, or half a minute of the test servers' short minutes.
pub const ARENA_LAST_PAIRING_MS: i64 = 30_000;

/// The director's next step, before games are made for its pairs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Plan {
    pub settled: Vec<Settled>,
    /// Players whose state changes: no-shows withdrawn (Swiss, round robin) or paused (arena).
    pub states: Vec<(String, String)>,
    /// Games to make: South, North, round.
    pub pairs: Vec<(String, String, i64)>,
    pub missed: Vec<MissedRow>,
    pub progress: Option<Progress>,
}

impl Plan {
    pub fn is_empty(&self) -> bool {
        self.settled.is_empty()
            && self.states.is_empty()
            && self.pairs.is_empty()
            && self.missed.is_empty()
            && self.progress.is_none()
    }
}

/// When an arena ends, with `minute_ms` to a minute (60,000 but in tests).
pub fn arena_end(state: &TournamentState, minute_ms: i64) -> i64 {
    let t = &state.tournament;
    t.starts
        .saturating_add(t.minutes.unwrap_or(0).saturating_mul(minute_ms))
}

/// The next step for `state`, whose unsettled games' rows are `unsettled`, at `now`.
pub fn plan(
    state: &TournamentState,
    unsettled: &[Unsettled],
    now: i64,
    minute_ms: i64,
) -> Result<Plan, PairError> {
    let t = &state.tournament;
    let Some(system) = System::from_name(&t.system) else {
        return Ok(Plan::default());
    };
    if t.status == "finished" || t.status == "cancelled" {
        return Ok(Plan::default());
    }
    let mut plan = Plan::default();
    let mut state = state.clone();
    settle(system, &mut state, unsettled, &mut plan);
    let playing = state.games.iter().any(|g| g.result.is_none());
    let settings = Settings::of(&state.tournament);
    let t = state.tournament.clone();
    match (t.status.as_str(), system) {
        ("upcoming", _) if now < t.starts => {}
        ("upcoming", System::Arena) => {
            plan.progress = Some(progress("running", 0, None, None, None));
            arena_wave(&state, now, minute_ms, &mut plan)?;
        }
        ("upcoming", _) => {
            let active = state.entries.iter().filter(|e| e.state == "active").count();
            if active < 2 {
                if now >= t.starts.saturating_add(MAX_WAIT_FOR_PLAYERS_MS) {
                    plan.progress = Some(progress("cancelled", 0, None, Some(now), None));
                }
            } else {
                pair_round(system, &state, &settings, 1, &mut plan)?;
            }
        }
        ("running", System::Arena) => {
            if now >= arena_end(&state, minute_ms) {
                if !playing {
                    plan.progress = Some(finish(&state, 0, now));
                }
            } else {
                arena_wave(&state, now, minute_ms, &mut plan)?;
            }
        }
        ("running", _) if playing => {}
        ("running", _) => {
            let rounds = t.rounds.unwrap_or(0);
            if t.round >= rounds {
                plan.progress = Some(finish(&state, t.round, now));
            } else {
                match (t.next_round, settings.round_gap_s) {
                    (Some(at), _) if at <= now => {
                        pair_round(system, &state, &settings, t.round + 1, &mut plan)?
                    }
                    (Some(_), _) | (None, None) => {}
                    (None, Some(gap)) => {
                        plan.progress = Some(progress(
                            "running",
                            t.round,
                            Some(now.saturating_add(gap.saturating_mul(1000))),
                            None,
                            None,
                        ))
                    }
                }
            }
        }
        _ => {}
    }
    Ok(plan)
}

fn progress(
    status: &str,
    round: i64,
    next_round: Option<i64>,
    finished: Option<i64>,
    rounds: Option<i64>,
) -> Progress {
    Progress {
        status: status.to_string(),
        round,
        next_round,
        finished,
        rounds,
        winner: None,
    }
}

/// The end: the winner is the first of the final standings.
fn finish(state: &TournamentState, round: i64, now: i64) -> Progress {
    let mut p = progress("finished", round, None, Some(now), None);
    p.winner = standings_of(state).first().map(|s| s.id.clone());
    p
}

/// Settles the games whose rows say they ended, in the plan and in `state` (so that what
/// follows pairs the players they free). A game aborted because a player never moved is lost
/// by that player and withdraws them in Swiss and round robin; in an arena it scores nothing
/// and pauses them.
fn settle(system: System, state: &mut TournamentState, unsettled: &[Unsettled], plan: &mut Plan) {
    for u in unsettled.iter().filter(|u| u.status != "playing") {
        let Some(g) = state.games.iter_mut().find(|g| g.game == u.game) else {
            continue;
        };
        let result = match (u.status.as_str(), &u.no_show, system) {
            ("aborted", Some(who), System::Arena) => {
                plan.states.push((who.clone(), "paused".to_string()));
                "aborted"
            }
            ("aborted", Some(who), _) => {
                plan.states.push((who.clone(), "withdrawn".to_string()));
                if *who == g.south {
                    "0-1"
                } else {
                    "1-0"
                }
            }
            ("aborted", None, _) => "aborted",
            (_, _, _) => match u.result.as_str() {
                r @ ("1-0" | "0-1" | "1/2-1/2") => r,
                _ => "aborted",
            },
        };
        let tags: Vec<(String, String)> = serde_json::from_str(&u.tags).unwrap_or_default();
        let berserk = crate::round::game::berserk_tag(&tags)
            .unwrap_or_default()
            .to_string();
        g.result = Some(result.to_string());
        g.plies = Some(u.plies);
        g.berserk = berserk.clone();
        plan.settled.push(Settled {
            game: u.game.clone(),
            result: result.to_string(),
            plies: u.plies,
            berserk,
        });
        for e in state.entries.iter_mut() {
            if e.playing.as_deref() == Some(u.game.as_str()) {
                e.playing = None;
                e.since = i64::MIN;
            }
        }
    }
    for (who, s) in &plan.states {
        if let Some(e) = state.entries.iter_mut().find(|e| &e.account == who) {
            e.state = s.clone();
        }
    }
}

fn arena_wave(
    state: &TournamentState,
    now: i64,
    minute_ms: i64,
    plan: &mut Plan,
) -> Result<(), PairError> {
    let last = ARENA_LAST_PAIRING_MS.min(minute_ms / 2);
    if now >= arena_end(state, minute_ms).saturating_sub(last) {
        return Ok(());
    }
    let standings = standings_of(state);
    let waiting: Vec<arena::Player> = state
        .entries
        .iter()
        .filter(|e| e.state == "active" && e.playing.is_none())
        .filter_map(|e| {
            let s = standings.iter().find(|s| s.id == e.account)?;
            Some(arena::Player {
                id: e.account.clone(),
                // A player freed by this very step waits from now.
                waiting_since: if e.since == i64::MIN { now } else { e.since },
                rank: s.rank,
                last_opponent: s.last_opponent.clone(),
                rating: s.rating,
                sides: s.sides.clone(),
                bot: e.bot,
            })
        })
        .collect();
    // Waiting longer helps only if others may yet come: when every active player waits,
    // nobody will, and the wave goes now.
    let all_wait = state
        .entries
        .iter()
        .filter(|e| e.state == "active")
        .all(|e| e.playing.is_none());
    let due = all_wait
        || waiting
            .iter()
            .any(|p| now.saturating_sub(p.waiting_since) >= WAVE_AFTER_MS);
    if waiting.len() < 2 || !due {
        return Ok(());
    }
    let pairs = arena::pair(&arena::Wave {
        now,
        players: waiting,
        forbidden: state.blocks.clone(),
    })?;
    plan.pairs
        .extend(pairs.pairs.into_iter().map(|(s, n)| (s, n, 0)));
    Ok(())
}

/// Pairs round `round` of a Swiss or round robin.
fn pair_round(
    system: System,
    state: &TournamentState,
    settings: &Settings,
    round: i64,
    plan: &mut Plan,
) -> Result<(), PairError> {
    let standings = standings_of(state);
    let mut rounds = None;
    match system {
        System::Swiss => {
            let players: Vec<swiss::Player> = state
                .entries
                .iter()
                .filter(|e| e.state == "active")
                .filter_map(|e| standings.iter().find(|s| s.id == e.account))
                .map(swiss_player)
                .collect();
            let pairing = swiss::pair(&swiss::Round {
                round: round.clamp(1, i64::from(u32::MAX)) as u32,
                players,
                forbidden: state.blocks.clone(),
            })?;
            plan.pairs
                .extend(pairing.pairs.into_iter().map(|(s, n)| (s, n, round)));
            if let Some(b) = pairing.bye {
                plan.missed.push(missed(&b, round, "bye", 1.0));
            }
        }
        System::RoundRobin => {
            let table = robin_table(state, settings)?;
            rounds = Some(table.rounds.len() as i64);
            let Some(r) = usize::try_from(round - 1)
                .ok()
                .and_then(|i| table.rounds.get(i))
            else {
                return Ok(());
            };
            let out: HashSet<&str> = state
                .entries
                .iter()
                .filter(|e| e.state != "active")
                .map(|e| e.account.as_str())
                .collect();
            for (s, n) in &r.pairs {
                match (out.contains(s.as_str()), out.contains(n.as_str())) {
                    (false, false) => plan.pairs.push((s.clone(), n.clone(), round)),
                    // A game against a player who withdrew is won by the one still in.
                    (true, false) => plan.missed.push(missed(n, round, "bye", 1.0)),
                    (false, true) => plan.missed.push(missed(s, round, "bye", 1.0)),
                    (true, true) => {}
                }
            }
            if let Some(b) = &r.bye {
                plan.missed.push(missed(b, round, "bye", 0.0));
            }
        }
        System::Arena => return Ok(()),
    }
    plan.progress = Some(progress("running", round, None, None, rounds));
    Ok(())
}

/// A round robin's table: everyone who was in when it started, the highest rated first.
pub fn robin_table(
    state: &TournamentState,
    settings: &Settings,
) -> Result<robin::Table, PairError> {
    let starts = state.tournament.starts;
    let mut players: Vec<(i64, String)> = state
        .entries
        .iter()
        .filter(|e| e.state != "withdrawn" || e.since >= starts)
        .map(|e| (e.rating, e.account.clone()))
        .collect();
    players.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    robin::table(&robin::Entry {
        players: players.into_iter().map(|(_, p)| p).collect(),
        double: settings.double,
    })
}

fn swiss_player(s: &Standing) -> swiss::Player {
    swiss::Player {
        id: s.id.clone(),
        score: s.score,
        rating: s.rating,
        sides: s.sides.clone(),
        opponents: s.opponents.clone(),
        byes: s.byes,
    }
}

fn missed(account: &str, round: i64, kind: &str, points: f64) -> MissedRow {
    MissedRow {
        account: account.to_string(),
        round,
        kind: kind.to_string(),
        points,
    }
}
