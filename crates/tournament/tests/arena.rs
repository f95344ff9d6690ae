use std::collections::HashSet;

use anywoli_tournament::arena::{
    may_meet, on_streak, pair, points, Outcome, Player, ScoringRules, Wave, MAX_WAIT_MS, SLICE,
};
use anywoli_tournament::Side;
use proptest::prelude::*;

fn waiting(id: &str, since: i64, rank: u32, last: Option<&str>, sides: &str) -> Player {
    Player {
        id: id.into(),
        waiting_since: since,
        rank,
        last_opponent: last.map(str::to_string),
        rating: 1500,
        sides: sides.parse().unwrap(),
        bot: false,
    }
}

fn ids(pairs: &[(String, String)]) -> HashSet<String> {
    pairs
        .iter()
        .flat_map(|(a, b)| [a.clone(), b.clone()])
        .collect()
}

#[test]
fn last_opponents_are_not_paired_again_at_once() {
    let wave = Wave {
        now: 20_000,
        players: vec![
            waiting("a", 0, 1, Some("b"), "S"),
            waiting("b", 0, 2, Some("a"), "N"),
        ],
        forbidden: vec![],
    };
    assert!(pair(&wave).unwrap().pairs.is_empty());
    let mut three = wave.clone();
    three.players.push(waiting("c", 19_000, 3, None, ""));
    let pairs = pair(&three).unwrap().pairs;
    assert_eq!(pairs.len(), 1);
    assert!(ids(&pairs).contains("c"), "{pairs:?}");
}

#[test]
fn nobody_plays_a_side_a_third_time_in_a_row() {
    // Both played South twice: they cannot meet; with a third who can take South, each pair
    // gives the South to the one who has not.
    let wave = Wave {
        now: 10_000,
        players: vec![
            waiting("a", 0, 1, None, "NSS"),
            waiting("b", 0, 2, None, "SS"),
        ],
        forbidden: vec![],
    };
    assert!(!may_meet(&wave.players[0], &wave.players[1]));
    assert!(pair(&wave).unwrap().pairs.is_empty());
    let wave = Wave {
        now: 10_000,
        players: vec![
            waiting("a", 0, 1, None, "NSS"),
            waiting("b", 0, 2, None, "NN"),
        ],
        forbidden: vec![],
    };
    assert_eq!(
        pair(&wave).unwrap().pairs,
        vec![("b".to_string(), "a".to_string())]
    );
}

#[test]
fn humans_are_paired_before_bots_and_long_waits_before_short() {
    let mut bot = waiting("bot", 0, 2, None, "");
    bot.bot = true;
    let wave = Wave {
        now: 30_000,
        players: vec![
            waiting("a", 25_000, 1, None, ""),
            bot,
            waiting("c", 29_000, 3, None, ""),
        ],
        forbidden: vec![],
    };
    let pairs = pair(&wave).unwrap().pairs;
    assert_eq!(
        ids(&pairs),
        HashSet::from(["a".to_string(), "c".to_string()])
    );
    let wave = Wave {
        now: 30_000,
        players: vec![
            waiting("a", 0, 1, None, ""),
            waiting("b", 29_900, 2, None, ""),
            waiting("c", 10_000, 3, None, ""),
        ],
        forbidden: vec![],
    };
    let pairs = pair(&wave).unwrap().pairs;
    assert!(
        !ids(&pairs).contains("b"),
        "the newest arrival waits: {pairs:?}"
    );
}

#[test]
fn players_meet_their_neighbours_in_the_standings() {
    let wave = Wave {
        now: 10_000,
        players: (1..=6)
            .map(|r| waiting(&format!("r{r}"), 0, r, None, ""))
            .collect(),
        forbidden: vec![],
    };
    let mut pairs: Vec<(u32, u32)> = pair(&wave)
        .unwrap()
        .pairs
        .iter()
        .map(|(a, b)| {
            let (a, b): (u32, u32) = (a[1..].parse().unwrap(), b[1..].parse().unwrap());
            (a.min(b), a.max(b))
        })
        .collect();
    pairs.sort();
    assert_eq!(pairs, vec![(1, 2), (3, 4), (5, 6)]);
}

#[test]
fn the_due_side_is_given() {
    let wave = Wave {
        now: 10_000,
        players: vec![
            waiting("a", 0, 1, None, "SSN"),
            waiting("b", 0, 2, None, "NNS"),
        ],
        forbidden: vec![],
    };
    // a has more South games: North is its due.
    assert_eq!(
        pair(&wave).unwrap().pairs,
        vec![("b".to_string(), "a".to_string())]
    );
}

