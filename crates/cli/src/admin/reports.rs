//! `anywoli admin reports`: the open queue, oldest first.

use std::io::Write;

use anywoli_server::dates::record_date;
use anywoli_server::store::{ReportRow, ReportsOf};
use clap::Args;
use serde_json::{json, Value};

use super::{open, DbArg};
use crate::error::AdminError;

/// Most reports listed.
const LIMIT: usize = 1000;
/// Characters of a report's text on its line.
const SHOWN: usize = 80;

#[derive(Args, Clone)]
pub struct ReportsArgs {
    #[command(flatten)]
    db: DbArg,
    /// One JSON array (each report with its evidence) instead of lines.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &ReportsArgs) -> Result<(), AdminError> {
    let (store, _) = open(&args.db)?;
    let reports = store.reports(ReportsOf::Open, LIMIT)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        let all: Vec<Value> = reports.iter().map(report_json).collect();
        writeln!(out, "{}", Value::Array(all))?;
        return Ok(());
    }
    for r in &reports {
        writeln!(out, "{}", line(r))?;
    }
    Ok(())
}

/// `ID DATE REPORTER -> TARGET REASON TEXT…`, the text on one line and cut short.
fn line(r: &ReportRow) -> String {
    let text: String = r
        .text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(SHOWN)
        .collect();
    format!(
        "{} {} {} -> {} {} {}",
        r.id,
        record_date(r.at),
        r.reporter,
        r.target,
        r.reason.as_str(),
        text
    )
}

fn report_json(r: &ReportRow) -> Value {
    json!({
        "id": r.id,
        "at": r.at,
        "reporter": r.reporter,
        "target": r.target,
        "reason": r.reason,
        "text": r.text,
        "evidence": serde_json::from_str::<Value>(&r.evidence).unwrap_or(Value::Null),
    })
}
