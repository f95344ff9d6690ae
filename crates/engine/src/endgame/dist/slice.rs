//! Who owns which positions: the index range cut into equal contiguous slices, one a rank (the
//! last may be shorter). Contiguous slices keep the output a concatenation and make the owner
//! of a predecessor one division.

/// The slices of `positions` positions over `ranks` ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slices {
    positions: u64,
    ranks: usize,
    step: u64,
}

impl Slices {
    /// Cuts `positions` into `ranks` slices.
    pub fn new(positions: u64, ranks: usize) -> Slices {
        let ranks = ranks.max(1);
        Slices {
            positions,
            ranks,
            step: positions.div_ceil(ranks as u64).max(1),
        }
    }

    /// The first position of `rank`'s slice.
    pub fn lo(&self, rank: usize) -> u64 {
        (rank as u64 * self.step).min(self.positions)
    }

    /// One past the last position of `rank`'s slice.
    pub fn hi(&self, rank: usize) -> u64 {
        ((rank as u64 + 1) * self.step).min(self.positions)
    }

    /// Positions in `rank`'s slice.
    pub fn len(&self, rank: usize) -> u64 {
        self.hi(rank) - self.lo(rank)
    }

    /// Whether there are no positions at all.
    pub fn is_empty(&self) -> bool {
        self.positions == 0
    }

    /// The rank that owns position `idx`.
    #[inline]
    pub fn owner(&self, idx: u64) -> usize {
        (idx / self.step) as usize
    }

    /// How many ranks.
    pub fn ranks(&self) -> usize {
        self.ranks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_cover_the_range_once_and_owners_agree() {
        for (n, ranks) in [
            (7_888_725u64, 1),
            (7_888_725, 2),
            (7_888_725, 3),
            (10, 4),
            (3, 5),
        ] {
            let s = Slices::new(n, ranks);
            assert_eq!(s.lo(0), 0);
            assert_eq!(s.hi(ranks - 1), n);
            for r in 1..ranks {
                assert_eq!(s.hi(r - 1), s.lo(r));
            }
            assert_eq!((0..ranks).map(|r| s.len(r)).sum::<u64>(), n);
            for idx in [0, n / 3, n / 2, n - 1] {
                let r = s.owner(idx);
                assert!(s.lo(r) <= idx && idx < s.hi(r), "{n} {ranks} {idx}");
            }
        }
    }
}
