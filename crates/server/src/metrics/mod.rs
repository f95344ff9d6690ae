//! The counters behind `GET /metrics` (issue 11; the handlers are `api/health.rs`).
//!
//! Each server has its own [`Metrics`] (owned by the app state, shared with its rounds), so
//! servers started side by side in one process (the tests) count apart. Counters and
//! histograms are atomics; gauges are read when `/metrics` is asked for: the games in memory
//! and the engine queue handed to [`Metrics::render`] (render.rs, Prometheus' exposition
//! format 0.0.4), connections from the listener's gate. This folder knows neither the rounds
//! nor the HTTP app, only what they hand it.
//!
//! `/metrics` exposes no secret (no ids, no addresses: a route is its template, such as
//! `/api/games/{id}/moves`), but it is the operator's business: behind a reverse proxy, do not
//! pass it on (docs/hosting.md).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::http::{Method, StatusCode};
use tokio::sync::Semaphore;

use crate::histogram::Histogram;

mod render;

/// One server's counters and histograms.
pub struct Metrics {
    started: Instant,
    moves_stored: AtomicU64,
    /// The listener's gate on connections in all, and its size, once a listener serves.
    gate: Mutex<Option<(Arc<Semaphore>, usize)>>,
    refused_total: AtomicU64,
    refused_per_client: AtomicU64,
    /// Request durations by (route template, method).
    http: Mutex<BTreeMap<(String, &'static str), Arc<Histogram>>>,
    /// Answers by status class: 1xx (WebSocket upgrades) to 5xx.
    statuses: [AtomicU64; 5],
    /// Games read again because another instance changed them.
    caught_up: AtomicU64,
    /// Engine turns this instance took over from another whose claim ran out.
    taken_over: AtomicU64,
    /// Tournament directors' steps (read, plan, pair, store) that changed something.
    tournament_steps: Histogram,
}

impl Default for Metrics {
    fn default() -> Metrics {
        Metrics::new()
    }
}

impl Metrics {
    pub fn new() -> Metrics {
        Metrics {
            started: Instant::now(),
            moves_stored: AtomicU64::new(0),
            gate: Mutex::new(None),
            refused_total: AtomicU64::new(0),
            refused_per_client: AtomicU64::new(0),
            http: Mutex::new(BTreeMap::new()),
            statuses: Default::default(),
            caught_up: AtomicU64::new(0),
            taken_over: AtomicU64::new(0),
            tournament_steps: Histogram::default(),
        }
    }

    /// A tournament's director took a step (a wave or round paired, games settled) in `took`.
    pub fn tournament_step(&self, took: std::time::Duration) {
        self.tournament_steps.observe(took);
    }

    /// A game in memory was behind the database and was read again.
    pub fn caught_up(&self) {
        self.caught_up.fetch_add(1, Ordering::Relaxed);
    }

    /// This instance claimed an engine turn that another instance's claim had held.
    pub fn took_over(&self) {
        self.taken_over.fetch_add(1, Ordering::Relaxed);
    }

    /// A move was stored.
    pub fn move_stored(&self) {
        self.moves_stored.fetch_add(1, Ordering::Relaxed);
    }

    /// How many moves were stored since the server started.
    pub fn moves_stored(&self) -> u64 {
        self.moves_stored.load(Ordering::Relaxed)
    }

    /// The listener admits connections through `gate`, of `size` places in all.
    pub(crate) fn watch_connections(&self, gate: Arc<Semaphore>, size: usize) {
        *self.gate.lock().unwrap_or_else(|e| e.into_inner()) = Some((gate, size));
    }

    /// The listener closed a connection at once: over the cap in all, or over the client's.
    pub(crate) fn connection_refused(&self, per_client: bool) {
        let c = if per_client {
            &self.refused_per_client
        } else {
            &self.refused_total
        };
        c.fetch_add(1, Ordering::Relaxed);
    }

    fn connections_open(&self) -> usize {
        let gate = self.gate.lock().unwrap_or_else(|e| e.into_inner());
        gate.as_ref()
            .map_or(0, |(s, size)| size.saturating_sub(s.available_permits()))
    }

    /// Counts an answer of the app: its duration, by route template and method, and its class.
    pub fn request_done(&self, method: &Method, route: String, status: StatusCode, took: Duration) {
        let class = usize::from(status.as_u16() / 100).clamp(1, 5) - 1;
        self.statuses[class].fetch_add(1, Ordering::Relaxed);
        let h = self
            .http
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry((route, method_label(method)))
            .or_default()
            .clone();
        h.observe(took);
    }
}

/// The methods the app answers, and `other` for any other (a client may send any token).
fn method_label(m: &Method) -> &'static str {
    match *m {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::HEAD => "HEAD",
        Method::PUT => "PUT",
        Method::DELETE => "DELETE",
        Method::PATCH => "PATCH",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_methods_are_other() {
        assert_eq!(method_label(&Method::from_bytes(b"BREW").unwrap()), "other");
    }
}
