//! The writer's batches: changes of many games in one transaction, a failing change failing
//! alone, a failed commit failing them all, reads going on meanwhile, read-only mode.

use super::*;

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
        GameOp::CreateGame {
            row: game("a"),
            moves: vec!["m1".to_string()],
        },
        append_op_at("a", 2, 0),
        append_op_at("a", 2, 1),
        append_op("nope", 1),
        append_op_at("a", 3, 1),
        GameOp::ClaimSeat {
            head: head("a", 2, 0),
            seat: 1,
            secret: "n".to_string(),
            account: None,
        },
        GameOp::ClaimSeat {
            head: head("a", 3, 0),
            seat: 0,
            secret: "x".to_string(),
            account: None,
        },
        GameOp::CreateRematch {
            head: head("a", 3, 0),
            next: next.clone(),
        },
        GameOp::CreateRematch {
            head: head("a", 4, 0),
            next: game("rematch02"),
        },
        GameOp::CreateRematch {
            head: head("a", 3, 0),
            next: game("rematch03"),
        },
        GameOp::CreateGame {
            row: game("b"),
            moves: Vec::new(),
        },
    ];
    let (jobs, answers): (Vec<_>, Vec<_>) = ops.into_iter().map(job).unzip();
    writer::run_batch(&mut conn, jobs);
    let answers: Vec<Answer> = answers.iter().map(|a| a.recv().unwrap()).collect();
    let ok: Vec<Option<bool>> = answers
        .iter()
        .map(|a| a.as_ref().ok().map(|d| d.took))
        .collect();
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
    let jobs = vec![
        job(GameOp::CreateGame {
            row: game("a"),
            moves: Vec::new(),
        }),
        job(RunSql("PRAGMA defer_foreign_keys=ON")),
        job(RunSql(
            "INSERT INTO moves (game, ply, mv, at) VALUES ('nope', 1, 'x', 0)",
        )),
        job(append_op("a", 1)),
    ];
    let (jobs, answers): (Vec<_>, Vec<_>) = jobs.into_iter().unzip();
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
    let (j, a) = job(GameOp::CreateGame {
        row: game("a"),
        moves: Vec::new(),
    });
    writer::run_batch(&mut conn, vec![j]);
    assert!(a.recv().unwrap().unwrap().took);
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
            store.writer.call(Hold {
                first: append_op("a", 1),
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
        assert!(held.join().unwrap().unwrap().took);
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
    let (j, a) = job(GameOp::CreateGame {
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
        assert!(a.try_recv().unwrap().unwrap().took);
    }
    let store = Store::open(&path).unwrap();
    assert_eq!(store.load("a").unwrap().unwrap().1.len(), 100);
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
}

/// PostgreSQL's writer: a batch held open while ten changes queue up runs them in one
/// transaction, where the failing ones fail alone (as SQLite's `run_batch` test shows).
#[test]
#[ignore = "needs PostgreSQL: ANYWOLI_TEST_POSTGRES"]
fn a_failing_change_fails_alone_in_a_postgres_batch() {
    let store = Store::test_postgres("a_failing_change_fails_alone_in_a_postgres_batch");
    let (entered_tx, entered) = mpsc::sync_channel(1);
    let (resume, resume_rx) = mpsc::channel();
    let (hold, held) = job(Hold {
        first: GameOp::CreateGame {
            row: game("first"),
            moves: Vec::new(),
        },
        entered: entered_tx,
        resume: resume_rx,
    });
    store.writer.send(hold).unwrap();
    entered.recv().unwrap();
    let ops = vec![
        GameOp::CreateGame {
            row: game("a"),
            moves: vec!["m1".to_string()],
        },
        append_op_at("a", 2, 0),
        append_op_at("a", 2, 1),
        append_op("nope", 1),
        append_op_at("a", 3, 1),
        GameOp::ClaimSeat {
            head: head("a", 2, 0),
            seat: 0,
            secret: "x".to_string(),
            account: None,
        },
        GameOp::CreateRematch {
            head: head("a", 2, 0),
            next: game("r1"),
        },
        GameOp::CreateRematch {
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
    assert!(held.recv().unwrap().unwrap().took);
    let answers: Vec<Answer> = answers.iter().map(|a| a.recv().unwrap()).collect();
    let ok: Vec<Option<bool>> = answers
        .iter()
        .map(|a| a.as_ref().ok().map(|d| d.took))
        .collect();
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
