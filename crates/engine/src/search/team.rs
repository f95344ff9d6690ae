//! What the threads of one search share beside the table: the depths they are on and the
//! positions they are searching now (lazy SMP with a simplified ABDADA).

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed};

use anywoli_core::Position;

use super::{key, MAX_PLY};

/// What the threads of one search share beside the table (lazy SMP).
pub(super) struct Team {
    /// How many threads have begun each depth. A helper skips a depth that half the threads
    /// are already on: two threads on one depth mostly repeat each other's work, while a
    /// helper a depth ahead fills the table with what the main thread will ask next.
    pub(super) started: [AtomicU32; MAX_PLY + 1],
    /// How many threads search.
    threads: u32,
    /// Set by the first thread to finish the last depth: the search has its answer, and the
    /// others stop.
    pub(super) done: AtomicBool,
    /// Whether a helper's answer may be the search's: only when one line is asked for, as a
    /// helper searches one line.
    pub(super) helpers_answer: bool,
    /// The positions some thread is searching now.
    pub(super) busy: Busy,
}

/// Positions some thread of a search is searching now (simplified ABDADA): a thread that
/// meets a sibling another thread is on searches its other moves first and comes back to it
/// later, when the table most often holds its value. The threads then share out a node's
/// moves instead of repeating each other. A slot holds one key; a collision only loses a
/// hint, never a value.
pub(super) struct Busy {
    slots: Box<[AtomicU64]>,
}

/// Slots of [`Busy`]: far more than two threads' stacks of searched positions.
const BUSY_SLOTS: usize = 1 << 14;
/// Children with less depth than this left are never deferred: their subtrees are cheaper
/// than the table traffic that shares them out.
pub(super) const DEFER_DEPTH: u32 = 3;

impl Busy {
    pub(super) fn new() -> Busy {
        Busy {
            slots: (0..BUSY_SLOTS).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    #[inline]
    fn slot(&self, key: u64) -> &AtomicU64 {
        &self.slots[(key >> 40) as usize & (BUSY_SLOTS - 1)]
    }

    /// What a thread does with `child` at a node it may share: put it off when another
    /// thread is on it and `may_defer` (never the first move searched), else search it,
    /// holding it busy until the mark is dropped. With no `busy` table, always search.
    #[inline]
    pub(super) fn claim<'b>(
        busy: Option<&'b Busy>,
        child: &Position,
        may_defer: bool,
    ) -> Claim<'b> {
        let Some(busy) = busy else {
            return Claim::Search(None);
        };
        let key = key(child);
        let slot = busy.slot(key);
        if may_defer && slot.load(Relaxed) == key {
            return Claim::Later;
        }
        slot.store(key, Relaxed);
        Claim::Search(Some(Mark { busy, key }))
    }
}

/// [`Busy::claim`]'s answer.
pub(super) enum Claim<'b> {
    Later,
    Search(Option<Mark<'b>>),
}

/// A position held busy while this thread searches it.
pub(super) struct Mark<'b> {
    busy: &'b Busy,
    key: u64,
}

impl Drop for Mark<'_> {
    #[inline]
    fn drop(&mut self) {
        let _ = self
            .busy
            .slot(self.key)
            .compare_exchange(self.key, 0, Relaxed, Relaxed);
    }
}

impl Team {
    pub(super) fn new(threads: usize, multipv: usize) -> Team {
        Team {
            started: std::array::from_fn(|_| AtomicU32::new(0)),
            threads: threads as u32,
            done: AtomicBool::new(false),
            helpers_answer: multipv == 1,
            busy: Busy::new(),
        }
    }

    /// The depth a helper begins next: `depth`, or the first after it that fewer than half
    /// the threads are on (never past `max_depth`).
    pub(super) fn next_depth(&self, mut depth: u32, max_depth: u32) -> u32 {
        let crowd = self.threads.div_ceil(2);
        while depth < max_depth && self.started[depth as usize].load(Relaxed) >= crowd {
            depth += 1;
        }
        depth
    }
}
