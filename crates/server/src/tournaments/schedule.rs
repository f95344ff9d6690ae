//! Recurring and scheduled tournaments (docs/tournaments.md, "Schedules"): a host writes them
//! in a file for `anywoli admin tournaments add`; the director makes each next tournament an
//! hour before it starts (or one period, if shorter), so the list always shows what comes.

use serde::Deserialize;

use super::settings::CreateRequest;
use crate::error::{ApiError, ApiResult};
use crate::store::{ScheduleRow, Store, StoreResult};

/// How long before its start a scheduled tournament is made (and listed as upcoming).
pub const AHEAD_MS: i64 = 60 * 60_000;
/// The shortest and longest periods, in minutes: ten minutes to a week.
pub const EVERY_MINUTES: std::ops::RangeInclusive<i64> = 10..=10_080;

/// One schedule as a file or the command gives it.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScheduleRequest {
    /// The organiser's account (it must exist).
    pub by: String,
    /// How often, in minutes; absent: once.
    #[serde(default)]
    pub every_minutes: Option<i64>,
    /// The first start (ms since the epoch); absent: now.
    #[serde(default)]
    pub first_at: Option<i64>,
    /// The tournament, as `POST /api/tournaments` takes it (`starts_at` is the schedule's).
    pub tournament: CreateRequest,
}

impl ScheduleRequest {
    /// The schedule to store, checked (the tournament as the API would check it).
    pub fn into_row(self, id: String, now: i64) -> ApiResult<ScheduleRow> {
        if let Some(m) = self.every_minutes {
            if !EVERY_MINUTES.contains(&m) {
                return Err(ApiError::malformed(format!(
                    "every_minutes: {} to {}",
                    EVERY_MINUTES.start(),
                    EVERY_MINUTES.end()
                )));
            }
        }
        let mut t = self.tournament;
        if t.starts_at.is_some() {
            return Err(ApiError::malformed(
                "tournament.starts_at: a schedule's start is its first_at",
            ));
        }
        let first = self.first_at.unwrap_or(now).max(now);
        t.starts_at = Some(first);
        t.clone().into_row("check".to_string(), &self.by, now)?;
        t.starts_at = None;
        Ok(ScheduleRow {
            id,
            request: serde_json::to_string(&t).map_err(|e| ApiError::storage(e.to_string()))?,
            every_ms: self.every_minutes.map(|m| m * 60_000),
            next_at: first,
            created_by: self.by,
            created: now,
        })
    }
}

/// Makes the tournaments of the schedules due by `now` + [`AHEAD_MS`]: how many this call
/// made. A start missed while no server ran is skipped to the next one to come.
pub fn fire_due(store: &Store, now: i64) -> StoreResult<usize> {
    let mut made = 0;
    for s in store.schedules_due(now + AHEAD_MS)? {
        let Ok(mut request) = serde_json::from_str::<CreateRequest>(&s.request) else {
            tracing::warn!("schedule {}: its tournament cannot be read", s.id);
            continue;
        };
        let mut at = s.next_at;
        if let Some(every) = s.every_ms.filter(|e| *e > 0) {
            if at < now {
                at += ((now - at) + every - 1) / every * every;
            }
        }
        request.starts_at = Some(at.max(now));
        let row = match request.into_row(crate::ids::new_id(), &s.created_by, now) {
            Ok(row) => row,
            Err(e) => {
                tracing::warn!("schedule {}: {}", s.id, e.message);
                continue;
            }
        };
        let next = s.every_ms.map(|e| at + e);
        if store.fire_schedule(&s.id, s.next_at, next, row)? {
            made += 1;
        }
    }
    Ok(made)
}
