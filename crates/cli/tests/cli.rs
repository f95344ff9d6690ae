//! The `anywoli` command line as other programs use it: outputs, exit codes, one-line errors.

use crate::support;

use support::{assert_fails, run};

const START: &str = "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0";
const AFTER_E: &str = "5,5,5,5,1,5,5,5,0,5,5,5/5,0,5,5,5,5,0,5,5,5,5,0 n 0 0 - - 1 1";

#[test]
fn apply_prints_one_position_per_move() {
    let r = run(&["apply", "e", "F"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0], AFTER_E);
    // The second line is what the engine gives for F from AFTER_E.
    let r2 = run(&["apply", "--position", AFTER_E, "F"]);
    assert_eq!(r2.stdout.trim(), lines[1]);
}

#[test]
fn apply_takes_moves_in_one_argument_and_a_start_position() {
    let a = run(&["apply", "e F"]);
    let b = run(&["apply", "--position", START, "e", "F"]);
    assert_eq!(a.code, 0);
    assert_eq!(a.stdout, b.stdout);
}

#[test]
fn apply_errors_name_what_is_wrong() {
    assert_fails(&["apply", "e", "e"], &["move 2", "North's turn"]);
    assert_fails(&["apply", "e", "Z"], &["move 2", "'Z'"]);
    assert_fails(
        &["apply", "--rules", "chess", "e"],
        &["unknown rules 'chess'"],
    );
    assert_fails(
        &["apply", "--position", "4,4/4 s 0 0 - - 0 0", "e"],
        &["South's row", "2 holes"],
    );
    assert_fails(
        &[
            "apply",
            "--position",
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 q 0 0 - - 0 0",
        ],
        &["to-move", "'q'"],
    );
    assert_fails(&["apply", "--position"], &["--position"]);
    let over = "0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 x 50 46 s s 0 80";
    assert_fails(&["apply", "--position", over, "a"], &["game is over"]);
    let empty_hole = "0,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 4 0 s - 0 3";
    assert_fails(
        &["apply", "--position", empty_hole, "a"],
        &["hole a is empty"],
    );
}

#[test]
fn rules_lists_every_variant() {
    let r = run(&["rules"]);
    for name in [
        "anywoli ",
        "anywoli-first-final",
        "anywoli-lottery",
        "anywoli-it",
    ] {
        assert!(r.stdout.contains(name), "{name}");
    }
}

#[test]
fn perft_from_the_start() {
    for (d, n) in [("1", "12"), ("2", "116"), ("3", "1214")] {
        let r = run(&["perft", d]);
        assert_eq!(r.code, 0);
        assert_eq!(
            r.stdout.lines().last().unwrap().split_whitespace().last(),
            Some(n)
        );
    }
    let r = run(&["perft", "--divide", "2"]);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 13);
    let sum: u64 = lines[..12]
        .iter()
        .map(|l| l.split_whitespace().last().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(sum, 116);
    assert_eq!(lines[12], "total 116");
    assert_fails(&["perft", "x"], &["DEPTH"]);
}

#[test]
fn show_draws_norths_row_reversed() {
    let r = run(&["show", "e"]);
    assert_eq!(r.code, 0);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert!(
        lines[0].trim_start().starts_with("L    K    J"),
        "{}",
        lines[0]
    );
    // After e, North's row L..A reads 0 5 5 5 5 0 5 5 5 5 0 5.
    let north: Vec<&str> = lines[2]
        .split('|')
        .skip(1)
        .take(12)
        .map(str::trim)
        .collect();
    assert_eq!(
        north,
        ["0", "5", "5", "5", "5", "0", "5", "5", "5", "5", "0", "5"]
    );
    assert!(lines[4].contains("*"), "last move marked: {}", lines[4]);
    assert!(r.stdout.contains("North to move"));
}

