//! Move traces as JSON, in the form of `anywoli trace --json` (docs/trace.md).

use anywoli_core::{CaptureKind, EndReason, Event, Position, Side, Trace};
use serde::Serialize;

pub fn side_name(s: Side) -> &'static str {
    match s {
        Side::South => "south",
        Side::North => "north",
    }
}

/// The trace as JSON, the same form as `anywoli trace --json` with the position before the
/// move added (the page animates from it); the event fields are documented in docs/trace.md.
#[derive(Serialize, Clone, Debug)]
pub struct JsonTrace {
    #[serde(rename = "move")]
    mv: String,
    mover: &'static str,
    before: String,
    events: Vec<JsonEvent>,
    after: String,
}

#[derive(Serialize, Clone, Debug)]
#[serde(tag = "type", rename_all = "snake_case")]
enum JsonEvent {
    Lap {
        lap: u32,
        hole: String,
        seeds: u8,
    },
    Sow {
        hole: String,
        count: u8,
    },
    Capture {
        hole: String,
        by: &'static str,
        kind: &'static str,
    },
    Stop {
        hole: String,
    },
    ExtraMove {
        side: &'static str,
    },
    Pass {
        side: &'static str,
    },
    GameOver {
        reason: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        to: Option<&'static str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        seeds: Option<u8>,
        #[serde(skip_serializing_if = "Option::is_none")]
        south: Option<u8>,
        #[serde(skip_serializing_if = "Option::is_none")]
        north: Option<u8>,
    },
}

impl JsonTrace {
    pub fn new(before: &Position, t: &Trace) -> JsonTrace {
        let events = t
            .events
            .iter()
            .map(|e| match *e {
                Event::Lap { lap, hole, seeds } => JsonEvent::Lap {
                    lap,
                    hole: hole.to_string(),
                    seeds,
                },
                Event::Sow { hole, count } => JsonEvent::Sow {
                    hole: hole.to_string(),
                    count,
                },
                Event::Capture { hole, by, kind } => JsonEvent::Capture {
                    hole: hole.to_string(),
                    by: side_name(by),
                    kind: match kind {
                        CaptureKind::MidSow => "mid_sow",
                        CaptureKind::LastSeed => "last_seed",
                    },
                },
                Event::Stop { hole } => JsonEvent::Stop {
                    hole: hole.to_string(),
                },
                Event::ExtraMove { side } => JsonEvent::ExtraMove {
                    side: side_name(side),
                },
                Event::Pass { side } => JsonEvent::Pass {
                    side: side_name(side),
                },
                Event::GameOver { reason } => match reason {
                    EndReason::LastSeeds { to, seeds } => JsonEvent::GameOver {
                        reason: "last_seeds",
                        to: Some(side_name(to)),
                        seeds: Some(seeds),
                        south: None,
                        north: None,
                    },
                    EndReason::Quiet { south, north } => JsonEvent::GameOver {
                        reason: "quiet",
                        to: None,
                        seeds: None,
                        south: Some(south),
                        north: Some(north),
                    },
                },
            })
            .collect();
        JsonTrace {
            mv: t.mv.to_string(),
            mover: side_name(t.mover),
            before: before.to_string(),
            events,
            after: t.after.to_string(),
        }
    }
}
