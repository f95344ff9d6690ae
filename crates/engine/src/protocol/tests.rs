//! The session's answers, the watchdog, the bounded reader, and the wire types' round trip.

use std::io::{self, Cursor};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anywoli_core::{Move, Position, Rules};
use proptest::prelude::*;

use super::search_thread::{quick_move, Answer};
use super::*;
use crate::search::{Info, Limits, MAX_MULTIPV};

fn machine() -> (Protocol, Arc<Mutex<Vec<String>>>) {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let sink = lines.clone();
    let out: Output = Arc::new(move |l: &str| sink.lock().unwrap().push(l.to_string()));
    (Protocol::new(out), lines)
}

/// Feeds `line`, waits for any search it starts, and returns what was sent.
fn say(p: &mut Protocol, lines: &Arc<Mutex<Vec<String>>>, line: &str) -> Vec<String> {
    assert_eq!(p.handle(line), Flow::Continue, "{line}");
    p.wait();
    std::mem::take(&mut *lines.lock().unwrap())
}

fn error_of(p: &mut Protocol, lines: &Arc<Mutex<Vec<String>>>, line: &str) -> String {
    let got = say(p, lines, line);
    assert_eq!(got.len(), 1, "{line}: {got:?}");
    assert!(got[0].starts_with("info string error: "), "{line}: {got:?}");
    got[0].clone()
}

#[test]
fn handshake_and_ready() {
    let (mut p, l) = machine();
    assert_eq!(
        say(&mut p, &l, "aei"),
        [
            format!("id name {ENGINE_NAME}"),
            format!("id author {ENGINE_AUTHOR}"),
            "aeiok".to_string()
        ]
    );
    assert_eq!(say(&mut p, &l, "isready"), ["readyok"]);
    assert_eq!(say(&mut p, &l, "   "), Vec::<String>::new());
    assert_eq!(say(&mut p, &l, "stop"), Vec::<String>::new());
}

#[test]
fn go_depth_gives_one_info_per_depth_then_a_legal_bestmove() {
    let (mut p, l) = machine();
    say(&mut p, &l, "newgame rules anywoli");
    say(&mut p, &l, "position startpos moves e F");
    let got = say(&mut p, &l, "go depth 3");
    let (bestmove, infos) = got.split_last().unwrap();
    let mut depth = 0;
    for line in infos {
        let w: Vec<&str> = line.split(' ').collect();
        assert_eq!(&w[..2], ["info", "depth"], "{line}");
        let d: u32 = w[2].parse().unwrap();
        assert!(d > depth && d <= 3, "{got:?}");
        depth = d;
        assert_eq!(w[3], "score");
        w[4].parse::<i32>().unwrap();
        assert_eq!((w[5], w[7], w[9], w[11]), ("nodes", "nps", "time", "pv"));
    }
    assert_eq!(depth, 3, "{got:?}");
    let mv: Move = bestmove.strip_prefix("bestmove ").unwrap().parse().unwrap();
    let mut pos = *p.position();
    pos.play(mv).unwrap();
    // The principal line of the last depth starts with the best move and is legal.
    let pv: Vec<Move> = infos
        .last()
        .unwrap()
        .split(" pv ")
        .nth(1)
        .unwrap()
        .split(' ')
        .map(|m| m.parse().unwrap())
        .collect();
    assert_eq!(pv[0], mv);
    let mut q = *p.position();
    for m in pv {
        q.play(m).unwrap();
    }
}

#[test]
fn stop_ends_a_long_search_with_a_bestmove() {
    let (mut p, l) = machine();
    assert_eq!(p.handle("go depth 60"), Flow::Continue);
    assert_eq!(p.handle("isready"), Flow::Continue);
    // isready is answered while the search runs; the search keeps running.
    assert!(l.lock().unwrap().contains(&"readyok".to_string()));
    assert!(p.is_searching());
    let e = p.handle("position startpos");
    assert_eq!(e, Flow::Continue);
    p.stop();
    assert!(!p.is_searching());
    let got = std::mem::take(&mut *l.lock().unwrap());
    assert!(got
        .iter()
        .any(|g| g == "info string error: position refused: a search is running (send stop, or wait for bestmove)"));
    let last = got.last().unwrap();
    let mv: Move = last.strip_prefix("bestmove ").unwrap().parse().unwrap();
    assert!(Position::start(Rules::Anywoli).moves().contains(mv));
    // Ready for the next search at once.
    assert!(say(&mut p, &l, "go nodes 2000")
        .last()
        .unwrap()
        .starts_with("bestmove "));
}

