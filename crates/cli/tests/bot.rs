//! `anywoli bot` and the Bot API from another language: `examples/bot.py` (Python's standard
//! library only) challenges a BOT that `anywoli bot` runs with the built-in engine, and they
//! play a rated game to its end through `anywoli serve`, with chat both ways and a draw offer
//! declined; the stored game replays move by move. Also `anywoli admin token`.

use std::process::{Command, Stdio};

use crate::support;

/// A server on a free port with two accounts; killed when dropped.
struct Site {
    child: std::process::Child,
    addr: String,
    db: std::path::PathBuf,
}

impl Drop for Site {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn site(name: &str, accounts: &[&str]) -> Site {
    let dir = support::scratch(name);
    let db = dir.join("games.sqlite");
    let (child, addr) = support::serve(&db, &["--games-per-minute", "0"]);
    for a in accounts {
        let body = serde_json::json!({"name": a, "password": "a-good-password"});
        let (status, v) = support::http(&addr, "POST", "/api/account/signup", Some(body));
        assert_eq!(status, 201, "{v}");
    }
    Site { child, addr, db }
}

fn token(site: &Site, name: &str, scopes: &str) -> String {
    let db = site.db.display().to_string();
    let r = support::run(&["admin", "token", name, "--scope", scopes, "--db", &db]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let token = r.stdout.trim().to_string();
    assert!(
        token.starts_with("anw_") && !r.stderr.contains(&token),
        "{r:?}",
        r = r.stderr
    );
    token
}

#[test]
fn admin_token_prints_one_line_and_refuses_bad_scopes_and_names() {
    let site = site("admin-token", &["Robo"]);
    let db = site.db.display().to_string();
    let t = token(&site, "robo", "bot:play");
    let (status, me) = bearer_get(&site.addr, &t, "/api/account");
    assert_eq!((status, me["username"].as_str()), (200, Some("Robo")));
    let r = support::run(&[
        "admin",
        "token",
        "Robo",
        "--scope",
        "email:read",
        "--db",
        &db,
    ]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("email:read") && r.stdout.is_empty());
    let r = support::run(&[
        "admin", "token", "Nobody", "--scope", "bot:play", "--db", &db,
    ]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("Nobody"));
}

/// `GET path` with a bearer token: (status, JSON).
fn bearer_get(addr: &str, token: &str, path: &str) -> (u16, serde_json::Value) {
    request(addr, token, "GET", path, "")
}

/// `POST path` with a bearer token and a form: (status, JSON).
fn post(addr: &str, token: &str, path: &str, form: &str) -> (u16, serde_json::Value) {
    request(addr, token, "POST", path, form)
}

fn request(
    addr: &str,
    token: &str,
    method: &str,
    path: &str,
    form: &str,
) -> (u16, serde_json::Value) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\
         Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{form}",
        form.len()
    )
    .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let (head, rest) = text.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, serde_json::from_str(rest).unwrap_or_default())
}

