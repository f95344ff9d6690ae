//! `/healthz` and `/metrics` on a real port (issue 11): the metrics text parses as
//! Prometheus' format 0.0.4, counts exactly the moves played, names routes by their template
//! (never a game id), and sees the listener's connections and refusals.

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anywoli_server::{start, Config, Limits, RateLimits, Server, Think};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn fresh_db(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("metrics-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("games.sqlite")
}

async fn server(name: &str, limits: Limits) -> Server {
    start(&Config {
        addr: "127.0.0.1".into(),
        port: 0,
        db: fresh_db(name),
        think: Think {
            movetime: Duration::from_millis(100),
            hash_mib: 1,
        },
        limits,
        rates: RateLimits {
            games_per_minute: 0,
            hints_per_minute: 0,
            imports_per_minute: 0,
            logins_per_minute: 0,
        },
        ..Config::default()
    })
    .await
    .unwrap()
}

struct Answer {
    status: u16,
    /// Header names in lower case.
    headers: HashMap<String, String>,
    body: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
}

/// One request on a connection of its own.
async fn http(addr: SocketAddr, method: &str, path: &str, body: Option<Value>) -> Answer {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).await.unwrap();
    let text = String::from_utf8(buf).unwrap();
    let (head, rest) = text.split_once("\r\n\r\n").unwrap();
    let mut lines = head.lines();
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: HashMap<String, String> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let body = if headers
        .get("transfer-encoding")
        .is_some_and(|v| v.eq_ignore_ascii_case("chunked"))
    {
        dechunk(rest)
    } else {
        rest.to_string()
    };
    Answer {
        status,
        headers,
        body,
    }
}

fn dechunk(mut rest: &str) -> String {
    let mut out = String::new();
    loop {
        let (size, after) = rest.split_once("\r\n").unwrap();
        let n = usize::from_str_radix(size.split(';').next().unwrap().trim(), 16).unwrap();
        if n == 0 {
            return out;
        }
        out.push_str(&after[..n]);
        rest = &after[n + 2..];
    }
}

/// One sample line: `name{labels} value`.
#[derive(Debug, Clone)]
struct Sample {
    name: String,
    labels: BTreeMap<String, String>,
    value: f64,
}

/// Parses the text format 0.0.4 strictly: comments are `# HELP` or `# TYPE`, every sample
/// line is `name{labels} value` of a family with a `# TYPE`, and every histogram has rising
/// `_bucket` counts ending at `+Inf`, a `_sum` and a `_count` equal to the `+Inf` bucket.
fn parse(text: &str) -> Vec<Sample> {
    let mut types: HashMap<String, String> = HashMap::new();
    let mut samples = Vec::new();
    assert!(text.ends_with('\n'), "the text ends with a line feed");
    for line in text.lines() {
        if let Some(c) = line.strip_prefix("# ") {
            let mut parts = c.splitn(3, ' ');
            let (kw, name, rest) = (parts.next(), parts.next(), parts.next());
            assert!(name.is_some_and(valid_name), "{line}");
            match kw {
                Some("HELP") => assert!(rest.is_some_and(|r| !r.is_empty()), "{line}"),
                Some("TYPE") => {
                    let kind = rest.unwrap();
                    assert!(
                        ["counter", "gauge", "histogram", "summary", "untyped"].contains(&kind),
                        "{line}"
                    );
                    let prev = types.insert(name.unwrap().to_string(), kind.to_string());
                    assert!(prev.is_none(), "TYPE given twice: {line}");
                }
                _ => panic!("a comment that is neither HELP nor TYPE: {line}"),
            }
            continue;
        }
        assert!(!line.trim().is_empty(), "an empty line in the text");
        let sample = parse_sample(line);
        let family = family_of(&sample.name, &types)
            .unwrap_or_else(|| panic!("a sample of no declared family: {line}"));
        if types[&family] == "counter" {
            assert!(
                sample.name.ends_with("_total"),
                "a counter named _total: {line}"
            );
            assert!(sample.value >= 0.0, "{line}");
        }
        samples.push(sample);
    }
    check_histograms(&samples, &types);
    samples
}

fn valid_name(n: &str) -> bool {
    let mut chars = n.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == ':')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
}

