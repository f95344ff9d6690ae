//! Operations (issue 11): `GET /healthz` for a load balancer and `GET /metrics` for Prometheus.
//!
//! Each server has its own [`Metrics`] (held by its rounds' [`Context`](crate::round::Context),
//! reached from the app state with [`AppState::metrics`]), so servers started side by side in
//! one process (the tests) count apart. Counters and histograms are atomics; gauges are read
//! when `/metrics` is asked for: games from the rounds, the engine queue from the queue itself,
//! connections from the listener's gate. The text is Prometheus' exposition format 0.0.4.
//!
//! `/metrics` exposes no secret (no ids, no addresses: a route is its template, such as
//! `/api/games/{id}/moves`), but it is the operator's business: behind a reverse proxy, do not
//! pass it on (docs/hosting.md).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{MatchedPath, Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;
use tokio::sync::Semaphore;

use crate::api::AppState;
use crate::engine_queue::Priority;
use crate::round::game::Event;
use crate::round::Rounds;

/// The buckets of every histogram, in seconds (the upper bounds; `+Inf` is implied).
pub const BUCKETS: [f64; 13] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// How long `/healthz` waits for the database before it answers 503.
pub const HEALTH_TIMEOUT: Duration = Duration::from_secs(1);

/// The `Content-Type` of `/metrics`.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// A histogram of durations over [`BUCKETS`].
#[derive(Default)]
pub struct Histogram {
    /// Observations per bucket (not cumulative); the last one is over the largest bound. The
    /// count is their sum, so `_count` always equals the `+Inf` bucket.
    buckets: [AtomicU64; BUCKETS.len() + 1],
    sum_nanos: AtomicU64,
}

impl Histogram {
    pub fn observe(&self, d: Duration) {
        let secs = d.as_secs_f64();
        let i = BUCKETS
            .iter()
            .position(|&le| secs <= le)
            .unwrap_or(BUCKETS.len());
        self.buckets[i].fetch_add(1, Ordering::Relaxed);
        let nanos = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
        self.sum_nanos.fetch_add(nanos, Ordering::Relaxed);
    }

    /// How many durations were observed.
    pub fn count(&self) -> u64 {
        self.buckets.iter().map(|b| b.load(Ordering::Relaxed)).sum()
    }

