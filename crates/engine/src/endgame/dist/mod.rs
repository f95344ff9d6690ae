//! The retrograde build spread over ranks (MPI processes on a cluster, or threads here): the
//! analysis of [`super::retro`], with the position index cut into one contiguous slice a rank.
//! Each rank holds only its slice's packed words; a wave's predecessors are sent to the rank
//! that owns them in batched all-to-all exchanges of bounded size, so that a rank's memory is
//! its slice plus a fixed amount. docs/tablebase-distributed.md has the design, the cost model
//! and the measurements.
//!
//! The parts: [`comm`] (what the build asks of its transport, and [`Local`], ranks that are
//! threads), [`slice`] (who owns which positions), [`mod@build`] (the forward pass and the
//! waves), [`checkpoint`] (a wave's state on disk, and the resume), [`output`] (the slices
//! streamed to rank 0 into the same file as the single-process build).

pub mod build;
pub mod checkpoint;
pub mod comm;
pub mod output;
pub mod slice;

use std::path::PathBuf;
use std::time::Duration;

pub use build::{build, least_ranks, run, supported, word_bytes, Layer};
pub use comm::{agree, Comm, Local};
pub use slice::Slices;

/// How a distributed build runs beside its layer and its ranks.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Where each rank keeps its checkpoints, and the manifest says which wave they hold; a
    /// build given a folder with a manifest of the same layer and ranks resumes from it. A
    /// build that writes its file deletes them.
    pub checkpoint: Option<PathBuf>,
    /// Least time between two checkpoints (zero: every wave). The forward pass, the longest
    /// stage, is always checkpointed.
    pub checkpoint_every: Duration,
    /// Stop with [`super::EndgameError::Stopped`] when this wave begins (after its
    /// checkpoint, when one is due): what a kill does, at a place a test can name.
    pub stop_at: Option<u32>,
}

/// What rank 0 hears of the build, in order.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// The build resumes from the checkpoint of this wave.
    Resumed {
        /// The wave.
        wave: u32,
    },
    /// Rank 0's share of the forward pass (the others run alike).
    Moves {
        /// Positions rank 0 has expanded.
        done: u64,
        /// Positions in its slice.
        of: u64,
        /// Estimated time left.
        left: Option<Duration>,
    },
    /// A wave ended.
    Wave {
        /// The wave (its distance in plies).
        wave: u32,
        /// Threshold fields settled, on all ranks, since the start (forward pass included).
        settled: u64,
        /// Of how many (positions × thresholds).
        fields: u64,
        /// Bytes the ranks sent one another since the start (a rank's messages to itself
        /// not counted).
        sent: u64,
        /// Time since the start (or the resume).
        elapsed: Duration,
        /// Estimated time left, from how fast the waves are thinning out; `None` while they
        /// are not.
        left: Option<Duration>,
    },
    /// Every rank saved its state at the start of this wave.
    Checkpoint {
        /// The wave.
        wave: u32,
        /// Bytes every rank wrote together.
        bytes: u64,
    },
}

/// What a finished build did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    /// Waves run (the longest forced capture is one less).
    pub waves: u32,
    /// Bytes the ranks sent one another.
    pub sent: u64,
    /// Threshold fields settled.
    pub settled: u64,
}
