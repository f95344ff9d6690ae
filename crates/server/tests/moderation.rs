// Moderators and account care in the store (issue 38): an account's standing, reset tokens
// (once, not late, voided by a newer one), reports (evidence attached by the store, floods
// refused), the append-only moderation log, and offences with the waits they earn (recorded
// once per game, lifted by a moderator's log line).
// (Plain comments: `moderation_postgres.rs` includes this file.)

use anywoli_server::store::{
    AccountOp, AccountRow, Act, Filed, Moderate, ReportReason, ReportRow, ReportsOf, SessionRow,
    ADMIN_CLI, REPORTS_PER_WINDOW, RESET_MS,
};
use anywoli_server::store::{OffenceKind, OffenceRow, PlayWait, WAIT_LADDER_MS};
use anywoli_server::Store;
use serde_json::{json, Value};

// The store every test starts with: SQLite in memory here; `moderation_postgres.rs` defines a
// `fresh_store` of its own, which shadows this glob-imported one.
#[allow(unused_imports)]
use sqlite_store::*;
#[allow(dead_code)]
mod sqlite_store {
    pub fn fresh_store() -> anywoli_server::Store {
        anywoli_server::Store::in_memory().unwrap()
    }
}

const T: i64 = 1_800_000_000_000;

fn account(store: &Store, name: &str) {
    let op = AccountOp::Create {
        account: AccountRow {
            key: name.to_lowercase(),
            name: name.to_string(),
            hash: "old-hash".to_string(),
            created: T,
        },
        session: SessionRow {
            token: format!("session-of-{name}"),
            name: name.to_string(),
            csrf: "c".repeat(32),
            created: T,
        },
    };
    assert!(store.account_op(op).unwrap());
}

fn act(store: &Store, act: Act, target: &str, at: i64) -> bool {
    store
        .moderate(Moderate {
            act,
            moderator: ADMIN_CLI.to_string(),
            target: target.to_string(),
            reason: "because".to_string(),
            detail: json!({}),
            at,
        })
        .unwrap()
}

fn report(id: &str, by: &str, about: &str, at: i64) -> ReportRow {
    ReportRow {
        id: id.to_string(),
        at,
        reporter: by.to_string(),
        target: about.to_string(),
        reason: ReportReason::AbusiveChat,
        text: "rude".to_string(),
        evidence: "ignored: the store attaches its own".to_string(),
        open: true,
        closed_by: None,
        closed_at: None,
    }
}

store_test! {
    #[test]
    fn roles_and_closing_follow_each_action_and_log_it() {
        let store = fresh_store();
        account(&store, "Abula");
        let s = store.standing("Abula").unwrap();
        assert!(!s.moderator && s.closed.is_none(), "{s:?}");
        assert!(act(&store, Act::GrantModerator, "Abula", T + 1));
        assert!(store.standing("Abula").unwrap().moderator);
        assert_eq!(store.moderators().unwrap(), ["Abula"]);
        assert!(act(&store, Act::RevokeModerator, "Abula", T + 2));
        assert!(!store.standing("Abula").unwrap().moderator);

        assert!(store.session("session-of-Abula", T + 3).unwrap().is_some());
        assert!(act(&store, Act::Close, "Abula", T + 3));
        assert_eq!(store.standing("Abula").unwrap().closed, Some(T + 3));
        assert!(store.session("session-of-Abula", T + 4).unwrap().is_none());
        // A session made after the closing (a login that raced it) opens nothing either.
        let late = SessionRow {
            token: "late".to_string(),
            name: "Abula".to_string(),
            csrf: "d".repeat(32),
            created: T + 5,
        };
        store.account_op(AccountOp::AddSession(late)).unwrap();
        assert!(store.session("late", T + 6).unwrap().is_none());
        assert!(act(&store, Act::Reopen, "Abula", T + 7));
        assert_eq!(store.standing("Abula").unwrap().closed, None);
        assert!(store.session("late", T + 8).unwrap().is_some());

        let log = store.mod_log(Some("Abula"), 10).unwrap();
        let actions: Vec<&str> = log.iter().map(|l| l.action.as_str()).collect();
        assert_eq!(
            actions,
            ["reopen", "close", "revoke_moderator", "grant_moderator"]
        );
        assert!(log.iter().all(|l| l.moderator == ADMIN_CLI && l.reason == "because"));
        assert!(store.mod_log(Some("Nobody"), 10).unwrap().is_empty());
    }
}

