//! What a database holds, counted: the 8-seed table's verdicts and distances ([`Stats`]) and
//! the 12-seed table's margins ([`Stats12`]), what `tablebase stats`, `build` and `verify`
//! print.

use anywoli_core::QUIET_LIMIT;

use super::entry::{Verdict, STUCK};
use super::entry12::Entry12;
use super::index::unrank;
use super::table::Table;

/// What a database holds, counted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Seeds in play.
    pub seeds: u8,
    /// Entries: one per index, valid or not.
    pub positions: u64,
    /// Not positions: the side to move has no seeds.
    pub invalid: u64,
    /// The side to move forces the next capture.
    pub wins: u64,
    /// The opponent forces it.
    pub losses: u64,
    /// Neither side can force a capture.
    pub unforced: u64,
    /// Positions where no move ends (none).
    pub stuck: u64,
    /// The longest forced capture, in plies, and the index of a position that needs it.
    pub longest: u32,
    /// The index of a position whose forced capture is `longest` plies away.
    pub longest_at: u64,
    /// `by_dtc[d] = [wins, losses]` with the capture `d` plies away.
    pub by_dtc: Vec<[u64; 2]>,
    /// Forced captures in positions without a hole of 4 (what play can reach but for holes
    /// untouched since the start): how many, the longest, and how many need more plies than
    /// the quiet rule's 100.
    pub playable: u64,
    /// The longest of the `playable` forced captures, in plies.
    pub longest_playable: u32,
    /// `playable` forced captures more than [`QUIET_LIMIT`] plies away.
    pub playable_over_quiet_limit: u64,
}

impl Stats {
    /// Forced captures (wins and losses) that need more plies than `plies`.
    pub fn longer_than(&self, plies: usize) -> u64 {
        self.by_dtc
            .iter()
            .skip(plies + 1)
            .map(|c| c[0] + c[1])
            .sum()
    }
}

impl Table {
    /// Counts of each kind of entry and the distribution of forced-capture lengths.
    pub fn stats(&self) -> Stats {
        let mut s = Stats {
            seeds: self.seeds(),
            positions: self.len() as u64,
            ..Stats::default()
        };
        for i in 0..self.len() {
            let e = self.entry_at(i as u64);
            match Verdict::of(e) {
                None if e == STUCK => s.stuck += 1,
                None => s.invalid += 1,
                Some((Verdict::Unforced, _)) => s.unforced += 1,
                Some((v, d)) => {
                    if v == Verdict::Win {
                        s.wins += 1;
                    } else {
                        s.losses += 1;
                    }
                    let d = d as usize;
                    if s.by_dtc.len() <= d {
                        s.by_dtc.resize(d + 1, [0, 0]);
                    }
                    s.by_dtc[d][(v == Verdict::Loss) as usize] += 1;
                    if d as u32 > s.longest {
                        s.longest = d as u32;
                        s.longest_at = i as u64;
                    }
                    // Play never leaves 4 seeds in a hole (the fourth is captured at once):
                    // only a hole untouched since the start holds 4.
                    if !unrank(i as u64, self.seeds()).contains(&4) {
                        s.playable += 1;
                        if d as u32 > s.longest_playable {
                            s.longest_playable = d as u32;
                        }
                        if d as u32 > QUIET_LIMIT as u32 {
                            s.playable_over_quiet_limit += 1;
                        }
                    }
                }
            }
        }
        s
    }
}

/// What the 12-seed database holds, counted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats12 {
    /// Entries: one per index, valid or not.
    pub positions: u64,
    /// Not positions: the side to move has no seeds.
    pub invalid: u64,
    /// Positions whose margin is proven, by margin (−12, −4, +4, +12).
    pub exact: [u64; 4],
    /// Positions with only bounds (the quiet rule may decide).
    pub bounded: u64,
    /// Proven positions by distance to the deciding capture.
    pub by_dtc: Vec<u64>,
    /// The longest distance of a proven position, in plies.
    pub longest: u32,
    /// The index of a position at that distance.
    pub longest_at: u64,
    /// The same for positions without a hole of 4 (what play can reach but for holes
    /// untouched since the start): proven, only bounds, the longest distance, and how many
    /// proven margins need more plies than the quiet rule's 100.
    pub playable: u64,
    /// `playable` positions with only bounds.
    pub playable_bounded: u64,
    /// The longest distance among the `playable` proven positions, in plies.
    pub longest_playable: u32,
    /// `playable` proven positions more than [`QUIET_LIMIT`] plies from their capture.
    pub playable_over_quiet_limit: u64,
}

/// Counts of each kind of 12-seed entry and the distribution of proof lengths.
pub fn stats12(t: &Table) -> Stats12 {
    let mut s = Stats12 {
        positions: t.len() as u64,
        ..Stats12::default()
    };
    for i in 0..t.len() as u64 {
        match Entry12::decode(t.entry_at(i)) {
            None => s.invalid += 1,
            Some(e) => match e.exact() {
                Some(_) => {
                    s.exact[e.lower as usize] += 1;
                    let d = e.dtc as usize;
                    if s.by_dtc.len() <= d {
                        s.by_dtc.resize(d + 1, 0);
                    }
                    s.by_dtc[d] += 1;
                    if d as u32 > s.longest {
                        s.longest = d as u32;
                        s.longest_at = i;
                    }
                    // Play never leaves 4 seeds in a hole (the fourth is captured at once).
                    if !unrank(i, 12).contains(&4) {
                        s.playable += 1;
                        s.longest_playable = s.longest_playable.max(d as u32);
                        if d > QUIET_LIMIT as usize {
                            s.playable_over_quiet_limit += 1;
                        }
                    }
                }
                None => {
                    s.bounded += 1;
                    if !unrank(i, 12).contains(&4) {
                        s.playable_bounded += 1;
                    }
                }
            },
        }
    }
    s
}
