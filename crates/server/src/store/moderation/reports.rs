//! Reports: a player names another, a reason and a few words; the store attaches the evidence
//! itself, in the transaction that files the report (so the reporter chooses none of it), and
//! refuses a flood in the same transaction (so two instances cannot each let one more in).

use serde_json::{json, Value};

use super::super::sql::{FromRow, Row, Sql};
use super::super::StoreResult;

/// Most characters of a report's text.
pub const REPORT_TEXT_MAX: usize = 1000;
/// Most reports one account files in [`REPORT_WINDOW_MS`].
pub const REPORTS_PER_WINDOW: i64 = 5;
pub const REPORT_WINDOW_MS: i64 = 3600 * 1000;
/// Games between the two that a report's evidence lists, newest first.
const EVIDENCE_GAMES: i64 = 20;

/// Why a player is reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReportReason {
    AbusiveChat,
    ComputerAssistance,
    RatingManipulation,
    LeavingGames,
    Other,
}

impl ReportReason {
    pub const ALL: [ReportReason; 5] = [
        ReportReason::AbusiveChat,
        ReportReason::ComputerAssistance,
        ReportReason::RatingManipulation,
        ReportReason::LeavingGames,
        ReportReason::Other,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ReportReason::AbusiveChat => "abusive_chat",
            ReportReason::ComputerAssistance => "computer_assistance",
            ReportReason::RatingManipulation => "rating_manipulation",
            ReportReason::LeavingGames => "leaving_games",
            ReportReason::Other => "other",
        }
    }

    pub fn parse(s: &str) -> Option<ReportReason> {
        ReportReason::ALL.into_iter().find(|r| r.as_str() == s)
    }
}

/// A report as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct ReportRow {
    pub id: String,
    pub at: i64,
    pub reporter: String,
    pub target: String,
    pub reason: ReportReason,
    pub text: String,
    /// What the server attached (JSON): see [`evidence`].
    pub evidence: String,
    /// Open until a moderator closes it.
    pub open: bool,
    pub closed_by: Option<String>,
    pub closed_at: Option<i64>,
}

/// What filing a report came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Filed {
    Filed,
    /// The reporter has an open report about this player already: nothing filed.
    AlreadyOpen,
    /// The reporter filed [`REPORTS_PER_WINDOW`] within the window: nothing filed.
    TooMany,
}

impl FromRow for ReportRow {
    fn from_row(r: &Row) -> StoreResult<ReportRow> {
        let reason = r.text("reason")?;
        Ok(ReportRow {
            id: r.text("id")?,
            at: r.int("at")?,
            reporter: r.text("reporter")?,
            target: r.text("target")?,
            // A reason this version does not know (written by a newer one) reads as other.
            reason: ReportReason::parse(&reason).unwrap_or(ReportReason::Other),
            text: r.text("text")?,
            evidence: r.text("evidence")?,
            open: r.text("status")? == "open",
            closed_by: r.opt_text("closed_by")?,
            closed_at: r.opt_int("closed_at")?,
        })
    }
}

/// Files `report` (its `evidence` is replaced by what the store finds), unless it floods.
pub(super) fn file(db: &mut dyn Sql, report: &ReportRow) -> StoreResult<Filed> {
    let lately = db.count(
        "SELECT COUNT(*) AS n FROM reports WHERE reporter = $1 AND at > $2",
        &[
            (&report.reporter).into(),
            (report.at - REPORT_WINDOW_MS).into(),
        ],
        "n",
    )?;
    if lately >= REPORTS_PER_WINDOW {
        return Ok(Filed::TooMany);
    }
    let open = db.count(
        "SELECT COUNT(*) AS n FROM reports WHERE reporter = $1 AND target = $2 AND status = 'open'",
        &[(&report.reporter).into(), (&report.target).into()],
        "n",
    )?;
    if open > 0 {
        return Ok(Filed::AlreadyOpen);
    }
    let evidence = evidence(db, &report.reporter, &report.target)?.to_string();
    db.execute(
        "INSERT INTO reports (id, at, reporter, target, reason, text, evidence, status)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'open')",
        &[
            (&report.id).into(),
            report.at.into(),
            (&report.reporter).into(),
            (&report.target).into(),
            report.reason.as_str().into(),
            (&report.text).into(),
            evidence.into(),
        ],
    )?;
    Ok(Filed::Filed)
}

