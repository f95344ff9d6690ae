//! The transposition table, shared by every search thread without locks: each entry is one
//! 64-bit word holding the key's upper half beside the data, written and read whole, so no
//! writer can tear it. Eight entries make a bucket of one cache line.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use anywoli_core::{Hole, Move};

/// What a stored score says of the position's value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Bound {
    /// The value itself.
    Exact = 0,
    /// At least the score (the search failed high).
    Lower = 1,
    /// At most the score (the search failed low).
    Upper = 2,
}

/// What the table keeps of one searched position.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    /// In centiseeds of future net gain for the side to move (the search's unit); kept in 16
    /// bits.
    pub score: i32,
    /// The depth searched, in plies (at most 127).
    pub depth: u8,
    /// How `score` bounds the value.
    pub bound: Bound,
    /// The best move found, if any.
    pub mv: Option<Move>,
}

/// A fixed-size table of searched positions, shared by the threads of a search.
pub struct Table {
    /// The buckets' memory: an anonymous map, so that it can be asked for huge pages.
    map: memmap2::MmapMut,
    mask: usize,
    /// Which search this is, modulo [`GENERATIONS`]: an entry from an earlier search is the
    /// first to give way.
    generation: AtomicU64,
}

/// Entries a bucket: one 64-byte cache line of 8-byte entries, so a probe costs one miss.
const WAYS: usize = 8;
const BUCKET_BYTES: usize = WAYS * 8;
/// How many searches an entry's age tells apart (2 bits).
const GENERATIONS: u64 = 4;

// An entry is one `u64`, written and read whole, so two threads cannot tear it:
// bits 0–15 score, 16–22 depth, 23–24 bound, 25–29 move (0: none, else hole + 1, North's holes
// up to 24), 30–31 generation, 32–63 the key's upper half (the bucket index is its lower bits).
const DEPTH_MAX: u8 = 127;

impl Table {
    /// A table of about `mib` MiB (rounded down to a power of two of 64-byte buckets of
    /// eight entries; at least 1 MiB).
    pub fn new(mib: usize) -> Table {
        let bytes = mib.clamp(1, 1 << 16) << 20;
        let buckets = bytes / BUCKET_BYTES;
        // The largest power of two that fits: the index is a mask of the key.
        let n = if buckets.is_power_of_two() {
            buckets
        } else {
            buckets.next_power_of_two() / 2
        };
        let n = n.max(1024);
        // Page-aligned, so every bucket is one cache line.
        let map = memmap2::MmapMut::map_anon(n * BUCKET_BYTES).expect("memory for the table");
        // Every probe lands on a random bucket: with 4 KiB pages each is a TLB miss as well
        // as a cache miss. Huge pages (where the kernel grants them) take the first away.
        #[cfg(target_os = "linux")]
        let _ = map.advise(memmap2::Advice::HugePage);
        let table = Table {
            map,
            mask: n - 1,
            generation: AtomicU64::new(0),
        };
        // The allocator hands out zeroed pages lazily, and a search that touches them pays
        // the kernel's page faults inside its time limit (measured: a fresh 64 MiB table made
        // depth 12 from the start take 210 ms instead of 109 ms). Writing every entry once
        // here moves that cost to the table's creation.
        table.clear();
        table
    }

    #[inline]
    fn buckets(&self) -> &[[AtomicU64; WAYS]] {
        // SAFETY: the map is page-aligned and 64 × (mask + 1) bytes long, zeroed by the
        // kernel (a valid AtomicU64 is any bit pattern), and lives as long as `self`; every
        // access after this is atomic.
        unsafe {
            std::slice::from_raw_parts(self.map.as_ptr() as *const [AtomicU64; WAYS], self.mask + 1)
        }
    }

    #[inline]
    fn bucket(&self, key: u64) -> &[AtomicU64; WAYS] {
        &self.buckets()[key as usize & self.mask]
    }

