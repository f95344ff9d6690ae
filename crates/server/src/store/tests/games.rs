//! Games and every other aggregate stored alike on both backends: each method, seats and
//! engine claims taken once, clocks, an older database's migration.

use super::*;

/// A database made before hints could be turned off: the column is added, friend games
/// get no hints (nobody agreed to them), the others keep theirs; reopening changes nothing.
#[test]
fn an_older_database_gains_the_hints_column() {
    let dir = scratch("migrate");
    let path = dir.join("old.sqlite");
    {
        let c = Connection::open(&path).unwrap();
        let old_schema = schema::games_tables(sql::Dialect::Sqlite);
        c.execute_batch(&old_schema).unwrap();
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