#[test]
fn quit_stops_the_search() {
    let (mut p, l) = machine();
    p.handle("go infinite");
    assert_eq!(p.handle("quit"), Flow::Quit);
    assert!(l.lock().unwrap().last().unwrap().starts_with("bestmove "));
}

#[test]
fn a_finished_game_has_no_bestmove() {
    let (mut p, l) = machine();
    let over = "0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 x 50 46 s s 0 80";
    say(&mut p, &l, &format!("position pos {over}"));
    assert_eq!(say(&mut p, &l, "go depth 3"), ["bestmove (none)"]);
    assert_eq!(say(&mut p, &l, "go level"), ["bestmove (none)"]);
}

#[test]
fn go_level_plays_a_legal_move_at_every_level() {
    let (mut p, l) = machine();
    say(&mut p, &l, "position startpos moves e");
    for level in 1..=10 {
        say(&mut p, &l, &format!("setoption name Level value {level}"));
        let got = say(&mut p, &l, "go level movetime 20");
        let mv: Move = got.last().unwrap()[9..].parse().unwrap();
        assert!(p.position().moves().contains(mv), "level {level}: {got:?}");
    }
}

#[test]
fn options_change_and_are_listed() {
    let (mut p, l) = machine();
    assert!(say(&mut p, &l, "setoption name Hash value 2").is_empty());
    assert!(say(&mut p, &l, "setoption name threads value 2").is_empty());
    assert!(say(&mut p, &l, "setoption name Level value 3").is_empty());
    assert!(say(&mut p, &l, "setoption name MultiPV value 3").is_empty());
    let got = say(&mut p, &l, "options");
    assert_eq!(got.len(), 5);
    assert!(got[0].ends_with("value 3"), "{got:?}");
    assert!(got[1].ends_with("value 2"), "{got:?}");
    assert!(got[2].ends_with("value 2"), "{got:?}");
    assert_eq!(
        got[3],
        format!("option name MultiPV type spin default 1 min 1 max {MAX_MULTIPV} value 3")
    );
    assert_eq!(got[4], "optionsok");
    // Three lines a depth, each named, the best first; bestmove is the first line's.
    let got = say(&mut p, &l, "go depth 3");
    let depth3: Vec<&String> = got
        .iter()
        .filter(|l| l.starts_with("info depth 3 "))
        .collect();
    assert_eq!(depth3.len(), 3, "{got:?}");
    for (k, line) in depth3.iter().enumerate() {
        assert!(
            line.starts_with(&format!("info depth 3 multipv {} score ", k + 1)),
            "{got:?}"
        );
    }
    let score = |l: &str| -> i32 { l.split(' ').nth(6).unwrap().parse().unwrap() };
    assert!(score(depth3[0]) >= score(depth3[1]) && score(depth3[1]) >= score(depth3[2]));
    let best = depth3[0]
        .split(" pv ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap();
    assert_eq!(got.last().unwrap(), &format!("bestmove {best}"));
    assert!(say(&mut p, &l, "setoption name MultiPV value 13")[0].contains("MultiPV"));
    assert!(say(&mut p, &l, "setoption name MultiPV value 1").is_empty());
    let got = say(&mut p, &l, "go depth 2");
    assert!(got.iter().all(|l| !l.contains("multipv")), "{got:?}");
    assert!(say(&mut p, &l, "go depth 4")
        .last()
        .unwrap()
        .starts_with("bestmove "));
}

#[test]
fn newgame_and_position_set_what_show_prints() {
    let (mut p, l) = machine();
    say(&mut p, &l, "newgame rules anywoli-lottery seed 7");
    assert_eq!(p.position().rules(), Rules::Lottery { seed: 7 });
    say(&mut p, &l, "position startpos moves e");
    assert_eq!(
        say(&mut p, &l, "show"),
        ["info string position 5,5,5,5,1,5,5,5,0,5,5,5/5,0,5,5,5,5,0,5,5,5,5,0 n 0 0 - - 1 1 rules anywoli-lottery"]
    );
    say(
        &mut p,
        &l,
        "position pos 5,5,5,5,1,5,5,5,0,5,5,5/5,0,5,5,5,5,0,5,5,5,5,0 n 0 0 - - 1 1 moves F",
    );
    assert_eq!(p.position().ply(), 2);
    say(&mut p, &l, "newgame");
    assert_eq!(*p.position(), Position::start(Rules::Anywoli));
}

#[test]
fn every_error_names_what_is_wrong_and_changes_nothing() {
    let (mut p, l) = machine();
    say(&mut p, &l, "position startpos moves e");
    let before = *p.position();
    let cases: &[(&str, &[&str])] = &[
        ("hello", &["unknown command 'hello'"]),
        ("aei now", &["aei takes no arguments", "'now'"]),
        ("setoption", &["setoption name NAME value VALUE"]),
        ("setoption name Level", &["no 'value'"]),
        (
            "setoption name Level value 11",
            &["Level value '11'", "1 to 10"],
        ),
        ("setoption name Level value x", &["'x'"]),
        (
            "setoption name Colour value red",
            &["unknown option 'Colour'"],
        ),
        ("setoption name Hash value 0", &["Hash value '0'"]),
        ("setoption name Threads value 65", &["Threads value '65'"]),
        ("newgame rules chess", &["unknown rules 'chess'"]),
        ("newgame rules", &["rules needs a name"]),
        ("newgame seed 3", &["seed is only for anywoli-lottery"]),
        ("newgame rules anywoli-lottery seed -1", &["seed '-1'"]),
        ("newgame colour red", &["'colour'"]),
        ("position", &["'startpos' or 'pos"]),
        ("position fen x", &["'fen'"]),
        ("position startpos e", &["'e'", "'moves'"]),
        (
            "position startpos moves e Z",
            &["move 2", "'Z' is not a move"],
        ),
        (
            "position startpos moves e e",
            &["move 2 is illegal", "North's turn"],
        ),
        ("position pos 4,4/4 s 0 0", &["8 fields, got 4"]),
        (
            "position pos 4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 q 0 0 - - 0 0",
            &["to-move", "'q'"],
        ),
        ("go", &["go needs a limit"]),
        ("go depth", &["depth needs a number"]),
        ("go depth 0", &["depth '0'", "1 to 96"]),
        ("go depth 97", &["depth '97'"]),
        ("go movetime fast", &["movetime 'fast'"]),
        ("go nodes -5", &["nodes '-5'"]),
        ("go sideways", &["'sideways' is not a limit"]),
        ("go depth 3 depth 4", &["depth is given twice"]),
        ("go level depth 3", &["go level takes no other limit"]),
        ("go infinite movetime 5", &["go infinite takes no limit"]),
        ("stop now", &["stop takes no arguments"]),
    ];
    for (line, needles) in cases {
        let e = error_of(&mut p, &l, line);
        for n in *needles {
            assert!(e.contains(n), "{line}: {e} lacks {n}");
        }
        assert_eq!(*p.position(), before, "{line} changed the position");
    }
    let long = "x".repeat(MAX_LINE + 1);
    assert!(error_of(&mut p, &l, &long).contains("65537 bytes refused"));
    let odd = format!("go {}", "\u{7}".repeat(100));
    let e = error_of(&mut p, &l, &odd);
    assert!(
        e.contains("\\u{7}") && e.contains('…') && e.len() < 400,
        "{e}"
    );
    // Still answering.
    assert_eq!(say(&mut p, &l, "isready"), ["readyok"]);
}

#[test]
fn the_watchdog_answers_once_with_the_best_move_known() {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let sink = lines.clone();
    let pos = Position::start(Rules::Anywoli);
    let reply = Answer::new(
        quick_move(&pos),
        Arc::new(move |l: &str| sink.lock().unwrap().push(l.to_string())),
    );
    let info = Info {
        multipv: 1,
        depth: 4,
        score: 120,
        nodes: 900,
        time: Duration::from_millis(3),
        pv: vec!["g".parse().unwrap(), "B".parse().unwrap()],
    };
    reply.searched(&info, false);
    // Due already: the search is late.
    let stop = AtomicBool::new(false);
    reply.watch(Instant::now(), &stop);
    assert!(stop.load(Ordering::SeqCst));
    assert!(reply.done.load(Ordering::SeqCst));
    // What the search sends afterwards is dropped: one bestmove, and no info after it.
    reply.searched(&info, false);
    reply.finish(Some(Some("a".parse().unwrap())));
    assert_eq!(
        *lines.lock().unwrap(),
        [
            "info depth 4 score 120 nodes 900 nps 300000 time 3 pv g B",
            "bestmove g"
        ]
    );
    // Before any info line, the best immediate capture (here: none, so the first hole).
    assert_eq!(quick_move(&pos), Some("a".parse().unwrap()));
}

#[test]
fn read_line_bounds_what_it_keeps() {
    let exact = "y".repeat(MAX_LINE);
    let text = format!(
        "aei\r\nisready\n{exact}\r\n{}\n\u{ff}x\nlast",
        "z".repeat(MAX_LINE + 1)
    );
    let mut bytes = text.into_bytes();
    let bad = bytes.iter().position(|&b| b == 0xc3).unwrap();
    bytes[bad] = 0xff; // not UTF-8
    let mut r = io::BufReader::with_capacity(1000, Cursor::new(bytes));
    let mut buf = Vec::new();
    let mut got = Vec::new();
    while let Some(i) = read_line(&mut r, &mut buf).unwrap() {
        assert!(buf.capacity() < 3 * MAX_LINE);
        got.push(i);
    }
    assert_eq!(got.len(), 6);
    assert_eq!(got[0], Input::Line("aei".into()));
    assert_eq!(got[1], Input::Line("isready".into()));
    assert_eq!(got[2], Input::Line(exact));
    assert_eq!(got[3], Input::TooLong(MAX_LINE + 1));
    assert_eq!(got[4], Input::NotUtf8);
    assert_eq!(got[5], Input::Line("last".into()));
}

fn a_move() -> impl Strategy<Value = Move> {
    (0..24usize).prop_map(|i| {
        let c = if i < 12 {
            b'a' + i as u8
        } else {
            b'A' + (i - 12) as u8
        };
        (c as char).to_string().parse().unwrap()
    })
}

fn a_go() -> impl Strategy<Value = Go> {
    let limits = (
        proptest::option::of(1..=MAX_MOVETIME_MS),
        proptest::option::of(1..=crate::search::MAX_PLY as u32),
        proptest::option::of(1..=u64::MAX),
    )
        .prop_filter("a limit", |l| {
            l.0.is_some() || l.1.is_some() || l.2.is_some()
        })
        .prop_map(|(ms, depth, nodes)| Limits {
            movetime: ms.map(Duration::from_millis),
            depth,
            nodes,
        });
    prop_oneof![
        limits.prop_map(Go::Search),
        Just(Go::Infinite),
        proptest::option::of(1..=MAX_MOVETIME_MS).prop_map(|ms| Go::Level {
            movetime: ms.map(Duration::from_millis)
        }),
    ]
}

fn a_command() -> impl Strategy<Value = Command> {
    let option = prop_oneof![
        (1..=10u8).prop_map(EngineOption::Level),
        (1..=MAX_HASH_MIB).prop_map(EngineOption::Hash),
        (1..=MAX_THREADS).prop_map(EngineOption::Threads),
        (1..=MAX_MULTIPV).prop_map(EngineOption::MultiPv),
    ];
    let rules = prop_oneof![
        Just(Rules::Anywoli),
        Just(Rules::FirstFinal),
        Just(Rules::It),
        any::<u64>().prop_map(|seed| Rules::Lottery { seed }),
    ];
    let base = prop_oneof![
        Just(Base::StartPos),
        proptest::collection::vec("[0-9,/sxn-]{1,12}", 8).prop_map(|f| Base::Pos(f.join(" "))),
    ];
    prop_oneof![
        Just(Command::Aei),
        Just(Command::IsReady),
        option.prop_map(Command::SetOption),
        rules.prop_map(Command::NewGame),
        (base, proptest::collection::vec(a_move(), 0..12))
            .prop_map(|(base, moves)| Command::Position { base, moves }),
        a_go().prop_map(Command::Go),
        Just(Command::Stop),
        Just(Command::Quit),
        Just(Command::Show),
        Just(Command::Options),
    ]
}

fn a_reply() -> impl Strategy<Value = Reply> {
    let info = (
        any::<u32>(),
        proptest::option::of(1..=MAX_MULTIPV),
        any::<i32>(),
        any::<u64>(),
        any::<u64>(),
        any::<u64>(),
        proptest::collection::vec(a_move(), 0..20),
    )
        .prop_map(|(depth, multipv, score, nodes, nps, ms, pv)| SearchInfo {
            depth,
            multipv,
            score,
            nodes,
            nps,
            time_ms: u128::from(ms),
            pv,
        });
    let option = ("[A-Za-z]{1,10}", any::<[u64; 4]>()).prop_map(|(name, v)| SpinOption {
        name,
        default: v[0],
        min: v[1],
        max: v[2],
        value: v[3],
    });
    prop_oneof![
        "[ -~]*".prop_map(Reply::IdName),
        "[ -~]*".prop_map(Reply::IdAuthor),
        Just(Reply::AeiOk),
        Just(Reply::ReadyOk),
        option.prop_map(Reply::Option),
        Just(Reply::OptionsOk),
        info.prop_map(Reply::Info),
        "[ -~]*".prop_map(Reply::InfoString),
        proptest::option::of(a_move()).prop_map(Reply::BestMove),
    ]
}

/// Words of the protocol, to make arbitrary lines that get past the first word.
const WORDS: &[&str] = &[
    "aei",
    "isready",
    "setoption",
    "name",
    "value",
    "Level",
    "Hash",
    "newgame",
    "rules",
    "seed",
    "anywoli-lottery",
    "position",
    "startpos",
    "pos",
    "moves",
    "go",
    "movetime",
    "depth",
    "nodes",
    "level",
    "infinite",
    "stop",
    "quit",
    "info",
    "string",
    "multipv",
    "score",
    "nps",
    "time",
    "pv",
    "bestmove",
    "(none)",
    "option",
    "type",
    "spin",
    "default",
    "min",
    "max",
    "id",
    "a",
    "L",
    "0",
    "-1",
    "96",
    "18446744073709551616",
    "",
];

proptest! {
    #[test]
    fn commands_read_back_what_they_write(c in a_command()) {
        let line = c.to_string();
        prop_assert_eq!(line.parse::<Command>(), Ok(c), "{}", line);
    }

    #[test]
    fn replies_read_back_what_they_write(r in a_reply()) {
        let line = r.to_string();
        prop_assert_eq!(line.parse::<Reply>(), Ok(r), "{}", line);
    }

    #[test]
    fn arbitrary_lines_never_panic_the_parsers(
        line in "\\PC{0,80}",
        words in proptest::collection::vec(proptest::sample::select(WORDS), 0..12),
    ) {
        let _ = line.parse::<Command>();
        let _ = line.parse::<Reply>();
        let soup = words.join(" ");
        let _ = soup.parse::<Command>();
        let _ = soup.parse::<Reply>();
    }
}
