//! The network lag a seat may claim on its moves, bounded by what the server measured (issue 36:
//! the client's claim was taken as it was, the clock's whole 0.5 s allowance on every move).

use std::collections::VecDeque;

use anywoli_core::{BySide, Side};

/// A seat's measured round trips kept: the last five pings, about two minutes.
const KEPT: usize = 5;
/// What a lag claim may exceed the measured round trip by: the variation of a network
/// between two pings (a phone's radio waking, a congested link).
pub const LAG_JITTER_MS: i64 = 100;

/// The last round trips measured on each seat's sockets (milliseconds, newest last).
#[derive(Debug, Default)]
pub struct SeatLags(BySide<VecDeque<i64>>);

impl SeatLags {
    /// A round trip measured on one of `side`'s sockets (its ping and the pong).
    pub fn note(&mut self, side: Side, rtt_ms: i64) {
        let l = &mut self.0[side];
        l.push_back(rtt_ms.max(0));
        while l.len() > KEPT {
            l.pop_front();
        }
    }

    /// The most of a move's lag claim that `side` gets back: the slowest of its last round
    /// trips, plus [`LAG_JITTER_MS`]; just that jitter when no socket of the seat answered a
    /// ping. The clock caps it at `LAG_CAP_MS` besides.
    pub fn allowed(&self, side: Side) -> i64 {
        self.0[side].iter().copied().max().unwrap_or(0) + LAG_JITTER_MS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_slowest_of_the_last_five_round_trips_bounds_a_claim() {
        let mut l = SeatLags::default();
        assert_eq!(l.allowed(Side::South), LAG_JITTER_MS, "nothing measured");
        for rtt in [300, 20, 30, 40, 50] {
            l.note(Side::South, rtt);
        }
        assert_eq!(l.allowed(Side::South), 300 + LAG_JITTER_MS);
        assert_eq!(l.allowed(Side::North), LAG_JITTER_MS, "each seat its own");
        l.note(Side::South, 60);
        assert_eq!(
            l.allowed(Side::South),
            60 + LAG_JITTER_MS,
            "the 300 ms went out"
        );
        l.note(Side::South, -5);
        assert_eq!(l.allowed(Side::South), 60 + LAG_JITTER_MS);
    }
}
