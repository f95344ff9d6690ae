//! The transposition table: what is stored comes back whole, a bucket keeps its deepest and
//! newest entries, and threads writing at once never make it answer a torn entry.

use anywoli_core::{Hole, Move, XorShift};
use anywoli_engine::tt::{Bound, Entry, Table};

fn entry(score: i32, depth: u8, bound: Bound, hole: Option<u8>) -> Entry {
    Entry {
        score,
        depth,
        bound,
        mv: hole.and_then(Hole::new).map(Move::new),
    }
}

/// Keys that share a bucket of a 1 MiB table (16,384 buckets) and differ in their upper half.
fn same_bucket(i: u64) -> u64 {
    0x1234 | (i + 1) << 40
}

#[test]
fn an_entry_comes_back_whole() {
    let t = Table::new(1);
    for (k, e) in [
        (1u64 << 63 | 7, entry(-29_999, 96, Bound::Upper, Some(11))),
        (
            0x7777_0000_1111_2222,
            entry(123, 13, Bound::Lower, Some(23)),
        ),
        (
            0x8888_0000_1111_2222,
            entry(-123, 14, Bound::Upper, Some(12)),
        ),
        (
            0xdead_beef_0000_0001,
            entry(29_999, 1, Bound::Lower, Some(0)),
        ),
        (0x0123_4567_89ab_cdef, entry(0, 0, Bound::Exact, None)),
        (0xffff_ffff_ffff_fff0, entry(-1, 127, Bound::Exact, Some(5))),
    ] {
        t.store(k, e);
        let got = t.probe(k).expect("the entry just stored");
        assert_eq!(
            (got.score, got.depth, got.bound, got.mv),
            (e.score, e.depth, e.bound, e.mv)
        );
    }
    assert!(t.probe(0x5555_5555_5555_5555).is_none());
}

#[test]
fn a_bucket_holds_eight_and_gives_up_its_shallowest() {
    let t = Table::new(1);
    for i in 0..8 {
        t.store(
            same_bucket(i),
            entry(i as i32, 10 + i as u8, Bound::Exact, None),
        );
    }
    for i in 0..8 {
        assert_eq!(t.probe(same_bucket(i)).map(|e| e.score), Some(i as i32));
    }
    // A ninth position in the full bucket replaces the shallowest (depth 10), no other.
    t.store(same_bucket(8), entry(8, 12, Bound::Exact, None));
    assert!(t.probe(same_bucket(0)).is_none());
    for i in 1..=8 {
        assert_eq!(t.probe(same_bucket(i)).map(|e| e.score), Some(i as i32));
    }
}

#[test]
fn a_deeper_entry_stays_unless_the_new_one_is_exact() {
    let t = Table::new(1);
    let k = 0xabcd_ef01_2345_6789;
    t.store(k, entry(50, 9, Bound::Lower, Some(3)));
    t.store(k, entry(40, 4, Bound::Upper, Some(2)));
    assert_eq!(t.probe(k).map(|e| (e.score, e.depth)), Some((50, 9)));
    t.store(k, entry(45, 4, Bound::Exact, Some(2)));
    assert_eq!(t.probe(k).map(|e| (e.score, e.depth)), Some((45, 4)));
    // The position's own entry is overwritten in place: no second copy in the bucket.
    t.store(k, entry(44, 5, Bound::Lower, None));
    assert_eq!(t.probe(k).map(|e| (e.score, e.depth)), Some((44, 5)));
}

#[test]
fn an_old_search_gives_way_first() {
    let t = Table::new(1);
    for i in 0..8 {
        t.store(same_bucket(i), entry(i as i32, 10, Bound::Exact, None));
    }
    t.new_search();
    // An entry of the last search counts as 8 plies shallower: depth 10 then is less than 3.
    t.store(same_bucket(8), entry(8, 3, Bound::Exact, None));
    t.store(same_bucket(9), entry(9, 3, Bound::Exact, None));
    assert_eq!(t.probe(same_bucket(8)).map(|e| e.score), Some(8));
    assert_eq!(t.probe(same_bucket(9)).map(|e| e.score), Some(9));
    assert_eq!(
        (0..8)
            .filter(|&i| t.probe(same_bucket(i)).is_some())
            .count(),
        6
    );
    // And an old deeper entry of the same position no longer blocks a shallower bound.
    let k = (0..8)
        .map(same_bucket)
        .find(|&k| t.probe(k).is_some())
        .expect("an old entry");
    t.store(k, entry(-7, 2, Bound::Upper, None));
    assert_eq!(t.probe(k).map(|e| (e.score, e.depth)), Some((-7, 2)));
}

#[test]
fn threads_writing_at_once_never_read_a_torn_entry() {
    // Each key's entry is a function of the key: any answer that is not is a torn one.
    fn made(k: u64) -> Entry {
        let h = k >> 32;
        entry(
            (h % 20_000) as i32 - 10_000,
            (h >> 20) as u8 % 100,
            Bound::Lower,
            Some((h % 12) as u8),
        )
    }
    // A key of 256 buckets of the 16,384 (so that the threads collide all the time), with the
    // bits the table neither indexes nor checks at zero.
    fn key(x: u64) -> u64 {
        x & 0xffff_ffff_0000_00ff | 0x100
    }
    let t = Table::new(1);
    std::thread::scope(|s| {
        for seed in 1..=4u64 {
            let t = &t;
            s.spawn(move || {
                let mut rng = XorShift::new(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
                for _ in 0..200_000 {
                    let x = rng.next();
                    let k = key(x);
                    t.store(k, made(k));
                    let probe = key(x.rotate_left(29));
                    if let Some(e) = t.probe(probe) {
                        let m = made(probe);
                        assert_eq!((e.score, e.depth, e.mv), (m.score, m.depth, m.mv));
                    }
                }
            });
        }
    });
}
