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
