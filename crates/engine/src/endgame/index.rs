//! Where a position sits in a database: the rank of its seed distribution (stars and bars: a
//! perfect hash of the C(n+23, 23) ways to lay `n` seeds in 24 holes) with South to move; North
//! to move is the same position turned half a board round (hole `i` becomes `i + 12`), which
//! swaps the rows and keeps the sowing order. Also the checksum the files carry. The bottom of
//! the endgame code: it imports nothing of it.

use anywoli_core::{Hole, Position, Rules, Side, TOTAL_SEEDS};

use super::entry::Entry;

/// Holes on the board.
pub const HOLES: usize = Hole::COUNT;
/// Most seeds an index numbers (its tables are sized for it): 20, whose C(43, 23) =
/// 960,566,918,220 positions need 40 bits; the 16-seed layer's 37,711,260,990 need 36. Ranks
/// are `u64` throughout.
pub const MAX_SEEDS: usize = 20;

/// The layers a database holds: captures take seeds by fours, and with 4 in play the game is
/// over. 8 and 12 seeds are built on one machine, 16 and 20 on a cluster (docs/tablebase-distributed.md).
pub const LAYERS: [u8; 4] = [8, 12, 16, 20];

/// Whether a file may hold a database of `seeds` seeds in play.
pub fn is_layer(seeds: u8) -> bool {
    LAYERS.contains(&seeds)
}

/// `WAYS[h][s]`: the ways to lay `s` seeds in `h` holes, C(s + h - 1, h - 1).
const WAYS: [[u64; MAX_SEEDS + 1]; HOLES + 1] = {
    let mut w = [[0u64; MAX_SEEDS + 1]; HOLES + 1];
    w[0][0] = 1;
    let mut h = 1;
    while h <= HOLES {
        let mut s = 0;
        while s <= MAX_SEEDS {
            // Ways with the first of the h holes holding k seeds, summed over k.
            let mut k = 0;
            while k <= s {
                w[h][s] += w[h - 1][s - k];
                k += 1;
            }
            s += 1;
        }
        h += 1;
    }
    w
};

/// `OFFSET[h][r][c]`: distributions that come before those whose next hole holds `c`, when
/// `r` seeds are left for that hole and the `h` holes after it.
static OFFSET: [[[u64; MAX_SEEDS + 2]; MAX_SEEDS + 1]; HOLES] = {
    let mut t = [[[0u64; MAX_SEEDS + 2]; MAX_SEEDS + 1]; HOLES];
    let mut h = 0;
    while h < HOLES {
        let mut r = 0;
        while r <= MAX_SEEDS {
            let mut c = 0;
            while c <= r {
                t[h][r][c + 1] = t[h][r][c] + WAYS[h][r - c];
                c += 1;
            }
            r += 1;
        }
        h += 1;
    }
    t
};

/// Distributions of `seeds` seeds over the 24 holes: the size of a database.
pub fn positions(seeds: u8) -> u64 {
    WAYS[HOLES][seeds as usize]
}

/// The rank of a distribution of `seeds` seeds (holes must sum to `seeds`).
#[inline]
pub fn rank(holes: &[u8; HOLES], seeds: u8) -> u64 {
    let mut r = seeds as usize;
    let mut idx = 0;
    for (i, &c) in holes[..HOLES - 1].iter().enumerate() {
        idx += OFFSET[HOLES - 1 - i][r][c as usize];
        r -= c as usize;
    }
    idx
}

/// The distribution of a rank: the inverse of [`rank`].
pub fn unrank(mut idx: u64, seeds: u8) -> [u8; HOLES] {
    let mut holes = [0u8; HOLES];
    let mut r = seeds as usize;
    for (i, hole) in holes[..HOLES - 1].iter_mut().enumerate() {
        let t = &OFFSET[HOLES - 1 - i][r];
        let mut c = 0;
        while idx >= t[c + 1] {
            c += 1;
        }
        idx -= t[c];
        *hole = c as u8;
        r -= c;
    }
    holes[HOLES - 1] = r as u8;
    holes
}

/// The board turned half round: North's row becomes South's and the other way about.
#[inline]
pub fn turned(holes: &[u8; HOLES]) -> [u8; HOLES] {
    let mut t = [0u8; HOLES];
    t[..12].copy_from_slice(&holes[12..]);
    t[12..].copy_from_slice(&holes[..12]);
    t
}

/// A position with South to move and `holes` on the board, or `None` when South has no seeds.
pub(crate) fn position_of(
    holes: &[u8; HOLES],
    seeds: u8,
    rules: Rules,
    first_final: Option<Side>,
) -> Option<Position> {
    let rest = TOTAL_SEEDS - seeds;
    Position::from_parts(
        *holes,
        [rest / 2, rest - rest / 2],
        Some(Side::South),
        None,
        first_final,
        0,
        0,
        rules,
    )
    .ok()
}

/// FNV-1a over bytes, from `h`.
pub(crate) fn fnv(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Where the files' checksum starts: FNV-1a's offset basis.
pub const CHECKSUM_START: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a over the entries: enough to catch a damaged or truncated file.
pub(crate) fn checksum(data: &[Entry]) -> u64 {
    checksum_from(CHECKSUM_START, data)
}

/// The files' checksum carried on from `h` over the next entries, for a file written in parts.
pub fn checksum_from(mut h: u64, data: &[Entry]) -> u64 {
    for e in data {
        h ^= *e as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_is_a_perfect_hash() {
        for seeds in [0u8, 1, 2, 4] {
            let n = positions(seeds);
            for i in 0..n {
                let h = unrank(i, seeds);
                assert_eq!(h.iter().map(|&c| c as u32).sum::<u32>(), seeds as u32);
                assert_eq!(rank(&h, seeds), i);
            }
        }
        assert_eq!(positions(8), 7_888_725);
        assert_eq!(positions(12), 834_451_800);
        // The ends of the range, and a spot check in the middle.
        let mut h = [0u8; 24];
        h[23] = 8;
        assert_eq!(rank(&h, 8), 0);
        let mut h = [0u8; 24];
        h[0] = 8;
        assert_eq!(rank(&h, 8), positions(8) - 1);
        let mid = positions(8) / 2 + 12345;
        assert_eq!(rank(&unrank(mid, 8), 8), mid);
    }

    #[test]
    fn turning_the_board_swaps_the_rows() {
        let mut h = [0u8; 24];
        h[0] = 3;
        h[13] = 5;
        let t = turned(&h);
        assert_eq!(t[12], 3);
        assert_eq!(t[1], 5);
        assert_eq!(turned(&t), h);
    }
}
