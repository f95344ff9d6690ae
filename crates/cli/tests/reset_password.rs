//! `anywoli db reset-password`: a host sets a new password for a player who forgot theirs,
//! while the server runs; the old password stops working and the player's sessions end.

use crate::support;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::json;
use support::{http, scratch, serve};

fn reset(db: &Path, name: &str, input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_anywoli"))
        .args(["db", "reset-password", "--db"])
        .arg(db)
        .arg(name)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A refusal (no such player, no database) may come before the password is read: the pipe
    // is then closed, which is not this test's concern.
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    child.wait_with_output().unwrap()
}

fn login(addr: &str, name: &str, password: &str) -> u16 {
    let body = json!({"name": name, "password": password});
    http(addr, "POST", "/api/account/login", Some(body)).0
}

#[test]
fn a_host_resets_a_forgotten_password() {
    let dir = scratch("reset-password");
    let db = dir.join("games.sqlite");
    let (mut server, addr) = serve(&db, &["--logins-per-minute", "0"]);
    let (status, v) = http(
        &addr,
        "POST",
        "/api/account/signup",
        Some(json!({"name": "Abula", "password": "forgotten-one"})),
    );
    assert_eq!(status, 201, "{v}");
    assert_eq!(login(&addr, "Abula", "forgotten-one"), 200);

    let o = reset(&db, "aBuLa", "a-new-password\n");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("set a new password for Abula"), "{err}");
    assert!(
        !err.contains("a-new-password"),
        "the password is never printed: {err}"
    );
    assert!(o.stdout.is_empty());
    assert_eq!(login(&addr, "Abula", "forgotten-one"), 401);
    assert_eq!(login(&addr, "Abula", "a-new-password"), 200);

    // Refused, changing nothing: a name nobody has, a password too short, no database.
    let o = reset(&db, "Nobody", "whatever-long\n");
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no player named Nobody"));
    let o = reset(&db, "Abula", "short\n");
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("8 to 256"));
    let o = reset(&dir.join("missing.sqlite"), "Abula", "a-new-password\n");
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(login(&addr, "Abula", "a-new-password"), 200);

    server.kill().unwrap();
    server.wait().unwrap();
}
