//! Standings on worked examples: arena streaks and berserk, Swiss tie-breaks, direct encounter.

use anywoli_tournament::arena::ScoringRules;
use anywoli_tournament::standings::{
    standings, Absence, Entrant, GameResult, Missed, Played, Standing, System,
};

fn entrants(ids: &[(&str, i32)]) -> Vec<Entrant> {
    ids.iter()
        .map(|(id, rating)| Entrant {
            id: id.to_string(),
            rating: *rating,
        })
        .collect()
}

fn game(n: u32, south: &str, north: &str, result: Option<GameResult>, plies: u32) -> Played {
    Played {
        game: format!("g{n}"),
        round: n,
        at: i64::from(n) * 1000,
        south: south.into(),
        north: north.into(),
        result,
        plies,
        berserk: [false, false],
    }
}

fn find<'a>(rows: &'a [Standing], id: &str) -> &'a Standing {
    rows.iter().find(|r| r.id == id).unwrap()
}

#[test]
fn arena_streaks_double_until_a_game_is_not_won_and_berserk_adds_one() {
    use GameResult::*;
    let e = entrants(&[("ana", 1500), ("ben", 1500), ("cai", 1500)]);
    let mut berserked = game(4, "ana", "cai", Some(South), 25);
    berserked.berserk = [true, false];
    let games = vec![
        game(1, "ana", "ben", Some(South), 60),
        game(2, "cai", "ana", Some(North), 60),
        // On a streak: 4.
        game(3, "ana", "ben", Some(South), 60),
        // Still on a streak, berserked and long enough: 4 + 1.
        berserked,
        // A draw on a streak doubles too (1 × 2), and ends the streak.
        game(5, "ben", "ana", Some(Draw), 40),
        // Off the streak: 2.
        game(6, "ana", "cai", Some(South), 60),
        // A draw in under 30 plies scores nothing.
        game(7, "ben", "cai", Some(Draw), 12),
        // Aborted: not a game, no points, but the last opponent all the same.
        game(8, "ben", "ana", Some(Aborted), 0),
        // Being played.
        game(9, "cai", "ben", None, 7),
    ];
    let rows = standings(System::Arena(ScoringRules::ANYWOLI), &e, &games, &[]);
    let ana = find(&rows, "ana");
    assert_eq!(ana.score, 2.0 + 2.0 + 4.0 + 5.0 + 2.0 + 2.0);
    assert_eq!((ana.games, ana.wins, ana.draws, ana.losses), (6, 5, 1, 0));
    assert_eq!(ana.rank, 1);
    assert!(!ana.streak, "one win since the draw");
    assert_eq!(ana.last_opponent.as_deref(), Some("ben"));
    let points: Vec<f64> = ana.sheet.iter().map(|l| l.points).collect();
    assert_eq!(points, [2.0, 2.0, 4.0, 5.0, 2.0, 2.0, 0.0]);
    assert_eq!(ana.sheet[6].result, Some("aborted"));
    assert!(ana.sheet[3].berserk);
    let ben = find(&rows, "ben");
    assert_eq!(ben.score, 1.0);
    assert_eq!(ben.playing.as_deref(), Some("g9"));
    assert_eq!(ben.sheet.last().unwrap().result, None);
    // Performance: ana met ben 3 times and cai 3 times (1500 each), +5 -0 of 6 games.
    assert_eq!(
        ana.performance,
        Some(1500 + (400.0 * 5.0 / 6.0_f64).round() as i32)
    );
}

#[test]
fn a_short_berserked_win_earns_no_bonus_and_two_wins_make_a_streak() {
    let e = entrants(&[("ana", 1500), ("ben", 1500)]);
    let mut g = game(1, "ana", "ben", Some(GameResult::South), 19);
    g.berserk = [true, true];
    let mut g2 = game(2, "ben", "ana", Some(GameResult::North), 20);
    g2.berserk = [false, true];
    let rows = standings(System::Arena(ScoringRules::ANYWOLI), &e, &[g, g2], &[]);
    let ana = find(&rows, "ana");
    assert_eq!(ana.score, 2.0 + 3.0);
    assert!(ana.streak);
}

