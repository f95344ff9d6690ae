//! `anywoli db explorer --db DB --check | --rebuild`: the opening explorer's counts recounted
//! from the stored games. `--check` compares the recount with the counts kept as games ended
//! (exit status 1 and the first differences if they differ); `--rebuild` replaces the counts
//! with the recount (for a database from before the explorer; run it with the server stopped,
//! or check afterwards: a game ending during the rebuild may be counted twice or not at all).

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;

use anywoli_server::explorer::explore_game;
use anywoli_server::exports::each_game;
use anywoli_server::store::{band_of, ExploreGame, ExportFilter};
use anywoli_server::Store;
use clap::Args;

use crate::common::CmdResult;
use crate::error::DbError;

#[derive(Args, Clone)]
pub struct ExplorerArgs {
    /// The server's store: a SQLite file or a PostgreSQL URL (as `serve --db`).
    #[arg(long, value_name = "PATH|URL")]
    db: PathBuf,
    /// Compare the counts with a recount from the games.
    #[arg(long, conflicts_with = "rebuild", required_unless_present = "rebuild")]
    check: bool,
    /// Replace the counts with a recount from the games.
    #[arg(long)]
    rebuild: bool,
}

/// The counts of one row: games, South wins, draws, North wins, rating sum, rated games.
type Counts = [i64; 6];
/// A row's key: rules, position, move, speed, band.
type Key = (String, i64, String, String, i64);

fn count(g: &ExploreGame, into: &mut HashMap<Key, Counts>) {
    let (s, d, n) = match g.result.as_str() {
        "1-0" => (1, 0, 0),
        "0-1" => (0, 0, 1),
        _ => (0, 1, 0),
    };
    let band = band_of(g.rating);
    for (pos, mv) in &g.plies {
        let c = into
            .entry((g.rules.clone(), *pos, mv.clone(), g.speed.clone(), band))
            .or_default();
        c[0] += 1;
        c[1] += s;
        c[2] += d;
        c[3] += n;
        c[4] += g.rating.unwrap_or(0);
        c[5] += i64::from(g.rating.is_some());
    }
}

pub fn run(args: &ExplorerArgs) -> CmdResult {
    let store = Store::open_db(&args.db)?;
    // The games that ended and wait in the queue are counted first (a fold is atomic, and
    // safe beside the server's own).
    store.explorer_fold_all()?;
    let all = ExportFilter::default();
    if args.rebuild {
        store.explorer_clear()?;
        let mut batch = Vec::new();
        let mut games = 0usize;
        let mut failed = None;
        each_game(&store, &all, usize::MAX, |g| {
            if let Some(e) = explore_game(&g) {
                batch.push(e);
                games += 1;
            }
            if batch.len() >= 500 {
                if let Err(e) = store.explorer_add(std::mem::take(&mut batch)) {
                    failed = Some(e);
                    return false;
                }
            }
            true
        })?;
        if let Some(e) = failed {
            return Err(e.into());
        }
        store.explorer_add(batch)?;
        let _ = writeln!(std::io::stderr(), "the explorer counts {games} games again");
        return Ok(());
    }
    let mut recount: HashMap<Key, Counts> = HashMap::new();
    let mut games = 0usize;
    each_game(&store, &all, usize::MAX, |g| {
        if let Some(e) = explore_game(&g) {
            count(&e, &mut recount);
            games += 1;
        }
        true
    })?;
    let stored: HashMap<Key, Counts> = store
        .explorer_dump()?
        .into_iter()
        .map(|(rules, pos, r)| {
            (
                (rules, pos, r.mv, r.speed, r.band),
                [
                    r.games,
                    r.south,
                    r.draws,
                    r.north,
                    r.rating_sum,
                    r.rated_games,
                ],
            )
        })
        .collect();
    let mut differ: Vec<String> = Vec::new();
    for (k, c) in &recount {
        if stored.get(k) != Some(c) {
            differ.push(format!("{k:?}: recounted {c:?}, kept {:?}", stored.get(k)));
        }
    }
    for (k, c) in &stored {
        if !recount.contains_key(k) {
            differ.push(format!("{k:?}: recounted nothing, kept {c:?}"));
        }
    }
    let mut err = std::io::stderr().lock();
    if differ.is_empty() {
        let _ = writeln!(
            err,
            "the explorer's {} rows are a recount of the {games} games it counts",
            stored.len()
        );
        Ok(())
    } else {
        differ.sort();
        for d in differ.iter().take(10) {
            let _ = writeln!(err, "{d}");
        }
        Err(DbError::ExplorerDiffers { rows: differ.len() }.into())
    }
}
