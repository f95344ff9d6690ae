//! Recurring tournaments (an hourly 3+2 arena): each schedule makes its next tournament ahead of
//! its start. Making it and moving the schedule on are one transaction that checks the
//! schedule still stands where the maker read it, so two instances never make it twice.

use super::{Create, TournamentRow};
use crate::store::sql::{FromRow, Row};
use crate::store::writer::Change;
use crate::store::{Conn, Store, StoreResult};

pub(in crate::store) const SCHEDULE_TABLES: &str = "
CREATE TABLE IF NOT EXISTS tournament_schedules (
    id TEXT PRIMARY KEY,
    request TEXT NOT NULL,
    every_ms BIGINT,
    next_at BIGINT NOT NULL,
    created_by TEXT NOT NULL REFERENCES accounts (name),
    created BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS tournament_schedules_due ON tournament_schedules (next_at);
";

/// A schedule: the tournament to make (the API's creation request, as JSON, without its start),
/// how often (none: once), and the next start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduleRow {
    pub id: String,
    pub request: String,
    pub every_ms: Option<i64>,
    pub next_at: i64,
    pub created_by: String,
    pub created: i64,
}

impl FromRow for ScheduleRow {
    fn from_row(r: &Row) -> StoreResult<ScheduleRow> {
        Ok(ScheduleRow {
            id: r.text("id")?,
            request: r.text("request")?,
            every_ms: r.opt_int("every_ms")?,
            next_at: r.int("next_at")?,
            created_by: r.text("created_by")?,
            created: r.int("created")?,
        })
    }
}

struct AddSchedule(ScheduleRow);

impl Change for AddSchedule {
    type Out = ();

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<()> {
        let s = &self.0;
        c.sql().execute(
            "INSERT INTO tournament_schedules (id, request, every_ms, next_at, created_by, created)
             VALUES ($1, $2, $3, $4, $5, $6)",
            &[
                (&s.id).into(),
                (&s.request).into(),
                s.every_ms.into(),
                s.next_at.into(),
                (&s.created_by).into(),
                s.created.into(),
            ],
        )?;
        Ok(())
    }
}

struct RemoveSchedule(String);

impl Change for RemoveSchedule {
    type Out = bool;

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<bool> {
        let n = c.sql().execute(
            "DELETE FROM tournament_schedules WHERE id = $1",
            &[(&self.0).into()],
        )?;
        Ok(n == 1)
    }
}

/// Makes `tournament` for schedule `id` whose next start was `was`, and moves it to `next`
/// (none: a schedule made once is done): whether this call made it.
struct Fire {
    id: String,
    was: i64,
    next: Option<i64>,
    tournament: TournamentRow,
}

impl Change for Fire {
    type Out = bool;

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<bool> {
        let db = c.sql();
        let n = match self.next {
            Some(next) => db.execute(
                "UPDATE tournament_schedules SET next_at = $3 WHERE id = $1 AND next_at = $2",
                &[(&self.id).into(), self.was.into(), next.into()],
            )?,
            None => db.execute(
                "DELETE FROM tournament_schedules WHERE id = $1 AND next_at = $2",
                &[(&self.id).into(), self.was.into()],
            )?,
        };
        if n != 1 {
            return Ok(false);
        }
        Create(self.tournament.clone()).apply(c)?;
        Ok(true)
    }
}

/// Recurring tournaments.
impl Store {
    pub fn add_schedule(&self, s: ScheduleRow) -> StoreResult<()> {
        self.writer.call(AddSchedule(s))
    }

    /// Removes schedule `id`: whether it was there. Tournaments it made stay.
    pub fn remove_schedule(&self, id: &str) -> StoreResult<bool> {
        self.writer.call(RemoveSchedule(id.to_string()))
    }

    /// Every schedule, the next due first.
    pub fn schedules(&self) -> StoreResult<Vec<ScheduleRow>> {
        self.readers.sql(|db| {
            db.rows(
                "SELECT id, request, every_ms, next_at, created_by, created
                 FROM tournament_schedules ORDER BY next_at, id LIMIT 1000",
                &[],
            )
        })
    }

    /// Schedules whose next start is at or before `until`.
    pub fn schedules_due(&self, until: i64) -> StoreResult<Vec<ScheduleRow>> {
        self.readers.sql(|db| {
            db.rows(
                "SELECT id, request, every_ms, next_at, created_by, created
                 FROM tournament_schedules WHERE next_at <= $1 ORDER BY next_at LIMIT 100",
                &[until.into()],
            )
        })
    }

    /// Makes schedule `id`'s tournament if its next start is still `was`, moving it to `next`:
    /// whether this call made it (another instance may have first).
    pub fn fire_schedule(
        &self,
        id: &str,
        was: i64,
        next: Option<i64>,
        tournament: TournamentRow,
    ) -> StoreResult<bool> {
        self.writer.call(Fire {
            id: id.to_string(),
            was,
            next,
            tournament,
        })
    }
}