fn parse_sample(line: &str) -> Sample {
    let name_end = line.find(['{', ' ']).unwrap_or_else(|| panic!("{line}"));
    let name = &line[..name_end];
    assert!(valid_name(name), "bad metric name: {line}");
    let mut labels = BTreeMap::new();
    let mut rest = &line[name_end..];
    if let Some(mut r) = rest.strip_prefix('{') {
        loop {
            if let Some(after) = r.strip_prefix('}') {
                r = after;
                break;
            }
            let eq = r.find('=').unwrap_or_else(|| panic!("{line}"));
            let key = &r[..eq];
            assert!(
                valid_name(key) && !key.contains(':'),
                "bad label name: {line}"
            );
            r = r[eq + 1..]
                .strip_prefix('"')
                .unwrap_or_else(|| panic!("{line}"));
            let mut value = String::new();
            let mut chars = r.char_indices();
            let end = loop {
                match chars.next() {
                    Some((_, '\\')) => match chars.next() {
                        Some((_, 'n')) => value.push('\n'),
                        Some((_, c @ ('\\' | '"'))) => value.push(c),
                        other => panic!("bad escape {other:?}: {line}"),
                    },
                    Some((i, '"')) => break i,
                    Some((_, c)) => value.push(c),
                    None => panic!("unterminated label value: {line}"),
                }
            };
            assert!(
                labels.insert(key.to_string(), value).is_none(),
                "a label twice: {line}"
            );
            r = &r[end + 1..];
            r = r.strip_prefix(',').unwrap_or(r);
        }
        rest = r;
    }
    let value = rest
        .strip_prefix(' ')
        .unwrap_or_else(|| panic!("no space before the value: {line}"));
    assert!(
        !value.contains(' '),
        "a timestamp or junk after the value: {line}"
    );
    let value = match value {
        "+Inf" => f64::INFINITY,
        "-Inf" => f64::NEG_INFINITY,
        v => v.parse().unwrap_or_else(|e| panic!("{e}: {line}")),
    };
    Sample {
        name: name.to_string(),
        labels,
        value,
    }
}

fn family_of(name: &str, types: &HashMap<String, String>) -> Option<String> {
    if types.contains_key(name) {
        return Some(name.to_string());
    }
    ["_bucket", "_sum", "_count"].iter().find_map(|s| {
        let base = name.strip_suffix(s)?;
        (types.get(base)? == "histogram").then(|| base.to_string())
    })
}

/// One histogram series: its buckets (le, count), `_sum` and `_count`.
type Series = (Vec<(f64, f64)>, Option<f64>, Option<f64>);

fn check_histograms(samples: &[Sample], types: &HashMap<String, String>) {
    for (family, _) in types.iter().filter(|(_, k)| *k == "histogram") {
        // Series: the labels without `le`.
        let mut series: BTreeMap<BTreeMap<String, String>, Series> = BTreeMap::new();
        for s in samples {
            let mut labels = s.labels.clone();
            if s.name == format!("{family}_bucket") {
                let le = labels.remove("le").expect("a bucket has le");
                let le = if le == "+Inf" {
                    f64::INFINITY
                } else {
                    le.parse().unwrap()
                };
                series.entry(labels).or_default().0.push((le, s.value));
            } else if s.name == format!("{family}_sum") {
                series.entry(labels).or_default().1 = Some(s.value);
            } else if s.name == format!("{family}_count") {
                series.entry(labels).or_default().2 = Some(s.value);
            } else {
                assert_ne!(&s.name, family, "a histogram's bare name as a sample");
            }
        }
        for (labels, (buckets, sum, count)) in series {
            let what = format!("{family}{labels:?}");
            assert!(buckets.len() >= 2, "{what}: buckets");
            for w in buckets.windows(2) {
                assert!(w[0].0 < w[1].0, "{what}: le rises");
                assert!(w[0].1 <= w[1].1, "{what}: counts rise");
            }
            let (last_le, inf) = *buckets.last().unwrap();
            assert_eq!(last_le, f64::INFINITY, "{what}: the last bucket is +Inf");
            let count = count.unwrap_or_else(|| panic!("{what}: no _count"));
            let sum = sum.unwrap_or_else(|| panic!("{what}: no _sum"));
            assert_eq!(count, inf, "{what}: _count is the +Inf bucket");
            assert!(sum >= 0.0, "{what}: _sum");
        }
    }
}

