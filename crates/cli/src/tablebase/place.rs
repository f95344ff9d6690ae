//! Where the databases are: the folder (a flag, else `$ANYWOLI_TABLEBASES`, else
//! `./tablebases`), the file of each table in it, and what to say when one is missing.

use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anywoli_engine::endgame::{self, Table, Tablebase};
use clap::Args;

use crate::common::Failure;

/// The environment variable naming the databases' folder.
pub const ENV_DIR: &str = "ANYWOLI_TABLEBASES";
/// The folder used when neither a flag nor [`ENV_DIR`] names one.
pub const DEFAULT_DIR: &str = "tablebases";

/// The folder to use: `dir` if given, else `$ANYWOLI_TABLEBASES`, else `tablebases`.
pub fn folder(dir: Option<&Path>) -> PathBuf {
    match dir {
        Some(d) => d.to_path_buf(),
        None => std::env::var_os(ENV_DIR)
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(DEFAULT_DIR)),
    }
}

/// The databases named by `$ANYWOLI_TABLEBASES`: what the level players (and so `play`,
/// `match`, `engine` and the web app's computer), `analyse` and the web app's hints use, through
/// `anywoli_engine::endgame::shared`. `None` when the variable is unset or its folder holds no
/// database; a damaged file is said on stderr and not used.
pub fn from_env() -> Option<Arc<Tablebase>> {
    let dir = std::env::var_os(ENV_DIR)?;
    endgame::open_folder(Path::new(&dir)).unwrap_or_else(|e| {
        eprintln!("anywoli: the endgame databases are not used: {e}");
        None
    })
}

/// The databases of `dir` (see [`folder`]); none found is not an error.
pub fn open(dir: Option<&Path>) -> Result<Tablebase, Failure> {
    Ok(Tablebase::open(&folder(dir))?)
}

/// Which database, where.
#[derive(Args, Clone)]
pub struct Place {
    /// Seeds in play (8; 12 is described in docs/tablebase.md; 16 and 20 are built with
    /// --distributed on a cluster, docs/tablebase-distributed.md).
    #[arg(long, default_value_t = 8, value_name = "N")]
    pub seeds: u8,
    /// The databases' folder (default $ANYWOLI_TABLEBASES, else ./tablebases).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

impl Place {
    /// The `.awtb` file, or the compact one when only that is there.
    pub fn path(&self) -> Result<PathBuf, Failure> {
        check_seeds(self.seeds)?;
        Ok(table_path(self.dir.as_deref(), self.seeds))
    }

    pub fn plain_path(&self) -> Result<PathBuf, Failure> {
        check_seeds(self.seeds)?;
        Ok(folder(self.dir.as_deref()).join(Table::file_name(self.seeds)))
    }

    pub fn compact_path(&self) -> Result<PathBuf, Failure> {
        check_seeds(self.seeds)?;
        Ok(folder(self.dir.as_deref()).join(Table::compact_file_name(self.seeds)))
    }
}

/// The file of a table to read whole: `anywoli-N.awtb`, or `anywoli-N.awtbz` when only that
/// one is there.
pub fn table_path(dir: Option<&Path>, seeds: u8) -> PathBuf {
    let dir = folder(dir);
    let plain = dir.join(Table::file_name(seeds));
    let compact = dir.join(Table::compact_file_name(seeds));
    if !plain.exists() && compact.exists() {
        compact
    } else {
        plain
    }
}

fn check_seeds(seeds: u8) -> Result<(), Failure> {
    match seeds {
        8 | 12 | 16 | 20 => Ok(()),
        n => Err(Failure::Says(format!(
            "no database of {n} seeds: the databases are of 8, 12, 16 and 20 seeds in play \
             (captures take seeds by fours)"
        ))),
    }
}

/// What a command that reads a whole table says of the 16- and 20-seed layers, whose plain
/// files (75 GB and 1.9 TB) no ordinary machine holds in memory.
pub fn whole_only(seeds: u8, what: &str) -> Result<(), Failure> {
    if seeds >= 16 {
        return Err(Failure::Says(format!(
            "`tablebase {what}` reads a whole table into memory, and the {seeds}-seed one is \
             {:.0} GB: the {seeds}-seed layer is built, compacted and probed through memory \
             maps (docs/tablebase-distributed.md)",
            2.0 * endgame::positions(seeds) as f64 / 1e9
        )));
    }
    Ok(())
}

/// The database of the layer below `seeds` (12, 16 or 20), which its captures lead to: the
/// 8-seed one loaded, a larger one mapped (the plain file when present: one read a probe, its
/// pages shared by the ranks of a node; else the compact file).
pub fn below(dir: Option<&Path>, seeds: u8) -> Result<Tablebase, Failure> {
    if seeds <= 12 {
        return eight_only(dir);
    }
    let lower = seeds - 4;
    let dir = folder(dir);
    let plain = dir.join(Table::file_name(lower));
    let compact = dir.join(Table::compact_file_name(lower));
    let table = if plain.exists() {
        Table::map_plain(&plain)?
    } else if compact.exists() {
        Table::open_compact(&compact)?
    } else {
        return Err(Failure::Says(format!(
            "the {seeds}-seed database is built from the {lower}-seed one, and there is none at {}: build that first",
            plain.display()
        )));
    };
    Ok(Tablebase::from_tables(vec![table]))
}

/// The error of a missing database, with the command that builds it.
pub fn missing(path: &Path, e: impl Display) -> Failure {
    Failure::Says(if path.exists() {
        e.to_string()
    } else {
        format!(
            "no database at {}: build it with `anywoli tablebase build --seeds 8` (about 10 s and 16 MB), or name its folder with --dir or ANYWOLI_TABLEBASES",
            path.display()
        )
    })
}

/// The 8-seed database alone, which the 12-seed one is built and checked from.
pub fn eight_only(dir: Option<&Path>) -> Result<Tablebase, Failure> {
    let p8 = table_path(dir, 8);
    if !p8.exists() {
        return Err(Failure::Says(format!(
            "the 12-seed database is built and checked from the 8-seed one, and there is none at {}: run `anywoli tablebase build --seeds 8` first",
            p8.display()
        )));
    }
    Ok(Tablebase::from_tables(vec![Table::load(&p8)?]))
}
