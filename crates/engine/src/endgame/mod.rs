//! Endgame databases: who can force the next capture, and in how many plies.
//!
//! With 8 seeds in play the next capture ends the game: its four leave 4 in play, and those go
//! to one player at once (docs/rules.md, "The end"). So the whole 8-seed ending is one question —
//! which side can force the next capture, and how fast — plus who receives the last 4, which
//! the rules decide (the capturer in `anywoli`; the first-final capturer, else the capturer, in
//! `anywoli-first-final`; the drawn player in `anywoli-lottery`). The database answers the
//! question once for all three rules; [`Tablebase::probe`] applies the rules and the quiet
//! counter. See docs/tablebase.md for the method, the figures and why the build is a forward
//! move graph walked backwards rather than a generator of unmoves. The 12-seed database of
//! `anywoli` is built from the 8-seed one ([`build12()`]), and the exact solver ([`solve`]) ends
//! its lines in both.
//!
//! The parts, each importing only those listed before it: [`index`] and [`entry`] (where a
//! position sits and what its 16 bits say), [`entry12`] and [`bounds`], [`error`], [`work`] (stages, progress,
//! threads), [`compact`], [`table`] with its [`mod@file`] and [`stats`], [`moves`] (forward and
//! backward), [`build8`], [`packed`], [`retro`], [`probe`], [`mod@build12`], [`mod@verify`],
//! [`solve`], [`crosscheck`], [`mod@shared`], and [`dist`] (the retrograde build spread over ranks: MPI on a
//! cluster).

pub mod bounds;
pub mod build12;
pub mod build8;
pub mod compact;
pub mod crosscheck;
pub mod dist;
pub mod entry;
pub mod entry12;
pub mod error;
pub mod file;
pub mod index;
pub mod moves;
pub mod packed;
pub mod probe;
pub mod retro;
pub mod shared;
pub mod solve;
pub mod stats;
pub mod table;
pub mod verify;
pub mod work;

pub use build12::build12;
pub use build8::build;
pub use compact::Compact;
pub use crosscheck::{cross_check12, CrossCheck};
pub use entry::{Entry, Verdict, INVALID, LOSS_BIT, MAX_DTC, STUCK, UNFORCED};
pub use entry12::{Entry12, INVALID12, MARGINS12};
pub use error::{BlockDefect, CompactError, Defect, EndgameError};
pub use file::PlainWriter;
pub use index::{positions, rank, turned, unrank, MAX_SEEDS};
pub use probe::{Probe, Tablebase, MAP_OVER};
pub use shared::{layer8, open_folder, set_loader, shared};
pub use solve::{Solution, Solver, Unproven};
pub use stats::{stats12, Stats, Stats12};
pub use table::Table;
pub use verify::{verify, verify12};
pub use work::{Progress, Stage, MAX_THREADS};
