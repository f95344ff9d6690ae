//! `anywoli engine` driven as a GUI drives it: the real binary, piped stdin and stdout. The
//! example session of docs/protocol.md is replayed line by line; `anywoli analyse` is here too.
//!
//! No test here measures speed: waits are bounded only so that a broken engine fails the test
//! instead of hanging it (see `HANG`).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use anywoli_core::{parse_position, Move, Position, Rules};

/// Not a speed requirement: only how long to wait before calling the engine hung.
const HANG: Duration = Duration::from_secs(300);

const DOC: &str = include_str!("../../../docs/protocol.md");

struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Lines read but not yet used.
    pending: Vec<String>,
}

impl Engine {
    fn start() -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_anywoli"))
            .arg("engine")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                if tx.send(line.unwrap()).is_err() {
                    break;
                }
            }
        });
        Engine {
            child,
            stdin,
            lines: rx,
            pending: Vec::new(),
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn next(&mut self) -> Option<String> {
        if !self.pending.is_empty() {
            return Some(self.pending.remove(0));
        }
        self.lines.recv_timeout(HANG).ok()
    }

    fn peek(&mut self) -> Option<&String> {
        if self.pending.is_empty() {
            let l = self.lines.recv_timeout(HANG).ok()?;
            self.pending.push(l);
        }
        self.pending.first()
    }

    fn expect(&mut self, want: &str) {
        assert_eq!(self.next().as_deref(), Some(want));
    }

    /// Reads lines up to `bestmove`: the info lines, the other lines, and the move.
    fn until_bestmove(&mut self) -> (Vec<String>, Vec<String>, String) {
        let (mut infos, mut others) = (Vec::new(), Vec::new());
        loop {
            let l = self.next().expect("the engine answered with bestmove");
            if l.starts_with("info depth ") {
                infos.push(l);
            } else if let Some(m) = l.strip_prefix("bestmove ") {
                return (infos, others, m.to_string());
            } else {
                others.push(l);
            }
        }
    }

    fn finish(mut self) -> (i32, String) {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        let mut err = String::new();
        std::io::Read::read_to_string(self.child.stderr.as_mut().unwrap(), &mut err).unwrap();
        (status.code().unwrap_or(-1), err)
    }
}

/// The position a `position` command sets, as the test reads it.
fn apply_position(cmd: &str, rules: Rules) -> Option<Position> {
    let w: Vec<&str> = cmd.split_whitespace().collect();
    let (mut pos, rest) = match *w.get(1)? {
        "startpos" => (Position::start(rules), &w[2..]),
        "pos" => (parse_position(&w[2..10].join(" "), rules).ok()?, &w[10..]),
        _ => return None,
    };
    for m in rest.iter().skip(1) {
        pos.play(m.parse().ok()?).ok()?;
    }
    Some(pos)
}

/// An info line has the documented fields, and its principal line is legal from `pos`.
fn check_info(line: &str, pos: &Position) -> u32 {
    let w: Vec<&str> = line.split(' ').collect();
    assert!(w.len() >= 13, "{line}");
    assert_eq!(
        [w[0], w[1], w[3], w[5], w[7], w[9], w[11]],
        ["info", "depth", "score", "nodes", "nps", "time", "pv"],
        "{line}"
    );
    let depth: u32 = w[2].parse().unwrap();
    let score: i32 = w[4].parse().unwrap();
    assert!((-9600..=9600).contains(&score), "{line}");
    for v in [w[6], w[8], w[10]] {
        v.parse::<u64>().unwrap();
    }
    let mut p = *pos;
    for m in &w[12..] {
        let mv: Move = m.parse().unwrap();
        p.play(mv).unwrap_or_else(|e| panic!("{line}: {e}"));
    }
    depth
}

fn check_bestmove(m: &str, pos: &Position) {
    if pos.is_over() {
        assert_eq!(m, "(none)");
    } else {
        let mv: Move = m.parse().unwrap();
        pos.check(mv).unwrap();
    }
}

