//! Reads, on connections of their own so that they never queue behind the writer: in WAL
//! mode a reader sees the last commit while the writer is in the middle of the next (and
//! PostgreSQL's readers are connections of their own too).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};

use super::sql::Sql;
use super::{Conn, StoreError, StoreResult};

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

    /// Runs `read` on a free connection (again on a new one if the connection was lost).
    pub(super) fn with<T>(
        &self,
        mut read: impl FnMut(&mut dyn Conn) -> StoreResult<T>,
    ) -> StoreResult<T> {
        let mut conn = self.take();
        let mut out = None;
        conn.reading(&mut |c| {
            out = Some(read(c)?);
            Ok(())
        })?;
        out.ok_or_else(|| StoreError::Failed("database: a read answered nothing".to_string()))
    }

    /// Runs `read`'s statements, which both backends share, as [`Readers::with`].
    pub(super) fn sql<T>(
        &self,
        mut read: impl FnMut(&mut dyn Sql) -> StoreResult<T>,
    ) -> StoreResult<T> {
        self.with(|c| read(c.sql()))
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
