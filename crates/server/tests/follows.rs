// Follows, presence and leaderboards in the store (issue 38), on both stores: a follow is kept
// once, the limit holds, presence leases run out, and a followed player's public game in play
// is found. (Plain comments: `follows_postgres.rs` includes this file.)

use anywoli_server::store::{AccountOp, AccountRow, Followed, SessionRow};
use anywoli_server::Store;

// The store every test starts with: SQLite in memory here; `follows_postgres.rs` defines a
// `fresh_store` of its own, which shadows this glob-imported one.
#[allow(unused_imports)]
use sqlite_store::*;
#[allow(dead_code)]
mod sqlite_store {
    pub fn fresh_store() -> anywoli_server::Store {
        anywoli_server::Store::in_memory().unwrap()
    }
}

/// Accounts `names`, made straight in the store (no password is ever checked here).
fn accounts(s: &Store, names: &[&str]) {
    for n in names {
        let made = s
            .account_op(AccountOp::Create {
                account: AccountRow {
                    key: n.to_lowercase(),
                    name: n.to_string(),
                    hash: "x".to_string(),
                    created: 1,
                },
                session: SessionRow {
                    token: format!("t-{n}"),
                    name: n.to_string(),
                    csrf: format!("c-{n}"),
                    created: 1,
                },
            })
            .unwrap();
        assert!(made, "{n}");
    }
}

fn names(s: &Store, who: &str) -> Vec<String> {
    let now = anywoli_server::dates::now_ms();
    s.following(who, now)
        .unwrap()
        .into_iter()
        .map(|f| f.name)
        .collect()
}

store_test! {
    #[test]
    fn a_follow_is_kept_once_and_the_limit_holds() {
        let s = fresh_store();
        accounts(&s, &["Abula", "Kofi", "Ama", "Yaw"]);
        assert_eq!(s.follow("Abula", "Kofi", 2).unwrap(), Followed::New);
        assert_eq!(s.follow("Abula", "Kofi", 2).unwrap(), Followed::Already);
        assert_eq!(s.follow("Abula", "Ama", 2).unwrap(), Followed::New);
        assert_eq!(s.follow("Abula", "Yaw", 2).unwrap(), Followed::TooMany { max: 2 });
        let mut got = names(&s, "Abula");
        got.sort();
        assert_eq!(got, ["Ama", "Kofi"]);
        assert!(s.follows("Abula", "Kofi").unwrap());
        assert!(!s.follows("Kofi", "Abula").unwrap(), "a follow goes one way");
        assert!(s.unfollow("Abula", "Kofi").unwrap());
        assert!(!s.unfollow("Abula", "Kofi").unwrap(), "already gone: nothing to do");
        assert_eq!(names(&s, "Abula"), ["Ama"]);
        assert_eq!(s.follow("Abula", "Yaw", 2).unwrap(), Followed::New, "room again");
    }
}

store_test! {
    #[test]
    fn presence_is_a_lease_that_runs_out_or_ends() {
        let s = fresh_store();
        accounts(&s, &["Abula", "Kofi", "Ama"]);
        s.follow("Abula", "Kofi", 10).unwrap();
        s.follow("Abula", "Ama", 10).unwrap();
        let now = anywoli_server::dates::now_ms();
        s.renew_presence(vec!["Kofi".into(), "Ama".into()], vec![], now + 30_000)
            .unwrap();
        let online = |at: i64| -> Vec<(String, bool)> {
            let mut v: Vec<_> = s
                .following("Abula", at)
                .unwrap()
                .into_iter()
                .map(|f| (f.name, f.online))
                .collect();
            v.sort();
            v
        };
        assert_eq!(online(now), [("Ama".into(), true), ("Kofi".into(), true)]);
        assert_eq!(
            online(now + 31_000),
            [("Ama".into(), false), ("Kofi".into(), false)],
            "a lease not renewed runs out"
        );
        s.renew_presence(vec![], vec!["Kofi".into()], now + 30_000).unwrap();
        assert_eq!(online(now), [("Ama".into(), true), ("Kofi".into(), false)]);
        assert!(s.following("Abula", now).unwrap().iter().all(|f| f.playing.is_none()));
    }
}
