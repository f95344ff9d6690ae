//! A histogram of durations in Prometheus's buckets, filled without locks: the server's
//! request times and the engine queue's waits.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The buckets of every histogram, in seconds (the upper bounds; `+Inf` is implied).
pub const BUCKETS: [f64; 13] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

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
    pub fn write(&self, out: &mut String, name: &str, labels: &str) {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
