//! Zobrist keys, built at compile time so every program hashes alike.
//!
//! The hash covers what decides the rest of the game: every hole's count, the side to move and
//! the first-final capturer (it decides the last seeds in `anywoli-first-final`). Stores and the
//! ply counters are left out on purpose: a search scores positions by the seeds still to be
//! won, so positions that differ only in their stores are the same to it.

use crate::{Hole, Side};

pub(crate) const fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Largest count a hole can hold, plus one.
const COUNTS: usize = 97;

const fn hole_keys() -> [[u64; COUNTS]; Hole::COUNT] {
    let mut t = [[0u64; COUNTS]; Hole::COUNT];
    let mut h = 0;
    while h < Hole::COUNT {
        // An empty hole contributes nothing, so a position's key needs no loop over empty holes.
        let mut c = 1;
        while c < COUNTS {
            t[h][c] = splitmix64((h * COUNTS + c) as u64 ^ 0x616e_7977_6f6c_6900);
            c += 1;
        }
        h += 1;
    }
    t
}

/// `DROP[h][c]` turns the key of hole `h` holding `c` into the key of it holding `c + 1`: one
/// lookup per seed sown.
const fn drop_keys(k: &[[u64; COUNTS]; Hole::COUNT]) -> [[u64; COUNTS]; Hole::COUNT] {
    let mut t = [[0u64; COUNTS]; Hole::COUNT];
    let mut h = 0;
    while h < Hole::COUNT {
        let mut c = 0;
        while c + 1 < COUNTS {
            t[h][c] = k[h][c] ^ k[h][c + 1];
            c += 1;
        }
        h += 1;
    }
    t
}

pub(crate) static HOLE: [[u64; COUNTS]; Hole::COUNT] = hole_keys();
pub(crate) static DROP: [[u64; COUNTS]; Hole::COUNT] = drop_keys(&HOLE);

/// Key of North to move (South to move is 0).
pub(crate) const NORTH_TO_MOVE: u64 = splitmix64(0x006e_6f72_7468);
/// Key of a finished game.
pub(crate) const GAME_OVER: u64 = splitmix64(0x6f76_6572);
pub(crate) const FIRST_FINAL: [u64; 2] = [splitmix64(0x0066_6673), splitmix64(0x0066_666e)];

#[inline]
pub(crate) fn hole(h: Hole, count: u8) -> u64 {
    HOLE[h.index()][count as usize]
}

#[inline]
pub(crate) fn first_final(side: Option<Side>) -> u64 {
    match side {
        Some(s) => FIRST_FINAL[s.index()],
        None => 0,
    }
}

#[inline]
pub(crate) fn to_move(side: Option<Side>) -> u64 {
    match side {
        Some(Side::South) => 0,
        Some(Side::North) => NORTH_TO_MOVE,
        None => GAME_OVER,
    }
}
