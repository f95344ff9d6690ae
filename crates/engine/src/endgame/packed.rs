//! The packed words of a retrograde analysis by thresholds ([`super::retro`]): one field a
//! threshold, a 2-bit state and a count-or-distance, packed into as few 16-bit cells a
//! position as they fit. Up to 3 thresholds (the 12-seed layer) a field is 10 bits and a word
//! at most 32 (4 bytes a position, distances to 255); 4 and 5 thresholds (the 16- and 20-seed
//! layers, whose captures lead to five and six margins) take 12-bit fields, so distances to
//! 1,023, in 3 and 4 cells (6 and 8 bytes a position). The cells are kept as 16-bit halves so
//! that [`Solved::into_entries`] can turn the words into 16-bit entries in place.

use super::entry::{INVALID, LOSS_BIT, STUCK, UNFORCED};

/// A position's fields, read out of its cells (the lowest cell in the lowest bits).
pub type Word = u64;

/// A field is open (its byte counts the moves not yet known to lose), ...
pub(super) const OPEN: u32 = 0;
/// ... won or lost (its byte is the distance), ...
pub(super) const WON: u32 = 1;
pub(super) const LOST: u32 = 2;
/// ... or special (its byte says not a position, or stuck).
pub(super) const SPECIAL: u32 = 3;
pub(super) const SPECIAL_INVALID: u32 = 0;
pub(super) const SPECIAL_STUCK: u32 = 1;
/// Most thresholds a word holds: the 20-seed layer's five.
pub const MAX_THRESHOLDS: usize = 5;

/// How the fields of `k` thresholds are packed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packing {
    /// Thresholds a position.
    pub k: usize,
    /// Bits a field: the state's 2 and the byte's.
    pub bits: u32,
    /// 16-bit cells a position.
    pub cells: usize,
}

impl Packing {
    /// The packing of `k` thresholds (1 to [`MAX_THRESHOLDS`]).
    pub const fn of(k: usize) -> Packing {
        let bits = if k <= 3 { 10 } else { 12 };
        Packing {
            k,
            bits,
            cells: (k * bits as usize).div_ceil(16),
        }
    }

    /// The longest distance a field holds (the longest 12-seed proof is 237 plies).
    pub const fn max_dtc(self) -> u32 {
        (1 << (self.bits - 2)) - 1
    }

    /// Field `j` of word `w`: its state and its byte.
    #[inline]
    pub fn field(self, w: Word, j: usize) -> (u32, u32) {
        let f = (w >> (self.bits as usize * j)) as u32 & ((1 << self.bits) - 1);
        (f >> (self.bits - 2), f & ((1 << (self.bits - 2)) - 1))
    }

    /// Word `w` with field `j` set.
    #[inline]
    pub fn with_field(self, w: Word, j: usize, state: u32, byte: u32) -> Word {
        let shift = self.bits as usize * j;
        let mask: Word = (1 << self.bits) - 1;
        w & !(mask << shift) | ((state << (self.bits - 2) | byte) as Word) << shift
    }

    /// Which thresholds of word `w` were settled at `dist`: a mask, 0 when none.
    #[inline]
    pub fn settled_at(self, w: Word, dist: u32) -> u32 {
        (0..self.k)
            .filter(|&j| matches!(self.field(w, j), (WON | LOST, b) if b == dist))
            .fold(0, |m, j| m | 1 << j)
    }

    /// Which thresholds of word `w` are won: a mask.
    #[inline]
    pub fn won_mask(self, w: Word) -> u32 {
        (0..self.k)
            .filter(|&j| self.field(w, j).0 == WON)
            .fold(0, |m, j| m | 1 << j)
    }

    /// How many fields of `w` are won or lost.
    #[inline]
    pub fn decided(self, w: Word) -> u64 {
        (0..self.k)
            .filter(|&j| matches!(self.field(w, j).0, WON | LOST))
            .count() as u64
    }

    /// The word of position `i` in `cells`.
    #[inline]
    pub fn read(self, cells: &[u16], i: usize) -> Word {
        let at = i * self.cells;
        cells[at..at + self.cells]
            .iter()
            .rev()
            .fold(0, |w, &c| w << 16 | c as Word)
    }

    /// Stores the word of position `i` in `cells`.
    #[inline]
    pub fn write(self, cells: &mut [u16], i: usize, w: Word) {
        let at = i * self.cells;
        for (j, c) in cells[at..at + self.cells].iter_mut().enumerate() {
            *c = (w >> (16 * j)) as u16;
        }
    }

    /// A field in the 8-seed table's encoding.
    fn old_encoding(self, (state, byte): (u32, u32)) -> u16 {
        match state {
            OPEN => UNFORCED,
            WON => byte as u16,
            LOST => LOSS_BIT | byte as u16,
            _ if byte == SPECIAL_STUCK => STUCK,
            _ => INVALID,
        }
    }
}

