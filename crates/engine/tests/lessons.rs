//! The course's exercises against the rules engine: every position is valid, every intended
//! solution reaches its goal (checked on the moves' own traces too), every exercise can be
//! missed, and the wrong moves the page explains get the reason it words.

use anywoli_core::{CaptureKind, Event, Hole, Move, Side};
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
fn the_course_has_its_lessons_in_order() {
    let ids: Vec<&str> = all().iter().map(|l| l.id).collect();
    assert_eq!(
        ids,
        [
            "sowing", "relay", "midsow", "lastseed", "pass", "end", "quiet", "threes", "count",
            "tempo", "force"
        ]
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
            // The learner's moves are judged; the opponent's (its defence, in a ForceCapture
            // line) are what the judge answered with.
            let mut played = Vec::new();
            let mut p = e.position;
            let mut k = 0;
            while k < e.solution.len() {
                let m = e.solution[k];
                played.push(m);
                p.play(m).unwrap();
                k += 1;
                let mut reply = Vec::new();
                while k < e.solution.len() && p.to_move() == Some(e.side().opponent()) {
                    reply.push(e.solution[k]);
                    p.play(e.solution[k]).unwrap();
                    k += 1;
                }
                let want = if k == e.solution.len() {
                    Step::Done
                } else if !reply.is_empty() {
                    Step::Reply(reply.clone())
                } else {
                    Step::Continue
                };
                assert_eq!(e.judge(&played), want, "{name}: after {played:?}");
                played.extend(reply);
            }
            // Every legal first move gets an answer, and some first move misses the goal.
            let mut wrong = 0;
            for m in e.position.moves() {
                match e.judge(&[m]) {
                    Step::Done | Step::Continue | Step::Reply(_) => {}
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
    // Counting: h's nine seeds reach North's E, a three made four by the last seed.
    let t = traces(exercise("count", 0));
    assert!(t[0].iter().any(|e| matches!(e,
        Event::Capture { hole: x, by: Side::South, kind: CaptureKind::LastSeed } if *x == hole("E"))));
    // Tempo: h's capture of k gives the extra move that j spends, and North then has no capture.
    let e = exercise("tempo", 0);
    let t = traces(e);
    assert!(t[0].contains(&Event::ExtraMove { side: Side::South }));
    assert!(!t[1].iter().any(|e| matches!(e, Event::Capture { .. })));
    // Force: f leaves h one seed before i's three; North's C cannot stop h, and h takes i.
    let e = exercise("force", 0);
    let t = traces(e);
    assert!(t[0].contains(&Event::Stop { hole: hole("h") }));
    assert!(t[2].iter().any(|e| matches!(e,
        Event::Capture { hole: x, by: Side::South, kind: CaptureKind::LastSeed } if *x == hole("i"))));
    // ... and checked here without the judge: every answer of North leaves South a capture.
    let mut after_f = e.position;
    after_f.play(mv("f")).unwrap();
    for answer in after_f.moves() {
        let mut q = after_f;
        q.play(answer).unwrap();
        assert_eq!(q.to_move(), Some(Side::South), "{answer}");
        assert!(
            q.moves()
                .any(|m| q.trace(m).unwrap().events.iter().any(|e| matches!(
                    e,
                    Event::Capture {
                        by: Side::South,
                        ..
                    }
                ))),
            "after North's {answer}"
        );
    }
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
                fed: false,
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
    // Pass: after k's extra move North's row is empty; i then sows into North's A, so the
    // reason is that the move fed North, not that North "still has seeds" (issue 36).
    let e = exercise("pass", 0);
    assert_eq!(e.judge(&[mv("k")]), Step::Continue);
    assert_eq!(
        e.judge(&[mv("k"), mv("i")]),
        Step::Wrong(Why::OpponentPlays {
            ending: Ending::Stopped(hole("A")),
            fed: true
        })
    );
    // Tempo: k at once leaves North's A a relay into C's three; after h's capture, i's sowing
    // makes C's four for North.
    let e = exercise("tempo", 0);
    assert_eq!(
        e.judge(&[mv("k")]),
        Step::Wrong(Why::OpponentCaptures {
            reply: mv("A"),
            hole: hole("C")
        })
    );
    assert_eq!(e.judge(&[mv("h")]), Step::Continue);
    assert_eq!(
        e.judge(&[mv("h"), mv("i")]),
        Step::Wrong(Why::GaveFour { hole: hole("C") })
    );
    // Force: i and k threaten nothing North's answer cannot parry; after f and North's C, a
    // move that captures nothing is a miss.
    let e = exercise("force", 0);
    assert_eq!(
        e.judge(&[mv("i")]),
        Step::Wrong(Why::Parried { reply: mv("C") })
    );
    assert_eq!(
        e.judge(&[mv("k")]),
        Step::Wrong(Why::Parried { reply: mv("A") })
    );
    assert_eq!(
        e.judge(&[mv("f"), mv("C"), mv("i")]),
        Step::Wrong(Why::MissedCapture {
            ending: Ending::Stopped(hole("l"))
        })
    );
    // A defence other than the one given is off the line.
    assert!(matches!(
        e.judge(&[mv("f"), mv("K"), mv("h")]),
        Step::Invalid(_)
    ));
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
    assert_eq!(goals.len(), 14);
}
