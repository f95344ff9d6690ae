use anywoli_tournament::{Side, Sides};

fn s(text: &str) -> Sides {
    text.parse().unwrap()
}

#[test]
fn sides_read_and_write_as_the_contract_spells_them() {
    assert_eq!(s("SN-S").to_string(), "SN-S");
    assert_eq!(s("SN-S").counts(), (2, 1));
    assert!("SX".parse::<Sides>().is_err());
    let json: Sides = serde_json::from_str("\"N-N\"").unwrap();
    assert_eq!(json, s("N-N"));
    assert!(serde_json::from_str::<Sides>("\"Q\"").is_err());
}

#[test]
fn rounds_without_a_game_do_not_break_a_run() {
    // S, bye, S: a third South would be three in a row.
    assert!(s("S-S").twice_in_a_row(Side::South));
    assert!(!s("S-S").may_play(Side::South, 2));
    assert!(s("S-S").may_play(Side::North, 2));
    assert!(!s("SNS").twice_in_a_row(Side::South));
}

#[test]
fn the_gap_between_south_and_north_is_kept() {
    // Three South, one North: a fourth South would put them three apart.
    assert!(!s("SSNS").may_play(Side::South, 2));
    assert!(s("SSNS").may_play(Side::North, 2));
    assert!(s("SN").may_play(Side::South, 1));
    assert!(!s("SSN").may_play(Side::South, 1));
}

#[test]
fn the_due_side_is_the_one_played_less_then_the_other_one() {
    assert_eq!(s("").due(), None);
    assert_eq!(s("---").due(), None);
    assert_eq!(s("S").due(), Some(Side::North));
    assert_eq!(s("SNN").due(), Some(Side::South));
    assert_eq!(s("SN").due(), Some(Side::South));
    assert_eq!(s("NS-").due(), Some(Side::North));
}