#[test]
fn scoring_follows_streaks_berserk_and_short_draws() {
    use Outcome::*;
    let rules = ScoringRules {
        min_berserk_plies: 14,
        min_draw_plies: 20,
    };
    let mut results = vec![];
    let mut total = vec![];
    for r in [Win, Win, Win, Draw, Win, Loss] {
        total.push(points(r, on_streak(&results), false, 60, rules));
        results.push(r);
    }
    // 2, 2, then on a streak 4, a draw on the streak 2 (and it ends), 2, 0.
    assert_eq!(total, vec![2, 2, 4, 2, 2, 0]);
    assert_eq!(points(Win, false, true, 14, rules), 3);
    assert_eq!(points(Win, false, true, 13, rules), 2);
    assert_eq!(points(Win, true, true, 40, rules), 5);
    assert_eq!(points(Loss, false, true, 40, rules), 0);
    assert_eq!(points(Draw, false, false, 19, rules), 0);
    assert_eq!(points(Draw, true, false, 20, rules), 2);
    // Anywoli's own thresholds: a 25-ply draw is an agreement, a 20-ply berserked win counts.
    let anywoli = ScoringRules::ANYWOLI;
    assert_eq!(points(Draw, false, false, 25, anywoli), 0);
    assert_eq!(points(Draw, false, false, 40, anywoli), 1);
    assert_eq!(points(Win, false, true, 20, anywoli), 3);
    assert_eq!(points(Win, false, true, 19, anywoli), 2);
}

fn arb_player(i: usize) -> impl Strategy<Value = Player> {
    (
        0i64..20_000,
        1u32..50,
        prop::option::of(0usize..30),
        "[SN-]{0,5}",
        any::<bool>(),
        1000i32..2000,
    )
        .prop_map(move |(since, rank, last, sides, bot, rating)| Player {
            id: format!("p{i}"),
            waiting_since: since,
            rank,
            last_opponent: last.map(|l| format!("p{l}")),
            rating,
            sides: sides.parse().unwrap(),
            bot,
        })
}

/// A wave's pairs keep every rule: nobody twice, no pair breaking a hard rule, and nobody who
/// waited long enough left beside a possible partner.
fn check_wave(wave: &Wave) -> Result<(), TestCaseError> {
    let pairs = pair(wave).unwrap().pairs;
    let mut seen = HashSet::new();
    for (s, n) in &pairs {
        prop_assert!(seen.insert(s.clone()) && seen.insert(n.clone()));
        let a = wave.players.iter().find(|p| &p.id == s).unwrap();
        let b = wave.players.iter().find(|p| &p.id == n).unwrap();
        prop_assert!(may_meet(a, b));
        prop_assert!(!a.sides.twice_in_a_row(Side::South) && !b.sides.twice_in_a_row(Side::North));
    }
    let left: Vec<&Player> = wave
        .players
        .iter()
        .filter(|p| !seen.contains(&p.id))
        .collect();
    for a in &left {
        if wave.now - a.waiting_since < MAX_WAIT_MS {
            continue;
        }
        for b in &left {
            prop_assert!(
                a.id == b.id || !may_meet(a, b),
                "{} and {} both left",
                a.id,
                b.id
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 20, ..ProptestConfig::default() })]

    /// Waves larger than one matching takes (matched by slices of the standings, then what
    /// is left) keep the same rules.
    #[test]
    fn a_large_wave_sliced_keeps_every_rule(
        players in (SLICE + 1..3 * SLICE).prop_flat_map(|n| (0..n).map(arb_player).collect::<Vec<_>>()),
    ) {
        check_wave(&Wave { now: 20_000, players, forbidden: vec![] })?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    /// Whoever has waited long enough is never left while a partner they may play is left too;
    /// no pair breaks a hard rule; nobody is paired twice.
    #[test]
    fn nobody_who_waited_is_left_beside_a_possible_partner(
        players in (2usize..30).prop_flat_map(|n| (0..n).map(arb_player).collect::<Vec<_>>()),
    ) {
        let wave = Wave {
            now: 20_000,
            players,
            forbidden: vec![],
        };
        check_wave(&wave)?;
    }
}

#[test]
fn a_large_wave_where_nobody_may_meet_ends() {
    // Everyone played South twice: no two may meet, in any slice or in what is left.
    let players = (0..300)
        .map(|i| waiting(&format!("p{i}"), 0, i + 1, None, "SS"))
        .collect();
    let wave = Wave {
        now: 20_000,
        players,
        forbidden: vec![],
    };
    assert!(pair(&wave).unwrap().pairs.is_empty());
}

#[test]
fn clocks_at_the_ends_of_the_range_are_no_panic() {
    let wave = Wave {
        now: i64::MAX,
        players: vec![
            waiting("a", i64::MIN, 1, None, ""),
            waiting("b", -1, 2, None, ""),
        ],
        forbidden: vec![],
    };
    assert_eq!(pair(&wave).unwrap().pairs.len(), 1);
}

#[test]
fn players_who_blocked_each_other_never_meet() {
    let wave = Wave {
        now: 20_000,
        players: vec![waiting("a", 0, 1, None, ""), waiting("b", 0, 2, None, "")],
        forbidden: vec![("b".into(), "a".into())],
    };
    assert!(pair(&wave).unwrap().pairs.is_empty());
    let mut three = wave.clone();
    three.players.push(waiting("c", 0, 3, None, ""));
    let pairs = pair(&three).unwrap().pairs;
    assert_eq!(pairs.len(), 1);
    assert!(ids(&pairs).contains("c"), "{pairs:?}");
}
