//! `anywoli loadtest`: many live games at once over HTTP and WebSocket against one or more
//! servers, as fast as they go or at people's pace, and what it cost: moves per second, round
//! trips, WebSocket delivery, errors by kind and the servers' memory; at the end, a check that
//! every acknowledged move is stored and that every stored game replays (docs/scaling.md).
//! With `--failover`, games move to another server when theirs goes away, as behind a load
//! balancer whose instances share one database.
//!
//! The parts: `args` (the flags), `load` (the run), `game` (one game), `client` and
//! `failover` (the requests), `watcher` (the WebSocket watchers), `stats` (the counters),
//! `check` (the stored games read back), `system` (/proc), `report` and `text` (the report).
//! `--tournament` plays one tournament with accounts as bots instead (`tournament`).

mod args;
mod check;
mod client;
mod ctx;
mod failover;
mod game;
mod live;
mod load;
mod report;
mod stats;
mod system;
mod text;
mod tournament;
mod watcher;

pub use args::LoadtestArgs;

use crate::common::CmdResult;
use crate::error::LoadtestError;
use ctx::Target;
use system::Baseline;

pub fn run(args: &LoadtestArgs) -> CmdResult {
    args::check_args(args)?;
    let targets = args
        .servers
        .iter()
        .map(|url| Target::new(url, args))
        .collect::<Result<Vec<_>, LoadtestError>>()?;
    let baseline = Baseline::take(&args.server_pids)?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(LoadtestError::Runtime)?;
    if args.tournament.is_some() {
        let report = rt.block_on(tournament::load(args, targets, baseline))?;
        let mut out = std::io::stdout().lock();
        if args.json {
            serde_json::to_writer_pretty(&mut out, &report)?;
            std::io::Write::write_all(&mut out, b"\n")?;
        } else {
            tournament::print_text(&mut out, &report)?;
        }
        if report.errors_total > 0 {
            return Err(LoadtestError::SawErrors(report.errors_total).into());
        }
        return Ok(());
    }
    let report = rt.block_on(load::load(args, targets, baseline))?;
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &report)?;
        std::io::Write::write_all(&mut out, b"\n")?;
    } else {
        text::print_text(&mut out, &report)?;
    }
    if report.errors_total > 0 {
        return Err(LoadtestError::SawErrors(report.errors_total).into());
    }
    Ok(())
}
