//! The directors' pairing step time, from each server's `/metrics`: the histogram
//! `anywoli_tournament_step_seconds` (its `_bucket`, `_sum` and `_count` lines), read before
//! and after the run, and its difference reported: how many steps, their mean, and the bucket
//! the slowest fell in.

use serde::Serialize;

use crate::loadtest::ctx::Ctx;

const NAME: &str = "anywoli_tournament_step_seconds";

/// One scrape of the histogram: cumulative counts per upper bound (`le`), sum and count.
#[derive(Clone, Default)]
pub(super) struct Histogram {
    buckets: Vec<(String, f64)>,
    sum: f64,
    count: f64,
}

/// What one server's scrape found.
#[derive(Clone)]
pub(super) enum Scrape {
    Unreachable,
    Missing,
    Found(Histogram),
}

/// Each server's histogram now.
pub(super) async fn scrape_all(ctx: &Ctx) -> Vec<Scrape> {
    let mut out = Vec::new();
    for t in &ctx.targets {
        let s = match t.pool.request("GET", "/metrics", None, |_| {}).await {
            Ok((a, _)) if a.status == 200 => parse(&String::from_utf8_lossy(&a.body)),
            _ => Scrape::Unreachable,
        };
        out.push(s);
    }
    out
}

fn parse(text: &str) -> Scrape {
    let mut h = Histogram::default();
    let mut found = false;
    for line in text.lines() {
        let Some(rest) = line.strip_prefix(NAME) else {
            continue;
        };
        let Some((key, value)) = rest.rsplit_once(' ') else {
            continue;
        };
        let Ok(value) = value.trim().parse::<f64>() else {
            continue;
        };
        if let Some(labels) = key.strip_prefix("_bucket") {
            if let Some(le) = labels
                .split("le=\"")
                .nth(1)
                .and_then(|r| r.split('"').next())
            {
                h.buckets.push((le.to_string(), value));
                found = true;
            }
        } else if key.starts_with("_sum") {
            h.sum = value;
            found = true;
        } else if key.starts_with("_count") {
            h.count = value;
            found = true;
        }
    }
    if found {
        Scrape::Found(h)
    } else {
        Scrape::Missing
    }
}

/// The pairing step time on one server over the run.
#[derive(Serialize)]
pub(in crate::loadtest) struct Steps {
    pub(in crate::loadtest) server: String,
    /// `found`, `missing` (no such metric) or `unreachable` (at the end).
    pub(in crate::loadtest) metric: &'static str,
    pub(in crate::loadtest) steps: u64,
    pub(in crate::loadtest) mean_ms: Option<f64>,
    /// The upper bound of the bucket the slowest step fell in (`le`, seconds as the server
    /// writes it; `+Inf` above the last).
    pub(in crate::loadtest) max_bucket_le_s: Option<String>,
}

/// Each server's steps between the two scrapes.
pub(super) fn since(ctx: &Ctx, before: Vec<Scrape>, after: Vec<Scrape>) -> Vec<Steps> {
    ctx.targets
        .iter()
        .zip(before.into_iter().zip(after))
        .map(|(t, (b, a))| {
            let mut s = Steps {
                server: t.url.clone(),
                metric: "unreachable",
                steps: 0,
                mean_ms: None,
                max_bucket_le_s: None,
            };
            let a = match a {
                Scrape::Unreachable => return s,
                Scrape::Missing => {
                    s.metric = "missing";
                    return s;
                }
                Scrape::Found(a) => a,
            };
            s.metric = "found";
            let b = match b {
                Scrape::Found(b) => b,
                _ => Histogram::default(),
            };
            let count = a.count - b.count;
            let sum = a.sum - b.sum;
            s.steps = count.max(0.0) as u64;
            if count > 0.0 {
                s.mean_ms = Some((sum / count * 1e6).round() / 1e3);
                let earlier = |le: &str| {
                    b.buckets
                        .iter()
                        .find(|(l, _)| l == le)
                        .map_or(0.0, |(_, n)| *n)
                };
                s.max_bucket_le_s = a
                    .buckets
                    .iter()
                    .find(|(le, n)| n - earlier(le) >= count)
                    .map(|(le, _)| le.clone());
            }
            s
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_histogram_is_read_from_its_lines() {
        let text = "# TYPE anywoli_tournament_step_seconds histogram\n\
            anywoli_tournament_step_seconds_bucket{le=\"0.001\"} 2\n\
            anywoli_tournament_step_seconds_bucket{le=\"0.005\"} 5\n\
            anywoli_tournament_step_seconds_bucket{le=\"+Inf\"} 5\n\
            anywoli_tournament_step_seconds_sum 0.012\n\
            anywoli_tournament_step_seconds_count 5\n";
        let Scrape::Found(h) = parse(text) else {
            panic!("not found")
        };
        assert_eq!(h.buckets.len(), 3);
        assert_eq!(h.count, 5.0);
        assert!((h.sum - 0.012).abs() < 1e-12);
        assert!(matches!(
            parse("anywoli_moves_stored_total 3\n"),
            Scrape::Missing
        ));
    }
}
