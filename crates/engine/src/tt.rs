//! The transposition table, shared by every search thread without locks: each slot stores
//! `key ^ data` beside `data`, so a slot torn by two writers fails the key check and is ignored.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use anywoli_core::{Hole, Move};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Bound {
    Exact = 0,
    Lower = 1,
    Upper = 2,
}

#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub score: i32,
    pub depth: u8,
    pub bound: Bound,
    pub mv: Option<Move>,
}

pub struct Table {
    /// The slots' memory: an anonymous map, so that it can be asked for huge pages.
    map: memmap2::MmapMut,
    mask: usize,
}

impl Table {
    /// A table of about `mib` MiB (rounded down to a power of two of 16-byte slots; at least 1).
    pub fn new(mib: usize) -> Table {
        let bytes = mib.clamp(1, 1 << 16) << 20;
        let slots = bytes / 16;
        // The largest power of two that fits: the index is a mask of the key.
        let n = if slots.is_power_of_two() {
            slots
        } else {
            slots.next_power_of_two() / 2
        };
        let n = n.max(1024);
        let map = memmap2::MmapMut::map_anon(n * 16).expect("memory for the table");
        // Every probe lands on a random slot: with 4 KiB pages each is a TLB miss as well as a
        // cache miss. Huge pages (where the kernel grants them) take the first away.
        #[cfg(target_os = "linux")]
        let _ = map.advise(memmap2::Advice::HugePage);
        let table = Table { map, mask: n - 1 };
        // The allocator hands out zeroed pages lazily, and a search that touches them pays
        // the kernel's page faults inside its time limit (measured: a fresh 64 MiB table made
        // depth 12 from the start take 210 ms instead of 109 ms). Writing every slot once
        // here moves that cost to the table's creation.
        table.clear();
        table
    }

    #[inline]
    fn slots(&self) -> &[[AtomicU64; 2]] {
        // SAFETY: the map is page-aligned and 16 × (mask + 1) bytes long, zeroed by the kernel
        // (a valid AtomicU64 is any bit pattern), and lives as long as `self`; every access
        // after this is atomic.
        unsafe {
            std::slice::from_raw_parts(self.map.as_ptr() as *const [AtomicU64; 2], self.mask + 1)
        }
    }

    pub fn clear(&self) {
        for s in self.slots() {
            s[0].store(0, Relaxed);
            s[1].store(0, Relaxed);
        }
    }

    pub fn size_mib(&self) -> usize {
        (self.slots().len() * 16) >> 20
    }

    #[inline]
    fn pack(e: &Entry) -> u64 {
        let mv = e.mv.map_or(0u64, |m| m.hole().index() as u64 + 1);
        (e.score as i16 as u16 as u64) | (e.depth as u64) << 16 | (e.bound as u64) << 24 | mv << 32
    }

    /// Asks the processor to bring `key`'s slot into the cache, so that the probe made when
    /// the search reaches that position does not wait for memory. The search spends a third
    /// of its time in that wait without it (a random slot of a 64 MiB table is a cache miss):
    /// it calls this for every child as soon as the child is played, well before its probe.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let p = self.slots()[key as usize & self.mask].as_ptr() as *const i8;
            // SAFETY: a prefetch only hints the cache; `p` points into `self.slots`, and even
            // an invalid address could not fault.
            unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let s = &self.slots()[key as usize & self.mask];
        let data = s[1].load(Relaxed);
        if s[0].load(Relaxed) ^ data != key || data == 0 {
            return None;
        }
        let mv = (data >> 32) as u8;
        Some(Entry {
            score: data as u16 as i16 as i32,
            depth: (data >> 16) as u8,
            bound: match (data >> 24) as u8 & 3 {
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

    /// Stores an entry; a deeper entry for the same position is kept unless this one is exact.
    #[inline]
    pub fn store(&self, key: u64, e: Entry) {
        let s = &self.slots()[key as usize & self.mask];
        let old = s[1].load(Relaxed);
        if s[0].load(Relaxed) ^ old == key
            && ((old >> 16) as u8) > e.depth
            && e.bound != Bound::Exact
        {
            return;
        }
        let data = Self::pack(&e);
        s[0].store(key ^ data, Relaxed);
        s[1].store(data, Relaxed);
    }
}
