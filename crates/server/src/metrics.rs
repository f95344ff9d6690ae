//! The counters behind `GET /metrics` (issue 11; the handlers are `api/health.rs`).
//!
//! Each server has its own [`Metrics`] (held by its rounds' context, reached from the app
//! state), so servers started side by side in one process (the tests) count apart. Counters and
//! histograms are atomics; gauges are read when `/metrics` is asked for: the games in memory
//! and the engine queue handed to [`Metrics::render`], connections from the listener's gate.
//! This file knows neither the rounds nor the HTTP app, only what they hand it. The text is Prometheus' exposition format 0.0.4.
//!
//! `/metrics` exposes no secret (no ids, no addresses: a route is its template, such as
//! `/api/games/{id}/moves`), but it is the operator's business: behind a reverse proxy, do not
//! pass it on (docs/hosting.md).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::http::{Method, StatusCode};
use tokio::sync::Semaphore;

use crate::engine_queue::{EngineQueue, Priority};
use crate::histogram::Histogram;

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
        }
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

    /// The Prometheus text of this server with `games_in_memory` rounds in play and `engine`.
    pub fn render(&self, games_in_memory: usize, engine: &EngineQueue) -> String {
        let mut out = String::with_capacity(8 * 1024);
        let (games_waiting, hints_waiting) = engine.waiting();

        head(
            &mut out,
            "anywoli_games_in_memory",
            "gauge",
            "Games in play: rounds held in memory (a round rests after a minute with nothing \
             to do).",
        );
        let _ = writeln!(out, "anywoli_games_in_memory {}", games_in_memory);

        head(
            &mut out,
            "anywoli_connections_open",
            "gauge",
            "Connections open now, WebSockets included.",
        );
        let _ = writeln!(out, "anywoli_connections_open {}", self.connections_open());
        head(
            &mut out,
            "anywoli_connections_refused_total",
            "counter",
            "Connections closed as soon as accepted: over --max-connections (total) or \
             --max-connections-per-client (per_client).",
        );
        for (reason, c) in [
            ("total", &self.refused_total),
            ("per_client", &self.refused_per_client),
        ] {
            let _ = writeln!(
                out,
                "anywoli_connections_refused_total{{reason=\"{reason}\"}} {}",
                c.load(Ordering::Relaxed)
            );
        }

        head(
            &mut out,
            "anywoli_moves_stored_total",
            "counter",
            "Moves stored, by players and the engine; moves per second: \
             rate(anywoli_moves_stored_total[1m]).",
        );
        let _ = writeln!(out, "anywoli_moves_stored_total {}", self.moves_stored());

        head(
            &mut out,
            "anywoli_games_caught_up_total",
            "counter",
            "Games in memory read again because another instance on the same database changed them.",
        );
        let _ = writeln!(
            out,
            "anywoli_games_caught_up_total {}",
            self.caught_up.load(Ordering::Relaxed)
        );
        head(
            &mut out,
            "anywoli_engine_takeovers_total",
            "counter",
            "Engine turns taken over from another instance whose claim ran out (it died).",
        );
        let _ = writeln!(
            out,
            "anywoli_engine_takeovers_total {}",
            self.taken_over.load(Ordering::Relaxed)
        );

        head(
            &mut out,
            "anywoli_engine_queue_waiting",
            "gauge",
            "Engine jobs waiting for a worker: computer moves (game) and hints (hint).",
        );
        let _ = writeln!(
            out,
            "anywoli_engine_queue_waiting{{priority=\"game\"}} {games_waiting}"
        );
        let _ = writeln!(
            out,
            "anywoli_engine_queue_waiting{{priority=\"hint\"}} {hints_waiting}"
        );
        head(
            &mut out,
            "anywoli_engine_running",
            "gauge",
            "Engine jobs running now (at most one per worker).",
        );
        let _ = writeln!(out, "anywoli_engine_running {}", engine.running());
        head(
            &mut out,
            "anywoli_engine_workers",
            "gauge",
            "Engine workers (one per core).",
        );
        let _ = writeln!(out, "anywoli_engine_workers {}", engine.workers());
        head(
            &mut out,
            "anywoli_engine_wait_seconds",
            "histogram",
            "Time engine jobs waited in the queue before they started (levels 1-5 do not queue).",
        );
        for (label, p) in [("game", Priority::Game), ("hint", Priority::Hint)] {
            engine.waited(p).write(
                &mut out,
                "anywoli_engine_wait_seconds",
                &format!("priority=\"{label}\""),
            );
        }

        head(
            &mut out,
            "anywoli_http_request_duration_seconds",
            "histogram",
            "Time the app took to answer a request, to the response head, by method and route \
             template (other: no route matched).",
        );
        let http: Vec<_> = self
            .http
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .map(|(k, h)| (k.clone(), h.clone()))
            .collect();
        for ((route, method), h) in http {
            h.write(
                &mut out,
                "anywoli_http_request_duration_seconds",
                &format!("method=\"{method}\",route=\"{}\"", escape(&route)),
            );
        }
        head(
            &mut out,
            "anywoli_http_requests_total",
            "counter",
            "Requests the app answered, by status class (1xx: WebSocket upgrades).",
        );
        for (i, c) in self.statuses.iter().enumerate() {
            let _ = writeln!(
                out,
                "anywoli_http_requests_total{{status=\"{}xx\"}} {}",
                i + 1,
                c.load(Ordering::Relaxed)
            );
        }

        head(
            &mut out,
            "anywoli_uptime_seconds",
            "gauge",
            "Seconds since the server started.",
        );
        let _ = writeln!(
            out,
            "anywoli_uptime_seconds {}",
            self.started.elapsed().as_secs_f64()
        );
        if let Some(rss) = resident_memory() {
            head(
                &mut out,
                "process_resident_memory_bytes",
                "gauge",
                "Resident memory size in bytes (VmRSS).",
            );
            let _ = writeln!(out, "process_resident_memory_bytes {rss}");
        }
        out
    }
}

fn head(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

/// A label value as the text format writes it.
fn escape(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
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

/// VmRSS of /proc/self/status, in bytes, where there is one (Linux).
fn resident_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let mut parts = line["VmRSS:".len()..].split_whitespace();
    let n: u64 = parts.next()?.parse().ok()?;
    match parts.next() {
        Some("kB") | None => Some(n * 1024),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_escaped_and_odd_methods_are_other() {
        assert_eq!(escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
        assert_eq!(method_label(&Method::from_bytes(b"BREW").unwrap()), "other");
    }
}
