//! The entry of a layer decided by margins (12, 16 and 20 seeds in play): the margin the side
//! to move can force at least and at most, as classes of the layer's margins, and the plies to
//! the capture that proves it, in 16 bits. 12 seeds have four margins and keep
//! [`Entry12`]'s layout (2 + 2 bits of class, 12 of distance); 16 and 20 seeds have five and six,
//! so 3 + 3 bits of class and 10 of distance (to 1,023 plies: the packed words of their build
//! hold no longer ones).

use super::entry12::{Entry12, INVALID12, MARGINS12};

/// The 16-seed layer's margins for the side to move, lowest first.
pub const MARGINS16: [i32; 5] = [-16, -8, 0, 8, 16];
/// The 20-seed layer's.
pub const MARGINS20: [i32; 6] = [-20, -12, -4, 4, 12, 20];
/// The entry of a 16- or 20-seed index that is not a position (the side to move has no
/// seeds): a lower class above the upper one, which no real entry has.
pub const INVALID_WIDE: u16 = 0xe000;
/// The longest distance a 16- or 20-seed entry holds.
pub const MAX_WIDE_DTC: u16 = 0x3ff;

/// The margins of a layer decided by margins, or `None` for another number of seeds.
pub fn margins(seeds: u8) -> Option<&'static [i32]> {
    match seeds {
        12 => Some(&MARGINS12),
        16 => Some(&MARGINS16),
        20 => Some(&MARGINS20),
        _ => None,
    }
}

/// The entry of a layer that is not a position.
pub fn invalid(seeds: u8) -> u16 {
    if seeds == 12 {
        INVALID12
    } else {
        INVALID_WIDE
    }
}

/// What a margin layer's entry says: the classes (indices of [`margins`]) of the lowest margin
/// the side to move can force and of the highest the opponent lets it have, and the plies to
/// the capture that proves the further of the two (0 when neither bound is forced).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// The lowest margin the side to move can force, a class.
    pub lower: u8,
    /// The highest margin the opponent lets it have, a class, at least `lower`.
    pub upper: u8,
    /// Plies to the proving capture.
    pub dtc: u16,
}

impl Bounds {
    /// The 16 bits of the `seeds`-seed layer's entry (the distance capped at what it holds).
    pub fn encode(self, seeds: u8) -> u16 {
        if seeds == 12 {
            let e = Entry12 {
                lower: self.lower,
                upper: self.upper,
                dtc: self.dtc,
            };
            return e.encode();
        }
        (self.lower as u16) << 13 | (self.upper as u16) << 10 | self.dtc.min(MAX_WIDE_DTC)
    }

    /// The bounds of a `seeds`-seed entry; `None` when it is not a position (or not an entry
    /// of that layer: a class past its margins).
    pub fn decode(seeds: u8, e: u16) -> Option<Bounds> {
        let classes = margins(seeds)?.len() as u8;
        let b = if seeds == 12 {
            let x = Entry12::decode(e)?;
            Bounds {
                lower: x.lower,
                upper: x.upper,
                dtc: x.dtc,
            }
        } else {
            Bounds {
                lower: (e >> 13) as u8,
                upper: (e >> 10 & 7) as u8,
                dtc: e & MAX_WIDE_DTC,
            }
        };
        (b.lower <= b.upper && b.upper < classes).then_some(b)
    }

    /// The entry of a position from its per-threshold entries (in the 8-seed encoding; the
    /// thresholds are the layer's margins but the lowest): won at threshold `i`, at least
    /// margin `i + 1`; lost, at most margin `i`. The distance is the further proof's.
    pub fn of_thresholds(st: &[u16]) -> Bounds {
        use super::entry::{LOSS_BIT, STUCK, UNFORCED};
        let mut b = Bounds {
            lower: 0,
            upper: st.len() as u8,
            dtc: 0,
        };
        let (mut dl, mut du) = (0u16, 0u16);
        for (i, &s) in st.iter().enumerate() {
            if s == UNFORCED || s == STUCK {
                continue;
            }
            let d = s & !LOSS_BIT;
            if s & LOSS_BIT == 0 {
                if i as u8 + 1 > b.lower {
                    b.lower = i as u8 + 1;
                    dl = d;
                }
            } else if (i as u8) < b.upper {
                b.upper = i as u8;
                du = d;
            }
        }
        b.dtc = dl.max(du);
        b
    }
}

/// The entry of a `seeds`-seed position from its per-threshold entries: [`invalid`] when it is
/// not a position.
pub fn entry_of(seeds: u8, st: &[u16]) -> u16 {
    if st[0] == super::entry::INVALID {
        return invalid(seeds);
    }
    Bounds::of_thresholds(st).encode(seeds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endgame::entry::{INVALID, LOSS_BIT, UNFORCED};

    #[test]
    fn wide_entries_round_trip() {
        for seeds in [12u8, 16, 20] {
            let classes = margins(seeds).unwrap().len() as u8;
            let max = if seeds == 12 { 4095 } else { MAX_WIDE_DTC };
            for lower in 0..classes {
                for upper in lower..classes {
                    for dtc in [0u16, 1, 237, max] {
                        let b = Bounds { lower, upper, dtc };
                        assert_eq!(Bounds::decode(seeds, b.encode(seeds)), Some(b));
                    }
                }
            }
            assert_eq!(Bounds::decode(seeds, invalid(seeds)), None);
        }
        // A 16-seed entry never names the 20-seed layer's sixth class.
        let sixth = Bounds {
            lower: 5,
            upper: 5,
            dtc: 3,
        };
        assert_eq!(Bounds::decode(16, sixth.encode(20)), None);
        assert_eq!(Bounds::decode(20, sixth.encode(20)), Some(sixth));
    }

    #[test]
    fn thresholds_make_bounds() {
        // 16 seeds, thresholds -8, 0, +8, +16: won at 0 in 5 plies, lost at +16 in 9, the
        // rest open: at least 0 (class 2), at most +8 (class 3), proven in 9.
        let st = [3, 5, UNFORCED, LOSS_BIT | 9];
        let b = Bounds::of_thresholds(&st);
        assert_eq!(
            b,
            Bounds {
                lower: 2,
                upper: 3,
                dtc: 9
            }
        );
        assert_eq!(MARGINS16[b.lower as usize], 0);
        assert_eq!(MARGINS16[b.upper as usize], 8);
        // Nothing forced: every margin is possible.
        let open = Bounds::of_thresholds(&[UNFORCED; 5]);
        assert_eq!((open.lower, open.upper, open.dtc), (0, 5, 0));
        assert_eq!(entry_of(20, &[INVALID; 5]), INVALID_WIDE);
        // The 12-seed entry is the one build12 always wrote.
        let e = entry_of(12, &[2, UNFORCED, LOSS_BIT | 4]);
        assert_eq!(
            Entry12::decode(e),
            Some(Entry12 {
                lower: 1,
                upper: 2,
                dtc: 4
            })
        );
    }
}
