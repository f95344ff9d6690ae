//! `anywoli match` and `anywoli play`, run as a user runs them: the real binary.
//!
//! Nothing here asserts speed; movetimes are tiny so the games are quick.

use std::path::PathBuf;

use anywoli_core::record::parse_all;
use anywoli_core::{Position, Record, Rules, Side};

const BIN: &str = env!("CARGO_BIN_EXE_anywoli");

use crate::support;

use support::{run, run_in, Run};

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("anywoli-test-{}-{name}", std::process::id()))
}

/// The score line: `score: A X - Y B (N games: A +W =D -L)`; returns (X, Y, W, D, L).
fn score_line(out: &str, a: &str, b: &str) -> (f64, f64, usize, usize, usize) {
    let line = out
        .lines()
        .find(|l| l.starts_with("score: "))
        .unwrap_or_else(|| panic!("no score line in {out}"));
    let rest = line.strip_prefix(&format!("score: {a} ")).unwrap();
    let (x, rest) = rest.split_once(" - ").unwrap();
    let (y, rest) = rest.split_once(' ').unwrap();
    let rest = rest.strip_prefix(&format!("{b} (")).unwrap();
    let (n, rest) = rest.split_once(" games: ").unwrap();
    let rest = rest.strip_prefix(&format!("{a} +")).unwrap();
    let rest = rest.strip_suffix(')').unwrap();
    let wdl: Vec<usize> = rest
        .split([' ', '=', '-'])
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    let (x, y): (f64, f64) = (x.parse().unwrap(), y.parse().unwrap());
    assert_eq!(x + y, n.parse::<f64>().unwrap(), "{line}");
    assert_eq!(wdl.len(), 3, "{line}");
    (x, y, wdl[0], wdl[1], wdl[2])
}

/// Points of the player named `who` in a record.
fn points(r: &Record, who: &str) -> f64 {
    let south = r.tag("South") == Some(who);
    match (r.result.as_str(), south) {
        ("1-0", true) | ("0-1", false) => 1.0,
        ("0-1", true) | ("1-0", false) => 0.0,
        ("1/2-1/2", _) => 0.5,
        (res, _) => panic!("result {res}"),
    }
}

