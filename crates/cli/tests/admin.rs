//! `anywoli admin`: a host grants and revokes the moderator role, closes and reopens accounts,
//! makes reset links and reads the report queue, against the database of a server that runs
//! (SQLite, and PostgreSQL with `ANYWOLI_TEST_POSTGRES`), which follows without a restart.

use crate::support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;

use anywoli_server::store::{ReportReason, ReportRow, ADMIN_CLI};
use anywoli_server::Store;
use serde_json::{json, Value};
use support::{address, http, run, scratch, spawn, Run};

fn admin(db: &Path, args: &[&str]) -> Run {
    let db = db.to_str().unwrap();
    let mut all = vec!["admin", args[0], "--db", db];
    all.extend(&args[1..]);
    run(&all)
}

fn login(addr: &str, name: &str) -> (u16, Value) {
    let body = json!({"name": name, "password": "long-enough-pw"});
    http(addr, "POST", "/api/account/login", Some(body))
}

/// Signs `name` up: its session cookie (`anywoli_session=…`).
fn signup(addr: &str, name: &str) -> String {
    let body = json!({"name": name, "password": "long-enough-pw"}).to_string();
    let text = raw(
        addr,
        &format!(
            "POST /api/account/signup HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        ),
    );
    assert!(text.starts_with("HTTP/1.1 201"), "{text}");
    let line = text
        .lines()
        .find(|l| l.to_ascii_lowercase().starts_with("set-cookie:"))
        .unwrap();
    line.split_once(':')
        .unwrap()
        .1
        .split(';')
        .next()
        .unwrap()
        .trim()
        .to_string()
}

fn raw(addr: &str, request: &str) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    text
}

/// Who `GET /api/account` says the cookie is.
fn who(addr: &str, cookie: &str) -> Value {
    let text = raw(
        addr,
        &format!("GET /api/account HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nCookie: {cookie}\r\n\r\n"),
    );
    let body = text.split_once("\r\n\r\n").unwrap().1;
    serde_json::from_str::<Value>(body).unwrap()["account"]["name"].clone()
}

fn report(store: &Store, by: &str, about: &str) {
    let r = ReportRow {
        id: format!("{by}-{about}"),
        at: anywoli_server::dates::now_ms(),
        reporter: by.into(),
        target: about.into(),
        reason: ReportReason::RatingManipulation,
        text: "wins\nevery game in 3 moves".into(),
        evidence: String::new(),
        open: true,
        closed_by: None,
        closed_at: None,
    };
    store.file_report(r).unwrap();
}

