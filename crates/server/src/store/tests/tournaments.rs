//! Tournaments in the store: one director at a time (the lease), and a step that is all or
//! nothing — a director that lost its lease, or a pairing of a player already playing, writes
//! nothing at all. On both backends, and on PostgreSQL with two instances.

use super::*;

fn account(store: &Store, name: &str) {
    store
        .account_op(AccountOp::Create {
            account: AccountRow {
                key: name.to_lowercase(),
                name: name.to_string(),
                hash: "h".to_string(),
                created: 1,
            },
            session: SessionRow {
                token: format!("t-{name}"),
                name: name.to_string(),
                csrf: "c".to_string(),
                created: 1,
            },
        })
        .unwrap();
}

fn tournament(id: &str) -> TournamentRow {
    TournamentRow {
        id: id.to_string(),
        name: "Test arena".to_string(),
        system: "arena".to_string(),
        rules: "anywoli".to_string(),
        clock: "3+2".to_string(),
        rated: false,
        created_by: "ana".to_string(),
        created: 0,
        starts: 0,
        minutes: Some(60),
        rounds: None,
        settings: "{}".to_string(),
        status: "running".to_string(),
        round: 0,
        next_round: None,
        finished: None,
        winner: None,
        version: 0,
        players: 0,
    }
}

fn join(store: &Store, t: &str, name: &str) {
    let e = Entry {
        tournament: t.to_string(),
        account: name.to_string(),
        now: 10,
        rating: 1500,
        bot: false,
        state: "active".to_string(),
        missed: Vec::new(),
    };
    assert!(store.set_entry(e).unwrap());
}

fn pairing(t: &str, owner: &str, now: i64, games: &[(&str, &str, &str)]) -> Step {
    Step {
        tournament: t.to_string(),
        owner: owner.to_string(),
        now,
        settled: Vec::new(),
        states: Vec::new(),
        games: games
            .iter()
            .map(|(id, s, n)| NewGame {
                row: game(id),
                round: 0,
                south: s.to_string(),
                north: n.to_string(),
            })
            .collect(),
        missed: Vec::new(),
        progress: None,
    }
}

/// Two stores on one database (two instances), or one store twice (SQLite).
fn one_director_at_a_time(a: &Store, b: &Store) {
    for n in ["ana", "ben", "cai", "dan"] {
        account(a, n);
    }
    a.create_tournament(tournament("t1")).unwrap();
    for n in ["ana", "ben", "cai", "dan"] {
        join(a, "t1", n);
    }
    let (ia, ib) = ("instance-a", "instance-b");
    assert!(a.lease_tournament("t1", ia, 1_000, 6_000).unwrap());
    assert!(
        !b.lease_tournament("t1", ib, 2_000, 7_000).unwrap(),
        "the lease is held"
    );
    assert!(
        a.lease_tournament("t1", ia, 2_000, 7_000).unwrap(),
        "renewed by its holder"
    );

    // The holder pairs; the other instance cannot, even with the same pairs.
    a.tournament_step(pairing("t1", ia, 3_000, &[("g1", "ana", "ben")]))
        .unwrap();
    let refused = b.tournament_step(pairing("t1", ib, 3_000, &[("g2", "cai", "dan")]));
    assert!(
        matches!(refused, Err(StoreError::Conflict { .. })),
        "{refused:?}"
    );
    assert!(
        b.load("g2").unwrap().is_none(),
        "nothing of a refused step is written"
    );

    // The holder dies: past its lease, the other takes over; the old holder's late step
    // writes nothing.
    assert!(b.lease_tournament("t1", ib, 8_000, 13_000).unwrap());
    let late = a.tournament_step(pairing("t1", ia, 8_000, &[("g3", "cai", "dan")]));
    assert!(matches!(late, Err(StoreError::Conflict { .. })), "{late:?}");
    assert!(a.load("g3").unwrap().is_none());

    // Pairing someone who is playing fails as a whole: the game of the two free players in
    // the same step is not made either.
    let twice = b.tournament_step(pairing(
        "t1",
        ib,
        9_000,
        &[("g4", "cai", "dan"), ("g5", "ana", "cai")],
    ));
    assert!(
        matches!(twice, Err(StoreError::Conflict { .. })),
        "{twice:?}"
    );
    assert!(b.load("g4").unwrap().is_none() && b.load("g5").unwrap().is_none());
    b.tournament_step(pairing("t1", ib, 9_000, &[("g4", "cai", "dan")]))
        .unwrap();

    // Settling frees the players, once; the state read shows it all.
    let mut settle = pairing("t1", ib, 10_000, &[]);
    settle.settled = vec![Settled {
        game: "g1".to_string(),
        result: "1-0".to_string(),
        plies: 40,
        berserk: String::new(),
    }];
    b.tournament_step(settle.clone()).unwrap();
    b.tournament_step(settle).unwrap();
    let s = a.tournament_state("t1").unwrap().unwrap();
    let playing: Vec<(&str, Option<&str>)> = s
        .entries
        .iter()
        .map(|e| (e.account.as_str(), e.playing.as_deref()))
        .collect();
    assert_eq!(
        playing,
        [
            ("ana", None),
            ("ben", None),
            ("cai", Some("g4")),
            ("dan", Some("g4"))
        ]
    );
    let results: Vec<(&str, Option<&str>)> = s
        .games
        .iter()
        .map(|g| (g.game.as_str(), g.result.as_deref()))
        .collect();
    assert_eq!(results, [("g1", Some("1-0")), ("g4", None)]);
    assert!(s.tournament.version >= 6, "every change bumps the version");
    let unsettled = a.tournament_unsettled("t1").unwrap();
    assert_eq!(unsettled.len(), 1);
    assert_eq!(
        (unsettled[0].game.as_str(), unsettled[0].status.as_str()),
        ("g4", "playing")
    );
}

#[test]
fn one_director_at_a_time_on_sqlite() {
    let store = Store::in_memory().unwrap();
    one_director_at_a_time(&store, &store);
}

#[test]
#[ignore = "needs PostgreSQL: ANYWOLI_TEST_POSTGRES"]
fn one_director_at_a_time_on_postgres_instances() {
    let (a, b) = Store::test_postgres_pair("one_director_at_a_time");
    one_director_at_a_time(&a, &b);
    drop(b);
}