#[test]
fn a_match_of_builtins_scores_and_saves_records() {
    let out = temp("builtins.txt");
    let r = run(&[
        "match",
        "--games",
        "4",
        "--movetime",
        "5",
        "--out",
        out.to_str().unwrap(),
        "greedy",
        "level1",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let text = std::fs::read_to_string(&out).unwrap();
    std::fs::remove_file(&out).unwrap();
    let games = parse_all(&text).unwrap();
    assert_eq!(games.len(), 4);
    for (i, g) in games.iter().enumerate() {
        assert_eq!(g.tag("Round"), Some((i + 1).to_string().as_str()));
        // Sides alternate, each opening twice.
        let (south, north) = if i % 2 == 0 {
            ("greedy", "level1")
        } else {
            ("level1", "greedy")
        };
        assert_eq!((g.tag("South"), g.tag("North")), (Some(south), Some(north)));
        assert_eq!(g.rules, Rules::Anywoli);
        assert_eq!(g.start, Position::start(Rules::Anywoli));
        let date = g.tag("Date").unwrap();
        assert_eq!(date.len(), 10, "{date}");
        assert_eq!(date.matches('.').count(), 2, "{date}");
        // Games are played to the end and the result is the final position's.
        let end = g.end().unwrap();
        assert!(end.is_over());
        assert_eq!(g.result, end.outcome().unwrap().as_str());
        let t = g.tag("Termination").unwrap();
        assert!(t == "normal" || t == "quiet rule", "{t}");
        let opening = g.tag("Opening").unwrap();
        let first: Vec<String> = g.moves.iter().take(4).map(|m| m.to_string()).collect();
        assert_eq!(first.join(" "), opening);
    }
    assert_eq!(games[0].tag("Opening"), games[1].tag("Opening"));
    assert_eq!(games[2].tag("Opening"), games[3].tag("Opening"));
    assert_ne!(games[0].tag("Opening"), games[2].tag("Opening"));

    // The score line agrees with the records.
    let (x, y, w, d, l) = score_line(&r.stdout, "greedy", "level1");
    let greedy: f64 = games.iter().map(|g| points(g, "greedy")).sum();
    assert_eq!((x, y), (greedy, 4.0 - greedy), "{}", r.stdout);
    assert_eq!(w as f64 + d as f64 / 2.0, greedy);
    assert_eq!(w + d + l, 4);
    assert_eq!(
        r.stdout.lines().filter(|l| l.starts_with("game ")).count(),
        4
    );
    let elo = r.stdout.lines().find(|l| l.starts_with("elo: ")).unwrap();
    assert!(elo.starts_with("elo: greedy - level1 = "), "{elo}");
    assert!(elo.ends_with(" (95%)"), "{elo}");
}

#[test]
fn an_external_engine_plays_through_the_protocol() {
    let cmd = format!("cmd:{BIN} engine");
    let out = temp("external.txt");
    let r = run(&[
        "match",
        "--games",
        "2",
        "--movetime",
        "5",
        "--rules",
        "anywoli-lottery",
        "--seed",
        "3",
        "--out",
        out.to_str().unwrap(),
        &cmd,
        "greedy",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let games = parse_all(&std::fs::read_to_string(&out).unwrap()).unwrap();
    std::fs::remove_file(&out).unwrap();
    assert_eq!(games.len(), 2);
    for g in &games {
        // The lottery seed of the opening, shared by both games of the pair.
        assert_eq!(g.rules, Rules::Lottery { seed: 3 });
        let t = g.tag("Termination").unwrap();
        assert!(t == "normal" || t == "quiet rule", "{t}");
        assert!(g.end().unwrap().is_over());
    }
    assert_eq!(games[0].tag("South"), Some(cmd.as_str()));
    assert_eq!(games[1].tag("North"), Some(cmd.as_str()));
    score_line(&r.stdout, &cmd, "greedy");
}

/// A match of two games at 5 ms a move between `a` and `b`, saved under `name`: the run and
/// its records (the file is removed).
fn two_games(name: &str, a: &str, b: &str) -> (Run, Vec<Record>) {
    let out = temp(name);
    let r = run(&[
        "match",
        "--games",
        "2",
        "--movetime",
        "5",
        "--out",
        out.to_str().unwrap(),
        a,
        b,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let games = parse_all(&std::fs::read_to_string(&out).unwrap()).unwrap();
    std::fs::remove_file(&out).unwrap();
    (r, games)
}

/// An engine that fails in `how` loses every game, with the reason in `Termination`.
/// `at_its_turn`: it fails on a move (not when starting), so the record stops at its turn.
fn failing_engine(name: &str, cmd: &str, reason: &str, at_its_turn: bool) {
    let (r, games) = two_games(name, "greedy", cmd);
    assert_eq!(games.len(), 2, "the match goes on after a failure");
    for (i, g) in games.iter().enumerate() {
        let side = if i == 0 { Side::North } else { Side::South };
        let t = g.tag("Termination").unwrap();
        assert!(
            t.starts_with(&format!("{side} ({cmd}) ")) && t.contains(reason),
            "{t}"
        );
        assert_eq!(g.result, if i == 0 { "1-0" } else { "0-1" });
        // The record holds the legal moves up to the failure.
        let end = g.end().unwrap();
        assert!(!end.is_over());
        if at_its_turn {
            assert_eq!(end.to_move(), Some(side), "{g}");
        }
    }
    assert_eq!(score_line(&r.stdout, "greedy", cmd), (2.0, 0.0, 2, 0, 0));
}

#[test]
fn an_engine_that_crashes_loses_and_the_match_goes_on() {
    // `anywoli rules` prints the rules and exits: it never says aeiok.
    failing_engine(
        "crash.txt",
        &format!("cmd:{BIN} rules"),
        "crashed: the engine exited",
        false,
    );
}

#[cfg(unix)]
#[test]
fn an_engine_that_sends_an_illegal_move_loses() {
    let script = r#"cmd:sh -c 'while read l; do case "$l" in aei) echo aeiok;; isready) echo readyok;; go*) echo bestmove a;; esac; done'"#;
    let out = temp("illegal.txt");
    let r = run(&[
        "match",
        "--games",
        "2",
        "--movetime",
        "5",
        "--opening-plies",
        "0",
        "--out",
        out.to_str().unwrap(),
        "greedy",
        script,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let games = parse_all(&std::fs::read_to_string(&out).unwrap()).unwrap();
    std::fs::remove_file(&out).unwrap();
    // As North, its first move `a` is South's hole.
    assert_eq!(
        games[0].tag("Termination"),
        Some(
            format!("North ({script}) sent the illegal move a: move a: hole a is South's, but it is North's turn (moves A..L)")
                .as_str()
        )
    );
    assert_eq!(games[0].moves.len(), 1);
    assert_eq!(games[0].result, "1-0");
    let t = games[1].tag("Termination").unwrap();
    assert!(
        t.starts_with(&format!("South ({script}) sent the illegal move a")),
        "{t}"
    );
    assert_eq!(games[1].result, "0-1");
}

#[cfg(unix)]
#[test]
fn an_engine_that_never_answers_go_times_out_and_loses() {
    let script = r#"cmd:sh -c 'while read l; do case "$l" in aei) echo aeiok;; isready) echo readyok;; esac; done'"#;
    failing_engine(
        "timeout.txt",
        script,
        "timed out: no bestmove within 1025 ms",
        true,
    );
}

/// Openings around an even game are announced as such, and a built-in player's own time a
/// move is taken (at the match's 60 s a move level 10 would not end two games in a test).
#[test]
fn even_openings_and_a_players_own_time() {
    let out = temp("even.txt");
    let r = run(&[
        "match",
        "--games",
        "2",
        "--even",
        "--movetime",
        "60000",
        "--out",
        out.to_str().unwrap(),
        "level10:movetime=5",
        "level1",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("(within 3 seeds of an even game)"),
        "{}",
        r.stdout
    );
    let games = parse_all(&std::fs::read_to_string(&out).unwrap()).unwrap();
    std::fs::remove_file(&out).unwrap();
    assert_eq!(games.len(), 2);
    assert_eq!(games[0].tag("Opening"), games[1].tag("Opening"));
}

#[test]
fn a_builtin_takes_its_own_threads_and_table() {
    let (r, games) = two_games("options.txt", "level6:threads=2:hash=4", "level6");
    assert_eq!(games.len(), 2);
    // The spec names the player in the records and the score line, so the two differ.
    assert_eq!(games[0].tag("South"), Some("level6:threads=2:hash=4"));
    assert_eq!(games[1].tag("North"), Some("level6:threads=2:hash=4"));
    let (x, y, ..) = score_line(&r.stdout, "level6:threads=2:hash=4", "level6");
    assert_eq!(x + y, 2.0, "{}", r.stdout);
}

/// A sequential test between a level that searches and one that plays almost at random ends
/// long before the games run out, with the pairs' counts agreeing with the records.
#[test]
fn an_sprt_stops_the_match_when_it_decides() {
    let out = temp("sprt.txt");
    let r = run(&[
        "match",
        "--games",
        "400",
        "--movetime",
        "5",
        "--sprt",
        "--elo0",
        "-10",
        "--elo1",
        "40",
        "--out",
        out.to_str().unwrap(),
        "level5",
        "level1",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let text = std::fs::read_to_string(&out).unwrap();
    std::fs::remove_file(&out).unwrap();
    let games = parse_all(&text).unwrap();
    assert!(games.len() < 100, "{} games: {}", games.len(), r.stdout);
    let summary = r
        .stdout
        .lines()
        .find(|l| l.starts_with("sprt: elo0 -10 elo1 40"))
        .unwrap_or_else(|| panic!("{}", r.stdout));
    assert!(
        summary.contains("bounds (-2.94, 2.94): H1 accepted (elo1 = 40) after "),
        "{summary}"
    );
    // The pentanomial counts are the records' pairs by level5's points.
    let mut counts = [0usize; 5];
    for pair in games.chunks(2).filter(|c| c.len() == 2) {
        if pair[0].tag("Opening") != pair[1].tag("Opening") {
            continue;
        }
        let pts = points(&pair[0], "level5") + points(&pair[1], "level5");
        counts[(pts * 2.0) as usize] += 1;
    }
    let pairs_line = r.stdout.lines().find(|l| l.starts_with("pairs: ")).unwrap();
    let want = format!(
        "pairs: {} [{}, {}, {}, {}, {}]",
        counts.iter().sum::<usize>(),
        counts[0],
        counts[1],
        counts[2],
        counts[3],
        counts[4]
    );
    assert!(pairs_line.starts_with(&want), "{pairs_line} / {want}");
}

#[test]
fn match_errors_are_one_line_with_status_2() {
    for (args, needle) in [
        (
            &["match", "greedy", "level11"][..],
            "unknown player 'level11'",
        ),
        (&["match", "greedy", "cmd:"][..], "no command after cmd:"),
        (&["match", "greedy", "cmd:'x"][..], "never closed"),
        (
            &["match", "--games", "0", "greedy", "level1"][..],
            "--games",
        ),
        (
            &["match", "--rules", "chess", "greedy", "level1"][..],
            "unknown rules 'chess'",
        ),
        (&["match", "greedy"][..], "PLAYER_B"),
        (
            &["match", "level10:threads=0", "greedy"][..],
            "option 'threads=0' is not threads=N (1 to 64)",
        ),
        (
            &["match", "level10:hash=lots", "greedy"][..],
            "option 'hash=lots'",
        ),
        (&["match", "level10:fast", "greedy"][..], "option 'fast'"),
        (
            &["match", "level10:movetime=0", "greedy"][..],
            "movetime=MS (1 to 600000)",
        ),
        (
            &["match", "--even", "--unbalanced", "greedy", "level1"][..],
            "cannot be used with",
        ),
        (
            &["match", "bogus:threads=2", "greedy"][..],
            "unknown player 'bogus:threads=2'",
        ),
        (
            &[
                "match", "--sprt", "--elo0", "50", "--elo1", "0", "greedy", "level1",
            ][..],
            "elo1 (0) must be above elo0 (50)",
        ),
        (
            &["match", "--sprt", "--alpha", "0.7", "greedy", "level1"][..],
            "alpha must be above 0 and below 0.5 (got 0.7)",
        ),
    ] {
        let r = run(args);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert_eq!(r.stdout, "", "{args:?}");
        assert_eq!(r.stderr.lines().count(), 1, "{args:?}: {}", r.stderr);
        assert!(r.stderr.contains(needle), "{args:?}: {}", r.stderr);
    }
}

fn play(args: &[&str], input: &str) -> Run {
    let all: Vec<&str> = std::iter::once("play")
        .chain(args.iter().copied())
        .collect();
    run_in(&all, input)
}

const START_ROW: &str = "|  4 |  4 |  4 |  4 |  4 |  4 |  4 |  4 |  4 |  4 |  4 |  4 |";

#[test]
fn play_through_a_pipe() {
    let r = play(
        &["--level", "1", "--movetime", "20"],
        "Z\nA\nundo\nhint\ne\nundo\nquit\n",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stderr, "");
    let o = &r.stdout;
    assert!(
        o.starts_with("You play South (a..l) against the engine at level 1."),
        "{o}"
    );
    // The prompt, then the echoed input and the answer.
    assert!(
        o.contains("South to move (a..l), or undo, hint, quit: Z\nerror: 'Z' is not a move"),
        "{o}"
    );
    assert!(o.contains(
        "A\nerror: illegal move: move A: hole A is North's, but it is South's turn (moves a..l)"
    ));
    assert!(o.contains("undo\nerror: nothing to undo, you have not moved yet"));
    let hint = o.lines().find(|l| l.starts_with("hint: ")).unwrap();
    let mv: anywoli_core::Move = hint[6..7].parse().unwrap();
    assert_eq!(mv.side(), Side::South, "{hint}");
    assert!(hint.contains(" seeds for you"), "{hint}");
    // After e the board shows e's sowing, and the engine answers with one of North's moves.
    assert!(o.contains("|  5 |  5 |  5 |  5 |* 1 |  5 |  5 |  5 |  0 |  5 |  5 |  5 | South"));
    let reply = o
        .lines()
        .find_map(|l| l.strip_prefix("level 1 (North) plays "))
        .unwrap();
    let reply: anywoli_core::Move = reply.parse().unwrap();
    assert_eq!(reply.side(), Side::North);
    // undo takes back the engine's reply and e: the start board again.
    let after_undo = o.split("took back 2 moves\n").nth(1).unwrap();
    assert_eq!(after_undo.matches(START_ROW).count(), 2, "{after_undo}");
    assert!(after_undo.contains("South to move · ply 0"));
}

#[test]
fn play_as_north_the_engine_moves_first_and_end_of_input_ends_it() {
    let r = play(&["--side", "north", "--level", "2"], "");
    assert_eq!(r.code, 0, "{}", r.stderr);
    let o = &r.stdout;
    assert!(o.starts_with("You play North (A..L)"), "{o}");
    let first = o
        .lines()
        .find_map(|l| l.strip_prefix("level 2 (South) plays "))
        .unwrap();
    let first: anywoli_core::Move = first.parse().unwrap();
    assert_eq!(first.side(), Side::South);
    assert!(o.contains("North to move (A..L), or undo, hint, quit: "));
}

#[test]
fn play_a_finished_game_says_who_won() {
    // South's only move l sows into A, which makes 4 mid-sow: North takes them, 4 seeds are
    // left in play, the game ends and they go to North too.
    let pos = "0,0,0,0,0,0,0,0,0,0,0,3/3,2,0,0,0,0,0,0,0,0,0,0 s 44 44 n - 0 90";
    let r = play(&["--position", pos, "--level", "1"], "l\n");
    assert_eq!(r.code, 0, "{}", r.stderr);
    let o = &r.stdout;
    assert!(o.contains("game over: North wins, 44-52"), "{o}");
    assert!(o.ends_with("You lose.\nmoves: l\n"), "{o}");
    let r = play(&["--level", "11"], "");
    assert_eq!(r.code, 2);
    assert_eq!(r.stderr.lines().count(), 1);
}

#[test]
fn play_on_two_threads_and_threads_out_of_range() {
    let r = play(
        &["--level", "10", "--threads", "2", "--movetime", "50"],
        "e\nquit\n",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let reply = r
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("level 10 (North) plays "))
        .unwrap_or_else(|| panic!("{}", r.stdout));
    let reply: anywoli_core::Move = reply.parse().unwrap();
    assert_eq!(reply.side(), Side::North);
    for bad in ["0", "65", "two"] {
        let r = play(&["--threads", bad], "");
        assert_eq!(r.code, 2, "--threads {bad}");
        assert!(r.stderr.contains("--threads"), "{}", r.stderr);
        assert_eq!(r.stdout, "");
    }
}
