//! Tournaments as the API shows them (docs/tournaments.md, "The API").

use anywoli_tournament::standings::Standing;
use serde_json::{json, Value};

use super::plan::arena_end;
use super::settings::{Settings, System};
use crate::round::clock::TimeControl;
use crate::store::{TournamentRow, TournamentState};

/// Standings a page holds.
pub const PER_PAGE: usize = 20;

/// `T`: a tournament as lists and its page show it. `winner` is known once it is finished.
pub fn tournament(t: &TournamentRow, minute_ms: i64) -> Value {
    let s = Settings::of(t);
    let system = System::from_name(&t.system);
    let category = TimeControl::parse(&t.clock)
        .ok()
        .map(|c| c.category().name());
    let ends_at = match system {
        Some(System::Arena) => Some(
            t.starts
                .saturating_add(t.minutes.unwrap_or(0).saturating_mul(minute_ms)),
        ),
        _ => t.finished,
    };
    json!({
        "id": t.id,
        "name": t.name,
        "system": t.system,
        "rules": t.rules,
        "clock": t.clock,
        "category": category,
        "rated": t.rated,
        "status": t.status,
        "starts_at": t.starts,
        "ends_at": ends_at,
        "minutes": t.minutes,
        "rounds": t.rounds,
        "round": t.round,
        "next_round_at": t.next_round,
        "players": t.players,
        "created_by": t.created_by,
        "private": s.password.is_some(),
        "bots": s.bots,
        "double": s.double,
        "min_rating": s.min_rating,
        "min_rated_games": s.min_rated_games,
        "round_gap_s": s.round_gap_s,
        "description": s.description,
        "winner": t.winner,
    })
}

/// `S`: one player's standing, with their state in the tournament.
pub fn standing(s: &Standing, state: &str) -> Value {
    json!({
        "rank": s.rank,
        "name": s.id,
        "rating": s.rating,
        "score": s.score,
        "games": s.games,
        "wins": s.wins,
        "draws": s.draws,
        "losses": s.losses,
        "performance": s.performance,
        "buchholz": s.buchholz,
        "sonneborn_berger": s.sonneborn_berger,
        "streak": s.streak,
        "state": state,
        "playing": s.playing,
        "sheet": s.sheet,
    })
}

/// The state of `name` in the tournament (`active`, `paused`, `withdrawn`).
pub fn state_of<'a>(state: &'a TournamentState, name: &str) -> &'a str {
    state
        .entries
        .iter()
        .find(|e| e.account == name)
        .map_or("withdrawn", |e| e.state.as_str())
}

/// The whole page: the tournament, its version, podium and the reader's place.
pub fn page(
    state: &TournamentState,
    standings: &[Standing],
    me: Option<&str>,
    can_join: bool,
    minute_ms: i64,
) -> Value {
    let t = &state.tournament;
    let finished = t.status == "finished";
    let podium: Vec<Value> = if finished {
        standings
            .iter()
            .take(3)
            .map(|s| standing(s, state_of(state, &s.id)))
            .collect()
    } else {
        Vec::new()
    };
    let me = me.and_then(|name| {
        let e = state.entries.iter().find(|e| e.account == name)?;
        let s = standings.iter().find(|s| s.id == name)?;
        Some(json!({
            "state": e.state,
            "playing": e.playing,
            "rank": s.rank,
            "score": s.score,
            "games": s.games,
        }))
    });
    let mut view = tournament(t, minute_ms);
    if System::from_name(&t.system) == Some(System::Arena) {
        view["ends_at"] = json!(arena_end(state, minute_ms));
    }
    json!({
        "tournament": view,
        "version": t.version,
        "podium": podium,
        "me": me,
        "can_join": can_join,
    })
}