/// The session of docs/protocol.md: `> ` lines are sent, `< ` lines are expected. Lines are
/// compared exactly, but for the numbers of info lines (they depend on the engine's version),
/// how many info lines come (a search may go deeper or shallower), and which move `bestmove`
/// names (any legal move; the engine checks it is legal).
#[test]
fn the_documented_session_runs_line_by_line() {
    let start = DOC
        .find("<!-- session -->")
        .expect("docs/protocol.md has a session");
    let block = &DOC[start..];
    let block = &block[block.find("```\n").unwrap() + 4..];
    let block = &block[..block.find("```").unwrap()];
    let doc: Vec<&str> = block.lines().collect();
    assert!(doc.len() > 30, "the session is there");

    let mut e = Engine::start();
    let mut rules = Rules::Anywoli;
    let mut pos = Position::start(rules);
    let mut i = 0;
    let mut last_input = "";
    while i < doc.len() {
        let l = doc[i];
        if let Some(cmd) = l.strip_prefix("> ") {
            e.send(cmd);
            last_input = cmd;
            if cmd.starts_with("newgame") {
                let w: Vec<&str> = cmd.split_whitespace().collect();
                rules = Rules::from_name(w.get(2).copied().unwrap_or("anywoli"), 0).unwrap();
                pos = Position::start(rules);
            }
            if cmd.starts_with("position") {
                if let Some(p) = apply_position(cmd, rules) {
                    pos = p;
                }
            }
            i += 1;
            continue;
        }
        let want = l
            .strip_prefix("< ")
            .unwrap_or_else(|| panic!("session line {}: {l:?}", i + 1));
        if want.starts_with("info depth ") {
            // A run of info lines. If `stop` follows in the document, read exactly as many as
            // it shows before sending it; else read as many as come.
            let mut n = 0;
            while doc
                .get(i + n)
                .is_some_and(|l| l.starts_with("< info depth "))
            {
                n += 1;
            }
            let stop_next = doc.get(i + n) == Some(&"> stop");
            let mut last = 0;
            let mut read = 0;
            loop {
                if stop_next && read == n {
                    break;
                }
                if !stop_next && !e.peek().unwrap().starts_with("info depth ") {
                    break;
                }
                let got = e.next().unwrap();
                let d = check_info(&got, &pos);
                assert!(d > last, "depths go up: {got}");
                last = d;
                read += 1;
            }
            assert!(read >= 1, "at least one info line for {last_input}");
            if let Some(limit) = last_input.strip_prefix("go depth ") {
                if !stop_next {
                    assert_eq!(last.to_string(), limit, "{last_input} reaches its depth");
                }
            }
            i += n;
            continue;
        }
        if last_input == "stop" {
            // Depths the search finished before it read stop.
            while e.peek().unwrap().starts_with("info depth ") {
                check_info(&e.next().unwrap(), &pos);
            }
        }
        let got = e.next().expect("an answer");
        if let Some(m) = want.strip_prefix("bestmove ") {
            let got_m = got
                .strip_prefix("bestmove ")
                .unwrap_or_else(|| panic!("{got}"));
            if m == "(none)" {
                assert_eq!(got_m, "(none)");
            }
            check_bestmove(got_m, &pos);
        } else {
            assert_eq!(got, want, "session line {}", i + 1);
        }
        i += 1;
    }
    assert_eq!(last_input, "quit", "the session ends with quit");
    let (code, stderr) = e.finish();
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stderr, "");
}

