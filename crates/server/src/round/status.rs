//! Whether a game goes on, and how it ended.

use anywoli_core::{EndReason, Event as CoreEvent, Outcome, Trace};

use super::termination::Termination;

/// Whether a game goes on, and how it ended.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Status {
    Playing,
    Over {
        outcome: Outcome,
        termination: Option<Termination>,
    },
    /// Ended before each side had moved once: no result, no rating.
    Aborted,
}

/// The status a position reached by `trace` leaves the game in.
pub fn status_after(trace: &Trace) -> Status {
    match trace.after.outcome() {
        None => Status::Playing,
        Some(outcome) => {
            let termination = trace.events.iter().rev().find_map(|e| match e {
                CoreEvent::GameOver {
                    reason: EndReason::Quiet { .. },
                } => Some(Termination::Quiet),
                CoreEvent::GameOver {
                    reason: EndReason::LastSeeds { .. },
                } => Some(Termination::LastSeeds),
                _ => None,
            });
            Status::Over {
                outcome,
                termination,
            }
        }
    }
}
