//! The evaluation's features against a plain reading of their definitions, hole by hole, on
//! positions of random play: the fast forms (bit masks, popcounts, counts in 8-bit lanes) must
//! count the same.

use anywoli_core::{Hole, Position, Rules, Side, XorShift};
use anywoli_engine::eval::features;

/// Feature 14 and 15 as defined: for each side, its best first lap counted as the 3s of its
/// own passed (not landed on) minus the other side's, at least 0.
fn best_midsow(pos: &Position) -> [i32; 2] {
    let me = pos.to_move().unwrap();
    let h = pos.holes();
    let owner = |hole: usize| if hole < 12 { Side::South } else { Side::North };
    let mut best = [0i32; 2];
    for (i, &c) in h.iter().enumerate() {
        if c == 0 || c >= 24 {
            continue;
        }
        let mover = owner(i);
        let (mut own, mut other) = (0, 0);
        for step in 1..c as usize {
            let hole = (i + step) % Hole::COUNT;
            if h[hole] == 3 {
                if owner(hole) == mover {
                    own += 1;
                } else {
                    other += 1;
                }
            }
        }
        let k = (mover != me) as usize;
        best[k] = best[k].max(own - other);
    }
    best
}

/// Features 0..=10 and 16 as defined, hole by hole: row seeds, holes by count class, first laps
/// ending on a 3, and first-lap seeds dropped in the other row, each mine minus theirs.
fn counted(pos: &Position) -> Vec<(usize, i32)> {
    let me = pos.to_move().unwrap();
    let h = pos.holes();
    let owner = |hole: usize| if hole < 12 { Side::South } else { Side::North };
    let sign = |hole: usize| if owner(hole) == me { 1 } else { -1 };
    let class = |c: u8| match c {
        0..=4 => 1 + c as usize,
        5..=7 => 6,
        8..=11 => 7,
        _ => 8,
    };
    let mut f = [0i32; 17];
    let (mut mine_threats, mut their_threats) = (0, 0);
    for (i, &c) in h.iter().enumerate() {
        f[0] += sign(i) * c as i32;
        f[class(c)] += sign(i);
        if c == 0 || c >= 24 {
            continue;
        }
        if h[(i + c as usize) % Hole::COUNT] == 3 {
            if owner(i) == me {
                mine_threats += 1;
            } else {
                their_threats += 1;
            }
        }
        for step in 1..=c as usize {
            if owner((i + step) % Hole::COUNT) != owner(i) {
                f[16] += sign(i);
            }
        }
    }
    f[9] = mine_threats;
    f[10] = their_threats;
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 16]
        .into_iter()
        .map(|k| (k, f[k]))
        .collect()
}

#[test]
fn the_features_count_what_they_say() {
    let mut rng = XorShift::new(0x9e37_79b9_7f4a_7c15);
    let mut checked = 0;
    for _game in 0..200 {
        let mut p = Position::start(Rules::Anywoli);
        while !p.is_over() {
            let f = features(&p);
            assert_eq!([f[14], f[15]], best_midsow(&p), "{p}");
            for (k, want) in counted(&p) {
                assert_eq!(f[k], want, "feature {k} of {p}");
            }
            checked += 1;
            let ms = p.moves();
            let m = ms.nth(rng.below(ms.len() as u64) as usize).unwrap();
            p.play_unchecked(m).unwrap();
        }
    }
    assert!(checked > 10_000, "{checked}");
}