#[test]
fn swiss_ties_break_by_buchholz_then_sonneborn_berger() {
    use GameResult::*;
    // Round 1: ana beats ben, cai beats dan. Round 2: ana draws cai, ben beats dan.
    let e = entrants(&[("ana", 1600), ("ben", 1500), ("cai", 1550), ("dan", 1400)]);
    let games = vec![
        game(1, "ana", "ben", Some(South), 50),
        game(1, "dan", "cai", Some(North), 50),
        game(2, "cai", "ana", Some(Draw), 50),
        game(2, "ben", "dan", Some(South), 50),
    ];
    let rows = standings(System::Swiss, &e, &games, &[]);
    // ana 1.5 (opponents ben 1, cai 1.5: BH 2.5), cai 1.5 (dan 0, ana 1.5: BH 1.5).
    let order: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(order, ["ana", "cai", "ben", "dan"]);
    assert_eq!(find(&rows, "ana").buchholz, 2.5);
    assert_eq!(find(&rows, "cai").buchholz, 1.5);
    // SB: ana beat ben (1) and drew cai (1.5 / 2).
    assert_eq!(find(&rows, "ana").sonneborn_berger, 1.75);
    assert_eq!(find(&rows, "ana").sides.to_string(), "SN");
    let ranks: Vec<u32> = rows.iter().map(|r| r.rank).collect();
    assert_eq!(ranks, [1, 2, 3, 4]);
}

#[test]
fn byes_and_absences_score_and_show_as_rounds_without_a_game() {
    let e = entrants(&[("ana", 1600), ("ben", 1500), ("cai", 1550)]);
    let games = vec![game(2, "ana", "ben", Some(GameResult::South), 50)];
    let missed = vec![
        Missed {
            player: "cai".into(),
            round: 2,
            kind: Absence::Bye,
            points: 1.0,
        },
        Missed {
            player: "ana".into(),
            round: 1,
            kind: Absence::Absent,
            points: 0.5,
        },
    ];
    let rows = standings(System::Swiss, &e, &games, &missed);
    let ana = find(&rows, "ana");
    assert_eq!(ana.score, 1.5);
    assert_eq!(ana.sides.to_string(), "-S");
    assert_eq!(ana.sheet[0].result, Some("absent"));
    let cai = find(&rows, "cai");
    assert_eq!((cai.score, cai.byes, cai.games), (1.0, 1, 0));
    assert_eq!(cai.sides.to_string(), "-");
}

#[test]
fn a_tie_on_every_sum_is_broken_by_direct_encounter_and_otherwise_shared() {
    use GameResult::*;
    // A round robin of three where everyone beat one and lost to one: equal on score, BH and
    // SB, and on direct encounter too, so all share first place.
    let e = entrants(&[("ana", 1500), ("ben", 1600), ("cai", 1700)]);
    let games = vec![
        game(1, "ana", "ben", Some(South), 50),
        game(2, "ben", "cai", Some(South), 50),
        game(3, "cai", "ana", Some(South), 50),
    ];
    let rows = standings(System::RoundRobin, &e, &games, &[]);
    assert!(rows.iter().all(|r| r.rank == 1 && r.score == 1.0));
    // Shared ranks list the higher rating first.
    assert_eq!(rows[0].id, "cai");

    // Two tied on everything but the game between them: its winner ranks first.
    let e = entrants(&[("ana", 1500), ("ben", 1600), ("cai", 1500), ("dan", 1500)]);
    let games = vec![
        game(1, "ana", "ben", Some(South), 50),
        game(1, "cai", "dan", Some(Draw), 50),
        game(2, "ana", "dan", Some(North), 50),
        game(2, "ben", "cai", Some(Draw), 50),
    ];
    let rows = standings(System::Swiss, &e, &games, &[]);
    let ana = find(&rows, "ana");
    let dan = find(&rows, "dan");
    assert_eq!((ana.score, dan.score), (1.0, 1.5));
    assert!(dan.rank < ana.rank);
}