#[test]
fn stop_isready_and_bad_commands_during_a_search() {
    let mut e = Engine::start();
    e.send("aei");
    e.expect("id name Anywoli 0.1.0");
    e.expect("id author the Anywoli authors");
    e.expect("aeiok");
    e.send("position startpos moves e F");
    e.send("go depth 60");
    // Wait for the search to be under way, then talk to it.
    assert!(e.peek().unwrap().starts_with("info depth 1 "));
    e.send("isready");
    e.send("go depth 3");
    e.send("position startpos");
    e.send("frobnicate");
    e.send("stop");
    let (infos, others, best) = e.until_bestmove();
    let pos = apply_position("position startpos moves e F", Rules::Anywoli).unwrap();
    for l in &infos {
        check_info(l, &pos);
    }
    check_bestmove(&best, &pos);
    assert_eq!(
        others,
        [
            "readyok",
            "info string error: go refused: a search is running (send stop, or wait for bestmove)",
            "info string error: position refused: a search is running (send stop, or wait for bestmove)",
            "info string error: unknown command 'frobnicate' (commands: aei, isready, setoption, newgame, position, go, stop, quit, show, options)",
        ]
    );
    // The position is still the one searched, and the engine answers the next go.
    e.send("show");
    e.expect(
        "info string position 8,8,8,1,1,7,1,7,2,7,0,7/1,2,7,7,7,0,1,0,1,8,2,3 s 0 0 - - 2 2 rules anywoli",
    );
    e.send("go movetime 50");
    let (_, others, best) = e.until_bestmove();
    assert!(others.is_empty(), "{others:?}");
    check_bestmove(&best, &pos);
    // quit during a search: it is stopped, its bestmove sent, and the engine exits 0.
    e.send("go depth 60");
    assert!(e.peek().unwrap().starts_with("info depth 1 "));
    e.send("quit");
    let (_, _, best) = e.until_bestmove();
    check_bestmove(&best, &pos);
    let (code, stderr) = e.finish();
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn every_error_is_one_info_string_and_the_engine_goes_on() {
    let mut e = Engine::start();
    let cases: &[(&str, &str)] = &[
        ("setoption name Level value 0", "setoption: Level value '0' is not a whole number from 1 to 10"),
        ("setoption name Hash value lots", "setoption: Hash value 'lots' is not a whole number of MiB from 1 to 4096"),
        ("setoption name Threads value 0", "setoption: Threads value '0' is not a whole number from 1 to 64"),
        ("setoption name Ponder value true", "setoption: unknown option 'Ponder' (options: Level, Hash, Threads, MultiPV)"),
        ("newgame rules chess", "newgame: unknown rules 'chess': expected one of anywoli, anywoli-first-final, anywoli-lottery, anywoli-it"),
        ("newgame rules anywoli seed 4", "newgame: seed is only for anywoli-lottery, not anywoli"),
        ("position startpos moves e Q", "position: move 2: 'Q' is not a move: a move is one hole letter, a..l for South or A..L for North"),
        ("position pos 4,4,4 s 0 0", "position pos: a position string has 8 fields, got 4"),
        ("position pos 4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 5 2 moves", "position pos: bad position, field quiet-plies: is 5, more than the 2 plies played"),
        ("go movetime -3", "go: movetime '-3' is not a whole number of ms from 1 to 86400000"),
        ("go nodes", "go: nodes needs a number from 1 to 18446744073709551615"),
        ("go level nodes 5", "go level takes no other limit than movetime (go level [movetime MS])"),
        ("go", "go needs a limit: movetime MS, depth D, nodes N, level or infinite"),
    ];
    for (cmd, want) in cases {
        e.send(cmd);
        let got = e.next().unwrap();
        let msg = got
            .strip_prefix("info string error: ")
            .unwrap_or_else(|| panic!("{cmd}: {got}"));
        assert!(msg.starts_with(want), "{cmd}: {msg}");
    }
    // A line over 64 KiB is refused whole, and the next line is read as usual.
    e.send(&format!("position startpos moves {}", "e ".repeat(40_000)));
    assert_eq!(
        e.next().unwrap(),
        "info string error: line of 80024 bytes refused: a line is at most 65536 bytes"
    );
    e.send("isready");
    e.expect("readyok");
    // Nothing above changed the position: the start position is searched.
    e.send("go depth 2");
    let (infos, _, best) = e.until_bestmove();
    let start = Position::start(Rules::Anywoli);
    assert_eq!(check_info(infos.last().unwrap(), &start), 2);
    check_bestmove(&best, &start);
    // End of input: the engine exits 0 with nothing on stderr.
    let (code, stderr) = e.finish();
    assert_eq!((code, stderr.as_str()), (0, ""));
}

#[test]
fn end_of_input_lets_the_search_finish() {
    let out = Command::new(env!("CARGO_BIN_EXE_anywoli"))
        .arg("engine")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            let mut i = c.stdin.take().unwrap();
            i.write_all(
                b"newgame rules anywoli-lottery seed 9\r\nposition startpos moves e\ngo depth 4",
            )?;
            drop(i);
            c.wait_with_output()
        })
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let pos = apply_position("position startpos moves e", Rules::Lottery { seed: 9 }).unwrap();
    assert_eq!(check_info(lines[lines.len() - 2], &pos), 4, "{text}");
    check_bestmove(
        lines.last().unwrap().strip_prefix("bestmove ").unwrap(),
        &pos,
    );
}

