//! `anywoli admin tournaments`: recurring and scheduled tournaments from a file (docs/
//! tournaments.md, "Schedules"). `add` reads one schedule or a JSON array of them, checks
//! each as the API checks a new tournament, and stores them all or none; `list` and `remove`
//! look after them. The running servers make each tournament an hour before it starts.

use std::io::{Read, Write};
use std::path::PathBuf;

use anywoli_server::account::key_of;
use anywoli_server::dates::{now_ms, record_date};
use anywoli_server::tournaments::schedule::ScheduleRequest;
use clap::{Args, Subcommand};
use serde_json::Value;

use super::{open, DbArg};
use crate::error::AdminError;

#[derive(Subcommand, Clone)]
pub enum TournamentsCommand {
    /// Add the schedules of a JSON file (`-`: standard input): one object or an array, each
    /// {"by": ACCOUNT, "every_minutes": N (absent: once), "first_at": MS (absent: now),
    /// "tournament": {as POST /api/tournaments takes it}}. All or none.
    Add(AddArgs),
    /// The schedules, the next due first: ID NEXT-START (date, time UTC) EVERY BY NAME.
    List(ListArgs),
    /// Remove a schedule (the tournaments it made stay).
    Remove(RemoveArgs),
}

#[derive(Args, Clone)]
pub struct AddArgs {
    #[command(flatten)]
    db: DbArg,
    /// The file, or `-` for standard input.
    #[arg(long, value_name = "FILE")]
    file: PathBuf,
}

#[derive(Args, Clone)]
pub struct ListArgs {
    #[command(flatten)]
    db: DbArg,
}

#[derive(Args, Clone)]
pub struct RemoveArgs {
    #[command(flatten)]
    db: DbArg,
    /// The schedule's id, as `list` prints it.
    id: String,
}

pub fn run(command: &TournamentsCommand) -> Result<(), AdminError> {
    match command {
        TournamentsCommand::Add(a) => add(a),
        TournamentsCommand::List(a) => list(a),
        TournamentsCommand::Remove(a) => remove(a),
    }
}

fn bad(at: usize, message: impl Into<String>) -> AdminError {
    AdminError::BadSchedule {
        at,
        message: message.into(),
    }
}

fn add(args: &AddArgs) -> Result<(), AdminError> {
    let mut text = String::new();
    if args.file.as_os_str() == "-" {
        std::io::stdin().read_to_string(&mut text)?;
    } else {
        text = std::fs::read_to_string(&args.file)?;
    }
    let value: Value = serde_json::from_str(&text).map_err(|e| bad(0, e.to_string()))?;
    let items = match value {
        Value::Array(items) => items,
        one => vec![one],
    };
    let (store, label) = open(&args.db)?;
    let now = now_ms();
    let mut rows = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        let at = i + 1;
        let mut request: ScheduleRequest =
            serde_json::from_value(item).map_err(|e| bad(at, e.to_string()))?;
        let account = store
            .account(&key_of(&request.by))?
            .ok_or_else(|| AdminError::NoPlayer {
                label: label.clone(),
                name: request.by.clone(),
            })?;
        request.by = account.name;
        let row = request
            .into_row(anywoli_server::ids::new_id(), now)
            .map_err(|e| bad(at, e.message))?;
        rows.push(row);
    }
    let mut out = std::io::stdout().lock();
    for row in rows {
        let id = row.id.clone();
        store.add_schedule(row)?;
        writeln!(out, "{id}")?;
    }
    Ok(())
}

fn list(args: &ListArgs) -> Result<(), AdminError> {
    let (store, _) = open(&args.db)?;
    let mut out = std::io::stdout().lock();
    for s in store.schedules()? {
        let name = serde_json::from_str::<Value>(&s.request)
            .ok()
            .and_then(|v| v["name"].as_str().map(str::to_string))
            .unwrap_or_default();
        let every = s
            .every_ms
            .map_or("once".to_string(), |ms| format!("{}min", ms / 60_000));
        let minute = s.next_at.rem_euclid(86_400_000) / 60_000;
        writeln!(
            out,
            "{} {} {:02}:{:02}Z {} {} {}",
            s.id,
            record_date(s.next_at),
            minute / 60,
            minute % 60,
            every,
            s.created_by,
            name
        )?;
    }
    Ok(())
}

fn remove(args: &RemoveArgs) -> Result<(), AdminError> {
    let (store, label) = open(&args.db)?;
    if !store.remove_schedule(&args.id)? {
        return Err(AdminError::NoSchedule {
            label,
            id: args.id.clone(),
        });
    }
    writeln!(std::io::stderr().lock(), "schedule {} removed", args.id)?;
    Ok(())
}