store_test! {
    #[test]
    fn a_reset_token_works_once_and_not_late_and_a_newer_voids_it() {
        let store = fresh_store();
        account(&store, "Abula");
        assert!(act(&store, Act::ResetLink { hash: "h1".into() }, "Abula", T));
        assert!(act(&store, Act::ResetLink { hash: "h2".into() }, "Abula", T + 1));
        assert_eq!(store.redeem_reset("h1", T + 2, "new").unwrap(), None, "voided");
        assert_eq!(store.account("abula").unwrap().unwrap().hash, "old-hash");
        assert_eq!(
            store.redeem_reset("h2", T + 2, "new").unwrap().as_deref(),
            Some("Abula")
        );
        assert_eq!(store.account("abula").unwrap().unwrap().hash, "new");
        assert!(store.session("session-of-Abula", T + 3).unwrap().is_none());
        assert_eq!(store.redeem_reset("h2", T + 3, "again").unwrap(), None, "once");
        assert_eq!(store.account("abula").unwrap().unwrap().hash, "new");

        assert!(act(&store, Act::ResetLink { hash: "h3".into() }, "Abula", T));
        let late = T + RESET_MS + 1;
        assert_eq!(store.redeem_reset("h3", late, "late").unwrap(), None, "late");
        assert_eq!(store.account("abula").unwrap().unwrap().hash, "new");
        // Closing the account voids its link.
        assert!(act(&store, Act::ResetLink { hash: "h4".into() }, "Abula", T + 4));
        assert!(act(&store, Act::Close, "Abula", T + 5));
        assert_eq!(store.redeem_reset("h4", T + 6, "x").unwrap(), None);
        let logged = store.mod_log(Some("Abula"), 10).unwrap();
        assert!(logged.iter().all(|l| !l.detail.contains("h4")), "no hash in the log");
    }
}

store_test! {
    #[test]
    fn reports_carry_their_evidence_and_a_flood_is_refused() {
        let store = fresh_store();
        for n in ["Abula", "Bao", "Chen", "Dodo", "Emeka", "Fola", "Gugu"] {
            account(&store, n);
        }
        assert_eq!(store.file_report(report("r1", "Abula", "Bao", T)).unwrap(), Filed::Filed);
        assert_eq!(
            store.file_report(report("r2", "Abula", "Bao", T + 1)).unwrap(),
            Filed::AlreadyOpen
        );
        let open = store.reports(ReportsOf::Open, 50).unwrap();
        assert_eq!(open.len(), 1);
        let r = &open[0];
        assert_eq!((r.reporter.as_str(), r.target.as_str()), ("Abula", "Bao"));
        assert_eq!(r.reason, ReportReason::AbusiveChat);
        let evidence: Value = serde_json::from_str(&r.evidence).unwrap();
        assert_eq!(evidence["games"], json!([]));
        assert_eq!(evidence["chat"], json!([]));
        assert_eq!(evidence["addresses"], json!([]), "no address seen");

        for (i, n) in ["Chen", "Dodo", "Emeka", "Fola"].iter().enumerate() {
            let id = format!("f{i}");
            let filed = store.file_report(report(&id, "Abula", n, T + 2)).unwrap();
            assert_eq!(filed, Filed::Filed, "{n}");
        }
        assert_eq!(REPORTS_PER_WINDOW, 5);
        assert_eq!(
            store.file_report(report("f9", "Abula", "Gugu", T + 3)).unwrap(),
            Filed::TooMany
        );
        assert_eq!(store.reports(ReportsOf::By("Abula"), 50).unwrap().len(), 5);
        assert_eq!(store.reports(ReportsOf::About("Gugu"), 50).unwrap().len(), 0);

        let close = Act::CloseReport { id: "r1".into() };
        assert!(act(&store, close.clone(), "Bao", T + 4));
        assert!(!act(&store, close, "Bao", T + 5), "closed already");
        let r1 = &store.reports(ReportsOf::One("r1"), 1).unwrap()[0];
        assert!(!r1.open);
        assert_eq!(r1.closed_by.as_deref(), Some(ADMIN_CLI));
        let log = store.mod_log(None, 10).unwrap();
        assert_eq!(log.len(), 1, "one line for the one close");
        let detail: Value = serde_json::from_str(&log[0].detail).unwrap();
        assert_eq!(detail["report"], "r1");
        // Closed, the report no longer holds a second one back.
        let again = store.file_report(report("r3", "Abula", "Bao", T + 3_600_001));
        assert_eq!(again.unwrap(), Filed::Filed);
    }
}

