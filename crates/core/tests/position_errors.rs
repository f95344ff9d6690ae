//! The typed refusals of position strings (issue 13): every way `parse_position` and
//! `Position::from_parts` refuse has a kind with its numbers, and the English message is what it
//! always was (the command line prints it).

use anywoli_core::{
    parse_position, Counted, Field, Hole, Position, PositionError, PositionErrorKind as K, Rules,
    Side,
};
use proptest::prelude::*;

const GOOD: &str = "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0";

fn refused(text: &str) -> PositionError {
    refused_under(text, Rules::Anywoli)
}

fn refused_under(text: &str, rules: Rules) -> PositionError {
    match parse_position(text, rules) {
        Ok(p) => panic!("{text} was accepted as {p}"),
        Err(e) => {
            assert_eq!(e.message, e.kind.to_string());
            e
        }
    }
}

fn hole(letter: char) -> Hole {
    Hole::from_letter(letter).unwrap()
}

#[test]
fn each_kind_with_its_field_numbers_and_words() {
    let cases: Vec<(String, Field, K, &str)> = vec![
        (
            "x".repeat(300),
            Field::Whole,
            K::TooLong { len: 300 },
            "is 300 bytes long; a position string is at most 256",
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0".into(),
            Field::Whole,
            K::FieldCount { found: 7 },
            "has 7 space-separated fields, expected 8: <a..l>/<A..L> <to-move> <south-store> <north-store> <last-capturer> <first-final-capturer> <quiet-plies> <ply>",
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0".into(),
            Field::SouthRow,
            K::NoSlash {
                board: "4,4,4,4,4,4,4,4,4,4,4,4,…".into(),
            },
            "the board '4,4,4,4,4,4,4,4,4,4,4,4,…' has no '/' between South's and North's rows",
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0".into(),
            Field::SouthRow,
            K::RowLength {
                found: 11,
                row: "4,4,4,4,4,4,4,4,4,4,4".into(),
            },
            "has 11 holes, not 12 comma-separated counts: '4,4,4,4,4,4,4,4,4,4,4'",
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4,0,0 s 0 0 - - 0 0".into(),
            Field::NorthRow,
            K::RowLength {
                found: 14,
                row: "4,4,4,4,4,4,4,4,4,4,4,4,…".into(),
            },
            "has more than 12 holes: '4,4,4,4,4,4,4,4,4,4,4,4,…'",
        ),
        (
            "4,4,x,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0".into(),
            Field::SouthRow,
            K::CountNotANumber {
                what: Counted::Hole(hole('c')),
                text: "x".into(),
            },
            "hole c is 'x', not a whole number",
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,97 s 0 0 - - 0 0".into(),
            Field::NorthRow,
            K::CountTooLarge {
                what: Counted::Hole(hole('L')),
                text: "97".into(),
                found: Some(97),
            },
            "hole L is '97', more than the 96 seeds of the game",
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 99999999999 0 - - 0 0".into(),
            Field::SouthStore,
            K::CountTooLarge {
                what: Counted::Store,
                text: "99999999999".into(),
                found: None,
            },
            "the store is '99999999999', more than the 96 seeds of the game",
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 -1 - - 0 0".into(),
            Field::NorthStore,
            K::CountNotANumber {
                what: Counted::Store,
                text: "-1".into(),
            },
            "the store is '-1', not a whole number",
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 S 0 0 - - 0 0".into(),
            Field::ToMove,
            K::BadToMove { text: "S".into() },
            "is 'S', expected s, n or x (game over)",
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 south - 0 0".into(),
            Field::LastCapturer,
            K::BadSide {
                text: "south".into(),
            },
            "is 'south', expected s, n or -",
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - x 0 0".into(),
            Field::FirstFinalCapturer,
            K::BadSide { text: "x".into() },
            "is 'x', expected s, n or -",
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - q 0".into(),
            Field::QuietPlies,
            K::NotANumber { text: "q".into() },
            "is 'q', not a whole number",
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 4294967296".into(),
            Field::Ply,
            K::NumberTooLarge {
                text: "4294967296".into(),
            },
            "is '4294967296', too large",
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 101 500".into(),
            Field::QuietPlies,
            K::QuietAboveLimit { quiet: 101 },
            "is 101, above the quiet rule's 100",
        ),
        (
            "5,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0".into(),
            Field::Whole,
            K::SeedTotal {
                total: 97,
                in_play: 97,
                south: 0,
                north: 0,
            },
            "holes and stores hold 97 seeds (97 in holes, 0 and 0 in the stores), not 96",
        ),
        (
            "3,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0".into(),
            Field::Whole,
            K::SeedTotal {
                total: 95,
                in_play: 95,
                south: 0,
                north: 0,
            },
            "holes and stores hold 95 seeds (95 in holes, 0 and 0 in the stores), not 96",
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 3 2".into(),
            Field::QuietPlies,
            K::QuietAbovePly { quiet: 3, ply: 2 },
            "is 3, more than the 2 plies played",
        ),
        (
            "0,0,0,0,0,0,0,0,0,0,0,4/0,0,0,0,0,0,0,0,0,0,0,0 x 48 44 s - 0 90".into(),
            Field::ToMove,
            K::OverWithSeeds { in_play: 4 },
            "is x (game over) but 4 seeds are still in the holes",
        ),
        (
            "0,0,0,0,0,0,0,0,0,3,3,4/0,0,0,0,0,0,0,0,0,0,0,0 s 43 43 s - 0 90".into(),
            Field::Whole,
            K::InPlayNotMultipleOf4 { in_play: 10 },
            "10 seeds in play is not a multiple of 4",
        ),
        (
            "0,0,0,0,0,0,0,0,0,0,0,4/0,0,0,0,0,0,0,0,0,0,0,0 s 48 44 s - 0 90".into(),
            Field::Whole,
            K::TooFewInPlay {
                in_play: 4,
                threshold: 4,
                rules: Rules::Anywoli,
            },
            "4 seeds in play: under anywoli the game ends at 4, so a game in progress has more",
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 100 100".into(),
            Field::QuietPlies,
            K::QuietAtLimit { quiet: 100 },
            "is 100: the quiet rule ends the game at 100, so a game in progress is below it",
        ),
        (
            "0,0,0,0,0,0,0,0,0,0,0,0/4,4,0,0,0,0,0,0,0,0,0,0 s 44 44 s - 0 90".into(),
            Field::ToMove,
            K::NoSeedsToMove { side: Side::South },
            "South is to move but has no seeds (a player with none passes)",
        ),
    ];
    for (text, field, kind, message) in cases {
        let e = refused(&text);
        assert_eq!((e.field, &e.kind), (field, &kind), "{text}");
        assert_eq!(e.message, message, "{text}");
        assert!(e.to_string().contains(message), "{e}");
    }
}

