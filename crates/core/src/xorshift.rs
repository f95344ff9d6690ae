//! A small deterministic generator (Marsaglia's xorshift64) for reproducible samples: random
//! lines of play in tests and benchmarks, sampled database entries, generated puzzles.
//!
//! It lives beside the rules because every layer samples positions the same way, and a sample
//! must be the same on every machine and in every release. It is not for anything a stranger
//! could bet on (game seeds of the lottery variant come from [`crate::lottery_draw`]).

/// The generator's state; never 0 (xorshift maps 0 to 0 forever).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XorShift(u64);

impl XorShift {
    /// A generator from `seed`; a seed of 0, which would stay 0, is taken as 1.
    pub const fn new(seed: u64) -> XorShift {
        XorShift(if seed == 0 { 1 } else { seed })
    }

    /// The next number: the state after one 13-7-17 step.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// The next number modulo `n` (`n` > 0): an index into `n` things.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_sequence_and_no_zero_state() {
        // The first outputs from 1, worked by hand from the three shifts.
        let mut r = XorShift::new(1);
        assert_eq!(r.next(), 0x0000_0000_4082_2041);
        assert_eq!(XorShift::new(0), XorShift::new(1));
        let mut z = XorShift::new(0x9e37_79b9_7f4a_7c15);
        for _ in 0..10_000 {
            assert_ne!(z.next(), 0);
        }
        assert!((0..1000).all(|_| r.below(7) < 7));
    }
}
