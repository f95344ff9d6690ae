use std::path::PathBuf;
use std::sync::mpsc;
use std::sync::Barrier;

use rusqlite::{params, Connection};

use super::schema::{self, SCHEMA};
use super::writer::{self, Job, Op};
use super::*;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("anywoli-store-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn game(id: &str) -> GameRow {
    GameRow {
        id: id.to_string(),
        created: 1,
        updated: 1,
        // Not "friend": a friend game in play is left out of `recent`.
        mode: "local".to_string(),
        rules: "anywoli".to_string(),
        seed: "0".to_string(),
        start: "start".to_string(),
        seats: ["human".to_string(), "human".to_string()],
        secrets: [Some("s".to_string()), None],
        status: "playing".to_string(),
        result: "*".to_string(),
        termination: None,
        rematch: None,
        tags: "[]".to_string(),
        hints: false,
        invite: None,
        revision: 0,
        engine: None,
        clock: None,
        offer: None,
        away: [None; 2],
        accounts: [None, None],
        rated: false,
        public: true,
        ratings: None,
        category: None,
    }
}

/// A change of game `id` checked against revision `expect`, at time `at`.
fn head(id: &str, expect: i64, at: i64) -> Head {
    Head {
        id: id.to_string(),
        expect,
        at,
        engine: None,
        clock: None,
        offer: None,
        away: [None; 2],
    }
}

fn playing() -> StatusRow {
    StatusRow {
        status: "playing".to_string(),
        result: "*".to_string(),
        termination: None,
        rate: None,
    }
}

fn over(result: &str, termination: Option<&str>) -> StatusRow {
    StatusRow {
        status: "over".to_string(),
        result: result.to_string(),
        termination: termination.map(str::to_string),
        rate: None,
    }
}

/// Move `ply` of a game made without moves, which has had only moves since.
fn append(store: &Store, id: &str, ply: usize) -> StoreResult<()> {
    append_at(store, id, ply, ply as i64 - 1)
}

fn append_at(store: &Store, id: &str, ply: usize, expect: i64) -> StoreResult<()> {
    store.append_move(
        head(id, expect, ply as i64),
        ply,
        &format!("m{ply}"),
        playing(),
    )
}

/// A job as the store would send it, and where its answer will arrive.
fn job(op: Op) -> (Box<dyn Job>, mpsc::Receiver<Answer>) {
    writer::job(op)
}

/// What an [`Op`] answers: whether it took effect.
type Answer = StoreResult<bool>;

fn append_op(id: &str, ply: i64) -> Op {
    append_op_at(id, ply, ply - 1)
}

fn append_op_at(id: &str, ply: i64, expect: i64) -> Op {
    Op::AppendMove {
        head: head(id, expect, ply),
        ply,
        mv: format!("m{ply}"),
        status: playing(),
    }
}

fn is_conflict(a: &Answer) -> bool {
    matches!(a, Err(StoreError::Conflict { .. }))
}

