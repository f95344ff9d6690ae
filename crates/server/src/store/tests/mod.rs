//! The store's tests, by subject; the helpers they share are here.

mod batches;
mod community;
mod games;
mod postgres;
mod tournaments;

use std::path::PathBuf;
use std::sync::mpsc;
use std::sync::Barrier;

use rusqlite::{params, Connection};

use super::games::{GameDone, GameOp};
use super::schema;
use super::writer::{self, Change, Job};
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
        offence: None,
        explore: None,
    }
}

fn over(result: &str, termination: Option<&str>) -> StatusRow {
    StatusRow {
        status: "over".to_string(),
        result: result.to_string(),
        termination: termination.map(str::to_string),
        rate: None,
        offence: None,
        explore: None,
    }
}

/// Move `ply` of a game made without moves, which has had only moves since.
fn append(store: &Store, id: &str, ply: usize) -> StoreResult<()> {
    append_at(store, id, ply, ply as i64 - 1)
}

fn append_at(store: &Store, id: &str, ply: usize, expect: i64) -> StoreResult<()> {
    store
        .append_move(
            head(id, expect, ply as i64),
            ply,
            &format!("m{ply}"),
            playing(),
        )
        .map(drop)
}

/// A job as the store would send it, and where its answer will arrive.
fn job<C: Change>(change: C) -> (Box<dyn Job>, mpsc::Receiver<StoreResult<C::Out>>) {
    writer::job(change)
}

/// What a [`GameOp`] answers: whether it took effect (and a rated game's ratings).
type Answer = StoreResult<GameDone>;

/// Runs SQL as a change of its own, for tests that need a batch to fail in some way; answers
/// as a [`GameOp`] does, so that it can share a batch's list with them.
struct RunSql(&'static str);

impl Change for RunSql {
    type Out = GameDone;

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<GameDone> {
        c.exec(self.0)?;
        Ok(GameDone {
            took: true,
            ratings: None,
        })
    }
}

/// Runs `first`, says so on `entered`, then keeps the batch's transaction open until `resume`
/// hears from the test (or is dropped).
struct Hold<C> {
    first: C,
    entered: mpsc::SyncSender<()>,
    resume: mpsc::Receiver<()>,
}

impl<C: Change> Change for Hold<C> {
    type Out = C::Out;

    fn heard(&self) -> Option<Heard> {
        self.first.heard()
    }

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<C::Out> {
        let took = self.first.apply(c)?;
        let _ = self.entered.send(());
        let _ = self.resume.recv();
        Ok(took)
    }
}

fn append_op(id: &str, ply: i64) -> GameOp {
    append_op_at(id, ply, ply - 1)
}

fn append_op_at(id: &str, ply: i64, expect: i64) -> GameOp {
    GameOp::AppendMove {
        head: head(id, expect, ply),
        ply,
        mv: format!("m{ply}"),
        status: playing(),
    }
}

fn is_conflict(a: &Answer) -> bool {
    matches!(a, Err(StoreError::Conflict { .. }))
}

// Here rather than in `postgres.rs`: the games' channel is the database's, whatever the
// schema, so this test hears the games other tests change on PostgreSQL at the same time.
// Last in the order, it runs beside `postgres::postgres_over_tls_as_sslmode_says`, which
// changes none (as before the tests were split).
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