#[test]
fn codes_are_stable_snake_case_names() {
    let e = refused("5,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0");
    assert_eq!(e.kind.code(), "seed_total");
    assert_eq!(
        refused("4,4,x,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0")
            .kind
            .code(),
        "not_a_number"
    );
    assert_eq!(
        refused("0,0,0,0,0,0,0,0,0,3,3,4/0,0,0,0,0,0,0,0,0,0,0,0 s 43 43 s - 0 90")
            .kind
            .code(),
        "in_play_not_multiple_of_4"
    );
    // 8 in play is a game in progress under anywoli, not under anywoli-it.
    let eight = "0,0,0,0,0,0,0,0,0,0,4,4/0,0,0,0,0,0,0,0,0,0,0,0 s 44 44 s - 0 90";
    assert!(parse_position(eight, Rules::Anywoli).is_ok());
    let e = refused_under(eight, Rules::It);
    assert_eq!(
        e.kind,
        K::TooFewInPlay {
            in_play: 8,
            threshold: 8,
            rules: Rules::It
        }
    );
    assert_eq!(e.kind.code(), "too_few_in_play");
    assert!(GOOD.parse::<Position>().is_ok());
}

#[test]
fn from_parts_refuses_with_the_same_kinds() {
    let mut holes = [4u8; 24];
    holes[5] = 200;
    let e = Position::from_parts(
        holes,
        [0, 0],
        Some(Side::North),
        None,
        None,
        0,
        0,
        Rules::Anywoli,
    )
    .unwrap_err();
    assert_eq!(
        e.kind,
        K::SeedTotal {
            total: 292,
            in_play: 292,
            south: 0,
            north: 0
        }
    );
    let e = Position::from_parts(
        [4; 24],
        [0, 0],
        Some(Side::South),
        None,
        None,
        150,
        200,
        Rules::Anywoli,
    )
    .unwrap_err();
    assert_eq!(
        (e.field, e.kind),
        (Field::QuietPlies, K::QuietAboveLimit { quiet: 150 })
    );
}

