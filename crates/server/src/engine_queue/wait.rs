//! Waiting for a worker: a job is given one at once, queued by priority, or (a hint when too
//! many wait) refused with the time the waiting hints take to drain; a caller that goes away
//! leaves the queue.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::oneshot;

use super::job::{Priority, QueueError};
use super::state::{Grant, Shared, State, Waiter};

impl Shared {
    /// Waits for a worker.
    pub(super) async fn acquire(
        self: &Arc<Shared>,
        priority: Priority,
    ) -> Result<Grant, QueueError> {
        let shared = self;
        let (id, rx) = {
            let mut st = shared.lock();
            if st.closed {
                return Err(QueueError::Closed);
            }
            let free_now = st.idle > 0
                && match priority {
                    Priority::Game => st.games.is_empty(),
                    Priority::Hint => {
                        st.games.is_empty()
                            && st.hints.is_empty()
                            && st.running_hints < st.hint_workers
                    }
                };
            if free_now {
                return Ok(shared.take(&mut st, priority));
            }
            if priority == Priority::Hint && st.hints.len() >= shared.max_waiting_hints {
                return Err(QueueError::Full {
                    retry_after: retry_after(&st),
                });
            }
            let (tx, rx) = oneshot::channel();
            let id = st.next_id;
            st.next_id += 1;
            let waiter = Waiter { id, tx };
            match priority {
                Priority::Game => {
                    st.games.push_back(waiter);
                    // Each game that has to wait stops one yielding job, the oldest.
                    if !st.yielding.is_empty() {
                        let (_, stop) = st.yielding.remove(0);
                        stop.store(true, Ordering::Relaxed);
                    }
                }
                Priority::Hint => st.hints.push_back(waiter),
            }
            (id, rx)
        };
        let mut ticket = Ticket {
            shared: shared.clone(),
            id,
            priority,
            rx,
            done: false,
        };
        let result = (&mut ticket.rx).await;
        ticket.done = true;
        // The sender goes only when `close` empties the queue.
        result.map_err(|_| QueueError::Closed)
    }
}

/// `Retry-After` for a refused hint: the time the hints waiting now take to drain on the
/// workers hints may use, rounded up to whole seconds, at least 1 s.
fn retry_after(st: &State) -> Duration {
    let drain = st
        .hint_time
        .mul_f64(st.hints.len() as f64 / st.hint_workers.max(1) as f64);
    let secs = drain.as_secs() + u64::from(drain.subsec_nanos() > 0);
    Duration::from_secs(secs.max(1))
}

/// A place in the queue, held while waiting: dropping it (the caller's future was dropped)
/// takes the job out of the queue. If a worker was handed over but not yet received, the
/// grant is dropped with the receiver, after the lock is released, and frees the worker.
struct Ticket {
    shared: Arc<Shared>,
    id: u64,
    priority: Priority,
    rx: oneshot::Receiver<Grant>,
    done: bool,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let mut st = self.shared.lock();
        let queue = match self.priority {
            Priority::Game => &mut st.games,
            Priority::Hint => &mut st.hints,
        };
        if let Some(i) = queue.iter().position(|w| w.id == self.id) {
            queue.remove(i);
        }
        // The lock is released here, before `rx` (and any grant in it) is dropped.
    }
}
