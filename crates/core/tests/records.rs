//! Game records (docs/record-format.md): tags, moves, comments, results, several games, and
//! errors that name their line.

use anywoli_core::record::{parse_all, MAX_RECORD_LEN, RESULTS};
use anywoli_core::*;

fn mv(c: char) -> Move {
    Move::from_letter(c).unwrap()
}

fn moves(letters: &str) -> Vec<Move> {
    letters
        .split_whitespace()
        .map(|t| t.parse().unwrap())
        .collect()
}

/// Parses `text` expecting an error; returns (line, message).
fn error(text: &str) -> (usize, String) {
    match parse_all(text) {
        Ok(games) => panic!("accepted {} game(s):\n{text}", games.len()),
        Err(e) => {
            assert!(e
                .to_string()
                .starts_with(&format!("record line {}: ", e.line)));
            (e.line, e.message)
        }
    }
}

/// The opening of a game, checked move by move in `opening_is_legal`: `g e` and `A i` are a
/// last-seed capture followed by the extra move, so two letters of one side in a row.
const OPENING: &str = "e F j D g e A i d B";

#[test]
fn opening_is_legal() {
    let mut p = Position::start(Rules::Anywoli);
    for m in moves(OPENING) {
        p.play(m).unwrap_or_else(|e| panic!("{p}: {e}"));
    }
}

