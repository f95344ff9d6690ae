//! The Prometheus text (exposition format 0.0.4) of one server's counters, with the gauges
//! read when it is asked for.

use std::fmt::{Display, Write as _};
use std::sync::atomic::Ordering;

use super::Metrics;
use crate::engine_queue::{EngineQueue, Priority};

impl Metrics {
    /// The Prometheus text of this server with `games_in_memory` rounds in play and `engine`.
    pub fn render(&self, games_in_memory: usize, engine: &EngineQueue) -> String {
        let mut out = String::with_capacity(8 * 1024);
        single(
            &mut out,
            "anywoli_games_in_memory",
            "gauge",
            "Games in play: rounds held in memory (a round rests after a minute with nothing \
             to do).",
            games_in_memory,
        );
        self.render_connections(&mut out);
        self.render_games(&mut out);
        render_engine(&mut out, engine);
        self.render_http(&mut out);
        head(
            &mut out,
            "anywoli_tournament_step_seconds",
            "histogram",
            "Time a tournament's director took for a step that changed something (read the \
             state, pair a wave or a round, store it all in one transaction).",
        );
        self.tournament_steps
            .write(&mut out, "anywoli_tournament_step_seconds", "");
        self.render_process(&mut out);
        out
    }

    fn render_connections(&self, out: &mut String) {
        single(
            out,
            "anywoli_connections_open",
            "gauge",
            "Connections open now, WebSockets included.",
            self.connections_open(),
        );
        head(
            out,
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
    }

    /// Moves stored, and what other instances on the same database made this one do.
    fn render_games(&self, out: &mut String) {
        single(
            out,
            "anywoli_moves_stored_total",
            "counter",
            "Moves stored, by players and the engine; moves per second: \
             rate(anywoli_moves_stored_total[1m]).",
            self.moves_stored(),
        );
        single(
            out,
            "anywoli_games_caught_up_total",
            "counter",
            "Games in memory read again because another instance on the same database changed them.",
            self.caught_up.load(Ordering::Relaxed),
        );
        single(
            out,
            "anywoli_engine_takeovers_total",
            "counter",
            "Engine turns taken over from another instance whose claim ran out (it died).",
            self.taken_over.load(Ordering::Relaxed),
        );
    }

    fn render_http(&self, out: &mut String) {
        head(
            out,
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
                out,
                "anywoli_http_request_duration_seconds",
                &format!("method=\"{method}\",route=\"{}\"", escape(&route)),
            );
        }
        head(
            out,
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
    }

    fn render_process(&self, out: &mut String) {
        single(
            out,
            "anywoli_uptime_seconds",
            "gauge",
            "Seconds since the server started.",
            self.started.elapsed().as_secs_f64(),
        );
        if let Some(rss) = resident_memory() {
            single(
                out,
                "process_resident_memory_bytes",
                "gauge",
                "Resident memory size in bytes (VmRSS).",
                rss,
            );
        }
    }
}

fn render_engine(out: &mut String, engine: &EngineQueue) {
    let (games_waiting, hints_waiting) = engine.waiting();
    head(
        out,
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
    single(
        out,
        "anywoli_engine_running",
        "gauge",
        "Engine jobs running now (at most one per worker).",
        engine.running(),
    );
    single(
        out,
        "anywoli_engine_workers",
        "gauge",
        "Engine workers (one per core).",
        engine.workers(),
    );
    head(
        out,
        "anywoli_engine_wait_seconds",
        "histogram",
        "Time engine jobs waited in the queue before they started (levels 1-5 do not queue).",
    );
    for (label, p) in [("game", Priority::Game), ("hint", Priority::Hint)] {
        engine.waited(p).write(
            out,
            "anywoli_engine_wait_seconds",
            &format!("priority=\"{label}\""),
        );
    }
}

/// A metric of one sample without labels: its `# HELP` and `# TYPE` lines, then the sample.
fn single(out: &mut String, name: &str, kind: &str, help: &str, value: impl Display) {
    head(out, name, kind, help);
    let _ = writeln!(out, "{name} {value}");
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
    fn labels_are_escaped() {
        assert_eq!(escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