/// A database made before hints could be turned off: the column is added, friend games
/// get no hints (nobody agreed to them), the others keep theirs; reopening changes nothing.
#[test]
fn an_older_database_gains_the_hints_column() {
    let dir = scratch("migrate");
    let path = dir.join("old.sqlite");
    {
        let c = Connection::open(&path).unwrap();
        let old_schema = SCHEMA;
        c.execute_batch(old_schema).unwrap();
        for (id, mode) in [("friendgame01", "friend"), ("computer0001", "computer")] {
            c.execute(
                "INSERT INTO games (id, created, updated, mode, rules, seed, start, south,
                    north, south_secret, north_secret, status, result, termination, rematch,
                    tags)
                 VALUES (?1, 0, 0, ?2, 'anywoli', '0', 's', 'human', 'human', NULL, NULL,
                    'playing', '*', NULL, NULL, '[]')",
                params![id, mode],
            )
            .unwrap();
        }
    }
    for _ in 0..2 {
        let store = Store::open(&path).unwrap();
        assert!(!store.load("friendgame01").unwrap().unwrap().0.hints);
        assert!(store.load("computer0001").unwrap().unwrap().0.hints);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Sixteen games played at once, each from its own thread: every move is answered Ok and
/// every one is in the file when it is opened again.
#[test]
fn moves_of_many_games_at_once_are_all_stored() {
    const GAMES: usize = 16;
    const MOVES: usize = 40;
    let dir = scratch("many");
    let path = dir.join("games.sqlite");
    let store = Store::open(&path).unwrap();
    let start = Barrier::new(GAMES);
    std::thread::scope(|s| {
        for g in 0..GAMES {
            let (store, start) = (&store, &start);
            s.spawn(move || {
                let id = format!("game{g:02}");
                store.create_game(&game(&id), &[]).unwrap();
                start.wait();
                for ply in 1..=MOVES {
                    append(store, &id, ply).unwrap();
                }
                store
                    .set_status(
                        head(&id, MOVES as i64, 99),
                        over("1-0", Some("resignation")),
                    )
                    .unwrap();
            });
        }
    });
    drop(store);
    let store = Store::open(&path).unwrap();
    for g in 0..GAMES {
        let (row, moves) = store.load(&format!("game{g:02}")).unwrap().unwrap();
        let want: Vec<String> = (1..=MOVES).map(|p| format!("m{p}")).collect();
        assert_eq!(moves, want);
        assert_eq!(
            (row.status.as_str(), row.result.as_str(), row.updated),
            ("over", "1-0", 99)
        );
    }
    assert_eq!(store.recent(100).unwrap().len(), GAMES);
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
}

/// One batch: a move whose ply is already stored, and a move of a game that does not exist,
/// fail with their own errors and undo only themselves; the rest of the batch is stored and
/// keeps its own answers (a seat already taken, a rematch already made: false).
#[test]
fn a_failing_change_fails_alone_in_its_batch() {
    let dir = scratch("batch");
    let path = dir.join("games.sqlite");
    drop(Store::open(&path).unwrap());
    let mut conn = Connection::open(&path).unwrap();
    schema::set_up_writer(&conn).unwrap();
    let next = game("rematch01");
    let ops = vec![
        Op::CreateGame {
            row: game("a"),
            moves: vec!["m1".to_string()],
        },
        append_op_at("a", 2, 0),
        append_op_at("a", 2, 1),
        append_op("nope", 1),
        append_op_at("a", 3, 1),
        Op::ClaimSeat {
            head: head("a", 2, 0),
            seat: 1,
            secret: "n".to_string(),
            account: None,
        },
        Op::ClaimSeat {
            head: head("a", 3, 0),
            seat: 0,
            secret: "x".to_string(),
            account: None,
        },
        Op::CreateRematch {
            head: head("a", 3, 0),
            next: next.clone(),
        },
        Op::CreateRematch {
            head: head("a", 4, 0),
            next: game("rematch02"),
        },
        Op::CreateRematch {
            head: head("a", 3, 0),
            next: game("rematch03"),
        },
        Op::CreateGame {
            row: game("b"),
            moves: Vec::new(),
        },
    ];
    let (jobs, answers): (Vec<_>, Vec<_>) = ops.into_iter().map(job).unzip();
    writer::run_batch(&mut conn, jobs);
    let answers: Vec<Answer> = answers.iter().map(|a| a.recv().unwrap()).collect();
    let ok: Vec<Option<bool>> = answers.iter().map(|a| a.as_ref().ok().copied()).collect();
    assert_eq!(
        ok,
        [
            Some(true),
            Some(true),
            None,
            None,
            Some(true),
            Some(true),
            None,
            Some(true),
            None,
            None,
            Some(true)
        ]
    );
    for (i, why) in [
        (3, "no such game"),
        (6, "South's seat is taken"),
        (8, "a rematch exists"),
        (9, "an old revision"),
    ] {
        assert!(is_conflict(&answers[i]), "{why}: {:?}", answers[i]);
    }
    let unique = answers[2].as_ref().unwrap_err().to_string();
    assert!(unique.contains("UNIQUE"), "{unique}");
    assert!(conn.is_autocommit(), "the batch's transaction is over");
    drop(conn);

    let store = Store::open(&path).unwrap();
    let (a, moves) = store.load("a").unwrap().unwrap();
    assert_eq!(moves, ["m1", "m2", "m3"]);
    assert_eq!(a.secrets, [Some("s".to_string()), Some("n".to_string())]);
    assert_eq!(a.rematch.as_deref(), Some("rematch01"));
    assert_eq!(store.load("rematch01").unwrap().unwrap().0, next);
    assert!(store.load("rematch02").unwrap().is_none());
    assert!(store.load("rematch03").unwrap().is_none());
    assert_eq!(a.revision, 4, "two moves, a seat and a rematch");
    assert!(store.load("b").unwrap().is_some());
    assert!(store.load("nope").unwrap().is_none());
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A batch whose commit fails stores none of its changes, and every one of them is told so,
/// even those that worked inside the transaction.
#[test]
fn a_failed_commit_fails_the_whole_batch() {
    let dir = scratch("commit");
    let path = dir.join("games.sqlite");
    drop(Store::open(&path).unwrap());
    let mut conn = Connection::open(&path).unwrap();
    schema::set_up_writer(&conn).unwrap();
    // A foreign key checked only at COMMIT makes the commit itself fail.
    let ops = vec![
        Op::CreateGame {
            row: game("a"),
            moves: Vec::new(),
        },
        Op::Sql("PRAGMA defer_foreign_keys=ON"),
        Op::Sql("INSERT INTO moves (game, ply, mv, at) VALUES ('nope', 1, 'x', 0)"),
        append_op("a", 1),
    ];
    let (jobs, answers): (Vec<_>, Vec<_>) = ops.into_iter().map(job).unzip();
    writer::run_batch(&mut conn, jobs);
    for a in &answers {
        let e = a.recv().unwrap().unwrap_err().to_string();
        assert!(e.contains("FOREIGN KEY"), "{e}");
    }
    assert!(conn.is_autocommit());
    let games: i64 = conn
        .query_row("SELECT COUNT(*) FROM games", [], |r| r.get(0))
        .unwrap();
    let moves: i64 = conn
        .query_row("SELECT COUNT(*) FROM moves", [], |r| r.get(0))
        .unwrap();
    assert_eq!((games, moves), (0, 0));
    // The writer's connection works on afterwards.
    let (j, a) = job(Op::CreateGame {
        row: game("a"),
        moves: Vec::new(),
    });
    writer::run_batch(&mut conn, vec![j]);
    assert!(a.recv().unwrap().unwrap());
    drop(conn);
    let _ = std::fs::remove_dir_all(&dir);
}

/// While the writer holds a batch's transaction open, reads are answered (with the last
/// commit, not the batch's changes) and the batch's callers are not: a change is answered
/// only once its commit has returned.
#[test]
fn reads_go_on_while_a_batch_is_being_written() {
    let dir = scratch("reads");
    let store = Store::open(&dir.join("games.sqlite")).unwrap();
    store.create_game(&game("a"), &[]).unwrap();
    let (entered, entered_rx) = mpsc::sync_channel(1);
    let (resume, resume_rx) = mpsc::channel();
    std::thread::scope(|s| {
        // Owned here, so that a failed assertion drops it and lets the writer go on, and the
        // test fails instead of hanging.
        let resume = resume;
        let held = s.spawn(|| {
            store.writer.call(Op::Hold {
                first: Box::new(append_op("a", 1)),
                entered,
                resume: resume_rx,
            })
        });
        entered_rx.recv().unwrap();
        // Sent while the batch is open, so it is in the next one.
        let queued = s.spawn(|| append(&store, "a", 2));

        let (_, moves) = store.load("a").unwrap().unwrap();
        assert!(moves.is_empty(), "a read sees only what is committed");
        assert_eq!(store.recent(10).unwrap()[0].moves, 0);
        // Both readers at once, from other threads, while the writer is still held.
        let (r1, r2) = (s.spawn(|| store.load("a")), s.spawn(|| store.load("a")));
        assert!(r1.join().unwrap().unwrap().is_some());
        assert!(r2.join().unwrap().unwrap().is_some());
        assert!(!held.is_finished(), "answered before its commit");
        assert!(!queued.is_finished(), "answered before its commit");

        resume.send(()).unwrap();
        assert!(held.join().unwrap().unwrap());
        queued.join().unwrap().unwrap();
    });
    assert_eq!(store.load("a").unwrap().unwrap().1, ["m1", "m2"]);
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Reads while sixteen threads keep the writer busy: every read is answered, and what it
/// sees is a state some commit left (a game's move count never goes back).
#[test]
fn reads_are_answered_while_writers_hammer() {
    let dir = scratch("hammer");
    let store = Store::open(&dir.join("games.sqlite")).unwrap();
    for g in 0..16 {
        store.create_game(&game(&format!("g{g}")), &[]).unwrap();
    }
    std::thread::scope(|s| {
        for g in 0..16 {
            let store = &store;
            s.spawn(move || {
                for ply in 1..=30 {
                    append(store, &format!("g{g}"), ply).unwrap();
                }
            });
        }
        let mut seen = [0usize; 16];
        for i in 0..400 {
            let g = i % 16;
            let (row, moves) = store.load(&format!("g{g}")).unwrap().unwrap();
            assert!(moves.len() >= seen[g]);
            // The row and the moves are one snapshot: the row's time is its last move's.
            assert_eq!(row.updated, moves.len().max(1) as i64);
            seen[g] = moves.len();
            assert_eq!(store.recent(100).unwrap().len(), 16);
        }
    });
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Eight friends follow the same invite at once: one seat, one winner.
#[test]
fn one_claim_of_a_seat_wins() {
    for store in [
        Store::in_memory().unwrap(),
        Store::open(&scratch("claim").join("games.sqlite")).unwrap(),
    ] {
        one_claim_of_a_seat_wins_on(store);
    }
    let _ = std::fs::remove_dir_all(scratch("claim"));
}

#[test]
#[ignore = "needs PostgreSQL: ANYWOLI_TEST_POSTGRES"]
fn one_claim_of_a_seat_wins_on_postgres() {
    one_claim_of_a_seat_wins_on(Store::test_postgres("one_claim_of_a_seat_wins"));
}

fn one_claim_of_a_seat_wins_on(store: Store) {
    store.create_game(&game("a"), &[]).unwrap();
    let start = Barrier::new(8);
    let won: Vec<(usize, bool)> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..8)
            .map(|i| {
                let (store, start) = (&store, &start);
                s.spawn(move || {
                    start.wait();
                    let r = store.claim_seat(head("a", 0, 0), 1, &format!("secret{i}"), None);
                    assert!(r.is_ok() || matches!(r, Err(StoreError::Conflict { .. })));
                    (i, r.is_ok())
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let winners: Vec<usize> = won.iter().filter(|w| w.1).map(|w| w.0).collect();
    assert_eq!(winners.len(), 1, "{won:?}");
    let (row, _) = store.load("a").unwrap().unwrap();
    assert_eq!(row.secrets[1], Some(format!("secret{}", winners[0])));
}

/// Read-only refuses every change, lets reads go on, and ends when asked.
#[test]
fn read_only_refuses_changes_until_lifted() {
    let dir = scratch("readonly");
    for store in [
        Store::in_memory().unwrap(),
        Store::open(&dir.join("games.sqlite")).unwrap(),
    ] {
        read_only_refuses_changes_until_lifted_on(store);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[ignore = "needs PostgreSQL: ANYWOLI_TEST_POSTGRES"]
fn read_only_refuses_changes_until_lifted_on_postgres() {
    read_only_refuses_changes_until_lifted_on(Store::test_postgres(
        "read_only_refuses_changes_until_lifted",
    ));
}

fn read_only_refuses_changes_until_lifted_on(store: Store) {
    store.create_game(&game("a"), &[]).unwrap();
    store.set_read_only(true).unwrap();
    let e = append(&store, "a", 1).unwrap_err().to_string();
    assert!(e.contains("readonly") || e.contains("read-only"), "{e}");
    assert!(store.create_game(&game("b"), &[]).is_err());
    assert!(store.claim_seat(head("a", 0, 0), 1, "n", None).is_err());
    assert!(store.load("a").unwrap().unwrap().1.is_empty());
    assert_eq!(store.recent(10).unwrap().len(), 1);
    store.set_read_only(false).unwrap();
    append(&store, "a", 1).unwrap();
    assert_eq!(store.load("a").unwrap().unwrap().1, ["m1"]);
}

/// Changes queued when the store is dropped are committed and answered before the drop
/// returns.
#[test]
fn dropping_the_store_finishes_what_is_queued() {
    let dir = scratch("drop");
    let path = dir.join("games.sqlite");
    let store = Store::open(&path).unwrap();
    let mut answers = Vec::new();
    let (j, a) = job(Op::CreateGame {
        row: game("a"),
        moves: Vec::new(),
    });
    store.writer.send(j).unwrap();
    answers.push(a);
    for ply in 1..=100 {
        let (j, a) = job(append_op("a", ply));
        store.writer.send(j).unwrap();
        answers.push(a);
    }
    drop(store);
    for a in answers {
        assert!(a.try_recv().unwrap().unwrap());
    }
    let store = Store::open(&path).unwrap();
    assert_eq!(store.load("a").unwrap().unwrap().1.len(), 100);
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every public method, with the same answers from both backends.
fn exercise(store: &Store) {
    let mut a = game("a");
    a.hints = true;
    store
        .create_game(&a, &["m1".to_string(), "m2".to_string()])
        .unwrap();
    assert_eq!(
        store.load("a").unwrap(),
        Some((a.clone(), vec!["m1".to_string(), "m2".to_string()]))
    );
    assert!(store.load("none").unwrap().is_none());
    assert!(store.create_game(&a, &[]).is_err(), "the id is taken");
    append_at(store, "a", 3, 0).unwrap();
    let e = append_at(store, "a", 3, 1).unwrap_err();
    assert!(
        !matches!(e, StoreError::Conflict { .. }),
        "ply 3 is stored: {e}"
    );
    assert!(matches!(
        append_at(store, "a", 4, 0),
        Err(StoreError::Conflict { .. })
    ));
    assert!(matches!(
        append(store, "nope", 1),
        Err(StoreError::Conflict { .. })
    ));
    store.truncate_moves(head("a", 1, 10), 1).unwrap();
    let (row, moves) = store.load("a").unwrap().unwrap();
    assert_eq!(moves, ["m1"]);
    assert_eq!(row.updated, 10);
    store
        .set_status(head("a", 2, 11), over("1-0", Some("resignation")))
        .unwrap();
    let (row, _) = store.load("a").unwrap().unwrap();
    assert_eq!(
        (
            row.status.as_str(),
            row.result.as_str(),
            row.termination.as_deref()
        ),
        ("over", "1-0", Some("resignation"))
    );
    store.claim_seat(head("a", 3, 12), 1, "n", None).unwrap();
    let updated = store.load("a").unwrap().unwrap().0.updated;
    assert_eq!(
        updated, 12,
        "a seat's claim is the time its first move is due from"
    );
    assert!(store.claim_seat(head("a", 4, 0), 1, "m", None).is_err());
    assert!(
        store.claim_seat(head("a", 4, 0), 0, "m", None).is_err(),
        "South has its secret"
    );
    let next = game("b");
    store.create_rematch(head("a", 4, 0), &next).unwrap();
    assert!(store.create_rematch(head("a", 5, 0), &game("c")).is_err());
    assert!(store.load("c").unwrap().is_none());
    assert_eq!(store.load("b").unwrap().unwrap().0, next);
    let mut friend = game("f");
    friend.mode = "friend".to_string();
    friend.updated = 50;
    friend.invite = Some("tok".to_string());
    friend.public = false;
    store.create_game(&friend, &[]).unwrap();
    let ids = |s: &Store| -> Vec<(String, i64)> {
        s.recent(10)
            .unwrap()
            .into_iter()
            .map(|g| (g.id, g.moves))
            .collect()
    };
    assert_eq!(
        ids(store),
        [("a".to_string(), 1), ("b".to_string(), 0)],
        "a live friend game is unlisted"
    );
    store
        .set_status(head("f", 0, 60), over("0-1", None))
        .unwrap();
    assert_eq!(ids(store)[0], ("f".to_string(), 0));
    assert_eq!(store.recent(1).unwrap().len(), 1);
    assert_eq!(
        store.load("f").unwrap().unwrap().0.invite.as_deref(),
        Some("tok")
    );
    // Every id, a page at a time, in byte order (upper case first), live friend games too.
    store.create_game(&game("Z"), &[]).unwrap();
    assert_eq!(store.ids_after("", 2).unwrap(), ["Z", "a"]);
    assert_eq!(store.ids_after("a", 2).unwrap(), ["b", "f"]);
    assert_eq!(store.ids_after("f", 2).unwrap(), Vec::<String>::new());
    assert_eq!(store.ids_after("", 10).unwrap(), ["Z", "a", "b", "f"]);

    // Watch lists a game in play only if it changed lately, a correspondence game whatever
    // (issue 36: dead games were listed for ever).
    let mut fresh = game("w");
    fresh.updated = 1_000;
    store.create_game(&fresh, &[]).unwrap();
    let mut slow = game("v");
    slow.updated = 10;
    slow.category = Some("correspondence".to_string());
    store.create_game(&slow, &[]).unwrap();
    let live = |since: i64| -> Vec<String> {
        let mut ids: Vec<String> = store
            .list(&Listing::Live {
                limit: 10,
                active_since: since,
            })
            .unwrap()
            .into_iter()
            .map(|g| g.id)
            .collect();
        ids.sort();
        ids
    };
    assert_eq!(live(500), ["v", "w"], "a, b and Z last changed before 500");
    assert_eq!(live(0), ["Z", "b", "v", "w"], "a ended");
}

#[test]
fn every_method_behaves_alike_on_sqlite() {
    exercise(&Store::in_memory().unwrap());
}

#[test]
#[ignore = "needs PostgreSQL: ANYWOLI_TEST_POSTGRES"]
fn every_method_behaves_alike_on_postgres() {
    exercise(&Store::test_postgres(
        "every_method_behaves_alike_on_postgres",
    ));
}

/// PostgreSQL's writer: a batch held open while ten changes queue up runs them in one
/// transaction, where the failing ones fail alone (as SQLite's `run_batch` test shows).
#[test]
#[ignore = "needs PostgreSQL: ANYWOLI_TEST_POSTGRES"]
fn a_failing_change_fails_alone_in_a_postgres_batch() {
    let store = Store::test_postgres("a_failing_change_fails_alone_in_a_postgres_batch");
    let (entered_tx, entered) = mpsc::sync_channel(1);
    let (resume, resume_rx) = mpsc::channel();
    let (hold, held) = job(Op::Hold {
        first: Box::new(Op::CreateGame {
            row: game("first"),
            moves: Vec::new(),
        }),
        entered: entered_tx,
        resume: resume_rx,
    });
    store.writer.send(hold).unwrap();
    entered.recv().unwrap();
    let ops = vec![
        Op::CreateGame {
            row: game("a"),
            moves: vec!["m1".to_string()],
        },
        append_op_at("a", 2, 0),
        append_op_at("a", 2, 1),
        append_op("nope", 1),
        append_op_at("a", 3, 1),
        Op::ClaimSeat {
            head: head("a", 2, 0),
            seat: 0,
            secret: "x".to_string(),
            account: None,
        },
        Op::CreateRematch {
            head: head("a", 2, 0),
            next: game("r1"),
        },
        Op::CreateRematch {
            head: head("a", 3, 0),
            next: game("r2"),
        },
    ];
    let mut answers = Vec::new();
    for op in ops {
        let (j, a) = job(op);
        store.writer.send(j).unwrap();
        answers.push(a);
    }
    resume.send(()).unwrap();
    assert!(held.recv().unwrap().unwrap());
    let answers: Vec<Answer> = answers.iter().map(|a| a.recv().unwrap()).collect();
    let ok: Vec<Option<bool>> = answers.iter().map(|a| a.as_ref().ok().copied()).collect();
    assert_eq!(
        ok,
        [
            Some(true),
            Some(true),
            None,
            None,
            Some(true),
            None,
            Some(true),
            None
        ]
    );
    let unique = answers[2].as_ref().unwrap_err().to_string();
    assert!(unique.contains("unique"), "{unique}");
    for i in [3, 5, 7] {
        assert!(is_conflict(&answers[i]), "{:?}", answers[i]);
    }
    assert_eq!(store.load("a").unwrap().unwrap().1, ["m1", "m2", "m3"]);
    assert!(store.load("r1").unwrap().is_some());
    assert!(store.load("r2").unwrap().is_none());
    assert!(store.load("first").unwrap().is_some());
}

/// Two stores opening one fresh PostgreSQL schema at once: the advisory lock lets one
/// migrate, the other finds the schema made.
#[test]
#[ignore = "needs PostgreSQL: ANYWOLI_TEST_POSTGRES"]
fn postgres_migrations_run_once() {
    let store = Store::test_postgres("postgres_migrations_run_once");
    store.create_game(&game("a"), &[]).unwrap();
    let url = std::env::var("ANYWOLI_TEST_POSTGRES").unwrap();
    // Reopening the same database (its public schema) twice at once, then once more.
    let opened: Vec<StoreResult<Store>> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..2)
            .map(|_| s.spawn(|| Store::open_postgres(&url)))
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for s in opened {
        s.unwrap();
    }
    Store::open_postgres(&url).unwrap();
}

#[test]
fn a_postgres_url_is_shown_without_its_password() {
    let label = |s: &str| db_label(Path::new(s));
    assert_eq!(
        label("postgres://me:secret@db.example:5432/games?sslmode=disable"),
        "postgres://me:***@db.example:5432/games?sslmode=disable"
    );
    assert_eq!(
        label("postgresql://me@db/games"),
        "postgresql://me@db/games"
    );
    assert_eq!(label("games.sqlite"), "games.sqlite");
    assert!(is_postgres_url("postgresql://x") && !is_postgres_url("postgres.sqlite"));
}

/// PostgreSQL restarted (here: the store's connections cut): the read that meets the loss is
/// retried on a new connection, the change fails at most once, and the ones after it work.
#[test]
#[ignore = "needs PostgreSQL: ANYWOLI_TEST_POSTGRES"]
fn a_lost_postgres_connection_is_made_again() {
    let store = Store::test_postgres("a_lost_postgres_connection_is_made_again");
    store.create_game(&game("a"), &[]).unwrap();
    let name = store._scratch.as_ref().unwrap().name.clone();
    let url = std::env::var("ANYWOLI_TEST_POSTGRES").unwrap();
    std::thread::spawn(move || {
        let mut c = ::postgres::Client::connect(&url, ::postgres::NoTls).unwrap();
        let cut = c
            .query(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                 WHERE application_name = $1",
                &[&name],
            )
            .unwrap();
        assert_eq!(cut.len(), 1 + pg::READERS, "the writer and the readers");
    })
    .join()
    .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(200));
    for _ in 0..pg::READERS + 1 {
        assert!(store.load("a").unwrap().is_some());
    }
    assert_eq!(store.recent(5).unwrap().len(), 1);
    if append(&store, "a", 1).is_err() {
        append(&store, "a", 1).unwrap();
    }
    append(&store, "a", 2).unwrap();
    assert_eq!(store.load("a").unwrap().unwrap().1, ["m1", "m2"]);
}

/// Engine claims: written with a change, read back, granted to one instance at a time, taken
/// over only once they ran out, and listed when due.
#[test]
fn engine_claims_go_to_one_instance_at_a_time() {
    engine_claims_go_to_one_instance_at_a_time_on(Store::in_memory().unwrap());
}

#[test]
#[ignore = "needs PostgreSQL: ANYWOLI_TEST_POSTGRES"]
fn engine_claims_go_to_one_instance_at_a_time_on_postgres() {
    engine_claims_go_to_one_instance_at_a_time_on(Store::test_postgres(
        "engine_claims_go_to_one_instance_at_a_time",
    ));
}

fn engine_claims_go_to_one_instance_at_a_time_on(store: Store) {
    let mut g = game("a");
    g.engine = Some(EngineClaim {
        owner: "other".to_string(),
        until: 1_000,
    });
    store.create_game(&g, &[]).unwrap();
    assert_eq!(store.load("a").unwrap().unwrap().0.engine, g.engine);
    assert!(store.due(999, 10).unwrap().is_empty());
    assert_eq!(store.due(1_001, 10).unwrap(), ["a"]);
    assert!(
        !store.claim_engine("a", 0, 999, 5_000).unwrap(),
        "the other's claim holds until 1000"
    );
    assert!(
        !store.claim_engine("a", 1, 2_000, 5_000).unwrap(),
        "not at revision 1"
    );
    assert!(store.claim_engine("a", 0, 2_000, 5_000).unwrap());
    let claim = store.load("a").unwrap().unwrap().0.engine.unwrap();
    assert_eq!(
        (claim.owner.as_str(), claim.until),
        (store.instance(), 5_000)
    );
    assert_eq!(store.load("a").unwrap().unwrap().0.revision, 0, "no change");
    assert!(store.due(4_000, 10).unwrap().is_empty());
    // A change sets the claim to what it says: here nobody's (a person's turn).
    append(&store, "a", 1).unwrap();
    let row = store.load("a").unwrap().unwrap().0;
    assert_eq!((row.revision, row.engine), (1, None));
    assert!(store.due(i64::MAX, 10).unwrap().is_empty());
}

/// Two instances on one PostgreSQL database: a change through one is heard by the other (and
/// not by itself), after its commit; a change checked against an old revision is refused.
#[test]
#[ignore = "needs PostgreSQL: ANYWOLI_TEST_POSTGRES"]
fn postgres_instances_hear_each_others_changes() {
    let (a, b) = Store::test_postgres_pair("postgres_instances_hear_each_others_changes");
    assert!(a.is_shared() && b.is_shared());
    assert_ne!(a.instance(), b.instance());
    let (heard_a, on_a) = mpsc::channel();
    let (heard_b, on_b) = mpsc::channel();
    a.listen(move |c| {
        let _ = heard_a.send(c);
    })
    .unwrap();
    b.listen(move |c| {
        let _ = heard_b.send(c);
    })
    .unwrap();
    a.create_game(&game("g1"), &[]).unwrap();
    append(&a, "g1", 1).unwrap();
    let wait = std::time::Duration::from_secs(10);
    let moved = |ply: i64| Heard {
        id: "g1".to_string(),
        revision: ply,
        mv: Some(HeardMove {
            ply,
            mv: format!("m{ply}"),
            at: ply,
            engine: None,
            clock: None,
        }),
    };
    assert_eq!(
        on_b.recv_timeout(wait).unwrap(),
        Changed::Games(vec![moved(1)])
    );
    // B is behind no more once it reads the game; its change from the old revision fails.
    assert!(matches!(
        append_at(&b, "g1", 2, 0),
        Err(StoreError::Conflict { .. })
    ));
    append(&b, "g1", 2).unwrap();
    assert_eq!(
        on_a.recv_timeout(wait).unwrap(),
        Changed::Games(vec![moved(2)])
    );
    // A change other than a move says only the revision it brought the game to.
    b.set_status(head("g1", 2, 3), over("1-0", None)).unwrap();
    assert_eq!(
        on_a.recv_timeout(wait).unwrap(),
        Changed::Games(vec![Heard {
            id: "g1".to_string(),
            revision: 3,
            mv: None
        }])
    );
    assert_eq!(a.load("g1").unwrap().unwrap().1, ["m1", "m2"]);
    // Neither heard its own change, nor the refused one.
    assert!(on_a
        .recv_timeout(std::time::Duration::from_millis(300))
        .is_err());
    assert!(on_b.try_recv().is_err());
    drop(b);
    drop(a);
}

/// The announcement of a big batch is split under PostgreSQL's payload limit, and read back
/// whole; a line that is not an announcement is passed over.
#[test]
fn announcements_fit_postgres_payloads() {
    let changes: Vec<Heard> = (0..2_000)
        .map(|i| Heard {
            id: format!("game{i:08}"),
            revision: i,
            mv: (i % 3 != 0).then(|| HeardMove {
                ply: i + 1,
                mv: "e".to_string(),
                at: 1_796_000_000_000 + i,
                engine: (i % 2 == 0).then(|| EngineClaim {
                    owner: "0a1b2c3d4e5f".to_string(),
                    until: 1_796_000_010_000,
                }),
                clock: (i % 5 == 0).then(|| ClockRow {
                    control: "5+3".to_string(),
                    left: [299_000 - i, 300_000],
                    since: (i % 10 == 0).then_some(1_796_000_000_000 + i),
                    deadline: (i % 10 == 0).then_some(1_796_000_300_500 + i),
                }),
            }),
        })
        .collect();
    let lines: Vec<String> = changes.iter().map(Heard::line).collect();
    let payloads = pg::payloads("me", &lines);
    assert!(payloads.len() > 1);
    let mut back = Vec::new();
    for p in &payloads {
        assert!(p.len() <= 8_000, "{}", p.len());
        assert_eq!(pg::heard(p, "me"), None, "its own");
        back.extend(pg::heard(p, "other").unwrap());
    }
    assert_eq!(back, changes);
    assert_eq!(pg::heard("other\ngarbage\ng1 2", "me").unwrap().len(), 1);
}

/// TLS to PostgreSQL as the URL's `sslmode` says, with libpq's meanings: none with `disable`,
/// unchecked with `prefer` and `require`, the chain with `verify-ca`, chain and host name with
/// `verify-full`; a certificate no trusted root signed, or for another name, is refused.
#[test]
#[ignore = "needs PostgreSQL: ANYWOLI_TEST_POSTGRES"]
fn postgres_over_tls_as_sslmode_says() {
    let url = test_postgres_env("postgres_over_tls_as_sslmode_says");
    let plain = pg::tls::Target::parse(&format!("{url}?sslmode=disable")).unwrap();
    let (ssl, cert) = std::thread::spawn(move || {
        let mut c = plain.connect().unwrap();
        let ssl: String = c.query_one("SHOW ssl", &[]).unwrap().get(0);
        let cert: String = c.query_one("SHOW ssl_cert_file", &[]).unwrap().get(0);
        (ssl == "on", cert)
    })
    .join()
    .unwrap();
    assert!(
        ssl && std::fs::File::open(&cert).is_ok(),
        "this test's PostgreSQL must have TLS on with a readable certificate {cert} (Debian's has, with the snakeoil one)"
    );
    let sep = if url.contains('?') { '&' } else { '?' };
    let with = |params: &str| format!("{url}{sep}{params}");
    // Whether the connection uses TLS; Err if it could not be made.
    let tls_of = |url: String| -> Result<bool, String> {
        std::thread::spawn(move || {
            let target = pg::tls::Target::parse(&url).map_err(|e| e.to_string())?;
            let mut c = target.connect().map_err(|e| e.to_string())?;
            let row = c
                .query_one(
                    "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
                    &[],
                )
                .map_err(|e| e.to_string())?;
            Ok(row.get(0))
        })
        .join()
        .unwrap()
    };
    assert_eq!(tls_of(with("sslmode=disable")), Ok(false));
    assert_eq!(tls_of(url.clone()), Ok(true), "prefer is the default");
    assert_eq!(tls_of(with("sslmode=require")), Ok(true));
    let root = format!("sslrootcert={cert}");
    assert_eq!(tls_of(with(&format!("sslmode=verify-ca&{root}"))), Ok(true));
    assert_eq!(
        tls_of(with(&format!("sslmode=require&{root}"))),
        Ok(true),
        "require with a root checks the chain"
    );
    // Another root (the first of the system's bundle) did not sign it.
    let bundle = std::fs::read_to_string("/etc/ssl/certs/ca-certificates.crt").unwrap_or_default();
    if let Some(end) = bundle.find("-----END CERTIFICATE-----") {
        let other = scratch("tls-root").join("other.pem");
        std::fs::write(&other, &bundle[..end + 25]).unwrap();
        let refused = tls_of(with(&format!(
            "sslmode=verify-ca&sslrootcert={}",
            other.display()
        )))
        .expect_err("a root that did not sign the certificate");
        assert!(refused.contains("certificate"), "{refused}");
    }
    // Debian's certificate names a host (`localhost`, or the machine's name when the package
    // was installed), not the address: refused by address, taken by its name, reached at the
    // same address through `hostaddr`.
    if let (Some(name), true) = (certificate_name(&cert), url.contains("@127.0.0.1:")) {
        let refused = tls_of(with(&format!("sslmode=verify-full&{root}")))
            .expect_err("the certificate is not for 127.0.0.1");
        assert!(refused.contains("certificate"), "{refused}");
        let by_name = url.replacen("@127.0.0.1:", &format!("@{name}:"), 1);
        assert_eq!(
            tls_of(format!(
                "{by_name}{sep}hostaddr=127.0.0.1&sslmode=verify-full&{root}"
            )),
            Ok(true)
        );
    }
    let bad = pg::tls::Target::parse(&with("sslmode=sometimes"))
        .err()
        .unwrap()
        .to_string();
    assert!(bad.contains("sslmode \"sometimes\""), "{bad}");
    // The whole store, over TLS.
    let store = Store::open_postgres(&with("sslmode=require")).unwrap();
    assert!(store.is_shared());
    assert!(store.ids_after("", 1).is_ok());
}

/// The first DNS name of a certificate file, from `openssl` (`None` without it).
fn certificate_name(cert: &str) -> Option<String> {
    let out = std::process::Command::new("openssl")
        .args(["x509", "-noout", "-ext", "subjectAltName", "-in", cert])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let name = text
        .split([',', ' ', '\n'])
        .find_map(|w| w.trim().strip_prefix("DNS:"))?;
    Some(name.to_string())
}

/// A game's clocks are stored with it, changed by each change, and a deadline that passed
/// makes the game due.
#[test]
fn clocks_are_stored_and_deadlines_come_due() {
    clocks_are_stored_and_deadlines_come_due_on(Store::in_memory().unwrap());
}

#[test]
#[ignore = "needs PostgreSQL: ANYWOLI_TEST_POSTGRES"]
fn clocks_are_stored_and_deadlines_come_due_on_postgres() {
    clocks_are_stored_and_deadlines_come_due_on(Store::test_postgres(
        "clocks_are_stored_and_deadlines_come_due",
    ));
}

fn clocks_are_stored_and_deadlines_come_due_on(store: Store) {
    let mut g = game("c");
    g.clock = Some(ClockRow {
        control: "1+0".to_string(),
        left: [60_000, 60_000],
        since: None,
        deadline: None,
    });
    store.create_game(&g, &[]).unwrap();
    assert_eq!(store.load("c").unwrap().unwrap().0.clock, g.clock);
    let running = ClockRow {
        control: "1+0".to_string(),
        left: [60_000, 59_000],
        since: Some(10_000),
        deadline: Some(70_500),
    };
    let mut h = head("c", 0, 10_000);
    h.clock = Some(running.clone());
    store.append_move(h, 1, "m1", playing()).unwrap();
    assert_eq!(store.load("c").unwrap().unwrap().0.clock, Some(running));
    assert!(store.due(70_000, 10).unwrap().is_empty());
    assert_eq!(store.due(70_501, 10).unwrap(), ["c"]);
    // The game ends: no deadline, nothing due.
    let mut h = head("c", 1, 71_000);
    h.clock = Some(ClockRow {
        control: "1+0".to_string(),
        left: [0, 59_000],
        since: None,
        deadline: None,
    });
    store.set_status(h, over("0-1", Some("time"))).unwrap();
    assert!(store.due(i64::MAX, 10).unwrap().is_empty());
    assert_eq!(
        store.load("c").unwrap().unwrap().0.clock.unwrap().left,
        [0, 59_000]
    );
}