/// The per-threshold fields of every position (of a layer, or of a rank's slice of it).
pub struct Solved {
    /// Thresholds per position, 1 to [`MAX_THRESHOLDS`].
    pub thresholds: usize,
    pub(super) pack: Packing,
    pub(super) cells: Vec<u16>,
}

impl Solved {
    /// The analysis of `positions` positions before anything is known of them.
    pub(super) fn blank(thresholds: usize, positions: usize) -> Solved {
        let pack = Packing::of(thresholds);
        Solved {
            thresholds,
            pack,
            cells: vec![0u16; pack.cells * positions],
        }
    }

    /// How the words are packed.
    pub fn packing(&self) -> Packing {
        self.pack
    }

    #[inline]
    pub(super) fn word(&self, i: usize) -> Word {
        self.pack.read(&self.cells, i)
    }

    #[inline]
    pub(super) fn set_word(&mut self, i: usize, w: Word) {
        self.pack.write(&mut self.cells, i, w)
    }

    /// The words of `thresholds` thresholds (1 to [`MAX_THRESHOLDS`]) packed in `cells`, or
    /// `None` when the cells are not whole words (a checkpoint's reader and its fuzz target).
    pub fn from_cells(thresholds: usize, cells: Vec<u16>) -> Option<Solved> {
        if !(1..=MAX_THRESHOLDS).contains(&thresholds) {
            return None;
        }
        let pack = Packing::of(thresholds);
        cells.len().is_multiple_of(pack.cells).then_some(Solved {
            thresholds,
            pack,
            cells,
        })
    }

    /// The cells, `packing().cells` a position (what a checkpoint saves).
    pub fn cells(&self) -> &[u16] {
        &self.cells
    }

    /// The cells, to be filled (what a checkpoint restores).
    pub(super) fn cells_mut(&mut self) -> &mut [u16] {
        &mut self.cells
    }

    /// Positions analysed: one per index, valid or not.
    pub fn positions(&self) -> usize {
        self.cells.len() / self.pack.cells
    }

    /// The entry of position `idx` at threshold `k`, in the 8-seed table's encoding: 0
    /// neither, `d` won in `d`, `LOSS_BIT | d` lost in `d`, [`INVALID`], [`STUCK`].
    pub fn status(&self, idx: usize, k: usize) -> u16 {
        self.pack.old_encoding(self.pack.field(self.word(idx), k))
    }

    /// One 16-bit entry per position, made by `f` from the position's per-threshold entries
    /// (in [`Solved::status`]'s encoding), written over the packed words as they are read: the
    /// entry of position `i` goes to cell `i`, part of a word already read, so the table needs
    /// no memory beside the words.
    pub fn into_entries(mut self, f: impl Fn(&[u16]) -> u16) -> Vec<u16> {
        let n = self.positions();
        let pack = self.pack;
        for i in 0..n {
            let w = self.word(i);
            let mut st = [0u16; MAX_THRESHOLDS];
            for (j, s) in st[..pack.k].iter_mut().enumerate() {
                *s = pack.old_encoding(pack.field(w, j));
            }
            self.cells[i] = f(&st[..pack.k]);
        }
        self.cells.truncate(n);
        self.cells.shrink_to_fit();
        self.cells
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packings_fit_their_cells() {
        let sizes: Vec<_> = (1..=MAX_THRESHOLDS)
            .map(|k| {
                let p = Packing::of(k);
                (p.bits, p.cells, p.max_dtc())
            })
            .collect();
        assert_eq!(
            sizes,
            [
                (10, 1, 255),
                (10, 2, 255),
                (10, 2, 255),
                (12, 3, 1023),
                (12, 4, 1023)
            ]
        );
    }

    #[test]
    fn fields_are_independent() {
        for k in 1..=MAX_THRESHOLDS {
            let p = Packing::of(k);
            let mut cells = vec![0u16; 3 * p.cells];
            let mut w = 0;
            // Every field its own state and byte, the largest the packing holds.
            for j in 0..k {
                let byte = p.max_dtc() - j as u32;
                w = p.with_field(w, j, (j % 4) as u32, byte);
            }
            p.write(&mut cells, 1, w);
            assert_eq!(p.read(&cells, 0), 0, "k = {k}: the neighbour below");
            assert_eq!(p.read(&cells, 2), 0, "k = {k}: the neighbour above");
            let r = p.read(&cells, 1);
            for j in 0..k {
                assert_eq!(p.field(r, j), ((j % 4) as u32, p.max_dtc() - j as u32));
            }
            // Setting one field leaves the others.
            let r2 = p.with_field(r, k - 1, WON, 7);
            for j in 0..k - 1 {
                assert_eq!(p.field(r2, j), p.field(r, j));
            }
            assert_eq!(p.field(r2, k - 1), (WON, 7));
            assert_eq!(p.won_mask(r2) >> (k - 1), 1);
            assert_eq!(p.settled_at(r2, 7) >> (k - 1), 1);
        }
    }
}
