//! `anywoli serve` as a process: every acknowledged move survives `kill -9`, and `anywoli` with
//! no command is `anywoli serve` with its defaults.

use crate::support;

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use support::{http, spawn};

use serde_json::json;

fn scratch(name: &str) -> PathBuf {
    support::scratch(&format!("serve-{name}"))
}

fn serve(db: &Path) -> (Child, String) {
    support::serve::<&str>(db, &[])
}

#[test]
fn acknowledged_moves_survive_kill_9() {
    let dir = scratch("kill");
    let db = dir.join("games.sqlite");
    let (mut server, addr) = serve(&db);
    let (s, v) = http(&addr, "POST", "/api/games", Some(json!({"mode": "local"})));
    assert_eq!(s, 201, "{v}");
    let id = v["game"]["id"].as_str().unwrap().to_string();
    let secret = v["secret"].as_str().unwrap().to_string();
    let mut game = v["game"].clone();
    let mut played = Vec::new();
    for i in 0..30 {
        let legal = game["legal"].as_array().unwrap();
        if legal.is_empty() {
            break;
        }
        let mv = legal[i % legal.len()].as_str().unwrap().to_string();
        let (s, r) = http(
            &addr,
            "POST",
            &format!("/api/games/{id}/moves"),
            Some(json!({"move": mv, "secret": secret})),
        );
        assert_eq!(s, 200, "{r}");
        played.push(mv);
        game = r["game"].clone();
    }
    // SIGKILL: no shutdown code runs, so only what was stored before each answer can be there.
    server.kill().unwrap();
    server.wait().unwrap();

    let (mut server, addr) = serve(&db);
    let (s, g) = http(&addr, "GET", &format!("/api/games/{id}"), None);
    assert_eq!(s, 200, "{g}");
    assert_eq!(g["moves"], json!(played));
    assert_eq!(g["position"], game["position"]);
    server.kill().unwrap();
    server.wait().unwrap();
}

#[test]
fn no_command_means_serve_with_the_defaults() {
    let dir = scratch("default");
    let (mut child, line) = spawn::<&str>(&[], &dir);
    let _ = child.kill();
    let _ = child.wait();
    // Either it serves on the default address, or that port is taken on this machine; both
    // show that it tried to serve there with the default database.
    assert!(
        line.contains("serving on http://127.0.0.1:8080 (games in anywoli.sqlite)")
            || line.contains("cannot listen on 127.0.0.1:8080"),
        "{line:?}"
    );
}

/// What service managers send (SIGTERM) stops the server as Ctrl-C (SIGINT) does: cleanly,
/// with status 0, after saying so; and a bad `--public-url` is refused before anything starts.
#[test]
fn sigterm_and_sigint_stop_the_server_cleanly() {
    for signal in ["-TERM", "-INT"] {
        let dir = scratch(&format!("signal{signal}"));
        let mut child = Command::new(env!("CARGO_BIN_EXE_anywoli"))
            .args(["serve", "--port", "0", "--db", "games.sqlite"])
            .current_dir(&dir)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut err = BufReader::new(child.stderr.take().unwrap());
        let mut first = String::new();
        err.read_line(&mut first).unwrap();
        assert!(first.contains("serving on http://127.0.0.1:"), "{first}");
        let status = Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let mut rest = String::new();
        err.read_to_string(&mut rest).unwrap();
        let exit = child.wait().unwrap();
        assert!(exit.success(), "{signal}: {exit:?}, {rest}");
        assert!(rest.contains("anywoli: stopping"), "{signal}: {rest}");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_anywoli"))
        .args([
            "serve",
            "--port",
            "0",
            "--public-url",
            "anywoli.example.org/x",
        ])
        .current_dir(scratch("bad-url"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--public-url must start with http"), "{err}");
    assert!(out.stdout.is_empty());
}
