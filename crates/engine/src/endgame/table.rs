//! A database of every position with one number of seeds in play, held in memory or read
//! through a memory map (of a compact file, or of a plain file too large to load: 16 and 20
//! seeds), and its raw entries by index or by position.

use std::borrow::Cow;
use std::path::Path;

use anywoli_core::{Position, Rules, Side};

use memmap2::{Mmap, UncheckedAdvice};

/// Blocks of a mapped plain file a compaction reads before it lets their pages go (16 MB).
const RELEASE: usize = 1024;

use super::bounds;
use super::compact::{self, Compact, BLOCK};
use super::entry::{Entry, Verdict, INVALID};
use super::error::{CompactError, EndgameError};
use super::index::{position_of, positions, rank, turned, unrank, HOLES, MAX_SEEDS};

/// A database of every position with one number of seeds in play.
pub struct Table {
    seeds: u8,
    store: Store,
}

/// Where a table's entries are: in memory (built, or loaded from `.awtb`), in a compact file
/// read through a memory map (`.awtbz`, [`compact`]), or in a plain file read through one
/// (its entries from byte `at` on).
enum Store {
    Plain(Vec<Entry>),
    Compact(Compact),
    Mapped { map: Mmap, at: usize },
}

/// The entry of a damaged compact block: the table's own "not a position", which no probe
/// answers for.
pub(super) fn damaged_entry(seeds: u8) -> Entry {
    match bounds::margins(seeds) {
        Some(_) => bounds::invalid(seeds),
        None => INVALID,
    }
}

impl Table {
    /// A table of entries already checked to be one per position (a build's, a file's).
    pub(super) fn in_memory(seeds: u8, data: Vec<Entry>) -> Table {
        Table {
            seeds,
            store: Store::Plain(data),
        }
    }

    /// A table read through the map of a plain file whose header and size were checked, its
    /// entries from byte `at` on.
    pub(super) fn mapped(seeds: u8, map: Mmap, at: usize) -> Table {
        Table {
            seeds,
            store: Store::Mapped { map, at },
        }
    }

    /// Seeds in play in the table's positions.
    pub fn seeds(&self) -> u8 {
        self.seeds
    }

    /// A table from its entries (for tests and tools: `verify` says whether it is right).
    pub fn from_entries(seeds: u8, data: Vec<Entry>) -> Result<Table, EndgameError> {
        if seeds as usize > MAX_SEEDS || data.len() as u64 != positions(seeds) {
            return Err(EndgameError::Entries {
                seeds,
                count: data.len(),
            });
        }
        Ok(Table::in_memory(seeds, data))
    }

    /// Entries: one per position, valid or not.
    pub fn len(&self) -> usize {
        match &self.store {
            Store::Plain(d) => d.len(),
            Store::Compact(c) => c.len() as usize,
            Store::Mapped { .. } => positions(self.seeds) as usize,
        }
    }

    /// Whether the table has no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the entries are read from a compact file rather than held in memory.
    pub fn is_compact(&self) -> bool {
        matches!(self.store, Store::Compact(_))
    }

    /// Whether the entries are read through a memory map (of a compact or a plain file).
    pub fn is_mapped(&self) -> bool {
        !matches!(self.store, Store::Plain(_))
    }

    /// The raw entry of a distribution with South to move.
    #[inline]
    pub fn entry_south(&self, holes: &[u8; HOLES]) -> Entry {
        self.entry_at(rank(holes, self.seeds))
    }

    #[inline]
    /// The raw entry at index `idx` (of [`rank`], below [`Table::len`]), South to move.
    pub fn entry_at(&self, idx: u64) -> Entry {
        match &self.store {
            Store::Plain(d) => d[idx as usize],
            Store::Compact(c) => c.entry_at(idx),
            Store::Mapped { map, at } => {
                let i = at + 2 * idx as usize;
                u16::from_le_bytes([map[i], map[i + 1]])
            }
        }
    }

    /// The entry of index `idx`, or why it cannot be read (a damaged compact block).
    pub fn try_entry_at(&self, idx: u64) -> Result<Entry, CompactError> {
        match &self.store {
            Store::Compact(c) => c.try_entry_at(idx),
            _ => Ok(self.entry_at(idx)),
        }
    }