#[test]
fn parse_a_record_with_tags_comments_and_result() {
    let text = "\
[Event \"Gambela club, round 2\"]
[Date \"2026.11.30\"]
[South \"Ojulu\"]
[North \"Anywoli engine, level 7\"]
[Rules \"anywoli\"]
[Result \"1-0\"]

e F j D g { a capture, then the extra move } e A i
d B 1-0
";
    let r = Record::parse(text).unwrap();
    assert_eq!(
        r.tags,
        [
            ("Event".to_string(), "Gambela club, round 2".to_string()),
            ("Date".to_string(), "2026.11.30".to_string()),
            ("South".to_string(), "Ojulu".to_string()),
            ("North".to_string(), "Anywoli engine, level 7".to_string()),
        ]
    );
    assert_eq!(r.tag("South"), Some("Ojulu"));
    assert_eq!(r.tag("Rules"), None, "Rules is not a free-form tag");
    assert_eq!(r.rules, Rules::Anywoli);
    assert_eq!(r.start, Position::start(Rules::Anywoli));
    assert_eq!(r.moves, moves(OPENING));
    assert_eq!(r.result, "1-0");
    // Written back: the free tags in order, then Rules and Result, a blank line, the moves.
    assert_eq!(
        r.to_string(),
        "[Event \"Gambela club, round 2\"]\n[Date \"2026.11.30\"]\n[South \"Ojulu\"]\n\
         [North \"Anywoli engine, level 7\"]\n[Rules \"anywoli\"]\n[Result \"1-0\"]\n\n\
         e F j D g e A i d B 1-0\n"
    );
    assert_eq!(Record::parse(&r.to_string()).unwrap(), r);
}

#[test]
fn comments() {
    // On one line, several on a line, spanning lines, holding brackets, letters, results and
    // a tag-like line; a comment right against a move.
    let text = "\
[Rules \"anywoli\"]
{ opening } e {a b c} F {1-0}j
D { spans
[Not \"a tag\"] 0-1 still a comment
and ends here } g
{}e A{ } i d{}B
";
    let r = Record::parse(text).unwrap();
    assert_eq!(r.moves, moves(OPENING));
    assert_eq!(r.result, "*");
}

#[test]
fn result_token_and_tag() {
    // Result only as a token.
    let r = Record::parse("e F 0-1").unwrap();
    assert_eq!(r.result, "0-1");
    assert_eq!(r.moves, moves("e F"));
    // Only as a tag.
    let r = Record::parse("[Result \"1/2-1/2\"]\ne F").unwrap();
    assert_eq!(r.result, "1/2-1/2");
    // Neither: unknown.
    let r = Record::parse("e F").unwrap();
    assert_eq!(r.result, "*");
    // Both, agreeing.
    let r = Record::parse("[Result \"*\"]\ne F *").unwrap();
    assert_eq!(r.result, "*");
    // No moves at all, only a result.
    let r = Record::parse("1-0").unwrap();
    assert!(r.moves.is_empty());
    assert_eq!(r.result, "1-0");
    // Every token of RESULTS is accepted.
    for res in RESULTS {
        assert_eq!(Record::parse(&format!("e {res}")).unwrap().result, res);
    }
}

#[test]
fn rules_seed_and_position_tags() {
    let r =
        Record::parse("[Rules \"anywoli-lottery\"]\n[Seed \"18446744073709551615\"]\ne").unwrap();
    assert_eq!(r.rules, Rules::Lottery { seed: u64::MAX });
    assert_eq!(r.start.rules(), r.rules);
    // The lottery without a Seed tag draws with seed 0.
    let r = Record::parse("[Rules \"anywoli-lottery\"]\ne").unwrap();
    assert_eq!(r.rules, Rules::Lottery { seed: 0 });
    assert!(r.to_string().contains("[Seed \"0\"]"));
    for name in ["anywoli", "anywoli-first-final", "anywoli-it"] {
        let r = Record::parse(&format!("[Rules \"{name}\"]\ne")).unwrap();
        assert_eq!(r.rules.name(), name);
        assert!(!r.to_string().contains("Seed"));
    }
    // A game from a position string; the moves are checked from there.
    let pos = "0,0,0,2,0,0,0,0,0,0,3,0/3,0,0,0,0,0,0,0,0,0,0,0 s 44 44 s s 6 70";
    let text = format!("[Rules \"anywoli-first-final\"]\n[Position \"{pos}\"]\n\nk 1/2-1/2\n");
    let r = Record::parse(&text).unwrap();
    assert_eq!(r.start.to_string(), pos);
    assert_eq!(r.start.rules(), Rules::FirstFinal);
    let end = r.end().unwrap();
    assert!(end.is_over());
    assert_eq!(end.outcome().unwrap().as_str(), "1/2-1/2");
    assert_eq!(
        r.to_string(),
        format!("[Rules \"anywoli-first-final\"]\n[Position \"{pos}\"]\n[Result \"1/2-1/2\"]\n\nk 1/2-1/2\n")
    );
    // The Position tag may come before the Rules tag: validity is judged under the Rules.
    let twelve = "1,3,0,0,0,0,0,0,0,0,0,0/0,0,4,0,0,0,0,0,0,0,0,4 s 40 44 n n 3 33";
    let r = Record::parse(&format!(
        "[Position \"{twelve}\"]\n[Rules \"anywoli-it\"]\na"
    ))
    .unwrap();
    assert_eq!(r.rules, Rules::It);
    // The start position is not written as a Position tag.
    let start = Position::start(Rules::Anywoli).to_string();
    let r = Record::parse(&format!("[Position \"{start}\"]\ne")).unwrap();
    assert!(!r.to_string().contains("Position"));
}

#[test]
fn escaped_tag_values() {
    let r = Record::parse(r#"[Note "a \"quoted\" word and a \\ backslash, ] and { }"]"#).unwrap();
    assert_eq!(
        r.tag("Note"),
        Some(r#"a "quoted" word and a \ backslash, ] and { }"#)
    );
    assert_eq!(Record::parse(&r.to_string()).unwrap(), r);
    // An empty value and spaces inside the quotes are kept.
    let r = Record::parse("[Empty \"\"]\n[Spaced \"  x  \"]").unwrap();
    assert_eq!(r.tag("Empty"), Some(""));
    assert_eq!(r.tag("Spaced"), Some("  x  "));
    // A line break in a value is written as a space (a record line holds one tag).
    let mut r = Record::new(Position::start(Rules::Anywoli));
    r.set_tag("Note", "two\nlines");
    r.set_tag("Note", "replaced\r\nvalue");
    assert_eq!(r.tags.len(), 1);
    assert_eq!(
        Record::parse(&r.to_string()).unwrap().tag("Note"),
        Some("replaced  value")
    );
}

#[test]
fn several_games() {
    let text = "\
[Event \"one\"]
[Rules \"anywoli\"]

e F a 1-0
[Event \"two\"]
[Rules \"anywoli-it\"]
[Result \"0-1\"]
{ a comment between games }
e
F
[Event \"three\"]
*

[Event \"four\"]
";
    let games = parse_all(text).unwrap();
    assert_eq!(games.len(), 4);
    assert_eq!(games[0].tag("Event"), Some("one"));
    assert_eq!(games[0].moves, moves("e F a"));
    assert_eq!(games[0].result, "1-0");
    assert_eq!(games[1].rules, Rules::It);
    assert_eq!(games[1].moves, moves("e F"));
    assert_eq!(games[1].result, "0-1");
    assert_eq!(games[2].tag("Event"), Some("three"));
    assert!(games[2].moves.is_empty());
    assert_eq!(games[2].result, "*");
    assert_eq!(games[3].tag("Event"), Some("four"));
    // Written one after the other they read back the same.
    let joined: String = games.iter().map(|g| format!("{g}\n")).collect();
    assert_eq!(parse_all(&joined).unwrap(), games);
    // Record::parse wants exactly one game.
    let (line, msg) = match Record::parse(text) {
        Err(e) => (e.line, e.message),
        Ok(_) => panic!(),
    };
    assert_eq!(line, 1);
    assert!(msg.contains("4 games"), "{msg}");
    // No game at all.
    assert!(parse_all("").unwrap().is_empty());
    assert!(parse_all("\n  \n{ only a comment }\n").unwrap().is_empty());
    assert!(Record::parse("").is_err());
}

#[test]
fn errors_name_the_line() {
    // An illegal move: its line and its number.
    let (line, msg) = error("[Rules \"anywoli\"]\n\ne F\nk\n");
    assert_eq!(line, 4);
    assert!(
        msg.contains("move 3 is illegal") && msg.contains("empty"),
        "{msg}"
    );
    let (line, msg) = error("[Rules \"anywoli\"]\n\ne F\nj j\n");
    assert_eq!(line, 4);
    assert!(
        msg.contains("move 4 is illegal") && msg.contains("North's turn"),
        "{msg}"
    );
    let (line, msg) = error("e\nF\n\nA\n");
    assert_eq!(line, 4);
    assert!(
        msg.contains("move 3 is illegal") && msg.contains("South"),
        "{msg}"
    );
    // The first move from the start by North.
    let (line, msg) = error("A");
    assert_eq!(line, 1);
    assert!(msg.contains("move 1 is illegal"), "{msg}");
    // A move after the game is over.
    let over = "0,0,0,2,0,0,0,0,0,0,3,0/3,0,0,0,0,0,0,0,0,0,0,0 s 44 44 s s 6 70";
    let (line, msg) = error(&format!("[Position \"{over}\"]\nk\nd"));
    assert_eq!(line, 3);
    assert!(
        msg.contains("move 2 is illegal") && msg.contains("over"),
        "{msg}"
    );
    // Not a move at all.
    let (line, msg) = error("e F\nzz");
    assert_eq!(line, 2);
    assert!(msg.contains("move 3") && msg.contains("'zz'"), "{msg}");
    // The illegal move on line 9 in a longer record, after a comment spanning lines.
    let text = "[Event \"x\"]\n[Rules \"anywoli\"]\n\ne { a\ncomment\n}\nF\nj\nj\n";
    let (line, msg) = error(text);
    assert_eq!(line, 9);
    assert!(msg.contains("move 4"), "{msg}");

    // Bad tags.
    for (text, line) in [
        ("[Event \"x\"]\n[Date 2026]\ne", 2),
        ("[Event]\ne", 1),
        ("e\n\n[Bad-name \"x\"]", 3),
        ("[Event \"x\"\ne", 1),
        ("[Event \"a \\n b\"]", 1),
        ("[Event \"a \" b\"]", 1),
        ("[ \"x\"]", 1),
    ] {
        let (got, msg) = error(text);
        assert_eq!(got, line, "{text}: {msg}");
    }
    // Unknown rules: on the Rules line, listing the known ones.
    let (line, msg) = error("[Event \"x\"]\n[Rules \"oware\"]\ne");
    assert_eq!(line, 2);
    assert!(
        msg.contains("oware") && msg.contains("anywoli-first-final"),
        "{msg}"
    );
    // Result tag and result token disagree: on the Result line.
    let (line, msg) = error("[Rules \"anywoli\"]\n[Result \"1-0\"]\n\ne F 0-1");
    assert_eq!(line, 2);
    assert!(msg.contains("1-0") && msg.contains("0-1"), "{msg}");
    // A Result tag that is not a result.
    let (line, _) = error("[Event \"x\"]\n[Result \"2-0\"]");
    assert_eq!(line, 2);
    // Duplicate tags, free-form and special.
    for (text, line) in [
        ("[Event \"x\"]\n[Site \"y\"]\n[Event \"z\"]", 3),
        ("[Rules \"anywoli\"]\n[Rules \"anywoli\"]", 2),
        ("[Seed \"1\"]\n[Rules \"anywoli-lottery\"]\n[Seed \"1\"]", 3),
        ("[Result \"*\"]\n[Result \"*\"]", 2),
        ("[Position \"x\"]\n[Position \"y\"]", 2),
    ] {
        let (got, msg) = error(text);
        assert_eq!(got, line, "{text}");
        assert!(msg.contains("twice"), "{msg}");
    }
    // A comment never closed: reported at the last line.
    let (line, msg) = error("[Event \"x\"]\ne { oops\nF\na");
    assert_eq!(line, 4);
    assert!(msg.contains("never closed"), "{msg}");
    let (line, _) = error("e {");
    assert_eq!(line, 1);
    // A Seed with rules that draw no lottery: on the Seed line.
    let (line, msg) = error("[Rules \"anywoli\"]\n[Seed \"5\"]\ne");
    assert_eq!(line, 2);
    assert!(msg.contains("Seed"), "{msg}");
    let (line, _) = error("[Seed \"5\"]\ne");
    assert_eq!(line, 1);
    // A Seed that is not a u64.
    for seed in ["-1", "18446744073709551616", "x", ""] {
        let (line, msg) = error(&format!(
            "[Rules \"anywoli-lottery\"]\n[Seed \"{seed}\"]\ne"
        ));
        assert_eq!(line, 2, "{seed}");
        assert!(msg.contains("Seed"), "{msg}");
    }
    // A bad Position tag: on its line, saying what is wrong with it.
    let (line, msg) = error("[Event \"x\"]\n[Position \"4,4 s 0 0 - - 0 0\"]\ne");
    assert_eq!(line, 2);
    assert!(msg.contains("bad position"), "{msg}");
    // Valid under anywoli, not under anywoli-it (8 in play).
    let eight = "1,3,0,0,0,0,0,0,0,0,0,0/0,0,4,0,0,0,0,0,0,0,0,0 s 40 48 n n 3 33";
    let (line, _) = error(&format!(
        "[Rules \"anywoli-it\"]\n[Position \"{eight}\"]\na"
    ));
    assert_eq!(line, 2);
    // Something after the result token.
    let (line, msg) = error("e F 1-0\nC");
    assert_eq!(line, 2);
    assert!(msg.contains("after the result"), "{msg}");
    // The error in the second game names its line in the whole text.
    let (line, _) = error("[Event \"1\"]\ne F\n[Event \"2\"]\ne e\n");
    assert_eq!(line, 4);
}

#[test]
fn too_long_a_record_is_refused() {
    let text = "e ".repeat(MAX_RECORD_LEN / 2 + 1);
    let (line, msg) = error(&text);
    assert_eq!(line, 1);
    assert!(msg.contains("bytes"), "{msg}");
}

#[test]
fn writing_wraps_moves_at_80_columns() {
    // A full game from a fixed line of play, written and read back.
    let mut p = Position::start(Rules::Anywoli);
    let mut rec = Record::new(p);
    let mut rng = XorShift::new(0x9e37_79b9);
    while !p.is_over() {
        let ms = p.moves();
        let m = ms.nth(rng.below(ms.len() as u64) as usize).unwrap();
        p.play(m).unwrap();
        rec.moves.push(m);
    }
    rec.set_result_from_play();
    assert_eq!(rec.result, p.outcome().unwrap().as_str());
    assert!(rec.moves.len() > 80);
    let text = rec.to_string();
    let move_lines: Vec<&str> = text.lines().skip(3).collect();
    for (i, line) in move_lines.iter().enumerate() {
        assert!(line.len() <= 80, "{line}");
        if i + 1 < move_lines.len() {
            // Full lines hold 40 moves: 79 characters.
            assert_eq!(line.len(), 79, "{line}");
        }
    }
    assert!(text.ends_with(&format!("{}\n", rec.result)));
    let back = Record::parse(&text).unwrap();
    assert_eq!(back, rec);
    assert_eq!(back.end().unwrap(), p);
    let positions = back.positions().unwrap();
    assert_eq!(positions.len(), rec.moves.len() + 1);
    assert_eq!(positions[0], Position::start(Rules::Anywoli));
    assert_eq!(*positions.last().unwrap(), p);
}

#[test]
fn positions_and_end_report_the_failing_move() {
    let mut rec = Record::new(Position::start(Rules::Anywoli));
    rec.moves = vec![mv('e'), mv('F'), mv('k'), mv('a')];
    let (i, e) = rec.end().unwrap_err();
    assert_eq!(i, 2);
    assert_eq!(e, PlayError::EmptyHole { mv: mv('k') });
    assert_eq!(rec.positions().unwrap_err().0, 2);
    // An unfinished game keeps its result when set from play.
    rec.moves.truncate(2);
    rec.result = "1-0".to_string();
    rec.set_result_from_play();
    assert_eq!(rec.result, "*");
}

#[test]
fn record_written_for_a_lottery_game_from_a_position() {
    let pos = parse_position(
        "0,0,0,2,0,0,0,0,0,0,3,0/3,0,0,0,0,0,0,0,0,0,0,0 s 44 44 s s 6 70",
        Rules::Lottery { seed: 3 },
    )
    .unwrap();
    let mut rec = Record::new(pos);
    rec.set_tag("Event", "lottery");
    rec.moves.push(mv('k'));
    rec.set_result_from_play();
    // Seed 3 draws South: 48-48.
    assert_eq!(rec.result, "1/2-1/2");
    assert_eq!(
        rec.to_string(),
        "[Event \"lottery\"]\n[Rules \"anywoli-lottery\"]\n[Seed \"3\"]\n\
         [Position \"0,0,0,2,0,0,0,0,0,0,3,0/3,0,0,0,0,0,0,0,0,0,0,0 s 44 44 s s 6 70\"]\n\
         [Result \"1/2-1/2\"]\n\nk 1/2-1/2\n"
    );
    let back = Record::parse(&rec.to_string()).unwrap();
    assert_eq!(back, rec);
    // The same record with seed 0: North takes the last four and wins.
    let text = rec
        .to_string()
        .replace("[Seed \"3\"]", "[Seed \"0\"]")
        .replace("1/2-1/2", "0-1");
    let back = Record::parse(&text).unwrap();
    assert_eq!(
        back.end().unwrap().outcome(),
        Some(Outcome::Win(Side::North))
    );
}

/// The example in docs/record-format.md is a legal record.
#[test]
fn the_documented_example_parses() {
    let doc = include_str!("../../../docs/record-format.md");
    let start = doc.find("```\n[Event").expect("example block") + 4;
    let end = start + doc[start..].find("```").expect("end of block");
    let rec = anywoli_core::Record::parse(&doc[start..end]).expect("documented record");
    assert_eq!(rec.moves.len(), 5);
    assert_eq!(rec.tag("South"), Some("Ojulu"));
}

// Big records (issue 10): reading and writing must stay linear (or `n log n`) in the text's
// size whatever it holds. Time is not measured here (see `benches/records.rs`); these check
// that the big cases are read, refused and written back correctly.

/// `n` distinct free tag lines: about 13 bytes a tag.
fn many_tags(n: usize) -> String {
    let mut text = String::with_capacity(n * 13 + 40);
    for i in 0..n {
        text.push_str(&format!("[t{i} \"{}\"]\n", i % 10));
    }
    text
}

/// Whole games from a fixed line of play, written one after the other, as many as fit in
/// `len` bytes (a single game cannot be that long: the quiet rule ends it within 100 plies of
/// the last capture).
fn games_of_moves(len: usize) -> (String, Vec<Record>) {
    let mut text = String::new();
    let mut games = Vec::new();
    let mut rng = XorShift::new(0x2545_f491);
    loop {
        let mut p = Position::start(Rules::Anywoli);
        let mut rec = Record::new(p);
        while !p.is_over() {
            let ms = p.moves();
            let m = ms.nth(rng.below(ms.len() as u64) as usize).unwrap();
            p.play(m).unwrap();
            rec.moves.push(m);
        }
        rec.set_result_from_play();
        let t = rec.to_string();
        if text.len() + t.len() > len {
            return (text, games);
        }
        text.push_str(&t);
        games.push(rec);
    }
}

#[test]
fn sixty_four_thousand_tags_are_read_and_written_back() {
    let text = format!("{}\n{OPENING}\n", many_tags(64_000));
    assert!(text.len() <= MAX_RECORD_LEN);
    let r = Record::parse(&text).unwrap();
    assert_eq!(r.tags.len(), 64_000);
    assert_eq!(r.tags[0], ("t0".to_string(), "0".to_string()));
    assert_eq!(r.tags[63_999], ("t63999".to_string(), "9".to_string()));
    assert_eq!(r.tag("t31415"), Some("5"));
    assert_eq!(r.moves, moves(OPENING));
    let written = r.to_string();
    assert_eq!(Record::parse(&written).unwrap(), r);
    assert_eq!(Record::parse(&written).unwrap().to_string(), written);
    // The same record built in code, all tags at once.
    let mut built = Record::new(Position::start(Rules::Anywoli));
    built.set_tags((0..64_000).map(|i| (format!("t{i}"), (i % 10).to_string())));
    built.moves = moves(OPENING);
    assert_eq!(built, r);
    assert_eq!(built.to_string(), written);
}

#[test]
fn a_tag_given_sixty_four_thousand_times_is_refused_at_its_second_line() {
    let text = "[Event \"x\"]\n".repeat(64_000);
    assert!(text.len() <= MAX_RECORD_LEN);
    let (line, msg) = error(&text);
    assert_eq!(line, 2);
    assert_eq!(msg, "tag Event is given twice");
    // After 64,000 distinct ones, the repeat is found where it is.
    let text = format!("{}[t17 \"again\"]\n\n{OPENING}\n", many_tags(64_000));
    let (line, msg) = error(&text);
    assert_eq!(line, 64_001);
    assert_eq!(msg, "tag t17 is given twice");
}

#[test]
fn a_mebibyte_of_moves_is_read_and_written_back() {
    let (text, games) = games_of_moves(MAX_RECORD_LEN);
    assert!(text.len() > MAX_RECORD_LEN - 4096, "{}", text.len());
    let moves: usize = games.iter().map(|g| g.moves.len()).sum();
    assert!(moves > 300_000, "{moves} moves");
    let read = parse_all(&text).unwrap();
    assert_eq!(read, games);
    let written: String = read.iter().map(|g| g.to_string()).collect();
    assert_eq!(written, text);
    // Record::parse reads it all and says how many games it found.
    let e = Record::parse(&text).unwrap_err();
    assert!(e.message.contains(&format!("{} games", games.len())), "{e}");
}

#[test]
fn other_big_shapes_are_read_or_refused() {
    // One tag whose value is nearly a mebibyte, with every character that needs escaping.
    let value = "a\\\"b".repeat(MAX_RECORD_LEN / 8);
    let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
    let text = format!("[Note \"{escaped}\"]\ne\n");
    let r = Record::parse(&text).unwrap();
    assert_eq!(r.tag("Note"), Some(value.as_str()));
    assert_eq!(Record::parse(&r.to_string()).unwrap(), r);
    // A comment of nearly a mebibyte, and as many empty comments on one line.
    let r = Record::parse(&format!("e {{{}}} F", "x ".repeat(MAX_RECORD_LEN / 3))).unwrap();
    assert_eq!(r.moves, moves("e F"));
    let r = Record::parse(&format!("e {} F", "{}".repeat(MAX_RECORD_LEN / 3))).unwrap();
    assert_eq!(r.moves, moves("e F"));
    // Comments opened on every line and never closed, and one never-ending token.
    let (line, msg) = error(&"{ {\n".repeat(MAX_RECORD_LEN / 5));
    assert_eq!(line, MAX_RECORD_LEN / 5);
    assert!(msg.contains("never closed"), "{msg}");
    let (line, msg) = error(&"e".repeat(MAX_RECORD_LEN));
    assert_eq!(line, 1);
    assert!(msg.contains("move 1"), "{msg}");
    // Half a million moves, illegal from the second on.
    let (line, msg) = error(&"e ".repeat(MAX_RECORD_LEN / 2));
    assert_eq!(line, 1);
    assert!(msg.contains("move 2 is illegal"), "{msg}");
    // 64,000 games of one tag each.
    let games = parse_all(&"[Event \"x\"]\n*\n".repeat(64_000)).unwrap();
    assert_eq!(games.len(), 64_000);
}

#[test]
fn set_tags_is_set_tag_for_each() {
    let names = ["Event", "Site", "Date", "South", "North"];
    let mut rng = XorShift::new(0x1357_9bdf);
    let mut next = |n: u64| rng.below(n);
    for _ in 0..500 {
        let mut base = Record::new(Position::start(Rules::Anywoli));
        // The tags are a public field: they may hold a name twice already.
        for _ in 0..next(4) {
            let k = names[next(5) as usize].to_string();
            base.tags.push((k, next(100).to_string()));
        }
        let new: Vec<(String, String)> = (0..next(8))
            .map(|_| (names[next(5) as usize].to_string(), next(100).to_string()))
            .collect();
        let mut one_by_one = base.clone();
        for (k, v) in &new {
            one_by_one.set_tag(k, v);
        }
        let mut at_once = base.clone();
        at_once.set_tags(new.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        assert_eq!(at_once, one_by_one, "{:?} + {new:?}", base.tags);
    }
}
