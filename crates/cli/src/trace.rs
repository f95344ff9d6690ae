//! `anywoli trace`: one move's events, as text or JSON.

use std::io::Write;

use anywoli_core::{CaptureKind, EndReason, Event, Move, Trace};
use anywoli_server::trace_json::JsonTrace;

use clap::Args;

use crate::common::{CmdResult, Start};

#[derive(Args)]
/// What `anywoli trace` takes.
pub struct TraceArgs {
    #[command(flatten)]
    pub start: Start,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    #[arg(value_name = "MOVE")]
    pub mv: String,
}

pub fn run(args: &TraceArgs) -> CmdResult {
    let json = args.json;
    let pos = args.start.position()?;
    let mv: Move = args.mv.trim().parse()?;
    let trace = pos.trace(mv)?;
    let mut out = std::io::stdout().lock();
    if json {
        serde_json::to_writer_pretty(&mut out, &JsonTrace::new(&pos, &trace))?;
        writeln!(out)?;
    } else {
        out.write_all(text(&trace).as_bytes())?;
    }
    Ok(())
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
                let noun = if seeds == 1 { "seed" } else { "seeds" };
                let _ = write!(line, "lap {lap}{how}: {seeds} {noun} from {hole} ->");
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
