//! An outcome's spelling: written and read back, scored for each side.

use anywoli_core::{Outcome, Side};

const ALL: [Outcome; 3] = [
    Outcome::Win(Side::South),
    Outcome::Win(Side::North),
    Outcome::Draw,
];

#[test]
fn an_outcome_reads_back_as_itself() {
    for o in ALL {
        assert_eq!(o.as_str().parse::<Outcome>(), Ok(o));
    }
    // Words for people, not a record's result.
    assert_eq!(Outcome::Win(Side::South).to_string(), "South wins");
    assert_eq!(Outcome::Draw.to_string(), "draw");
}

#[test]
fn only_the_three_results_are_outcomes() {
    for bad in ["*", "", "1-1", "1/2", " 1-0", "South wins", "draw"] {
        let e = bad.parse::<Outcome>().unwrap_err();
        assert_eq!(e.given, bad);
        assert!(e.to_string().contains("1/2-1/2"), "{e}");
    }
    let long = "x".repeat(1000);
    assert_eq!(long.parse::<Outcome>().unwrap_err().given.len(), 60);
}

#[test]
fn the_two_scores_of_an_outcome_add_up_to_one() {
    for o in ALL {
        assert_eq!(o.score_for(Side::South) + o.score_for(Side::North), 1.0);
    }
    assert_eq!(Outcome::Win(Side::South).score_for(Side::South), 1.0);
    assert_eq!(Outcome::Win(Side::North).score_for(Side::South), 0.0);
    assert_eq!(Outcome::Draw.score_for(Side::South), 0.5);
}
