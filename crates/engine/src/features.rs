//! The hand-made features of a position that the evaluation weighs ([`crate::eval`]) and the
//! network takes beside its one-hot counts ([`crate::net`]): counted once, for both, here.

use anywoli_core::{Hole, Position, Side, QUIET_LIMIT};

/// Number of features.
pub const FEATURES: usize = 17;

/// Names, in the order of the weight vector. "Mine minus theirs" throughout, from the side to
/// move's point of view.
pub const FEATURE_NAMES: [&str; FEATURES] = [
    "row_seeds",         // seeds in my row minus theirs
    "empty",             // holes by count: a last seed landing in an empty hole ends the move
    "ones",              //
    "twos",              // one seed from being a three
    "threes",            // a seed passing makes four: mid-sow fours go to the owner
    "fours",             //
    "five_to_7",         //
    "eight_to_11",       //
    "twelve_plus",       // long relays: these seeds spread over the whole board
    "my_threats",        // my holes whose first lap ends on a 3: a last-seed capture for me now
    "their_threats",     // the same for the opponent, for their next turn
    "quiet_split",       // row seeds difference scaled by how near the quiet rule's end is
    "tempo",             // 1: being the side to move
    "endgame_tempo", // 1 when 12 or fewer seeds are in play: the last fours decide the last seeds
    "my_best_midsow", // my move whose first lap passes most of my 3s (net of theirs): fours I force
    "their_best_midsow", // the same for the opponent on their next turn
    "overflow",      // seeds my first laps would drop in their row, minus theirs in mine
];

/// The count class of a hole (features 1..=8) as one count in an 8-bit lane: lane `k` holds
/// the holes of feature `k + 1`. A row's 12 holes add their lanes in one register: the classes
/// counted into a small array were a chain of read-modify-writes, each waiting on the last
/// store to the same class, the hottest line of the evaluation.
const CLASS_LANE: [u64; 97] = {
    let mut t = [0u64; 97];
    let mut c = 0;
    while c < 97 {
        let class = match c {
            0 => 1,
            1 => 2,
            2 => 3,
            3 => 4,
            4 => 5,
            5..=7 => 6,
            8..=11 => 7,
            _ => 8,
        };
        t[c] = 1 << (8 * (class - 1));
        c += 1;
    }
    t
};

/// The features of `pos` from the side to move's point of view.
#[inline]
pub fn features(pos: &Position) -> [i32; FEATURES] {
    // The mid-sow feature is popcounts, and the default x86-64 target has no POPCNT
    // instruction: its software form was a quarter of the evaluation. Every x86-64 processor
    // since 2008 has it; the portable form stays for the others.
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: the processor has POPCNT, the one feature `features_popcnt` enables.
        return unsafe { features_popcnt(pos) };
    }
    features_of(pos)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn features_popcnt(pos: &Position) -> [i32; FEATURES] {
    features_of(pos)
}

#[inline(always)]
pub(crate) fn features_of(pos: &Position) -> [i32; FEATURES] {
    let Some(me) = pos.to_move() else {
        return [0; FEATURES];
    };
    let h = pos.holes();
    let my_first = if me == Side::South { 0 } else { 12 };
    // Side k's first hole and row mask (0 = me). Masks over the board doubled (bit j is hole
    // j % 24, j < 48) turn "the holes a first lap passes" into one range, so its 3s and the
    // seeds it drops in the other row are popcounts.
    let first = [my_first, 12 - my_first];
    let row = |k: usize| ((1u64 << 12) - 1) << first[k];
    let doubled = |m: u64| m | m << Hole::COUNT;
    let mut three_mask = 0u64;
    for (i, &c) in h.iter().enumerate() {
        three_mask |= ((c == 3) as u64) << i;
    }
    let threes = [doubled(three_mask & row(0)), doubled(three_mask & row(1))];
    let all_threes = doubled(three_mask);
    let rows = [doubled(row(0)), doubled(row(1))];
    // Set bits of `m` among doubled holes a..b (b exclusive, b ≤ 48).
    let count = |m: u64, a: usize, b: usize| (m & ((1u64 << b) - (1u64 << a))).count_ones() as i32;
    let mut seeds = [0i32; 2];
    let mut classes = [0u64; 2];
    let mut threats = [0i32; 2];
    let mut best_midsow = [i32::MIN; 2];
    let mut overflow = [0i32; 2];
    for k in 0..2 {
        for (j, &c) in h[first[k]..first[k] + 12].iter().enumerate() {
            let (i, c) = (first[k] + j, c as usize);
            seeds[k] += c as i32;
            classes[k] += CLASS_LANE[c];
            if c > 0 && c < Hole::COUNT {
                // The first lap of a move from hole i ends on hole i + c: a capture if it
                // holds 3 (read on the board doubled: no modulo).
                threats[k] += (all_threes >> (i + c)) as i32 & 1;
                // Holes i+1 .. i+c-1 get a seed that is not the lap's last: a 3 there is a
                // mid-sow four for its owner.
                let (a, b) = (i + 1, i + c);
                let net = count(threes[k], a, b) - count(threes[1 - k], a, b);
                best_midsow[k] = best_midsow[k].max(net);
                // Seeds of this first lap (holes i+1 ..= i+c) that land in the other row.
                overflow[k] += count(rows[1 - k], a, b + 1);
            }
        }
    }
    let mut f = [0i32; FEATURES];
    f[0] = seeds[0] - seeds[1];
    for (lane, fk) in f[1..=8].iter_mut().enumerate() {
        let of = |m: u64| (m >> (8 * lane)) as i32 & 0xff;
        *fk = of(classes[0]) - of(classes[1]);
    }
    f[9] = threats[0];
    f[10] = threats[1];
    let quiet = pos.quiet_plies() as i32;
    let near = (quiet - (QUIET_LIMIT as i32 - 20)).max(0);
    f[11] = f[0] * near / 20;
    f[12] = 1;
    f[13] = (pos.seeds_in_play() <= 12) as i32;
    f[14] = best_midsow[0].max(0);
    f[15] = best_midsow[1].max(0);
    f[16] = overflow[0] - overflow[1];
    f
}