    /// Writes the `_bucket`, `_sum` and `_count` lines; `labels` is `a="x",b="y"` or empty.
    fn write(&self, out: &mut String, name: &str, labels: &str) {
        let sep = if labels.is_empty() { "" } else { "," };
        let mut seen = 0;
        for (i, b) in self.buckets.iter().enumerate() {
            seen += b.load(Ordering::Relaxed);
            let le = BUCKETS
                .get(i)
                .map_or("+Inf".to_string(), |le| le.to_string());
            let _ = writeln!(out, "{name}_bucket{{{labels}{sep}le=\"{le}\"}} {seen}");
        }
        let sum = self.sum_nanos.load(Ordering::Relaxed) as f64 / 1e9;
        let braces = if labels.is_empty() {
            String::new()
        } else {
            format!("{{{labels}}}")
        };
        let _ = writeln!(out, "{name}_sum{braces} {sum}");
        let _ = writeln!(out, "{name}_count{braces} {seen}");
    }
}

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

    /// A change was stored: counts it if it was a move.
    pub fn stored(&self, event: &Event) {
        if matches!(event, Event::Move { .. }) {
            self.moves_stored.fetch_add(1, Ordering::Relaxed);
        }
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

    /// The Prometheus text of this server with the games and the engine of `rounds`.
    pub fn render(&self, rounds: &Rounds) -> String {
        let mut out = String::with_capacity(8 * 1024);
        let engine = &rounds.ctx.engine;
        let (games_waiting, hints_waiting) = engine.waiting();

        head(
            &mut out,
            "anywoli_games_in_memory",
            "gauge",
            "Games in play: rounds held in memory (a round rests after a minute with nothing \
             to do).",
        );
        let _ = writeln!(out, "anywoli_games_in_memory {}", rounds.len());

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

/// A matched route's template, or `other`: no route matched, or only a fallback's catch-all.
fn route_label(matched: Option<&MatchedPath>) -> &str {
    match matched {
        Some(p) if !p.as_str().contains("__private__") => p.as_str(),
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

/// The middleware that times every request the router answers.
pub async fn track(State(metrics): State<Arc<Metrics>>, req: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = req.method().clone();
    let route = route_label(req.extensions().get::<MatchedPath>()).to_string();
    let resp = next.run(req).await;
    metrics.request_done(&method, route, resp.status(), started.elapsed());
    resp
}

/// `GET /metrics`.
pub async fn metrics(State(state): State<AppState>) -> Response {
    let text = state.metrics().render(state.rounds());
    let mut resp = text.into_response();
    let h = resp.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(CONTENT_TYPE));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    resp
}

/// `GET /healthz`: 200 when the database answers a read within [`HEALTH_TIMEOUT`], else 503.
pub async fn healthz(State(state): State<AppState>) -> Response {
    let store = state.rounds().ctx.store.clone();
    let read = async move {
        match tokio::task::spawn_blocking(move || store.recent(1)).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => Err(format!("the database failed: {e}")),
            Err(e) => Err(format!("the database check failed: {e}")),
        }
    };
    health(read, HEALTH_TIMEOUT).await
}

/// The answer of `/healthz` to `check`, given `within` to finish.
async fn health(check: impl Future<Output = Result<(), String>>, within: Duration) -> Response {
    let (status, body) = match tokio::time::timeout(within, check).await {
        Ok(Ok(())) => (StatusCode::OK, json!({"status": "ok"})),
        Ok(Err(e)) => {
            tracing::warn!("health check: {e}");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                json!({"status": "unavailable", "error": e}),
            )
        }
        Err(_) => {
            let e = format!(
                "the database did not answer within {} s",
                within.as_secs_f64()
            );
            tracing::warn!("health check: {e}");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                json!({"status": "unavailable", "error": e}),
            )
        }
    };
    let mut resp = (status, Json(body)).into_response();
    resp.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    resp
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    async fn answer(r: Response) -> (StatusCode, serde_json::Value) {
        let status = r.status();
        let bytes = r.into_body().collect().await.unwrap().to_bytes();
        (status, serde_json::from_slice(&bytes).unwrap())
    }

    #[tokio::test]
    async fn health_is_503_when_the_check_fails_or_is_too_slow() {
        let ok = answer(health(async { Ok(()) }, HEALTH_TIMEOUT).await).await;
        assert_eq!(ok, (StatusCode::OK, json!({"status": "ok"})));

        let (s, v) =
            answer(health(async { Err("disk I/O error".to_string()) }, HEALTH_TIMEOUT).await).await;
        assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(
            v,
            json!({"status": "unavailable", "error": "disk I/O error"})
        );

        let slow = std::future::pending::<Result<(), String>>();
        let (s, v) = answer(health(slow, Duration::from_millis(20)).await).await;
        assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(v["status"], "unavailable");
        assert!(
            v["error"]
                .as_str()
                .unwrap()
                .contains("did not answer within 0.02 s"),
            "{v}"
        );
    }

    #[test]
    fn histograms_are_cumulative_and_count_what_they_sum() {
        let h = Histogram::default();
        for ms in [0, 1, 3, 40, 40, 20_000] {
            h.observe(Duration::from_millis(ms));
        }
        let mut out = String::new();
        h.write(&mut out, "x_seconds", "a=\"b\"");
        assert!(
            out.contains("x_seconds_bucket{a=\"b\",le=\"0.001\"} 2\n"),
            "{out}"
        );
        assert!(
            out.contains("x_seconds_bucket{a=\"b\",le=\"0.005\"} 3\n"),
            "{out}"
        );
        assert!(
            out.contains("x_seconds_bucket{a=\"b\",le=\"0.05\"} 5\n"),
            "{out}"
        );
        assert!(
            out.contains("x_seconds_bucket{a=\"b\",le=\"10\"} 5\n"),
            "{out}"
        );
        assert!(
            out.contains("x_seconds_bucket{a=\"b\",le=\"+Inf\"} 6\n"),
            "{out}"
        );
        assert!(out.contains("x_seconds_sum{a=\"b\"} 20.084\n"), "{out}");
        assert!(out.contains("x_seconds_count{a=\"b\"} 6\n"), "{out}");
        assert_eq!(h.count(), 6);
    }

    #[test]
    fn labels_are_escaped_and_odd_methods_are_other() {
        assert_eq!(escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
        assert_eq!(method_label(&Method::from_bytes(b"BREW").unwrap()), "other");
        assert_eq!(route_label(None), "other");
    }
}
