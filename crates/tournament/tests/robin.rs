use std::collections::HashMap;

use anywoli_tournament::robin::{berger, table, Entry};

fn ids(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("p{i}")).collect()
}

#[test]
fn every_pair_meets_once_and_everyone_plays_each_round() {
    for n in 2..=16 {
        let t = table(&Entry {
            players: ids(n),
            double: false,
        })
        .unwrap();
        let seats = n + n % 2;
        assert_eq!(t.rounds.len(), seats - 1, "{n} players");
        let mut met = HashMap::new();
        let mut byes = HashMap::new();
        for r in &t.rounds {
            let mut seen = std::collections::HashSet::new();
            for (a, b) in &r.pairs {
                assert!(
                    seen.insert(a.clone()) && seen.insert(b.clone()),
                    "{n}: twice in a round"
                );
                let key = if a < b {
                    (a.clone(), b.clone())
                } else {
                    (b.clone(), a.clone())
                };
                *met.entry(key).or_insert(0) += 1;
            }
            if let Some(b) = &r.bye {
                assert!(!seen.contains(b));
                *byes.entry(b.clone()).or_insert(0) += 1;
            }
            assert_eq!(seen.len() + usize::from(r.bye.is_some()), n);
        }
        assert_eq!(met.len(), n * (n - 1) / 2, "{n}: every pair");
        assert!(met.values().all(|&c| c == 1), "{n}: once each");
        if n % 2 == 1 {
            assert_eq!(byes.len(), n, "{n}: everyone sits out once");
        }
    }
}

#[test]
fn sides_are_balanced_and_never_three_in_a_row() {
    for seats in (2..=16).step_by(2) {
        let rounds = berger(seats);
        for p in 0..seats {
            let sides: Vec<bool> = rounds
                .iter()
                .filter_map(|r| {
                    r.iter()
                        .find_map(|&(a, b)| (a == p).then_some(true).or((b == p).then_some(false)))
                })
                .collect();
            let south = sides.iter().filter(|&&s| s).count();
            let north = sides.len() - south;
            assert!(
                south.abs_diff(north) <= 1,
                "{seats} seats, seat {p}: {south} S, {north} N"
            );
            assert!(
                !sides.windows(3).any(|w| w[0] == w[1] && w[1] == w[2]),
                "{seats} seats, seat {p}: three in a row: {sides:?}"
            );
        }
    }
}

#[test]
fn a_double_round_robin_swaps_the_sides() {
    let t = table(&Entry {
        players: ids(5),
        double: true,
    })
    .unwrap();
    assert_eq!(t.rounds.len(), 10);
    let games: Vec<(String, String)> = t.rounds.iter().flat_map(|r| r.pairs.clone()).collect();
    for (a, b) in &games {
        let back = games.iter().filter(|(x, y)| x == b && y == a).count();
        assert_eq!(back, 1, "{a}-{b} once with sides swapped");
    }
}

#[test]
fn more_than_sixteen_or_a_repeated_id_is_refused() {
    assert!(table(&Entry {
        players: ids(17),
        double: false
    })
    .is_err());
    let mut twice = ids(4);
    twice.push("p1".into());
    assert!(table(&Entry {
        players: twice,
        double: false
    })
    .is_err());
}
