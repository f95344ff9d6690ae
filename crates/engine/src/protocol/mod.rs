//! The engine's line protocol (AEI, like UCI for chess), specified in `docs/protocol.md`.
//!
//! The wire text lives once, as types: [`Command`] (what a GUI sends) and [`Reply`] (what the
//! engine answers), each parsed with `FromStr` and written with `Display`; the match runner
//! speaks to external engines with the same types. [`Protocol`] (in `session.rs`) is a state
//! machine with no I/O of its own: [`Protocol::handle`] takes one command line and every
//! answer line goes out through the [`Output`] callback, from the caller's thread or, for
//! `go`, from the search thread (`search_thread.rs`, with the watchdog that sends `bestmove`
//! itself if a timed search is late). [`read_line`] reads one line of at most [`MAX_LINE`]
//! bytes from any reader, without ever holding more.
//!
//! # Examples
//!
//! ```
//! use std::sync::{Arc, Mutex};
//!
//! use anywoli_engine::protocol::{Command, Flow, Go, Output, Protocol, Reply};
//! use anywoli_engine::Limits;
//!
//! // The wire text reads as types and writes back in its canonical form.
//! let cmd: Command = "go  depth 3".parse().unwrap();
//! assert_eq!(cmd, Command::Go(Go::Search(Limits::depth(3))));
//! assert_eq!(cmd.to_string(), "go depth 3");
//! assert!("go fast".parse::<Command>().is_err());
//! let reply: Reply = "bestmove e".parse().unwrap();
//! assert_eq!(reply, Reply::BestMove(Some("e".parse().unwrap())));
//! assert_eq!(reply.to_string(), "bestmove e");
//!
//! // A session answers through its output, one call a line.
//! let lines = Arc::new(Mutex::new(Vec::new()));
//! let sink = lines.clone();
//! let out: Output = Arc::new(move |l: &str| sink.lock().unwrap().push(l.to_string()));
//! let mut engine = Protocol::new(out);
//! assert_eq!(engine.handle("isready"), Flow::Continue);
//! engine.handle("position startpos moves e");
//! engine.handle("go depth 3");
//! engine.wait();
//! assert_eq!(engine.handle("quit"), Flow::Quit);
//! let lines = lines.lock().unwrap();
//! assert_eq!(lines[0], "readyok");
//! let last: Reply = lines.last().unwrap().parse().unwrap();
//! assert!(matches!(last, Reply::BestMove(Some(_))));
//! ```

mod command;
mod input;
mod reply;
mod search_thread;
mod session;
#[cfg(test)]
mod tests;

use std::sync::Arc;

pub use crate::timeman::DEFAULT_LEVEL_MOVETIME_MS;
pub use command::{Base, Command, EngineOption, Go, ParseError, COMMANDS};
pub use input::{read_line, Input};
pub use reply::{Reply, ReplyError, SearchInfo, SpinOption};
pub use session::{CommandError, Protocol};

/// Longest command line accepted, in bytes (the line break not counted).
pub const MAX_LINE: usize = 64 * 1024;
/// The `Level` option at start.
pub const DEFAULT_LEVEL: u8 = 10;
/// The `Hash` option at start, in MiB.
pub const DEFAULT_HASH_MIB: usize = 16;
/// Largest `Hash`, in MiB.
pub const MAX_HASH_MIB: usize = 4096;
/// Largest `Threads`.
pub const MAX_THREADS: usize = 64;
/// Longest `movetime`: one day.
pub const MAX_MOVETIME_MS: u64 = 86_400_000;
/// What `aei` answers with `id name`.
pub const ENGINE_NAME: &str = concat!("Anywoli ", env!("CARGO_PKG_VERSION"));
/// What `aei` answers with `id author`.
pub const ENGINE_AUTHOR: &str = "the Anywoli authors";

/// Where answer lines go: one call per line, without the line break. It is called from the
/// caller's thread, the search thread and the watchdog, possibly at the same time: each call
/// must write its line whole (as a locked stdout does).
pub type Output = Arc<dyn Fn(&str) + Send + Sync>;

/// Whether to go on reading after a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Read the next command.
    Continue,
    /// `quit` was read: the search (if any) has been stopped and its `bestmove` sent.
    Quit,
}
