//! Distance to perfection: the committed long 8-seed set is what it claims, checked with the
//! solver's own 8-seed layer (so CI needs no database on disk), and the judge agrees with it.

use anywoli_core::Side;
use anywoli_engine::endgame::{layer8, Verdict};
use anywoli_engine::perfection::{judge, long_eights, move_values, read_set, LONG8, REACH12};

#[test]
fn the_long_eights_are_long_wins_with_a_losing_move() {
    let tb = layer8();
    let set = read_set(LONG8).unwrap();
    assert_eq!(set.len(), 200);
    for pos in &set {
        assert_eq!(pos.to_move(), Some(Side::South), "{pos}");
        assert_eq!((pos.store(Side::South), pos.store(Side::North)), (44, 44));
        let p = tb.probe(pos).unwrap();
        assert_eq!(p.verdict, Verdict::Win, "{pos}");
        assert!(p.dtc >= 60 && p.in_time, "{pos}: {p:?}");
        let values = move_values(tb, pos).unwrap();
        // A best move keeps the win; some move throws it away.
        let best = values.iter().max_by_key(|v| v.1).unwrap();
        assert_eq!(best.1, 8, "{pos}");
        let j = judge(&values, best.0, 0).unwrap();
        assert!(!j.error && j.lost == 0 && !j.throws_win);
        let worst = values.iter().min_by_key(|v| v.1).unwrap();
        let j = judge(&values, worst.0, 0).unwrap();
        assert!(j.error && j.lost == 8 - worst.1 && j.throws_win, "{pos}");
    }
    // The set is the first 200 of the walk through the index: made again, the same.
    assert_eq!(long_eights(tb, 200, 60), set);
}

#[test]
fn the_twelves_are_twelve_seed_positions_to_move() {
    let set = read_set(REACH12).unwrap();
    assert!(set.len() >= 100, "{}", set.len());
    for pos in &set {
        assert_eq!(pos.seeds_in_play(), 12, "{pos}");
        assert!(pos.moves().len() >= 2, "{pos}");
    }
}
