//! The counters and samples of a load: what the report is made of.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Mutex;
use std::time::Duration;

use serde::Serialize;

#[derive(Default)]
pub(super) struct Stats {
    pub(super) games_started: AtomicU64,
    pub(super) games_finished: AtomicU64,
    pub(super) games_abandoned: AtomicU64,
    pub(super) moves: AtomicU64,
    pub(super) resynced: AtomicU64,
    pub(super) rate_limited: AtomicBool,
    /// Requests that went to another server after one failed, by what failed.
    pub(super) failovers: Mutex<BTreeMap<String, u64>>,
    /// Moves whose answer was lost with a server, found stored or not when read back.
    pub(super) unknown_found: AtomicU64,
    pub(super) unknown_not_stored: AtomicU64,
    pub(super) ws_reconnects: AtomicU64,
    /// Requests that ran into the timeout.
    pub(super) hangs: AtomicU64,
    /// 5xx answers that are not JSON with an `error` code and a `message`.
    pub(super) unexplained_5xx: AtomicU64,
    pub(super) samples: Mutex<Samples>,
    pub(super) errors: Mutex<BTreeMap<String, u64>>,
    pub(super) timeline: Mutex<Vec<Second>>,
    pub(super) played: Mutex<Vec<Played>>,
}

/// Times in microseconds.
#[derive(Default)]
pub(super) struct Samples {
    pub(super) round_trip: Vec<u32>,
    pub(super) create: Vec<u32>,
    pub(super) queued: Vec<u32>,
    pub(super) delivery: Vec<u32>,
    /// With `--clock`: what a move's clock was charged beyond the time between the tool
    /// learning it was its move and sending it.
    pub(super) clock_overhead: Vec<u32>,
}

/// What happened in one second of the run, from its start.
#[derive(Default, Clone, Copy, Serialize)]
pub(super) struct Second {
    pub(super) second: usize,
    pub(super) moves: u64,
    pub(super) errors: u64,
    pub(super) failovers: u64,
}

pub(super) fn micros(d: Duration) -> u32 {
    d.as_micros().min(u32::MAX as u128) as u32
}

/// A game as the tool knows it at the end: where to read it, and the moves it knows are
/// stored (acknowledged with a 2xx answer, or found stored after an unknown outcome).
pub(super) struct Played {
    pub(super) target: usize,
    pub(super) id: String,
    pub(super) known: Vec<String>,
}
