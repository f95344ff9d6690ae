//! The worked example of marks (docs/community.md, "Marks"), shared by the store and API tests
//! (`marks.rs`) and the browser's (`browser_marks.rs`).

use anywoli_server::rating::Rating;
use anywoli_server::store::{AccountOp, AccountRow, RatingPoint, RatingRow};
use anywoli_server::Store;

const DAY: i64 = 86_400_000;

/// An account copied in with its blitz history: (game, days before `now`, rating after it).
fn imported(name: &str, now: i64, games: &[(&str, i64, f64)]) -> AccountOp {
    let point = |&(game, days, rating): &(&str, i64, f64)| RatingPoint {
        category: "blitz".into(),
        rules: "anywoli".into(),
        at: now - days * DAY,
        rating,
        deviation: 60.0,
        game: game.into(),
    };
    let history: Vec<RatingPoint> = games.iter().map(point).collect();
    let last = history.last().expect("a game at least");
    AccountOp::Import {
        account: AccountRow {
            key: name.to_lowercase(),
            name: name.into(),
            hash: "x".into(),
            created: 1,
        },
        ratings: vec![RatingRow {
            category: "blitz".into(),
            rules: "anywoli".into(),
            rating: Rating {
                rating: last.rating,
                deviation: 60.0,
                volatility: 0.06,
            },
            games: history.len() as i64,
            at: last.at,
        }],
        history,
    }
}

/// The worked example (docs/community.md, "Marks"), `now` being when the mark lands. Ama's
/// first rated game, g5 against Boost 12 days ago, took her from the 1500 everyone starts at to
/// 1460. Kofi played Boost four times: g0 100 days ago (lost 30, too old to give back), then g1
/// (lost 30: 1520 → 1490), g2 (won 20: → 1510) and g3 (lost 35: → 1475); then beat Ama (g4:
/// Kofi → 1480, Ama → 1450). A booster mark gives Kofi 30 + 35 back (1480 → 1545) and Ama 40
/// (1450 → 1490), and keeps what Kofi won in g2.
pub fn worked_example(store: &Store, now: i64) {
    let kofi = imported(
        "Kofi",
        now,
        &[
            ("g00", 120, 1550.0),
            ("g0", 100, 1520.0),
            ("g1", 10, 1490.0),
            ("g2", 9, 1510.0),
            ("g3", 8, 1475.0),
            ("g4", 7, 1480.0),
        ],
    );
    let boost = imported(
        "Boost",
        now,
        &[
            ("g0", 100, 1530.0),
            ("g5", 12, 1540.0),
            ("g1", 10, 1560.0),
            ("g2", 9, 1540.0),
            ("g3", 8, 1575.0),
        ],
    );
    let ama = imported("Ama", now, &[("g5", 12, 1460.0), ("g4", 7, 1450.0)]);
    for op in [kofi, boost, ama] {
        assert!(store.account_op(op).unwrap());
    }
}
