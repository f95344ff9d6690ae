//! Reports and moderation-log lines as the moderators' API writes them.

use serde_json::{json, Value};

use crate::store::{LogRow, ReportRow};

/// Stored JSON read back; `null` for anything unreadable (never an error to a moderator).
fn parsed(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or(Value::Null)
}

pub fn report_json(r: &ReportRow) -> Value {
    json!({
        "id": r.id, "at": r.at, "reporter": r.reporter, "target": r.target,
        "reason": r.reason, "text": r.text, "evidence": parsed(&r.evidence),
        "open": r.open, "closed_by": r.closed_by, "closed_at": r.closed_at,
    })
}

pub fn log_json(l: &LogRow) -> Value {
    json!({
        "id": l.id, "at": l.at, "moderator": l.moderator, "action": l.action,
        "target": l.target, "reason": l.reason, "detail": parsed(&l.detail),
    })
}

pub fn reports_json(rs: &[ReportRow]) -> Vec<Value> {
    rs.iter().map(report_json).collect()
}

pub fn log_lines_json(ls: &[LogRow]) -> Vec<Value> {
    ls.iter().map(log_json).collect()
}

/// A player's marks as the dossier lists them.
pub(super) fn marks_json(marks: &[crate::store::MarkRow]) -> Vec<Value> {
    marks
        .iter()
        .map(|m| json!({"kind": m.kind, "at": m.at, "moderator": m.moderator}))
        .collect()
}

/// A player's offences (left, never moved, stalled), newest first: game, kind, when.
pub fn offences_json(offences: &[crate::store::OffenceRow]) -> Value {
    offences
        .iter()
        .map(|o| json!({ "game": o.game, "kind": o.kind.name(), "at": o.at }))
        .collect()
}
