//! The queue's insides: its workers, the jobs waiting by priority, the running jobs that
//! yield to games; a worker's grant, and the hand-over of free workers to waiting jobs.

use std::collections::VecDeque;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::oneshot;

use super::job::Priority;

pub(super) struct Shared {
    pub(super) workers: usize,
    pub(super) max_waiting_hints: usize,
    pub(super) state: Mutex<State>,
    /// How long jobs waited for a worker, games' and hints' (`/metrics`).
    pub(super) waited: [crate::histogram::Histogram; 2],
}

pub(super) struct State {
    /// Workers with no job.
    pub(super) idle: usize,
    /// Hints running now (bounded by `hint_workers`).
    pub(super) running_hints: usize,
    /// How many workers hints may use at once: `workers` less the reserve, at least 1.
    pub(super) hint_workers: usize,
    pub(super) hint_time: Duration,
    pub(super) games: VecDeque<Waiter>,
    pub(super) hints: VecDeque<Waiter>,
    pub(super) next_id: u64,
    pub(super) closed: bool,
    /// The running jobs that yield to games, by when they started: their grant's id and
    /// their stop flag.
    pub(super) yielding: Vec<(u64, Arc<AtomicBool>)>,
}

pub(super) struct Waiter {
    pub(super) id: u64,
    pub(super) tx: oneshot::Sender<Grant>,
}

/// The right to use one worker; dropping it (wherever: in the job's thread, or unreceived in a
/// channel whose waiter went away) frees the worker and starts the next job.
pub(super) struct Grant {
    pub(super) shared: Option<Arc<Shared>>,
    pub(super) priority: Priority,
    /// Set for a job that yields to games: its place in `State::yielding`.
    pub(super) yields: Option<u64>,
}

impl Drop for Grant {
    fn drop(&mut self) {
        if let Some(shared) = self.shared.take() {
            let mut st = shared.lock();
            st.idle += 1;
            if self.priority == Priority::Hint {
                st.running_hints -= 1;
            }
            if let Some(id) = self.yields {
                st.yielding.retain(|(y, _)| *y != id);
            }
            shared.dispatch(&mut st);
        }
    }
}

impl Shared {
    pub(super) fn lock(&self) -> MutexGuard<'_, State> {
        // Nothing panics while the lock is held, but a poisoned lock must not stop the engine.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes a worker for a job of this priority: the caller holds the lock and has checked
    /// that one is free.
    pub(super) fn take(self: &Arc<Shared>, st: &mut State, priority: Priority) -> Grant {
        st.idle -= 1;
        if priority == Priority::Hint {
            st.running_hints += 1;
        }
        Grant {
            shared: Some(self.clone()),
            priority,
            yields: None,
        }
    }

    /// Hands free workers to waiting jobs, games first. Called with the lock held.
    pub(super) fn dispatch(self: &Arc<Shared>, st: &mut State) {
        while st.idle > 0 {
            let (waiter, priority) = if let Some(w) = st.games.pop_front() {
                (w, Priority::Game)
            } else if st.running_hints < st.hint_workers && !st.hints.is_empty() {
                (st.hints.pop_front().expect("not empty"), Priority::Hint)
            } else {
                break;
            };
            let grant = self.take(st, priority);
            if let Err(mut grant) = waiter.tx.send(grant) {
                // Cannot happen (a waiter leaves the queue before its receiver is dropped), but
                // if it did, give the worker back here: the lock is held, so no Drop.
                grant.shared = None;
                st.idle += 1;
                if priority == Priority::Hint {
                    st.running_hints -= 1;
                }
            }
        }
    }
}