#[test]
#[ignore = "needs python3"]
fn a_python_script_plays_a_rated_game_against_anywoli_bot() {
    let site = site("bot-python", &["Robo", "Pyth"]);
    let robo = token(&site, "Robo", "bot:play,challenge:write");
    let pyth = token(&site, "Pyth", "bot:play,challenge:write");
    let url = format!("http://{}", site.addr);
    let mut bot = Command::new(env!("CARGO_BIN_EXE_anywoli"))
        .args(["bot", "--server", &url, "--upgrade", "--level", "3"])
        .args(["--games", "1", "--movetime-max", "200"])
        .env("ANYWOLI_TOKEN", &robo)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The bot says it is online once it is a BOT and reads its events.
    let mut err = std::io::BufReader::new(bot.stderr.take().unwrap());
    let mut line = String::new();
    std::io::BufRead::read_line(&mut err, &mut line).unwrap();
    assert!(line.contains("online"), "{line}");
    let log = std::thread::spawn(move || {
        let mut rest = String::new();
        let _ = std::io::Read::read_to_string(&mut err, &mut rest);
        rest
    });
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/bot.py");
    assert!(
        std::fs::read_to_string(script).unwrap().lines().count() < 60,
        "the example stays short"
    );
    let out = Command::new("python3")
        .args([script, "Robo", &url])
        .env("ANYWOLI_TOKEN", &pyth)
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let status = bot.wait().unwrap();
    let bot_log = log.join().unwrap();
    assert!(
        out.status.success(),
        "{stdout}\n{}\n{bot_log}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(status.success(), "anywoli bot: {bot_log}");
    let report: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(report["draw_declined"], true, "{report}");
    assert_eq!(report["status"], "variantEnd", "{report}");
    let chat = report["chat"].to_string();
    assert!(chat.contains("Robo: Hello Pyth"), "{chat}");
    // The stored game: rated, over, each of its moves legal in turn.
    let game = report["game"].as_str().unwrap();
    let (status, g) = support::http(&site.addr, "GET", &format!("/api/games/{game}"), None);
    assert_eq!(status, 200);
    assert_eq!(
        (g["rated"].as_bool(), g["status"].as_str()),
        (Some(true), Some("over")),
        "{g}"
    );
    assert!(g["rating_change"].is_object(), "{g}");
    let rules = anywoli_core::Rules::from_name("anywoli", 0).unwrap();
    let mut pos = anywoli_core::Position::start(rules);
    for m in g["moves"].as_array().unwrap() {
        let mv: anywoli_core::Move = m.as_str().unwrap().parse().unwrap();
        pos.play(mv).unwrap();
    }
    assert!(pos.is_over());
    assert_eq!(
        g["moves"].as_array().unwrap().len(),
        report["plies"].as_u64().unwrap() as usize
    );
    assert!(bot_log.contains("variantEnd"), "{bot_log}");
    assert!(bot_log.contains("declined the draw"), "{bot_log}");
}

/// Two instances on one PostgreSQL database, both running the house bot `Anuak2`; `anywoli
/// bot` knows both and plays 20 games at once against it through the first, which is killed
/// (`kill -9`) once the games are under way. The bot's streams go to the second instance, the
/// second takes the house bot's turns over (its engine leases), and every game is played to
/// its end: none is lost, none aborted.
#[test]
#[ignore = "needs PostgreSQL: ANYWOLI_TEST_POSTGRES"]
fn twenty_games_against_a_house_bot_survive_the_death_of_an_instance() {
    let _alone = support::one_failover_at_a_time();
    let url = anywoli_server::Store::test_postgres_url("anywoli bot against house bots");
    let dir = support::scratch("bot-instances");
    let serve = || {
        let args = [
            "serve",
            "--port",
            "0",
            "--db",
            &url,
            "--engine-lease",
            "2",
            "--games-per-minute",
            "0",
            "--house-bots",
            "Anuak2:2",
            "--house-bot-games",
            "40",
        ];
        let (child, line) = support::spawn(&args, &dir);
        (child, support::address(&line))
    };
    let (a, a_addr) = serve();
    let (b, b_addr) = serve();
    let mut a = Some(a);
    let _b = Site {
        child: b,
        addr: b_addr.clone(),
        db: dir.join("unused"),
    };
    let body = serde_json::json!({"name": "Robo", "password": "a-good-password"});
    let (status, v) = support::http(&a_addr, "POST", "/api/account/signup", Some(body));
    assert_eq!(status, 201, "{v}");
    let r = support::run(&[
        "admin",
        "token",
        "Robo",
        "--scope",
        "bot:play,challenge:write",
        "--db",
        &url,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let token = r.stdout.trim().to_string();
    let mut bot = Command::new(env!("CARGO_BIN_EXE_anywoli"))
        .args(["bot", "--upgrade", "--server", &format!("http://{a_addr}")])
        .args(["--server", &format!("http://{b_addr}")])
        .args([
            "--challenge",
            "Anuak2",
            "--challenge-clock",
            "3+2",
            "--challenge-rated",
        ])
        .args([
            "--games",
            "20",
            "--concurrency",
            "20",
            "--movetime-max",
            "150",
        ])
        .args(["--greeting", ""])
        .env("ANYWOLI_TOKEN", &token)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let err = bot.stderr.take().unwrap();
    let (started_tx, started_rx) = std::sync::mpsc::channel();
    let log = std::thread::spawn(move || {
        let mut all = String::new();
        for line in std::io::BufRead::lines(std::io::BufReader::new(err)).map_while(Result::ok) {
            if line.ends_with(": started") {
                let _ = started_tx.send(());
            }
            all.push_str(&line);
            all.push('\n');
        }
        all
    });
    // Once all 20 are under way (and some plies into them), the first instance dies.
    for _ in 0..20 {
        started_rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("20 games start");
    }
    std::thread::sleep(std::time::Duration::from_secs(3));
    let mut killed = a.take().unwrap();
    killed.kill().unwrap();
    killed.wait().unwrap();
    let status = bot.wait().unwrap();
    let log = log.join().unwrap();
    assert!(status.success(), "{log}");
    let ended: Vec<&str> = log.lines().filter(|l| l.contains(" after ")).collect();
    assert_eq!(ended.len(), 20, "{log}");
    assert!(!log.contains("given up"), "{log}");
    // The store agrees: 20 games of Robo's, all over, by the rules, none aborted.
    let store = anywoli_server::Store::open_postgres(&url).unwrap();
    let ids = store.playing_of("Robo", 100).unwrap();
    assert!(ids.is_empty(), "games still in play: {ids:?}");
    let (status, g) = support::http(&b_addr, "GET", "/api/players/Robo/games?limit=50", None);
    assert_eq!(status, 200, "{g}");
    let games = g["games"].as_array().unwrap();
    assert_eq!(games.len(), 20, "{g}");
    for game in games {
        assert_eq!(game["status"], "over", "{game}");
    }
}

/// `anywoli export --month`: the rated games that ended in the month, as records, compressed,
/// with a checksum; `--check` verifies it and reads every record back, equal to the games'
/// own records.
#[test]
fn the_monthly_dump_reads_back_equal() {
    let site = site("export-month", &["Ana", "Okello"]);
    let url = format!("http://{}", site.addr);
    let ana = token(&site, "Ana", "board:play,challenge:write");
    let okello = token(&site, "Okello", "board:play,challenge:write");
    let _ = url;
    let mut ids = Vec::new();
    for rated in [true, true, false] {
        // Ana challenges, Okello accepts, Okello (North) resigns after two moves.
        let form = format!("rated={rated}&clock.limit=300&clock.increment=0&color=white");
        let (s, c) = post(&site.addr, &ana, "/api/challenge/Okello", &form);
        assert_eq!(s, 201, "{c}");
        let id = c["id"].as_str().unwrap().to_string();
        let (s, a) = post(
            &site.addr,
            &okello,
            &format!("/api/challenge/{id}/accept"),
            "",
        );
        assert_eq!(s, 200, "{a}");
        let game = a["game"]["id"].as_str().unwrap().to_string();
        for (who, mv) in [(&ana, "e"), (&okello, "F"), (&ana, "a"), (&okello, "C")] {
            let (s, v) = post(
                &site.addr,
                who,
                &format!("/api/board/game/{game}/move/{mv}"),
                "",
            );
            assert_eq!(s, 200, "{mv}: {v}");
        }
        let (s, v) = post(
            &site.addr,
            &okello,
            &format!("/api/board/game/{game}/resign"),
            "",
        );
        assert_eq!(s, 200, "{v}");
        ids.push((game, rated));
    }
    let month = {
        let now = anywoli_server::dates::record_date(anywoli_server::dates::now_ms());
        now[..7].replace('.', "-")
    };
    let out = site.db.parent().unwrap().join("dump");
    std::fs::create_dir_all(&out).unwrap();
    let db = site.db.display().to_string();
    let r = support::run(&[
        "export",
        "--month",
        &month,
        "--db",
        &db,
        "--out",
        &out.display().to_string(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("2 rated games"), "{}", r.stderr);
    let file = out.join(format!("anywoli-rated-{month}.anywoli.gz"));
    let r = support::run(&["export", "--check", &file.display().to_string()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("2 records"), "{}", r.stderr);
    // Read back: each record is its game's, as the site gives it.
    let bytes = std::fs::read(&file).unwrap();
    let mut text = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut text)
        .unwrap();
    let mut found = 0;
    for (game, rated) in &ids {
        let (s, record) = support::http_text(&site.addr, &format!("/api/games/{game}/record"));
        assert_eq!(s, 200);
        assert_eq!(
            text.contains(&format!("[GameId \"{game}\"]")),
            *rated,
            "{game}"
        );
        if *rated {
            assert!(text.contains(record.trim()), "{record}\nnot in\n{text}");
            found += 1;
        }
    }
    assert_eq!(found, 2);
    // The same games make the same bytes; a changed byte fails the check.
    let again = out.join("again");
    std::fs::create_dir_all(&again).unwrap();
    let r = support::run(&[
        "export",
        "--month",
        &month,
        "--db",
        &db,
        "--out",
        &again.display().to_string(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        std::fs::read(again.join(file.file_name().unwrap())).unwrap(),
        bytes
    );
    let mut damaged = bytes.clone();
    let last = damaged.len() - 9;
    damaged[last] ^= 1;
    std::fs::write(&file, damaged).unwrap();
    let r = support::run(&["export", "--check", &file.display().to_string()]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("checksum"), "{}", r.stderr);
    for bad in ["2026-13", "26-1"] {
        support::assert_fails(&["export", "--month", bad, "--db", &db], &["--month", bad]);
    }
}