    /// Every entry, in memory (a compact table is decompressed whole and checked).
    pub fn entries(&self) -> Result<Cow<'_, [Entry]>, CompactError> {
        match &self.store {
            Store::Plain(d) => Ok(Cow::Borrowed(d)),
            Store::Compact(c) => c.entries().map(Cow::Owned),
            Store::Mapped { map, at } => Ok(Cow::Owned(
                map[*at..]
                    .chunks_exact(2)
                    .map(|b| u16::from_le_bytes([b[0], b[1]]))
                    .collect(),
            )),
        }
    }

    /// Appends the entries of compact block `b` (of [`BLOCK`] entries) to `out`.
    pub fn fill_block(&self, b: usize, out: &mut Vec<Entry>) -> Result<(), CompactError> {
        let lo = (b * BLOCK) as u64;
        let hi = (lo + BLOCK as u64).min(self.len() as u64);
        match &self.store {
            Store::Plain(d) => out.extend_from_slice(&d[lo as usize..hi as usize]),
            Store::Compact(c) => c.fill_block(b, out)?,
            Store::Mapped { .. } => out.extend((lo..hi).map(|i| self.entry_at(i))),
        }
        Ok(())
    }

    /// The compact file name of a table: `anywoli-12.awtbz`.
    pub fn compact_file_name(seeds: u8) -> String {
        format!("anywoli-{seeds}.awtbz")
    }

    /// Writes the table's compact file ([`compact`]), compressing on `threads` threads, a
    /// batch of blocks at a time (a mapped table is never read whole); returns its size in
    /// bytes.
    pub fn save_compact(&self, path: &Path, threads: usize) -> Result<u64, CompactError> {
        let fill = |b: usize, out: &mut Vec<Entry>| {
            self.fill_block(b, out)?;
            self.release(b);
            Ok(())
        };
        compact::write_from(path, self.seeds, self.len() as u64, threads, &fill)
    }

    /// The checksum of the entries the file's header gives, for a table read through a map
    /// (whose entries were not checked when it was opened); `None` for a table in memory,
    /// checked when it was loaded.
    pub fn stored_checksum(&self) -> Option<u64> {
        match &self.store {
            Store::Plain(_) => None,
            Store::Compact(c) => Some(c.checksum()),
            Store::Mapped { map, .. } => {
                Some(u64::from_le_bytes(map[24..32].try_into().expect("8 bytes")))
            }
        }
    }

    /// Once block `b` ends a run of 1,024 blocks (16 MB) read through a plain file's map, lets
    /// the kernel drop the run's pages from this process: a reader of the whole file (a
    /// compaction, a comparison) reads it once, and without this its resident size grows to
    /// the file's (75 GB at 16 seeds).
    pub fn release(&self, b: usize) {
        let Store::Mapped { map, at } = &self.store else {
            return;
        };
        if (b + 1).is_multiple_of(RELEASE) {
            // The run before this one again: a read maps the pages around it too (the kernel's
            // fault-around), some of them in the run released last time.
            let first = (b + 1).saturating_sub(2 * RELEASE);
            let lo = at + 2 * BLOCK * first;
            // Safety: the map is of a file, read only: dropped pages are read again from the
            // file if touched, with the same bytes, and no slice of the map outlives a read.
            let _ = unsafe {
                map.unchecked_advise_range(
                    UncheckedAdvice::DontNeed,
                    lo,
                    2 * BLOCK * (b + 1 - first),
                )
            };
        }
    }

    /// Maps a compact file: its header and block index are checked now, each block when a
    /// probe first decompresses it (zstd's checksum; a damaged block answers nothing, said
    /// once on stderr). [`Table::load`] reads one whole and checks every block.
    pub fn open_compact(path: &Path) -> Result<Table, CompactError> {
        let c = Compact::open(path, damaged_entry)?;
        Ok(Table {
            seeds: c.seeds(),
            store: Store::Compact(c),
        })
    }

    /// The raw entry of a position, from its side to move's point of view; `None` when the
    /// position does not have this table's seeds in play or the game is over.
    #[inline]
    pub fn entry(&self, pos: &Position) -> Option<Entry> {
        let me = pos.to_move()?;
        if pos.seeds_in_play() != self.seeds {
            return None;
        }
        Some(match me {
            Side::South => self.entry_south(pos.holes()),
            Side::North => self.entry_south(&turned(pos.holes())),
        })
    }

    /// Who can force the next capture and in how many plies, ignoring the quiet counter.
    pub fn verdict(&self, pos: &Position) -> Option<(Verdict, u16)> {
        Verdict::of(self.entry(pos)?)
    }

    /// The file name of a table: `anywoli-8.awtb`. One 8-seed table serves `anywoli`,
    /// `anywoli-first-final` and `anywoli-lottery` (see the module documentation).
    pub fn file_name(seeds: u8) -> String {
        format!("anywoli-{seeds}.awtb")
    }

    /// The position of an index with South to move (stores split evenly, counters at 0).
    pub fn position_at(&self, idx: u64, rules: Rules) -> Option<Position> {
        position_of(&unrank(idx, self.seeds), self.seeds, rules, None)
    }
}