store_test! {
    #[test]
    fn an_account_keeps_its_last_20_addresses_for_90_days() {
        use anywoli_server::store::{ADDRESSES_KEPT, ADDRESS_RETENTION_MS};
        let store = fresh_store();
        account(&store, "Abula");
        account(&store, "Bao");
        for i in 0..25 {
            store.seen_from("Abula", &format!("192.0.2.{i}"), T + i).unwrap();
        }
        // Seen again: the row stays one, its first sight kept.
        store.seen_from("Abula", "192.0.2.24", T + 100).unwrap();
        let mine = store.addresses("Abula").unwrap();
        assert_eq!(mine.len() as i64, ADDRESSES_KEPT);
        assert_eq!((mine[0].address.as_str(), mine[0].first_seen, mine[0].last_seen), ("192.0.2.24", T + 24, T + 100));
        assert!(mine.iter().all(|a| a.address != "192.0.2.4"), "the stalest went");
        store.seen_from("Bao", "192.0.2.10", T + 200).unwrap();
        let shared = store.shared_address("Bao").unwrap();
        assert_eq!(shared.len(), 1);
        assert_eq!((shared[0].name.as_str(), shared[0].address.as_str()), ("Abula", "192.0.2.10"));
        // 90 days on, a login of Bao's forgets every address not seen since.
        store.seen_from("Bao", "198.51.100.1", T + 201 + ADDRESS_RETENTION_MS).unwrap();
        assert!(store.addresses("Abula").unwrap().is_empty());
        assert_eq!(store.addresses("Bao").unwrap().len(), 1);
        assert!(store.shared_address("Bao").unwrap().is_empty());
    }
}

store_test! {
    #[test]
    fn an_offence_is_recorded_once_per_game_and_a_lift_forgives_the_ones_before_it() {
        let store = fresh_store();
        account(&store, "Lea");
        let offence = |game: &str, at: i64| OffenceRow {
            game: game.into(),
            account: "Lea".into(),
            kind: OffenceKind::Left,
            at,
        };
        assert_eq!(store.play_wait("Lea", T).unwrap(), None);
        assert!(store.record_offence(offence("game-one", T)).unwrap());
        // A retried write (the same game) changes nothing.
        assert!(!store.record_offence(offence("game-one", T + 5)).unwrap());
        assert_eq!(store.offences("Lea").unwrap().len(), 1);
        let first = PlayWait {
            until: T + WAIT_LADDER_MS[0],
            offences: 1,
        };
        assert_eq!(store.play_wait("Lea", T).unwrap(), Some(first));
        assert_eq!(store.play_wait("Lea", first.until).unwrap(), None);
        assert!(store.record_offence(offence("game-two", T + 1_000)).unwrap());
        let second = store.play_wait("Lea", T + 1_000).unwrap().unwrap();
        assert_eq!((second.until, second.offences), (T + 1_000 + WAIT_LADDER_MS[1], 2));
        // Lifted: no wait, the offences stay listed, and the next one starts the ladder again.
        assert!(act(&store, Act::LiftWait, "Lea", T + 2_000));
        assert_eq!(store.play_wait("Lea", T + 2_000).unwrap(), None);
        assert_eq!(store.offences("Lea").unwrap().len(), 2);
        assert_eq!(store.mod_log(Some("Lea"), 10).unwrap()[0].action, "lift_wait");
        assert!(store.record_offence(offence("game-three", T + 3_000)).unwrap());
        let again = store.play_wait("Lea", T + 3_000).unwrap().unwrap();
        assert_eq!((again.until, again.offences), (T + 3_000 + WAIT_LADDER_MS[0], 1));
    }
}
