//! The course's exercises against the rules engine: every position is valid, every intended
//! solution reaches its goal (checked on the moves' own traces too), every exercise can be
//! missed, and the wrong moves the page explains get the reason it words.

use anywoli_core::{Event, Hole, Move, Side};
use anywoli_engine::lessons::{all, by_id, Ending, Exercise, Goal, Step, Why};

fn mv(s: &str) -> Move {
    s.parse().unwrap()
}

fn hole(s: &str) -> Hole {
    mv(s).hole()
}

fn exercise(id: &str, i: usize) -> &'static Exercise {
    &by_id(id)
        .unwrap_or_else(|| panic!("no lesson {id}"))
        .exercises[i]
}

#[test]
fn the_course_has_its_eight_lessons_in_order() {
    let ids: Vec<&str> = all().iter().map(|l| l.id).collect();
    assert_eq!(
        ids,
        ["sowing", "relay", "midsow", "lastseed", "pass", "end", "quiet", "threes"]
    );
    for l in all() {
        assert!(!l.exercises.is_empty(), "{}", l.id);
        for e in &l.exercises {
            assert_eq!(e.side(), Side::South, "{}: the learner is South", l.id);
            assert!(!e.position.is_over(), "{}", l.id);
            assert_eq!(e.position.seeds_in_play() % 4, 0, "{}", l.id);
        }
    }
}

#[test]
fn every_solution_reaches_its_goal_and_every_exercise_can_be_missed() {
    for l in all() {
        for (i, e) in l.exercises.iter().enumerate() {
            let name = format!("{} #{}", l.id, i + 1);
            let mut played = Vec::new();
            for (k, &m) in e.solution.iter().enumerate() {
                played.push(m);
                let want = if k + 1 == e.solution.len() {
                    Step::Done
                } else {
                    Step::Continue
                };
                assert_eq!(e.judge(&played), want, "{name}: after {played:?}");
            }
            // Every legal first move gets an answer, and some first move misses the goal.
            let mut wrong = 0;
            for m in e.position.moves() {
                match e.judge(&[m]) {
                    Step::Done | Step::Continue => {}
                    Step::Wrong(_) => wrong += 1,
                    other => panic!("{name}: {m}: {other:?}"),
                }
            }
            assert!(wrong > 0, "{name}: no first move misses the goal");
        }
    }
}

/// The traces of the solution's moves, played from the exercise's position.
fn traces(e: &Exercise) -> Vec<Vec<Event>> {
    let mut p = e.position;
    e.solution
        .iter()
        .map(|&m| p.play_traced(m).unwrap().events)
        .collect()
}

#[test]
fn the_solutions_do_what_the_lessons_say() {
    // Sowing: a's three seeds go to b, c, d; l's one crosses into North's row at A.
    let t = traces(exercise("sowing", 0));
    assert!(t[0].contains(&Event::Stop { hole: hole("d") }));
    let t = traces(exercise("sowing", 1));
    assert!(t[0].contains(&Event::Stop { hole: hole("A") }));
    // Relay: three laps, from c, then e, then g.
    let t = traces(exercise("relay", 0));
    let laps: Vec<Hole> = t[0]
        .iter()
        .filter_map(|e| match e {
            Event::Lap { hole, .. } => Some(*hole),
            _ => None,
        })
        .collect();
    assert_eq!(laps, [hole("c"), hole("e"), hole("g")]);
    // Mid-sow: South takes b's four while sowing on.
    let t = traces(exercise("midsow", 0));
    assert!(t[0].iter().any(|e| matches!(e,
        Event::Capture { hole: h, by: Side::South, .. } if *h == hole("b"))));
    // Last seed, twice: b's four and d's, each giving South the next move.
    let t = traces(exercise("lastseed", 1));
    for (k, h) in [(0, "b"), (1, "d")] {
        assert!(
            t[k].contains(&Event::ExtraMove { side: Side::South }),
            "{k}"
        );
        assert!(t[k].iter().any(|e| matches!(e,
            Event::Capture { hole: x, by: Side::South, .. } if *x == hole(h))));
    }
    // Pass: after South's k takes A, North's row is empty; South's c then makes North pass.
    let t = traces(exercise("pass", 0));
    assert!(t[1].contains(&Event::Pass { side: Side::North }));
    // The end and the quiet rule: the game is over after the move, South ahead.
    for (id, stores) in [("end", (52, 44)), ("quiet", (50, 46))] {
        let e = exercise(id, 0);
        let mut p = e.position;
        for &m in &e.solution {
            p.play(m).unwrap();
        }
        assert!(p.is_over(), "{id}");
        assert_eq!((p.store(Side::South), p.store(Side::North)), stores, "{id}");
    }
}

#[test]
fn wrong_moves_get_the_reason_the_page_explains() {
    let cases: [(&str, usize, &str, Why); 7] = [
        (
            "sowing",
            1,
            "a",
            Why::EndedElsewhere {
                ending: Ending::Stopped(hole("d")),
                want: hole("A"),
            },
        ),
        (
            "relay",
            0,
            "e",
            Why::TooFewLaps {
                laps: 1,
                want: 3,
                ending: Ending::Stopped(hole("f")),
            },
        ),
        ("midsow", 1, "k", Why::GaveFour { hole: hole("A") }),
        (
            "lastseed",
            0,
            "h",
            Why::NoLastSeedCapture {
                ending: Ending::Stopped(hole("i")),
            },
        ),
        (
            "pass",
            0,
            "c",
            Why::OpponentPlays {
                ending: Ending::Stopped(hole("d")),
            },
        ),
        (
            "quiet",
            0,
            "l",
            Why::NotAhead {
                south: 47,
                north: 49,
            },
        ),
        (
            "threes",
            0,
            "f",
            Why::OpponentCaptures {
                reply: mv("L"),
                hole: hole("a"),
            },
        ),
    ];
    for (id, i, m, why) in cases {
        assert_eq!(
            exercise(id, i).judge(&[mv(m)]),
            Step::Wrong(why),
            "{id} #{i}: {m}"
        );
    }
    // A chain broken at its second move.
    let e = exercise("lastseed", 1);
    assert!(matches!(
        e.judge(&[mv("a"), mv("d")]),
        Step::Wrong(Why::NoLastSeedCapture { .. })
    ));
}

#[test]
fn moves_that_do_not_follow_the_exercise_are_refused() {
    let e = exercise("sowing", 0);
    assert!(matches!(e.judge(&[]), Step::Invalid(_)));
    assert!(
        matches!(e.judge(&[mv("b")]), Step::Illegal(_)),
        "an empty hole"
    );
    assert!(
        matches!(e.judge(&[mv("A")]), Step::Illegal(_)),
        "North's hole"
    );
    // After a one-move exercise's move the turn is North's: nothing more to judge.
    assert!(matches!(e.judge(&[mv("a"), mv("l")]), Step::Invalid(_)));
    // The goals' kinds, for the record of what the course asks.
    let goals: Vec<Goal> = all()
        .iter()
        .flat_map(|l| l.exercises.iter().map(|e| e.goal))
        .collect();
    assert_eq!(goals.len(), 11);
}