fn analyse(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_anywoli"))
        .arg("analyse")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn analyse_prints_depths_then_move_score_and_line() {
    let (code, out, err) = analyse(&["--depth", "5", "e", "F"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    let pos = apply_position("position startpos moves e F", Rules::Anywoli).unwrap();
    assert_eq!(lines[0], format!("position {pos}"));
    let depths: Vec<&str> = lines
        .iter()
        .filter(|l| l.starts_with("depth "))
        .map(|l| l.split_whitespace().nth(1).unwrap())
        .collect();
    assert_eq!(depths.last(), Some(&"5"), "{out}");
    let best = lines
        .iter()
        .find_map(|l| l.strip_prefix("best move: "))
        .unwrap();
    check_bestmove(best, &pos);
    let score = lines
        .iter()
        .find_map(|l| l.strip_prefix("score: "))
        .unwrap();
    // "+31.10 seeds for South, the side to move (...)"
    let (num, rest) = score.split_once(' ').unwrap();
    assert!(num.starts_with('+') || num.starts_with('-'), "{score}");
    assert_eq!(num.split_once('.').unwrap().1.len(), 2, "{score}");
    assert!(
        rest.starts_with("seeds for South, the side to move"),
        "{score}"
    );
    let line = lines.iter().find_map(|l| l.strip_prefix("line: ")).unwrap();
    assert!(line.starts_with(best), "{line}");
    let mut p = pos;
    for m in line.split(' ') {
        p.play(m.parse().unwrap()).unwrap();
    }

    // North to move, from a position string, limited by time.
    let (code, out, _) = analyse(&[
        "--movetime",
        "30",
        "--position",
        "5,5,5,5,1,5,5,5,0,5,5,5/5,0,5,5,5,5,0,5,5,5,5,0 n 0 0 - - 1 1",
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("seeds for North, the side to move"), "{out}");

    // A finished game has no best move; errors are the command line's.
    let over = "0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 x 50 46 s s 0 80";
    let (code, out, _) = analyse(&["--position", over]);
    assert_eq!(code, 0);
    assert!(
        out.contains("best move: none, the game is over (South wins, 50-46)"),
        "{out}"
    );
    let (code, out, err) = analyse(&["e", "e"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.contains("move 2 is illegal"), "{err}");
    let (code, _, err) = analyse(&["--depth", "97"]);
    assert_eq!(code, 2);
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn analyse_reports_the_best_moves_with_multipv() {
    let (code, out, err) = analyse(&["--depth", "5", "--multipv", "3", "e", "F"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    // Each depth gives three lines, named.
    let last: Vec<&&str> = lines
        .iter()
        .filter(|l| l.starts_with("depth  5  line "))
        .collect();
    assert_eq!(last.len(), 3, "{out}");
    for (k, l) in last.iter().enumerate() {
        assert!(
            l.starts_with(&format!("depth  5  line {}  score ", k + 1)),
            "{out}"
        );
    }
    let at = lines
        .iter()
        .position(|l| *l == "best 3 moves:")
        .unwrap_or_else(|| panic!("{out}"));
    let rows: Vec<(f64, &str)> = lines[at + 1..at + 4]
        .iter()
        .map(|l| {
            let mut f = l.split_whitespace();
            f.next(); // "1."
            let score: f64 = f.next().unwrap().parse().unwrap();
            (score, f.next().unwrap())
        })
        .collect();
    assert!(rows[0].0 >= rows[1].0 && rows[1].0 >= rows[2].0, "{out}");
    let best = lines
        .iter()
        .find_map(|l| l.strip_prefix("best move: "))
        .unwrap();
    assert_eq!(rows[0].1, best, "{out}");
    assert!(rows[0].1 != rows[1].1 && rows[1].1 != rows[2].1 && rows[0].1 != rows[2].1);

    // One line is the output it always was; more than 12 is refused.
    let (_, out, _) = analyse(&["--depth", "3"]);
    assert!(
        !out.contains("line 1") && !out.contains("best 1 moves"),
        "{out}"
    );
    let (code, out, err) = analyse(&["--multipv", "13"]);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
}

#[test]
fn review_judges_every_move_of_a_record() {
    use std::io::Write as _;
    // Seven moves: each the last legal move of the side to move.
    let mut pos = anywoli_core::Position::start(Rules::Anywoli);
    let mut played = Vec::new();
    for _ in 0..7 {
        let mv = pos.moves().last().unwrap();
        played.push(mv.to_string());
        pos.play(mv).unwrap();
    }
    let record = format!(
        "[Rules \"anywoli\"]\n[Result \"*\"]\n\n{}\n",
        played.join(" ")
    );
    let record = record.as_str();
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("anywoli-review-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("game.txt");
    std::fs::write(&path, record).unwrap();
    let run = |args: &[&str], input: Option<&str>| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_anywoli"));
        c.arg("review").args(args);
        c.stdin(std::process::Stdio::piped());
        c.stdout(std::process::Stdio::piped());
        c.stderr(std::process::Stdio::piped());
        let mut child = c.spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(input.unwrap_or("").as_bytes()).unwrap();
        drop(stdin);
        let o = child.wait_with_output().unwrap();
        (
            o.status.code().unwrap_or(-1),
            String::from_utf8(o.stdout).unwrap(),
            String::from_utf8(o.stderr).unwrap(),
        )
    };
    let (code, out, err) = run(&["--depth", "3", path.to_str().unwrap()], None);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("ply  side"), "{out}");
    for (i, mv) in played.iter().enumerate() {
        let f: Vec<&str> = lines[i + 1].split_whitespace().collect();
        assert_eq!(
            (f[0], f[2]),
            ((i + 1).to_string().as_str(), mv.as_str()),
            "{out}"
        );
    }
    assert!(
        lines.iter().any(|l| l.starts_with("South: accuracy ")),
        "{out}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("North: accuracy ")),
        "{out}"
    );
    // The same from standard input, as JSON.
    let (code, out, err) = run(&["--depth", "3", "--json", "-"], Some(record));
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["moves"].as_array().unwrap().len(), 7);
    assert_eq!(v["evals"].as_array().unwrap().len(), 8);
    assert_eq!(v["moves"][1]["played"], played[1].as_str());
    // A record that is not one is refused on one line.
    let (code, out, err) = run(&["-"], Some("e e e\n[Rules"));
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}
