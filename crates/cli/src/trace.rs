//! `anywoli trace`: one move's events, as text or JSON.

use std::io::Write;

use anywoli_core::{CaptureKind, EndReason, Event, Move, Side, Trace};
use serde::Serialize;

use crate::{CmdResult, Start};

pub fn run(start: &Start, mv: &str, json: bool) -> CmdResult {
    let pos = start.position()?;
    let mv: Move = mv.trim().parse()?;
    let trace = pos.trace(mv)?;
    let mut out = std::io::stdout().lock();
    if json {
        serde_json::to_writer_pretty(&mut out, &JsonTrace::from(&trace))?;
        writeln!(out)?;
    } else {
        out.write_all(text(&trace).as_bytes())?;
    }
    Ok(())
}

fn side_name(s: Side) -> &'static str {
    match s {
        Side::South => "south",
        Side::North => "north",
    }
}

/// The trace as JSON: `{"move","mover","before","events":[{"type":…}],"after"}`; the event
/// fields are documented in docs/trace.md.
#[derive(Serialize)]
pub struct JsonTrace {
    #[serde(rename = "move")]
    mv: String,
    mover: &'static str,
    events: Vec<JsonEvent>,
    after: String,
}

#[derive(Serialize)]
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

impl From<&Trace> for JsonTrace {
    fn from(t: &Trace) -> JsonTrace {
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
            events,
            after: t.after.to_string(),
        }
    }
}

/// The trace for a person: one line per lap with each seed as `hole+count`, captures marked
/// inline and explained on their own line.
pub fn text(t: &Trace) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(s, "{} plays {}", t.mover, t.mv);
    let mut line = String::new();
    let mut notes: Vec<String> = Vec::new();
    let flush = |s: &mut String, line: &mut String, notes: &mut Vec<String>| {
        if !line.is_empty() {
            let _ = writeln!(s, "{line}");
            line.clear();
        }
        for n in notes.drain(..) {
            let _ = writeln!(s, "  {n}");
        }
    };
    for e in &t.events {
        match *e {
            Event::Lap { lap, hole, seeds } => {
                flush(&mut s, &mut line, &mut notes);
                let how = if lap == 1 { "" } else { " (relay)" };
                let _ = write!(line, "lap {lap}{how}: {seeds} seeds from {hole} ->");
            }
            Event::Sow { hole, count } => {
                let _ = write!(line, " {hole}{count}");
            }
            Event::Capture { hole, by, kind } => {
                line.push('x');
                notes.push(match kind {
                    CaptureKind::MidSow => {
                        format!("mid-sow four in {hole}: {by} (its owner) captures 4")
                    }
                    CaptureKind::LastSeed => {
                        format!("last seed makes four in {hole}: {by} (the mover) captures 4")
                    }
                });
            }
            Event::Stop { hole } => {
                notes.push(format!("the last seed fell into empty {hole}: the move ends"));
            }
            Event::ExtraMove { side } => notes.push(format!("{side} moves again (extra move)")),
            Event::Pass { side } => notes.push(format!("{side} has no seeds and passes")),
            Event::GameOver { reason } => notes.push(match reason {
                EndReason::LastSeeds { to, seeds } => {
                    format!("game over: the last {seeds} seeds in play go to {to}")
                }
                EndReason::Quiet { south, north } => format!(
                    "game over by the quiet rule: South takes {south}, North takes {north} from their rows"
                ),
            }),
        }
    }
    flush(&mut s, &mut line, &mut notes);
    let _ = writeln!(s, "position: {}", t.after);
    s
}
