//! The databases the level players, the analysis and the hints use when nobody hands them
//! others. The program chooses how they are found ([`set_loader`]: the command line reads
//! `$ANYWOLI_TABLEBASES`); they are opened the first time something asks, once per process.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use super::error::EndgameError;
use super::probe::Tablebase;

type Loader = Box<dyn Fn() -> Option<Arc<Tablebase>> + Send + Sync>;

static LOADER: OnceLock<Loader> = OnceLock::new();
static SHARED: OnceLock<Option<Arc<Tablebase>>> = OnceLock::new();

/// Sets how [`shared`] finds the databases; the first call wins. Without one, [`shared`] has
/// none (a library or a test that never asks the environment).
pub fn set_loader(load: impl Fn() -> Option<Arc<Tablebase>> + Send + Sync + 'static) {
    let _ = LOADER.set(Box::new(load));
}

/// The shared databases, loaded on the first call by the loader [`set_loader`] gave.
pub fn shared() -> Option<Arc<Tablebase>> {
    SHARED
        .get_or_init(|| LOADER.get().and_then(|load| load()))
        .clone()
}

/// The databases of `dir` as a loader hands them to [`set_loader`]: `None` when the folder
/// holds none, an error when one is damaged.
pub fn open_folder(dir: &Path) -> Result<Option<Arc<Tablebase>>, EndgameError> {
    let tb = Tablebase::open(dir)?;
    Ok((!tb.is_empty()).then(|| Arc::new(tb)))
}

static LAYER8: OnceLock<Tablebase> = OnceLock::new();

/// The 8-seed table, built in memory by retrograde analysis the first time an exact answer
/// needs it and no database on disk has it (about 3 s on one core, 300 MB while it builds,
/// 16 MB kept; docs/tablebase.md, "The solver's own 8-seed layer"). A forced capture 60 plies
/// away takes a search millions of positions, and the whole layer is 7.9 million: past a
/// few dozen plies, retrograde analysis of every position is cheaper than proving one.
pub fn layer8() -> &'static Tablebase {
    LAYER8.get_or_init(|| {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(2));
        let table = super::build8::build(8, threads, &|_, _, _| {})
            .expect("8 seeds is the layer build8 builds");
        Tablebase::from_tables(vec![table])
    })
}