/// The value of the sample `name` with exactly `labels`.
fn value(samples: &[Sample], name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    let want: BTreeMap<String, String> = labels
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    samples
        .iter()
        .find(|s| s.name == name && s.labels == want)
        .map(|s| s.value)
}

async fn scrape(addr: SocketAddr) -> Vec<Sample> {
    let a = http(addr, "GET", "/metrics", None).await;
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(
        a.headers.get("content-type").map(String::as_str),
        Some("text/plain; version=0.0.4; charset=utf-8")
    );
    parse(&a.body)
}

/// A game on one screen: (id, secret).
async fn local_game(addr: SocketAddr) -> (String, String) {
    let a = http(addr, "POST", "/api/games", Some(json!({"mode": "local"}))).await;
    assert_eq!(a.status, 201, "{}", a.body);
    let v = a.json();
    (
        v["game"]["id"].as_str().unwrap().to_string(),
        v["secret"].as_str().unwrap().to_string(),
    )
}

/// Plays the first legal move of game `id`.
async fn play_one(addr: SocketAddr, id: &str, secret: &str) {
    let g = http(addr, "GET", &format!("/api/games/{id}"), None)
        .await
        .json();
    let mv = g["legal"][0].as_str().unwrap().to_string();
    let a = http(
        addr,
        "POST",
        &format!("/api/games/{id}/moves"),
        Some(json!({"move": mv, "secret": secret})),
    )
    .await;
    assert_eq!(a.status, 200, "{}", a.body);
}

#[tokio::test]
async fn metrics_count_moves_and_name_routes_by_template() {
    let server = server("moves", Limits::default()).await;
    let addr = server.addr;

    let health = http(addr, "GET", "/healthz", None).await;
    assert_eq!(health.status, 200);
    assert_eq!(health.json(), json!({"status": "ok"}));

    let before = scrape(addr).await;
    let stored_before = value(&before, "anywoli_moves_stored_total", &[]).unwrap();

    let (a, a_secret) = local_game(addr).await;
    let (b, b_secret) = local_game(addr).await;
    // South opens.
    let first = http(
        addr,
        "POST",
        &format!("/api/games/{a}/moves"),
        Some(json!({"move": "e", "secret": a_secret})),
    )
    .await;
    assert_eq!(first.status, 200, "{}", first.body);
    for _ in 0..2 {
        play_one(addr, &a, &a_secret).await;
    }
    for _ in 0..2 {
        play_one(addr, &b, &b_secret).await;
    }
    let played = 5.0;
    // A move refused (a wrong secret) stores nothing.
    let refused = http(
        addr,
        "POST",
        &format!("/api/games/{b}/moves"),
        Some(json!({"move": "A", "secret": "0".repeat(32)})),
    )
    .await;
    assert_eq!(refused.status / 100, 4, "{}", refused.body);
    // A hint goes through the engine queue.
    let hint = http(
        addr,
        "POST",
        &format!("/api/games/{b}/hint"),
        Some(json!({"secret": b_secret})),
    )
    .await;
    assert_eq!(hint.status, 200, "{}", hint.body);
    assert_eq!(http(addr, "GET", "/no/such/page", None).await.status, 404);

    let after = scrape(addr).await;
    let stored_after = value(&after, "anywoli_moves_stored_total", &[]).unwrap();
    assert_eq!(stored_after - stored_before, played);

    // Routes are templates: 6 posted moves (5 stored, 1 refused), 4 reads of a game.
    let moves_route = [("method", "POST"), ("route", "/api/games/{id}/moves")];
    let get_route = [("method", "GET"), ("route", "/api/games/{id}")];
    let count = "anywoli_http_request_duration_seconds_count";
    assert_eq!(value(&after, count, &moves_route), Some(6.0));
    assert_eq!(value(&after, count, &get_route), Some(4.0));
    assert_eq!(
        value(
            &after,
            count,
            &[("method", "POST"), ("route", "/api/games")]
        ),
        Some(2.0)
    );
    assert!(value(&after, count, &[("method", "GET"), ("route", "other")]).is_some());
    assert_eq!(
        value(&after, count, &[("method", "GET"), ("route", "/healthz")]),
        Some(1.0)
    );
    for s in &after {
        for v in s.labels.values() {
            assert!(
                !v.contains(&a) && !v.contains(&b) && !v.contains("no/such"),
                "an id or a raw path as a label: {s:?}"
            );
        }
    }

    let total =
        |class: &str| value(&after, "anywoli_http_requests_total", &[("status", class)]).unwrap();
    assert!(total("2xx") >= 14.0, "{}", total("2xx"));
    assert!(total("4xx") >= 2.0, "{}", total("4xx"));
    assert_eq!(total("5xx"), 0.0);

    assert!(value(&after, "anywoli_games_in_memory", &[]).unwrap() >= 2.0);
    // This very scrape holds a connection.
    assert!(value(&after, "anywoli_connections_open", &[]).unwrap() >= 1.0);
    assert_eq!(
        value(
            &after,
            "anywoli_connections_refused_total",
            &[("reason", "total")]
        ),
        Some(0.0)
    );
    let waited = |p: &str| {
        value(
            &after,
            "anywoli_engine_wait_seconds_count",
            &[("priority", p)],
        )
        .unwrap()
    };
    assert_eq!(waited("hint"), 1.0);
    assert_eq!(waited("game"), 0.0);
    for p in ["game", "hint"] {
        assert_eq!(
            value(&after, "anywoli_engine_queue_waiting", &[("priority", p)]),
            Some(0.0)
        );
    }
    assert!(value(&after, "anywoli_engine_running", &[]).is_some());
    assert!(value(&after, "anywoli_uptime_seconds", &[]).unwrap() > 0.0);
    if cfg!(target_os = "linux") {
        assert!(value(&after, "process_resident_memory_bytes", &[]).unwrap() > 1e6);
    }
    server.stop().await;
}

