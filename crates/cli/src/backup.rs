//! `anywoli backup`: copy the games database while the server runs (docs/hosting.md).

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use crate::common::{CmdResult, Failure};

#[derive(Args, Clone)]
pub struct BackupArgs {
    /// The SQLite file the server keeps its games in (its --db).
    #[arg(long, default_value = "anywoli.sqlite", value_name = "PATH")]
    db: PathBuf,
    /// Replace DEST if it exists.
    #[arg(long)]
    force: bool,
    /// Where to write the copy: one SQLite file that `anywoli serve --db` can open.
    #[arg(value_name = "DEST")]
    dest: PathBuf,
}

pub fn run(args: &BackupArgs) -> CmdResult {
    if args
        .db
        .to_str()
        .is_some_and(anywoli_server::store::is_postgres_url)
    {
        // Not echoing the URL: it may hold a password.
        return Err(Failure::BackupOfPostgres);
    }
    let report = anywoli_server::backup::backup(&args.db, &args.dest, args.force)?;
    let games = match report.games {
        1 => "1 game".to_string(),
        n => format!("{n} games"),
    };
    writeln!(
        std::io::stdout().lock(),
        "backed up {games} from {} to {} (integrity check ok)",
        args.db.display(),
        args.dest.display()
    )?;
    Ok(())
}
