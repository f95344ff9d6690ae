//! Tournaments on the site (issue 39, docs/tournaments.md "On the site"): what one is
//! (`settings.rs`), what its director does next (`plan.rs`, no I/O), the director that does it
//! on whichever instance holds the lease (`director.rs`), the signal that tells watchers
//! something changed (`signal.rs`), and the JSON views (`view.rs`). Pairing and scoring are
//! `anywoli_tournament`'s, the same code as `anywoli tournament pair`.

pub mod cache;
pub mod director;
pub mod plan;
pub mod schedule;
pub mod settings;
pub mod signal;
pub mod view;

#[cfg(test)]
mod tests;

use anywoli_tournament::arena::ScoringRules;
use anywoli_tournament::standings::{self, Absence, Entrant, GameResult, Missed, Played, Standing};

use crate::store::TournamentState;

pub use settings::{Settings, System};

/// The standings of a tournament as stored: every score recomputed from its games.
pub fn standings_of(state: &TournamentState) -> Vec<Standing> {
    let system = match System::from_name(&state.tournament.system) {
        Some(System::Arena) => standings::System::Arena(ScoringRules::ANYWOLI),
        Some(System::Swiss) => standings::System::Swiss,
        _ => standings::System::RoundRobin,
    };
    let entrants: Vec<Entrant> = state
        .entries
        .iter()
        .map(|e| Entrant {
            id: e.account.clone(),
            rating: e.rating.clamp(0, 10_000) as i32,
        })
        .collect();
    let games: Vec<Played> = state
        .games
        .iter()
        .map(|g| Played {
            game: g.game.clone(),
            round: g.round.clamp(0, i64::from(u32::MAX)) as u32,
            at: g.at,
            south: g.south.clone(),
            north: g.north.clone(),
            result: g.result.as_deref().map(result_of),
            plies: g.plies.unwrap_or(0).clamp(0, i64::from(u32::MAX)) as u32,
            berserk: [g.berserk.contains('S'), g.berserk.contains('N')],
        })
        .collect();
    let missed: Vec<Missed> = state
        .missed
        .iter()
        .map(|m| Missed {
            player: m.account.clone(),
            round: m.round.clamp(0, i64::from(u32::MAX)) as u32,
            kind: if m.kind == "bye" {
                Absence::Bye
            } else {
                Absence::Absent
            },
            points: m.points,
        })
        .collect();
    standings::standings(system, &entrants, &games, &missed)
}

/// A settled result as stored (`1-0`, `0-1`, `1/2-1/2`, `aborted`).
fn result_of(r: &str) -> GameResult {
    match r {
        "1-0" => GameResult::South,
        "0-1" => GameResult::North,
        "1/2-1/2" => GameResult::Draw,
        _ => GameResult::Aborted,
    }
}
