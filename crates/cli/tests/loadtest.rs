//! `anywoli loadtest` against `anywoli serve` as a process: moves are made and acknowledged,
//! every acknowledged move is stored, watchers get every move, nothing fails. No assertion on
//! speed: the machine may be busy.

mod support;

use std::process::{Child, Command, Output};

use serde_json::Value;

/// A server on a free port; killed when dropped.
struct Server {
    child: Child,
    url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `anywoli serve` on a free port, with no limit on new games unless `rate_limited`.
fn serve(name: &str, rate_limited: bool) -> Server {
    let dir = support::scratch(&format!("loadtest-{name}"));
    let db = dir.join("games.sqlite");
    let args: &[&str] = if rate_limited {
        &[]
    } else {
        &["--games-per-minute", "0"]
    };
    let (child, addr) = support::serve(&db, args);
    let url = format!("http://{addr}");
    Server { child, url }
}

fn loadtest(args: &[&str]) -> (Output, Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_anywoli"))
        .arg("loadtest")
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "no JSON report ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out, report)
}

fn assert_clean(out: &Output, r: &Value) {
    assert!(
        out.status.success(),
        "{r:#}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(r["errors_total"], 0, "{r:#}");
    assert_eq!(r["errors"], serde_json::json!({}), "{r:#}");
    assert!(r["moves"].as_u64().unwrap() > 0, "{r:#}");
    assert_eq!(r["round_trip_ms"]["count"], r["moves"], "{r:#}");
    assert!(r["games_started"].as_u64().unwrap() >= 4, "{r:#}");
    assert_eq!(r["check"]["lost_moves"], 0, "{r:#}");
    assert_eq!(r["check"]["failed"], 0, "{r:#}");
    assert_eq!(r["check"]["games_checked"], r["games_started"], "{r:#}");
    assert_eq!(r["check"]["moves_checked"], r["moves"], "{r:#}");
}

#[test]
fn full_speed_with_a_watcher_per_game() {
    let server = serve("full", false);
    let pid = server.child.id().to_string();
    let (out, r) = loadtest(&[
        "--server",
        &server.url,
        "--games",
        "4",
        "--duration",
        "3",
        "--full-speed",
        "--watchers",
        "1",
        "--server-pid",
        &pid,
    ]);
    assert_clean(&out, &r);
    // One watcher per game sees every acknowledged move (none skipped, none late), and each
    // delivery is timed.
    let delivered = r["delivery_ms"]["count"].as_u64().unwrap();
    assert!(delivered > 0, "{r:#}");
    assert_eq!(
        delivered + r["resynced_moves"].as_u64().unwrap(),
        r["moves"].as_u64().unwrap(),
        "{r:#}"
    );
    for k in ["median", "p99", "max"] {
        assert!(r["delivery_ms"][k].as_f64().unwrap() > 0.0, "{r:#}");
        assert!(r["round_trip_ms"][k].as_f64().unwrap() > 0.0, "{r:#}");
    }
    let mem = &r["memory"][0];
    assert_eq!(mem["pid"].to_string(), pid);
    assert!(mem["rss_start_kib"].as_u64().unwrap() > 0, "{r:#}");
    assert!(mem["rss_end_kib"].as_u64().unwrap() > 0, "{r:#}");
}

#[test]
fn friend_games_at_a_pace() {
    let server = serve("friend", false);
    let (out, r) = loadtest(&[
        "--server",
        &server.url,
        "--games",
        "4",
        "--duration",
        "3",
        "--pace",
        "0.2",
        "--mode",
        "friend",
        "--watchers",
        "2",
    ]);
    assert_clean(&out, &r);
    // Each player moves at most every 0.2 s: 4 games, 2 players, 3 s.
    assert!(r["moves"].as_u64().unwrap() <= 4 * 2 * 16, "{r:#}");
    assert!(r["delivery_ms"]["count"].as_u64().unwrap() > 0, "{r:#}");
}

#[test]
fn new_games_refused_with_429_are_reported() {
    // The default rate: 10 games at once, then 30 a minute.
    let server = serve("rate", true);
    let (out, r) = loadtest(&["--server", &server.url, "--games", "12", "--duration", "1"]);
    assert!(!out.status.success(), "{r:#}");
    assert!(
        r["errors"]["create: 429 rate_limited"].as_u64().unwrap() >= 2,
        "{r:#}"
    );
    assert!(
        r["notes"][0]
            .as_str()
            .unwrap()
            .contains("--games-per-minute 0"),
        "{r:#}"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--games-per-minute 0"),
        "{r:#}"
    );
}
