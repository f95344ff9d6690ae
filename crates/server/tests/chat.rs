// Chat lines, blocks and mutes (issue 38): the store's side, on every store.
// (Plain comments: `chat_postgres.rs` includes this file.)

use anywoli_server::store::{AccountOp, AccountRow, ChatLine, Room, SessionRow};
use anywoli_server::Store;

// The store every test starts with: SQLite in memory here; `chat_postgres.rs` defines a
// `fresh_store` of its own, which shadows this glob-imported one.
#[allow(unused_imports)]
use sqlite_store::*;
#[allow(dead_code)]
mod sqlite_store {
    pub fn fresh_store() -> anywoli_server::Store {
        anywoli_server::Store::in_memory().unwrap()
    }
}

/// Makes accounts `names` (blocks and mutes refer to accounts).
fn with_accounts(s: &Store, names: &[&str]) {
    for n in names {
        let made = s
            .account_op(AccountOp::Create {
                account: AccountRow {
                    key: n.to_lowercase(),
                    name: n.to_string(),
                    hash: "x".into(),
                    created: 1,
                },
                session: SessionRow {
                    token: format!("t-{n}"),
                    name: n.to_string(),
                    csrf: "c".into(),
                    created: 1,
                },
            })
            .unwrap();
        assert!(made, "{n}");
    }
}

fn line(game: &str, room: Room, author: &str, text: &str, at: i64) -> ChatLine {
    ChatLine {
        id: format!("{game}-{at}-{author}"),
        game: game.into(),
        room,
        author: author.into(),
        text: text.into(),
        at,
    }
}

store_test! {
    #[test]
    fn a_room_s_lines_come_back_in_order_and_bounded() {
        let s = fresh_store();
        for i in 0..5 {
            s.save_chat_line(line("g1", Room::Players, "Abula", &format!("p{i}"), 100 + i))
                .unwrap();
        }
        s.save_chat_line(line("g1", Room::Spectators, "Cabo", "hi", 101)).unwrap();
        s.save_chat_line(line("g2", Room::Players, "Abula", "other", 50)).unwrap();
        let texts = |v: Vec<ChatLine>| v.into_iter().map(|l| l.text).collect::<Vec<_>>();
        assert_eq!(
            texts(s.chat_lines("g1", Room::Players, 100).unwrap()),
            ["p0", "p1", "p2", "p3", "p4"]
        );
        assert_eq!(texts(s.chat_lines("g1", Room::Players, 2).unwrap()), ["p3", "p4"]);
        let spect = s.chat_lines("g1", Room::Spectators, 100).unwrap();
        assert_eq!(spect, vec![line("g1", Room::Spectators, "Cabo", "hi", 101)]);
        assert!(s.chat_lines("g3", Room::Players, 100).unwrap().is_empty());
    }
}

store_test! {
    #[test]
    fn a_block_holds_both_ways_until_lifted() {
        let s = fresh_store();
        with_accounts(&s, &["Abula", "Bao", "Cabo"]);
        assert!(!s.blocked_between("Abula", "Bao").unwrap());
        assert!(s.block("Abula", "Bao").unwrap());
        assert!(!s.block("Abula", "Bao").unwrap(), "a second block changes nothing");
        assert!(s.blocked_between("Abula", "Bao").unwrap());
        assert!(s.blocked_between("Bao", "Abula").unwrap());
        assert!(!s.blocked_between("Abula", "Cabo").unwrap());
        assert!(s.block("Abula", "Cabo").unwrap());
        let listed: Vec<String> = s
            .blocks_of("Abula", 10)
            .unwrap()
            .into_iter()
            .map(|b| b.blocked)
            .collect();
        assert_eq!(listed.len(), 2);
        assert!(listed.contains(&"Bao".to_string()) && listed.contains(&"Cabo".to_string()));
        assert!(s.blocks_of("Bao", 10).unwrap().is_empty(), "stored one way");
        assert!(s.unblock("Abula", "Bao").unwrap());
        assert!(!s.unblock("Abula", "Bao").unwrap());
        assert!(!s.blocked_between("Bao", "Abula").unwrap());
        assert!(s.block("Abula", "Nobody").is_err(), "only accounts are blocked");
    }
}

store_test! {
    #[test]
    fn a_mute_holds_until_its_time_and_a_new_one_replaces_it() {
        let s = fresh_store();
        with_accounts(&s, &["Abula", "Mod"]);
        assert!(s.muted("Abula", 1000).unwrap().is_none());
        s.mute("Abula", 5000, "Mod", "abusive chat").unwrap();
        let m = s.muted("Abula", 1000).unwrap().expect("muted");
        assert_eq!((m.until, m.by.as_str(), m.reason.as_str()), (5000, "Mod", "abusive chat"));
        assert!(s.muted("Abula", 5000).unwrap().is_none(), "over at its time");
        s.mute("Abula", 9000, "Mod", "again").unwrap();
        assert_eq!(s.muted("Abula", 6000).unwrap().unwrap().reason, "again");
        s.mute("Abula", 0, "Mod", "lifted").unwrap();
        assert!(s.muted("Abula", 6000).unwrap().is_none(), "lifted");
    }
}
