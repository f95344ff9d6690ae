//! Reads, on connections of their own so that they never queue behind the writer: in WAL
//! mode a reader sees the last commit while the writer is in the middle of the next.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};

use rusqlite::{Connection, OptionalExtension};

use super::{ClockRow, Conn, EngineClaim, GameRow, StoreResult};

/// A few read connections; a read takes whichever is free.
pub(super) struct Readers {
    conns: Vec<Arc<Mutex<dyn Conn>>>,
    /// Which connection to wait for when all are busy, in turn, so that waiters spread out.
    next: AtomicUsize,
}

impl Readers {
    pub(super) fn new(conns: Vec<Arc<Mutex<dyn Conn>>>) -> Readers {
        assert!(!conns.is_empty(), "a store needs a connection to read with");
        Readers {
            conns,
            next: AtomicUsize::new(0),
        }
    }

    pub(super) fn with<T>(
        &self,
        f: impl FnOnce(&mut dyn Conn) -> StoreResult<T>,
    ) -> StoreResult<T> {
        let mut conn = self.take();
        f(&mut *conn)
    }

    fn take(&self) -> MutexGuard<'_, dyn Conn + 'static> {
        // A panic while holding a lock cannot leave a half-done read behind (the transaction
        // is rolled back when dropped), so a poisoned lock is still usable.
        for c in &self.conns {
            match c.try_lock() {
                Ok(g) => return g,
                Err(TryLockError::Poisoned(p)) => return p.into_inner(),
                Err(TryLockError::WouldBlock) => {}
            }
        }
        let i = self.next.fetch_add(1, Ordering::Relaxed) % self.conns.len();
        self.conns[i].lock().unwrap_or_else(|p| p.into_inner())
    }
}

pub(super) fn load(
    conn: &mut Connection,
    id: &str,
) -> rusqlite::Result<Option<(GameRow, Vec<String>)>> {
    // One snapshot for both queries: without it a move committed between them would give a
    // game row and a move list that never existed together.
    let tx = conn.transaction()?;
    let row = tx
        .prepare_cached(
            "SELECT id, created, updated, mode, rules, seed, start, south, north,
                south_secret, north_secret, status, result, termination, rematch, tags,
                hints, invite, revision, engine_owner, engine_until, clock, clock_south,
                clock_north, clock_since, deadline, offer, south_away, north_away,
                south_account, north_account, rated, public, ratings, category
             FROM games WHERE id = ?1",
        )?
        .query_row([id], |r| {
            Ok(GameRow {
                id: r.get(0)?,
                created: r.get(1)?,
                updated: r.get(2)?,
                mode: r.get(3)?,
                rules: r.get(4)?,
                seed: r.get(5)?,
                start: r.get(6)?,
                seats: [r.get(7)?, r.get(8)?],
                secrets: [r.get(9)?, r.get(10)?],
                status: r.get(11)?,
                result: r.get(12)?,
                termination: r.get(13)?,
                rematch: r.get(14)?,
                tags: r.get(15)?,
                hints: {
                    let mode: String = r.get(3)?;
                    hints_or_default(r.get(16)?, &mode)
                },
                invite: r.get(17)?,
                revision: r.get(18)?,
                engine: claim(r.get(19)?, r.get(20)?),
                clock: clock_row(r.get(21)?, [r.get(22)?, r.get(23)?], r.get(24)?, r.get(25)?),
                offer: r.get(26)?,
                away: [r.get(27)?, r.get(28)?],
                accounts: [r.get(29)?, r.get(30)?],
                rated: r.get(31)?,
                public: r.get(32)?,
                ratings: r.get(33)?,
                category: r.get(34)?,
            })
        })
        .optional()?;
    let Some(row) = row else { return Ok(None) };
    let moves = tx
        .prepare_cached("SELECT mv FROM moves WHERE game = ?1 ORDER BY ply")?
        .query_map([id], |r| r.get::<_, String>(0))?
        .collect::<rusqlite::Result<Vec<String>>>()?;
    tx.commit()?;
    Ok(Some((row, moves)))
}

pub(super) fn ids_after(
    conn: &Connection,
    after: &str,
    limit: usize,
) -> rusqlite::Result<Vec<String>> {
    let mut st = conn.prepare_cached("SELECT id FROM games WHERE id > ?1 ORDER BY id LIMIT ?2")?;
    let rows = st.query_map(rusqlite::params![after, limit as i64], |r| r.get(0))?;
    rows.collect()
}

pub(super) fn due(conn: &Connection, now: i64, limit: usize) -> rusqlite::Result<Vec<String>> {
    let mut st = conn.prepare_cached(
        "SELECT id FROM (SELECT id FROM games WHERE engine_owner IS NOT NULL AND engine_until < ?1
                         ORDER BY engine_until LIMIT ?2)
         UNION
         SELECT id FROM (SELECT id FROM games WHERE deadline < ?1 ORDER BY deadline LIMIT ?2)",
    )?;
    let rows = st.query_map(rusqlite::params![now, limit as i64], |r| r.get(0))?;
    rows.collect()
}

/// The clocks from their columns: none without a time control.
pub(super) fn clock_row(
    control: Option<String>,
    left: [Option<i64>; 2],
    since: Option<i64>,
    deadline: Option<i64>,
) -> Option<ClockRow> {
    Some(ClockRow {
        control: control?,
        left: [left[0].unwrap_or(0), left[1].unwrap_or(0)],
        since,
        deadline,
    })
}

/// The engine claim from its two columns (both set or neither).
pub(super) fn claim(owner: Option<String>, until: Option<i64>) -> Option<EngineClaim> {
    Some(EngineClaim {
        owner: owner?,
        until: until?,
    })
}

/// Games stored before the `hints` column: friend games get none (nobody agreed to them),
/// the others keep the hints they always had.
pub(super) fn hints_or_default(stored: Option<bool>, mode: &str) -> bool {
    stored.unwrap_or(mode != "friend")
}
