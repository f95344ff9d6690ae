//! `anywoli backup` against a running `anywoli serve` that keeps acknowledging moves, and the
//! restore that docs/hosting.md describes: stop the server, put the copy in place of the
//! database (without its `-wal` and `-shm`), start the server.

use crate::support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::http;

/// Each game's moves, by id.
type Games = BTreeMap<String, Vec<String>>;

fn scratch(name: &str) -> PathBuf {
    support::scratch(&format!("backup-{name}"))
}

/// A server process, killed if a failed assertion leaves it running.
struct Server {
    child: Child,
    addr: String,
}

impl Server {
    fn start(db: &Path) -> Server {
        let (child, addr) = support::serve::<&str>(db, &[]);
        Server { child, addr }
    }

    /// Stops the server as Ctrl-C does and waits for it to exit.
    fn stop(mut self) {
        let pid = self.child.id().to_string();
        let status = Command::new("kill").args(["-INT", &pid]).status().unwrap();
        assert!(status.success());
        let deadline = Instant::now() + Duration::from_secs(15);
        while self.child.try_wait().unwrap().is_none() {
            assert!(
                Instant::now() < deadline,
                "the server did not stop on SIGINT"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn http(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        http(&self.addr, method, path, body)
    }

    /// Every game the server has, with its moves; each must load (its moves replay).
    fn games(&self) -> Games {
        let (s, list) = self.http("GET", "/api/games?limit=200", None);
        assert_eq!(s, 200, "{list}");
        let list = list["games"].as_array().unwrap();
        assert!(list.len() < 200, "the test must see every game");
        let mut games = Games::new();
        for summary in list {
            let id = summary["id"].as_str().unwrap();
            let (s, g) = self.http("GET", &format!("/api/games/{id}"), None);
            assert_eq!(s, 200, "game {id} does not load: {g}");
            assert_eq!(g["moves"].as_array().unwrap().len() as u64, g["ply"]);
            games.insert(id.to_string(), strings(&g["moves"]));
        }
        games
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect()
}

/// A game on one screen: its id, the secret that holds both seats, and the game as last seen.
struct Game {
    id: String,
    secret: String,
    game: Value,
}

fn create(addr: &str) -> Game {
    let (s, v) = http(addr, "POST", "/api/games", Some(json!({"mode": "local"})));
    assert_eq!(s, 201, "{v}");
    Game {
        id: v["game"]["id"].as_str().unwrap().to_string(),
        secret: v["secret"].as_str().unwrap().to_string(),
        game: v["game"].clone(),
    }
}

/// Plays the `k`-th legal move (cyclically); false when the game is over. The game's moves are
/// recorded in `acked` only once the server has answered, i.e. once they are stored.
fn play(addr: &str, g: &mut Game, k: usize, acked: &Mutex<Games>) -> bool {
    let legal = strings(&g.game["legal"]);
    if legal.is_empty() {
        return false;
    }
    let mv = &legal[k % legal.len()];
    let (s, r) = http(
        addr,
        "POST",
        &format!("/api/games/{}/moves", g.id),
        Some(json!({"move": mv, "secret": g.secret, "ply": g.game["ply"]})),
    );
    assert_eq!(s, 200, "{r}");
    g.game = r["game"].clone();
    acked
        .lock()
        .unwrap()
        .insert(g.id.clone(), strings(&g.game["moves"]));
    true
}

fn backup(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_anywoli"))
        .arg("backup")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn is_prefix(short: &[String], long: &[String]) -> bool {
    long.len() >= short.len() && long[..short.len()] == *short
}

#[test]
fn a_backup_taken_while_moves_are_played_restores_every_acknowledged_move() {
    let dir = scratch("live");
    let db = dir.join("games.sqlite");
    let server = Server::start(&db);
    let addr = server.addr.clone();
    let acked = Arc::new(Mutex::new(Games::new()));

    let mut games: Vec<Game> = (0..6).map(|_| create(&addr)).collect();
    // Imports with long tags make the database a few MiB, so that the backup takes several
    // steps and the server writes between them: a copy that is not one snapshot would show.
    for i in 0..4 {
        let record = format!("[Event \"{}\"]\n\ne F *\n", "x".repeat(700_000 + i));
        let (s, v) = http(
            &addr,
            "POST",
            "/api/import",
            Some(json!({ "record": record })),
        );
        assert_eq!(s, 201, "{v}");
        games.push(Game {
            id: v["game"]["id"].as_str().unwrap().to_string(),
            secret: v["secret"].as_str().unwrap().to_string(),
            game: v["game"].clone(),
        });
    }
    for (i, g) in games.iter_mut().enumerate() {
        acked
            .lock()
            .unwrap()
            .insert(g.id.clone(), strings(&g.game["moves"]));
        for k in 0..2 + 2 * i {
            play(&addr, g, k, &acked);
        }
    }

    // Another thread plays on every game, and starts new ones, until told to stop.
    let stop = Arc::new(AtomicBool::new(false));
    let moves_played = Arc::new(AtomicUsize::new(0));
    let mover = {
        let (addr, acked) = (addr.clone(), Arc::clone(&acked));
        let (stop, moves_played) = (Arc::clone(&stop), Arc::clone(&moves_played));
        std::thread::spawn(move || {
            let mut k = 0;
            while !stop.load(Ordering::SeqCst) {
                k += 1;
                if k % 10 == 0 {
                    let g = create(&addr);
                    acked.lock().unwrap().insert(g.id.clone(), Vec::new());
                    games.push(g);
                }
                let i = k % games.len();
                if play(&addr, &mut games[i], k / 3, &acked) {
                    moves_played.fetch_add(1, Ordering::SeqCst);
                } else {
                    games.swap_remove(i);
                    games.push(create(&addr));
                }
            }
            games
        })
    };
    let wait_for_moves = |n: usize| {
        let deadline = Instant::now() + Duration::from_secs(60);
        while moves_played.load(Ordering::SeqCst) < n {
            assert!(!mover.is_finished(), "the thread playing moves failed");
            assert!(
                Instant::now() < deadline,
                "the server stopped answering moves"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    };
    wait_for_moves(10);

    // Everything acknowledged before the backup starts must be in the copy.
    let before = acked.lock().unwrap().clone();
    let moves_at_start = moves_played.load(Ordering::SeqCst);
    let started = Instant::now();
    let out = backup(&dir, &["--db", "games.sqlite", "copy.sqlite"]);
    let took = started.elapsed();
    let moves_during = moves_played.load(Ordering::SeqCst) - moves_at_start;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    eprintln!(
        "backup took {took:?} while the server acknowledged {moves_during} moves: {}",
        stdout.trim()
    );
    // The server is not held up by the backup: it goes on acknowledging moves after it.
    wait_for_moves(moves_played.load(Ordering::SeqCst) + 5);
    stop.store(true, Ordering::SeqCst);
    let games = mover.join().expect("the thread playing moves failed");
    let live = server.games();

    let n: usize = stdout
        .strip_prefix("backed up ")
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {stdout:?}"));
    assert_eq!(
        stdout,
        format!("backed up {n} games from games.sqlite to copy.sqlite (integrity check ok)\n")
    );
    assert!(stderr.is_empty(), "{stderr}");

    // The restore of docs/hosting.md, by the letter.
    server.stop();
    std::fs::copy(dir.join("copy.sqlite"), &db).unwrap();
    for sidecar in ["games.sqlite-wal", "games.sqlite-shm"] {
        let _ = std::fs::remove_file(dir.join(sidecar));
    }
    let restored_server = Server::start(&db);
    let restored = restored_server.games();

    // And a server on the backup file itself.
    let copy_server = Server::start(&dir.join("copy.sqlite"));
    let copy = copy_server.games();
    drop(copy_server);

    assert_eq!(copy.len(), n, "the count the backup printed");
    for (id, moves) in &before {
        let kept = copy
            .get(id)
            .unwrap_or_else(|| panic!("game {id}, acknowledged before the backup, is missing"));
        assert!(
            is_prefix(moves, kept),
            "game {id}: {moves:?} were acknowledged before the backup, the copy has {kept:?}"
        );
    }
    for (id, moves) in &copy {
        let now = live
            .get(id)
            .unwrap_or_else(|| panic!("game {id} is in the copy but not in the database"));
        assert!(
            is_prefix(moves, now),
            "game {id}: the copy's {moves:?} never were the game (it is now {now:?})"
        );
    }
    assert_eq!(restored, copy, "the restored database is the copy");
    assert_ne!(
        restored, live,
        "moves played after the backup must not be in the restored database"
    );

    // The restored games go on from where the copy left them.
    let mut g = games
        .into_iter()
        .find(|g| restored.get(&g.id).is_some_and(|m| !m.is_empty()))
        .expect("a game with moves in the copy");
    let (s, v) = restored_server.http("GET", &format!("/api/games/{}", g.id), None);
    assert_eq!(s, 200, "{v}");
    g.game = v;
    let before_move = restored[&g.id].clone();
    if play(&restored_server.addr, &mut g, 0, &acked) {
        let after = &acked.lock().unwrap()[&g.id];
        assert_eq!(after[..after.len() - 1], before_move[..]);
    }
    restored_server.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_existing_file_is_replaced_only_with_force() {
    let dir = scratch("force");
    let server = Server::start(&dir.join("games.sqlite"));
    let acked = Mutex::new(Games::new());
    let mut g = create(&server.addr);
    play(&server.addr, &mut g, 0, &acked);
    std::fs::write(dir.join("old.sqlite"), "an older backup").unwrap();
    let listing = files(&dir);

    let out = backup(&dir, &["--db", "games.sqlite", "old.sqlite"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: old.sqlite already exists (--force overwrites it)\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("old.sqlite")).unwrap(),
        "an older backup"
    );
    assert_eq!(files(&dir), listing, "nothing written");

    let out = backup(&dir, &["--db", "games.sqlite", "--force", "old.sqlite"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "backed up 1 game from games.sqlite to old.sqlite (integrity check ok)\n"
    );
    let bytes = std::fs::read(dir.join("old.sqlite")).unwrap();
    assert!(bytes.starts_with(b"SQLite format 3\0"));
    assert_eq!(files(&dir), listing, "no temporary file left");

    // The copy is not the live database: replacing that would lose games.
    let out = backup(&dir, &["--db", "games.sqlite", "--force", "./games.sqlite"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("is the database") && err.lines().count() == 1,
        "{err}"
    );
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_missing_database_is_an_error_and_writes_nothing() {
    let dir = scratch("missing");
    for (args, message) in [
        (
            &["--db", "nope.sqlite", "copy.sqlite"][..],
            "error: no database at nope.sqlite\n",
        ),
        // The default --db, as `anywoli serve`'s.
        (
            &["copy.sqlite"][..],
            "error: no database at anywoli.sqlite\n",
        ),
    ] {
        let out = backup(&dir, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty());
        assert_eq!(String::from_utf8_lossy(&out.stderr), message);
        assert!(files(&dir).is_empty(), "{:?}", files(&dir));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