fn the_admin_commands_on(db: &Path, dir: &Path) {
    let args = [
        "serve",
        "--port",
        "0",
        "--db",
        db.to_str().unwrap(),
        "--logins-per-minute",
        "0",
    ];
    let (mut server, line) = spawn(&args, dir);
    let addr = address(&line);
    let cookie = signup(&addr, "Abula");
    signup(&addr, "Bao");
    assert_eq!(who(&addr, &cookie), "Abula");

    let r = admin(db, &["close", "aBuLa", "--reason", "spam"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("Abula is closed"), "{}", r.stderr);
    assert_eq!(who(&addr, &cookie), Value::Null, "its session ended");
    let (status, v) = login(&addr, "Abula");
    assert_eq!((status, v["error"].as_str()), (403, Some("account_closed")));
    assert_eq!(admin(db, &["reopen", "abula"]).code, 0);
    assert_eq!(login(&addr, "Abula").0, 200);

    assert_eq!(admin(db, &["grant-moderator", "Bao"]).code, 0);
    let store = Store::open_db(db).unwrap();
    assert!(store.standing("Bao").unwrap().moderator);
    assert_eq!(admin(db, &["revoke-moderator", "Bao"]).code, 0);
    assert!(!store.standing("Bao").unwrap().moderator);

    let r = admin(
        db,
        &["reset-link", "Bao", "--url", "https://anywoli.example/"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout.lines().count(), 1, "{}", r.stdout);
    let token = r
        .stdout
        .trim()
        .strip_prefix("https://anywoli.example/reset/")
        .unwrap();
    assert!(
        token.len() >= 16
            && token
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    );
    let r = admin(db, &["reset-link", "Bao"]);
    assert!(
        r.stdout.starts_with("http://127.0.0.1:8080/reset/"),
        "{}",
        r.stdout
    );
    let newer = r.stdout.trim().rsplit('/').next().unwrap().to_string();
    assert_ne!(newer, token);
    // The newer link works, once; the older one is void.
    let reset = |token: &str| {
        let body = json!({"token": token, "password": "a-reset-password"});
        http(&addr, "POST", "/api/account/reset", Some(body)).0
    };
    assert_eq!(reset(token), 410);
    assert_eq!(reset(&newer), 200);
    assert_eq!(reset(&newer), 410);
    let body = json!({"name": "Bao", "password": "a-reset-password"});
    assert_eq!(http(&addr, "POST", "/api/account/login", Some(body)).0, 200);

    let log = store.mod_log(None, 50).unwrap();
    let mut actions: Vec<&str> = log.iter().map(|l| l.action.as_str()).collect();
    actions.sort_unstable();
    assert_eq!(
        actions,
        [
            "close",
            "grant_moderator",
            "reopen",
            "reset_link",
            "reset_link",
            "revoke_moderator"
        ]
    );
    assert!(log.iter().all(|l| l.moderator == ADMIN_CLI));
    assert!(
        log.iter().all(|l| !l.detail.contains(token)),
        "no token in the log"
    );

    report(&store, "Abula", "Bao");
    let r = admin(db, &["reports"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout.lines().count(), 1, "{}", r.stdout);
    let line = r.stdout.lines().next().unwrap();
    assert!(
        line.contains("Abula -> Bao rating_manipulation wins every game"),
        "{line}"
    );
    let r = admin(db, &["reports", "--json"]);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v[0]["target"], "Bao");
    assert_eq!(v[0]["reason"], "rating_manipulation");
    assert_eq!(v[0]["evidence"]["games"], json!([]));

    // A name nobody has: exit status 1, a clear line, nothing changed.
    let before = store.mod_log(None, 50).unwrap().len();
    for cmd in [
        "grant-moderator",
        "close",
        "reopen",
        "reset-link",
        "revoke-moderator",
    ] {
        let r = admin(db, &[cmd, "Nobody"]);
        assert_eq!(r.code, 1, "{cmd}: {}", r.stderr);
        assert!(
            r.stderr.contains("no player named Nobody"),
            "{cmd}: {}",
            r.stderr
        );
        assert_eq!(r.stdout, "");
    }
    assert_eq!(store.mod_log(None, 50).unwrap().len(), before);
    // A closed account gets no reset link.
    assert_eq!(admin(db, &["close", "Bao"]).code, 0);
    let r = admin(db, &["reset-link", "Bao"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("reopen it first"), "{}", r.stderr);

    schedules_on(db, dir, &addr);
    server.kill().unwrap();
    server.wait().unwrap();
}

/// `anywoli admin tournaments`: a schedule from a file, made into a tournament by the running
/// server within seconds; listed, removed; a bad file adds nothing.
fn schedules_on(db: &Path, dir: &Path, addr: &str) {
    let tournaments = |args: &[&str]| {
        let mut all = vec![
            "admin",
            "tournaments",
            args[0],
            "--db",
            db.to_str().unwrap(),
        ];
        all.extend(&args[1..]);
        run(&all)
    };
    let soon = anywoli_server::dates::now_ms() + 10 * 60_000;
    let file = dir.join("schedules.json");
    let one = json!({"by": "abula", "every_minutes": 60, "first_at": soon,
                     "tournament": {"name": "Hourly blitz", "system": "arena", "clock": "3+2",
                                    "minutes": 50, "rated": true}});
    std::fs::write(&file, json!([one]).to_string()).unwrap();
    let r = tournaments(&["add", "--file", file.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let id = r.stdout.trim().to_string();
    let r = tournaments(&["list"]);
    assert!(
        r.stdout.starts_with(&id) && r.stdout.contains("Z 60min Abula Hourly blitz"),
        "{}",
        r.stdout
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let (_, v) = http(addr, "GET", "/api/tournaments", None);
        if let Some(t) = v["upcoming"].as_array().and_then(|l| l.first()) {
            assert_eq!(t["name"], "Hourly blitz", "{v}");
            assert_eq!(t["starts_at"], json!(soon), "{v}");
            assert_eq!(t["created_by"], "Abula", "{v}");
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the server made the tournament: {v}"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    // A bad schedule in a file adds none of it.
    let bad = json!({"by": "abula", "every_minutes": 1, "tournament": one["tournament"]});
    std::fs::write(&file, json!([one, bad]).to_string()).unwrap();
    let r = tournaments(&["add", "--file", file.to_str().unwrap()]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("schedule 2: every_minutes") && r.stderr.contains("nothing was added"),
        "{}",
        r.stderr
    );
    assert_eq!(tournaments(&["list"]).stdout.lines().count(), 1);
    let r = tournaments(&["remove", &id]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(tournaments(&["list"]).stdout, "");
    assert_eq!(tournaments(&["remove", &id]).code, 1);
}

#[test]
fn admin_commands_act_on_a_running_servers_sqlite_database() {
    let dir = scratch("admin");
    let db = dir.join("games.sqlite");
    the_admin_commands_on(&db, &dir);
    let r = admin(&dir.join("missing.sqlite"), &["reports"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("no such database file"), "{}", r.stderr);
    assert!(!dir.join("missing.sqlite").exists());
}

#[test]
#[ignore = "needs PostgreSQL: ANYWOLI_TEST_POSTGRES"]
fn admin_commands_act_on_a_running_servers_postgres_database() {
    let url = Store::test_postgres_url("anywoli admin on a running server");
    the_admin_commands_on(Path::new(&url), &scratch("admin-postgres"));
}
