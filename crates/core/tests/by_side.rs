//! A pair by side: indexed, converted and iterated South first.

use anywoli_core::{BySide, Side};

#[test]
fn a_pair_is_indexed_by_side() {
    let mut seats = BySide::new("ada", "bo");
    assert_eq!(seats[Side::South], "ada");
    assert_eq!(seats[Side::North], "bo");
    seats[Side::North] = "cy";
    assert_eq!(seats.north, "cy");
    for side in Side::ALL {
        assert_eq!(seats[side], <[&str; 2]>::from(seats)[side.index()]);
    }
}

#[test]
fn a_pair_goes_south_first() {
    let p = BySide::from([1, 2]);
    assert_eq!(p, BySide::new(1, 2));
    assert_eq!(p.iter().copied().collect::<Vec<_>>(), [1, 2]);
    assert_eq!(p.into_iter().collect::<Vec<_>>(), [1, 2]);
    assert_eq!((&p).into_iter().count(), 2);
    let sides: Vec<(Side, i32)> = p.with_sides().map(|(s, &v)| (s, v)).collect();
    assert_eq!(sides, [(Side::South, 1), (Side::North, 2)]);
    let mut order = Vec::new();
    let doubled = p.map(|v| {
        order.push(v);
        v * 2
    });
    assert_eq!((doubled, order), (BySide::new(2, 4), vec![1, 2]));
    assert_eq!(p.as_ref().map(|v| *v + 1), BySide::new(2, 3));
    assert_eq!(p.swapped(), BySide::new(2, 1));
    assert_eq!(BySide::<Option<u8>>::default(), BySide::both(None));
}