/// What the server attaches to a report: the recent games between the two; the target's chat
/// lines; the other accounts seen from the target's addresses (`store/addresses.rs`).
fn evidence(db: &mut dyn Sql, reporter: &str, target: &str) -> StoreResult<Value> {
    let games = db.query(
        "SELECT id, updated, status, result, rated, category, south_account, north_account
         FROM games WHERE (south_account = $1 AND north_account = $2)
            OR (south_account = $2 AND north_account = $1)
         ORDER BY updated DESC LIMIT $3",
        &[reporter.into(), target.into(), EVIDENCE_GAMES.into()],
    )?;
    let games = games
        .iter()
        .map(|g| {
            Ok(json!({
                "id": g.text("id")?,
                "updated": g.int("updated")?,
                "status": g.text("status")?,
                "result": g.text("result")?,
                "rated": g.bool("rated")?,
                "category": g.opt_text("category")?,
                "south": g.opt_text("south_account")?,
                "north": g.opt_text("north_account")?,
            }))
        })
        .collect::<StoreResult<Vec<Value>>>()?;
    Ok(json!({
        "games": games,
        "chat": chat_evidence(db, reporter, target)?,
        "addresses": crate::store::addresses::shared(db, target)?,
    }))
}

/// The chat lines `target` wrote lately (in any game and room: abuse aimed at the reporter may
/// have been in the spectators' room, or aimed at others), newest first.
fn chat_evidence(db: &mut dyn Sql, _reporter: &str, target: &str) -> StoreResult<Value> {
    let lines = crate::store::community::lines_by(db, target, EVIDENCE_CHAT_LINES)?;
    Ok(serde_json::to_value(lines).unwrap_or(Value::Null))
}

/// Chat lines a report attaches.
const EVIDENCE_CHAT_LINES: usize = 50;

/// Closes open report `id` as `by`: false if there is no such open report.
pub(super) fn close(db: &mut dyn Sql, id: &str, by: &str, at: i64) -> StoreResult<bool> {
    let n = db.execute(
        "UPDATE reports SET status = 'closed', closed_by = $2, closed_at = $3
         WHERE id = $1 AND status = 'open'",
        &[id.into(), by.into(), at.into()],
    )?;
    Ok(n == 1)
}

const COLUMNS: &str = "SELECT id, at, reporter, target, reason, text, evidence, status, \
    closed_by, closed_at FROM reports";

/// Which reports to list.
#[derive(Clone, Copy, Debug)]
pub enum ReportsOf<'a> {
    /// The open queue, oldest first.
    Open,
    About(&'a str),
    By(&'a str),
    One(&'a str),
}

pub(super) fn list(db: &mut dyn Sql, of: ReportsOf, limit: usize) -> StoreResult<Vec<ReportRow>> {
    let limit = (limit as i64).into();
    match of {
        ReportsOf::Open => db.rows(
            &format!("{COLUMNS} WHERE status = 'open' ORDER BY at, id LIMIT $1"),
            &[limit],
        ),
        ReportsOf::About(name) => db.rows(
            &format!("{COLUMNS} WHERE target = $1 ORDER BY at DESC, id LIMIT $2"),
            &[name.into(), limit],
        ),
        ReportsOf::By(name) => db.rows(
            &format!("{COLUMNS} WHERE reporter = $1 ORDER BY at DESC, id LIMIT $2"),
            &[name.into(), limit],
        ),
        ReportsOf::One(id) => db.rows(
            &format!("{COLUMNS} WHERE id = $1 LIMIT $2"),
            &[id.into(), limit],
        ),
    }
}