    /// Empties every bucket and restarts the generations.
    pub fn clear(&self) {
        for b in self.buckets() {
            for e in b {
                e.store(0, Relaxed);
            }
        }
        self.generation.store(0, Relaxed);
    }

    /// The table's size in MiB.
    pub fn size_mib(&self) -> usize {
        (self.buckets().len() * BUCKET_BYTES) >> 20
    }

    /// Marks the start of a new search: what earlier ones stored stays usable, but is
    /// replaced before this search's entries are.
    pub fn new_search(&self) {
        self.generation.fetch_add(1, Relaxed);
    }

    #[inline]
    fn now(&self) -> u64 {
        self.generation.load(Relaxed) % GENERATIONS
    }

    #[inline]
    fn pack(key: u64, e: &Entry, generation: u64) -> u64 {
        let mv = e.mv.map_or(0u64, |m| m.hole().index() as u64 + 1);
        (e.score as i16 as u16 as u64)
            | (e.depth.min(DEPTH_MAX) as u64) << 16
            | (e.bound as u64) << 23
            | mv << 25
            | generation << 30
            | key & 0xffff_ffff_0000_0000
    }

    #[inline]
    fn depth_of(data: u64) -> u8 {
        (data >> 16) as u8 & DEPTH_MAX
    }

    #[inline]
    fn age(&self, data: u64) -> u64 {
        (self.now() + GENERATIONS - ((data >> 30) & (GENERATIONS - 1))) % GENERATIONS
    }

    /// Asks the processor to bring `key`'s bucket into the cache, so that the probe made when
    /// the search reaches that position does not wait for memory. The search spends a third
    /// of its time in that wait without it (a random bucket of a 64 MiB table is a cache
    /// miss): it calls this for every child as soon as the child is played, well before its
    /// probe.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let p = self.bucket(key).as_ptr() as *const i8;
            // SAFETY: a prefetch only hints the cache; `p` points into the table's map, and
            // even an invalid address could not fault.
            unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    #[inline]
    /// The entry stored for `key`, if any still is.
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let check = key & 0xffff_ffff_0000_0000;
        let data = self
            .bucket(key)
            .iter()
            .map(|e| e.load(Relaxed))
            .find(|&d| d & 0xffff_ffff_0000_0000 == check && d != 0)?;
        let mv = (data >> 25) as u8 & 31;
        Some(Entry {
            score: data as u16 as i16 as i32,
            depth: Self::depth_of(data),
            bound: match (data >> 23) as u8 & 3 {
                0 => Bound::Exact,
                1 => Bound::Lower,
                _ => Bound::Upper,
            },
            mv: if mv == 0 {
                None
            } else {
                Hole::new(mv - 1).map(Move::new)
            },
        })
    }

    /// Stores an entry. The position's own entry is replaced, unless it is deeper, from this
    /// search, and the new one is not exact; otherwise the bucket's emptiest entry gives way:
    /// an empty one, else the shallowest, an entry two searches old counting as 16 plies
    /// shallower (three searches old at most: the age has two bits).
    #[inline]
    pub fn store(&self, key: u64, e: Entry) {
        let check = key & 0xffff_ffff_0000_0000;
        let bucket = self.bucket(key);
        let mut victim = &bucket[0];
        let mut worth = i32::MAX;
        for slot in bucket {
            let old = slot.load(Relaxed);
            if old & 0xffff_ffff_0000_0000 == check && old != 0 {
                if Self::depth_of(old) > e.depth && e.bound != Bound::Exact && self.age(old) == 0 {
                    return;
                }
                victim = slot;
                break;
            }
            let w = if old == 0 {
                i32::MIN
            } else {
                Self::depth_of(old) as i32 - 8 * self.age(old) as i32
            };
            if w < worth {
                worth = w;
                victim = slot;
            }
        }
        victim.store(Self::pack(key, &e, self.now()), Relaxed);
    }
}