#[test]
fn trace_text_and_json() {
    let r = run(&["trace", "e"]);
    assert_eq!(r.code, 0);
    assert!(r
        .stdout
        .contains("lap 5 (relay): 5 seeds from L -> a5 b5 c5 d5 e1"));
    assert!(r.stdout.contains(AFTER_E));
    let r = run(&["trace", "--json", "e"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["move"], "e");
    assert_eq!(v["after"], AFTER_E);
    let events = v["events"].as_array().unwrap();
    let sows = events.iter().filter(|e| e["type"] == "sow").count();
    assert_eq!(sows, 24);
    assert_eq!(events.iter().filter(|e| e["type"] == "lap").count(), 5);
    assert_eq!(events.last().unwrap()["type"], "stop");
    assert_fails(&["trace", "F"], &["South's turn"]);
}

#[test]
fn bench_reports_both_figures() {
    let r = run(&[
        "bench",
        "--seconds",
        "0.05",
        "--runs",
        "1",
        "--perft-depth",
        "3",
        "--search-depth",
        "4",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("M plies/s"));
    assert!(r.stdout.contains("perft 3: 1214 leaves"));
    assert!(r.stdout.contains("M nodes/s, depth 4 from the start"));
    assert_fails(&["bench", "--seconds=0"], &["--seconds"]);
    // Distance to perfection needs the databases as its judge, and sane levels.
    assert_fails(
        &["bench", "--perfect", "--tablebases", "/nonexistent-anywoli"],
        &["needs the 8- and 12-seed databases"],
    );
    assert_fails(
        &["bench", "--perfect", "--levels", "0-3"],
        &["--levels '0-3'"],
    );
}

#[test]
fn compose_proves_a_puzzle_or_says_why_not() {
    let seven = "0,0,0,1,0,0,0,0,0,0,2,2/0,0,2,0,0,0,0,0,0,1,0,0 s 44 44 - - 93 93";
    let r = run(&["compose", "--position", seven]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines[0], format!("position {seven}"));
    assert_eq!(
        lines[1],
        "puzzle: South to play forces the win; the only winning first move is d"
    );
    assert_eq!(
        lines[2],
        "solution: d C e D f F g (7 plies, 4 moves for South)"
    );

    let two = "0,0,0,0,1,0,0,0,3,1,0,0/0,0,1,1,0,0,0,0,0,0,0,1 s 44 44 - - 89 89";
    let r = run(&["compose", "--position", two]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("not a puzzle: 2 first moves win (e, j): a puzzle needs exactly one"),
        "{}",
        r.stdout
    );
    let r = run(&["compose", "--json", "--position", two]);
    let v: serde_json::Value = serde_json::from_str(r.stdout.trim()).unwrap();
    assert_eq!(v["puzzle"], false);
    assert_eq!(v["reason"], "several_winning_first_moves");
    assert_eq!(v["moves"], serde_json::json!(["e", "j"]));
    // A budget too small to prove anything says so.
    let r = run(&["compose", "--nodes", "10", "--position", seven]);
    assert!(
        r.stdout
            .contains("not a puzzle: not proven within the limit of 10 nodes"),
        "{}",
        r.stdout
    );
    assert_fails(
        &["compose", "--position", &seven.replacen("2,2/", "2,1/", 1)],
        &["bad position", "95 seeds"],
    );
}

#[test]
fn book_shows_the_moves_and_scores_of_a_position() {
    let r = run(&["book"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines[0], format!("position {START}"));
    assert!(
        lines[1].starts_with("book: rules anywoli, "),
        "{}",
        lines[1]
    );
    assert!(
        lines[2].starts_with("in the book: 12 moves searched to depth "),
        "{}",
        lines[2]
    );
    // One line per move, best first, the first marked as the move level 10 plays.
    let moves = &lines[3..];
    assert_eq!(moves.len(), 12, "{}", r.stdout);
    assert!(moves[0].ends_with("  book move"), "{}", moves[0]);
    let score = |l: &str| -> f64 { l.split_whitespace().nth(1).unwrap().parse().unwrap() };
    assert!(moves.windows(2).all(|w| score(w[0]) >= score(w[1])));
    let first = moves[0].split_whitespace().next().unwrap().to_string();

    // Moves after the position, or the position itself, find the same entry two plies in.
    let after = run(&["apply", &first]).stdout;
    let reply = run(&["book", "--position", after.trim()]);
    assert_eq!(reply.code, 0);
    assert!(reply.stdout.contains("in the book: "), "{}", reply.stdout);
    let best_reply = reply
        .stdout
        .lines()
        .nth(3)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();
    let a = run(&["book", &first, &best_reply]);
    assert!(a.stdout.contains("in the book: "), "{}", a.stdout);

    // Far from the opening, and under other rules: said so, exit status 0.
    let late = "0,0,0,0,1,0,0,3,0,0,0,0/0,0,1,0,0,1,0,0,2,0,0,0 s 44 44 - - 0 0";
    let r = run(&["book", "--position", late]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.ends_with("not in the book\n"), "{}", r.stdout);
    let r = run(&["book", "--rules", "anywoli-it"]);
    assert!(
        r.stdout
            .ends_with("not in the book (the book is for rules anywoli, not anywoli-it)\n"),
        "{}",
        r.stdout
    );
    assert_fails(&["book", "Z"], &["move 1", "'Z'"]);
}

#[test]
fn book_build_makes_a_book_that_book_reads() {
    let dir = std::env::temp_dir().join(format!("anywoli-book-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("book.txt");
    let out_s = out.to_str().unwrap();
    let r = run(&[
        "book", "build", "--plies", "2", "--depth", "3", "--margin", "1", "--out", out_s,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .starts_with("book: 13 positions, plies 2, depth 3, "),
        "{}",
        r.stdout
    );
    let r = run(&["book", "--book", out_s]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains(
            "book: rules anywoli, 13 positions, the first 2 plies of good play (every move in the first 1, then those within 1 seeds of the best), depth 3"
        ),
        "{}",
        r.stdout
    );
    assert!(r
        .stdout
        .contains("in the book: 12 moves searched to depth 3"));
    // Two plies in is beyond this book.
    let r = run(&["book", "--book", out_s, "e", "F"]);
    assert!(r.stdout.ends_with("not in the book\n"), "{}", r.stdout);

    std::fs::write(&out, "anywoli-book 1\nrules anywoli\nplies x\n").unwrap();
    assert_fails(&["book", "--book", out_s], &["bad book, line 3", "plies"]);
    assert_fails(
        &["book", "build", "--margin=-1", "--out", out_s],
        &["--margin"],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_reader_that_stops_early_is_no_error() {
    // `anywoli perft --divide 6 | head -1`: the closed pipe ends the command quietly, with
    // status 0 (issue 37: this was a sentinel string inside the error type; now a variant).
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_anywoli"))
        .args(["perft", "--divide", "6"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("a "), "{first}");
    // The reader goes away here (its end of the pipe is dropped).
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}