const CODES: &[&str] = &[
    "too_long",
    "field_count",
    "no_slash",
    "row_length",
    "not_a_number",
    "count_too_large",
    "bad_to_move",
    "bad_side",
    "number_too_large",
    "quiet_above_limit",
    "seed_total",
    "quiet_above_ply",
    "over_with_seeds",
    "in_play_not_multiple_of_4",
    "too_few_in_play",
    "quiet_at_limit",
    "no_seeds_to_move",
];

fn check_refusal(e: &PositionError) -> Result<(), TestCaseError> {
    prop_assert!(CODES.contains(&e.kind.code()), "{:?}", e.kind);
    prop_assert_eq!(&e.message, &e.kind.to_string());
    prop_assert!(e.to_string().contains(e.field.name()) || e.field == Field::Whole);
    // Quoted input stays short, whatever the input's length.
    prop_assert!(e.message.chars().count() < 400, "{}", e.message);
    Ok(())
}

proptest! {
    /// Any string at all: a position or a refusal with a known kind, never a panic.
    #[test]
    fn any_string_is_read_or_refused_with_a_kind(text in "\\PC{0,300}") {
        for rules in [Rules::Anywoli, Rules::It] {
            match parse_position(&text, rules) {
                Ok(p) => prop_assert_eq!(parse_position(&p.to_string(), rules).unwrap(), p),
                Err(e) => check_refusal(&e)?,
            }
        }
    }

    /// Strings shaped like position strings, with numbers and letters anywhere: every
    /// refusal has a kind, and the seed total is reported right.
    #[test]
    fn position_shaped_strings(
        holes in prop::collection::vec(0u32..40, 20..28),
        slash in 10usize..16,
        side in "[snx-]",
        stores in (0u32..120, 0u32..120),
        caps in ("[sn-]", "[sn-]"),
        quiet in 0u32..150,
        ply in 0u32..300,
    ) {
        let mut board = String::new();
        for (i, h) in holes.iter().enumerate() {
            if i > 0 {
                board.push(if i == slash { '/' } else { ',' });
            }
            board.push_str(&h.to_string());
        }
        let text = format!("{board} {side} {} {} {} {} {quiet} {ply}", stores.0, stores.1, caps.0, caps.1);
        match parse_position(&text, Rules::Anywoli) {
            Ok(p) => prop_assert_eq!(p.to_string(), text),
            Err(e) => {
                check_refusal(&e)?;
                if let K::SeedTotal { total, in_play, south, north } = e.kind {
                    prop_assert_eq!(in_play, holes.iter().sum::<u32>());
                    prop_assert_eq!((south as u32, north as u32), stores);
                    prop_assert_eq!(total, in_play + stores.0 + stores.1);
                    prop_assert!(total != 96);
                }
            }
        }
    }
}
