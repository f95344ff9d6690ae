//! `anywoli`: the command line for players, analysts and engine authors. This file reads the
//! command line (its grammar is in `cli`) and hands each command to its module.

mod admin;
mod analyse;
mod backup;
mod bench;
mod board;
mod book;
mod bot;
mod cli;
mod common;
mod compose;
mod db;
mod engine;
mod error;
mod explorer;
mod export;
mod loadtest;
mod matches;
mod perfect;
mod play;
mod position;
mod review;
mod serve;
mod tablebase;
mod tournament;
mod trace;

use std::process::ExitCode;

use clap::Parser;

use cli::{Cli, Command};
use common::{CmdResult, Failure};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(&e),
    };
    let command = cli
        .command
        .unwrap_or_else(|| Command::Serve(serve::ServeArgs::default()));
    anywoli_engine::endgame::set_loader(tablebase::from_env);
    match run(command) {
        Ok(()) | Err(Failure::ReaderGone) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            // `anywoli admin`'s refusals are 1, as its documentation promises.
            ExitCode::from(if matches!(e, Failure::Admin(_)) { 1 } else { 2 })
        }
    }
}

fn run(command: Command) -> CmdResult {
    match command {
        Command::Serve(args) => serve::run(args),
        Command::Backup(args) => backup::run(&args),
        Command::Db { command } => db::run(&command),
        Command::Admin { command } => admin::run(&command),
        Command::Apply(args) => position::apply(&args),
        Command::Rules => position::rules(),
        Command::Perft(args) => position::perft(&args),
        Command::Show(args) => position::show(&args),
        Command::Tablebase { command } => tablebase::run(&command),
        Command::Solve(args) => tablebase::solve(&args),
        Command::Puzzle(args) => tablebase::puzzle(&args),
        Command::Compose(args) => compose::run(&args),
        Command::Trace(args) => trace::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Engine => engine::run(),
        Command::Loadtest(args) => loadtest::run(&args),
        Command::Bot(args) => bot::run(&args),
        Command::Export(args) => export::run(&args),
        Command::Review(args) => review::run(&args),
        Command::Book(args) => book::run(&args),
        Command::Analyse(args) => analyse::run(&args),
        Command::Match(args) => matches::run(&args.options()),
        Command::Play(args) => play::run(&args),
        Command::Tournament { command } => tournament::run(&command),
    }
}

/// A command line clap refuses: help and version are printed whole (status 0, or 2 for help
/// shown because a subcommand is missing), an error as one line, as the contract says;
/// `--help` gives the rest.
fn usage_error(e: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = e.print();
        return if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
            ExitCode::from(2)
        } else {
            ExitCode::SUCCESS
        };
    }
    let text = e.render().to_string();
    let line: Vec<&str> = text
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("tip:"))
        .filter(|l| !l.is_empty())
        .collect();
    eprintln!("{} (see anywoli --help)", line.join(" "));
    ExitCode::from(2)
}