#[tokio::test]
async fn metrics_count_refused_connections() {
    let server = server(
        "refused",
        Limits {
            max_connections_per_client: 1,
            ..Limits::default()
        },
    )
    .await;
    let addr = server.addr;
    let held = tokio::net::TcpStream::connect(addr).await.unwrap();
    // The server closes a second connection at once: reading it ends.
    let mut second = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut buf = [0u8; 1];
    let n = tokio::time::timeout(Duration::from_secs(10), second.read(&mut buf))
        .await
        .expect("the refused connection is closed")
        .unwrap_or(0);
    assert_eq!(n, 0);
    drop(held);
    // The held place comes back once the server sees the close.
    let deadline = Instant::now() + Duration::from_secs(10);
    let samples = loop {
        let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
        let req = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
        let mut text = String::new();
        if s.write_all(req.as_bytes()).await.is_ok()
            && s.read_to_string(&mut text).await.is_ok()
            && text.starts_with("HTTP/1.1 200")
        {
            break parse(text.split_once("\r\n\r\n").unwrap().1);
        }
        assert!(Instant::now() < deadline, "no place came back");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let refused = |reason: &str| {
        value(
            &samples,
            "anywoli_connections_refused_total",
            &[("reason", reason)],
        )
        .unwrap()
    };
    assert!(refused("per_client") >= 1.0);
    assert_eq!(refused("total"), 0.0);
    assert_eq!(value(&samples, "anywoli_connections_open", &[]), Some(1.0));
    server.stop().await;
}

#[test]
fn the_parser_refuses_what_prometheus_would() {
    let good = "# HELP x_seconds h\n# TYPE x_seconds histogram\n\
                x_seconds_bucket{le=\"0.1\"} 1\nx_seconds_bucket{le=\"+Inf\"} 2\n\
                x_seconds_sum 0.3\nx_seconds_count 2\n";
    assert_eq!(parse(good).len(), 4);
    for bad in [
        // Counts that fall.
        good.replace("} 1\n", "} 3\n"),
        // No _count.
        good.replace("x_seconds_count 2\n", ""),
        // A sample of no family.
        format!("{good}y 1\n"),
        // Junk after the value.
        good.replace("x_seconds_sum 0.3", "x_seconds_sum 0.3 12 x"),
    ] {
        let r = std::panic::catch_unwind(|| parse(&bad));
        assert!(r.is_err(), "accepted:\n{bad}");
    }
}
