//! The 12-seed database's entry: the margins the side to move can force at least and at most,
//! and the plies to the capture that proves it, in 16 bits. The builder (`build12`) writes it,
//! the prober (`probe`) reads it; both import it from here, below them.

/// Margins of the 12-seed game for the side to move, lowest first: the classes of an entry.
pub const MARGINS12: [i32; 4] = [-12, -4, 4, 12];
/// The 12-seed entry of a position that is not one (the side to move has no seeds): a lower
/// bound above the upper one, which no real entry has.
pub const INVALID12: u16 = 0xc000;

/// A 12-seed entry: the margin the side to move can force at least (`lower`) and at most
/// (`upper`, the opponent forcing no more), as indices of [`MARGINS12`], and the plies to the
/// capture that proves the further of the two (0 when neither bound is forced).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry12 {
    /// The lowest margin the side to move can force, an index of [`MARGINS12`].
    pub lower: u8,
    /// The highest margin the opponent lets it have, an index of [`MARGINS12`], at least `lower`.
    pub upper: u8,
    /// Plies to the proving capture, at most 4095.
    pub dtc: u16,
}

impl Entry12 {
    /// The 16 bits: `lower` in bits 14–15, `upper` in 12–13, `dtc` (capped at 4095) in 0–11.
    pub fn encode(self) -> u16 {
        (self.lower as u16) << 14 | (self.upper as u16) << 12 | self.dtc.min(0xfff)
    }

    /// `None` for [`INVALID12`].
    pub fn decode(e: u16) -> Option<Entry12> {
        let x = Entry12 {
            lower: (e >> 14) as u8,
            upper: (e >> 12 & 3) as u8,
            dtc: e & 0xfff,
        };
        (x.lower <= x.upper).then_some(x)
    }

    /// The margin, when both bounds meet.
    pub fn exact(self) -> Option<i32> {
        (self.lower == self.upper).then(|| MARGINS12[self.lower as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_of_12_round_trip() {
        for lower in 0..4u8 {
            for upper in lower..4u8 {
                for dtc in [0u16, 1, 99, 4095] {
                    let e = Entry12 { lower, upper, dtc };
                    assert_eq!(Entry12::decode(e.encode()), Some(e));
                }
            }
        }
        assert_eq!(Entry12::decode(INVALID12), None);
        let e = Entry12 {
            lower: 2,
            upper: 2,
            dtc: 7,
        };
        assert_eq!(e.exact(), Some(4));
    }
}
