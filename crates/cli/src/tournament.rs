//! `anywoli tournament pair`: a pairing from a tournament's state, JSON in and JSON out, for
//! any program to check or reuse (docs/tournaments.md). The server pairs with the same code.

use std::io::{Read, Write};

use anywoli_tournament::{arena, robin, swiss};
use clap::{Args, Subcommand, ValueEnum};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::common::{CmdResult, Failure};

/// What `anywoli tournament` does.
#[derive(Subcommand)]
pub enum TournamentCommand {
    /// Read one round's state as JSON on standard input and print its pairing as JSON.
    ///
    /// swiss: {"round": N, "players": [{"id", "score", "rating", "sides": "SN-", "opponents":
    /// [...], "byes"}], "forbidden": [[ID, ID]]} prints {"pairs": [[SOUTH, NORTH]], "bye": ID or
    /// null}. arena: {"now": MS, "players": [{"id", "waiting_since": MS, "rank", "last_opponent",
    /// "rating", "sides", "bot"}]} prints {"pairs": [...]}. round-robin: {"players": [IDS],
    /// "double": BOOL} prints {"rounds": [{"pairs", "bye"}]}. Fields not used are ignored.
    Pair(PairArgs),
}

/// `tournament pair`'s options.
#[derive(Args)]
pub struct PairArgs {
    /// The tournament's format.
    #[arg(long, value_enum)]
    pub system: System,
}

/// The formats `tournament pair` pairs.
#[derive(Clone, Copy, ValueEnum)]
pub enum System {
    /// One Swiss round, everyone at once (FIDE Dutch priorities).
    Swiss,
    /// One arena wave: whoever waits now.
    Arena,
    /// A whole round robin (Berger tables), single or double.
    RoundRobin,
}

impl System {
    fn name(self) -> &'static str {
        match self {
            System::Swiss => "swiss",
            System::Arena => "arena",
            System::RoundRobin => "round-robin",
        }
    }
}

pub fn run(command: &TournamentCommand) -> CmdResult {
    match command {
        TournamentCommand::Pair(args) => pair(args.system),
    }
}

fn pair(system: System) -> CmdResult {
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .map_err(Failure::Input)?;
    match system {
        System::Swiss => print(&swiss::pair(&read::<swiss::Round>(&text, system)?)?),
        System::Arena => print(&arena::pair(&read::<arena::Wave>(&text, system)?)?),
        System::RoundRobin => print(&robin::table(&read::<robin::Entry>(&text, system)?)?),
    }
}

fn read<T: DeserializeOwned>(text: &str, system: System) -> Result<T, Failure> {
    serde_json::from_str(text).map_err(|error| Failure::TournamentInput {
        system: system.name(),
        error,
    })
}

fn print(value: &impl Serialize) -> CmdResult {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer(&mut out, value)?;
    writeln!(out)?;
    Ok(())
}
