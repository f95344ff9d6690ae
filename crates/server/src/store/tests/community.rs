//! A report's evidence names the games between the reporter and the target, and no other.

use serde_json::Value;

use super::*;

fn account(store: &Store, name: &str) {
    let op = AccountOp::Create {
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
    };
    assert!(store.account_op(op).unwrap());
}

#[test]
fn a_reports_evidence_lists_the_games_between_the_two() {
    let store = Store::in_memory().unwrap();
    for n in ["Abula", "Bao", "Chen"] {
        account(&store, n);
    }
    let seats = [
        ("g1", "Abula", "Bao"),
        ("g2", "Bao", "Abula"),
        ("g3", "Abula", "Chen"),
    ];
    for (id, south, north) in seats {
        let mut g = game(id);
        g.accounts = [Some(south.to_string()), Some(north.to_string())];
        store.create_game(&g, &[]).unwrap();
    }
    let report = ReportRow {
        id: "r".to_string(),
        at: 10,
        reporter: "Abula".to_string(),
        target: "Bao".to_string(),
        reason: ReportReason::LeavingGames,
        text: String::new(),
        evidence: String::new(),
        open: true,
        closed_by: None,
        closed_at: None,
    };
    assert_eq!(store.file_report(report).unwrap(), Filed::Filed);
    let stored = &store.reports(ReportsOf::One("r"), 1).unwrap()[0];
    let evidence: Value = serde_json::from_str(&stored.evidence).unwrap();
    let mut ids: Vec<&str> = evidence["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_str().unwrap())
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, ["g1", "g2"]);
    assert!(evidence["games"][0]["south"].as_str().is_some());
}
