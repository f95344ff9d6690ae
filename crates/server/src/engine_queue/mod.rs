//! The engine queue: a bounded, two-level queue in front of the engine's blocking threads, so
//! that the computer's own moves come before hints and hints cannot pile up without end
//! (issue 10, finding 5: twenty clients asking for hints pushed a level-1 reply from 6 ms to
//! 15 s, because engine work waited on one first-come semaphore).
//!
//! - At most `workers` jobs run at once (one search per core), each on a blocking thread.
//! - A waiting [`Priority::Game`] job (a computer opponent's move) always starts before any
//!   waiting [`Priority::Hint`]; within a level it is first come, first served.
//! - A hint that would have to wait is refused at once with [`QueueError::Full`] when
//!   `max_waiting_hints` hints already wait; the server answers `503` with `Retry-After`.
//!   Game jobs are never refused: a computer's move must be made, and there is at most one
//!   per game at a time (the caller sees to that), so the number of games bounds them.
//! - A job whose caller goes away (the client hung up) before it starts leaves the queue and
//!   never runs; a job that has started finishes and its result is dropped.
//! - A job that panics frees its worker and gives [`QueueError::Failed`].
//! - A long job that can stop early (an analysis, up to 30 s: [`EngineQueue::run_yielding`])
//!   **yields** its worker to a game: when a computer's move must wait, the queue sets the
//!   stop flag of the running yielding job that started first, which then ends at once with
//!   what it found (issue 36: eight analyses pushed a level-8 reply to 30 s).
//!
//! # Defaults, in figures
//!
//! A hint searches for up to `Think::movetime`, 1.5 s by default ([`HINT_TIME`]); a level-1
//! computer move takes about 6 ms. On the 2-core reference machine the engine can therefore
//! give 2 hints every 1.5 s, 80 a minute, and the `n`-th waiting hint waits about
//! `n × 1.5 s / 2 = n × 0.75 s` before its own 1.5 s of thought. The first-come queue explains
//! the figure exactly: 20 hints ahead of a level-1 move are 20 × 0.75 s = 15 s.
//!
//! - **Priority** takes that 15 s to what the running jobs have left: a game move waits for the
//!   first worker to come free, at most one hint's 1.5 s (about 0.75 s on average with 2 busy
//!   workers), plus other games' moves ahead of it, whatever the number of waiting hints.
//! - **Waiting hints: [`DEFAULT_WAITING_HINTS_PER_WORKER`] = 4 per worker, 8 on 2 cores.** The
//!   last hint admitted waits 4 × 1.5 s = 6 s (8 × 0.75 s on 2 cores) and answers 7.5 s after
//!   the click: the longest we let a person look at a spinner before telling them "busy, try
//!   again". Per worker, so the wait is the same on any machine. With the per-client limit
//!   (`rate_limit`, burst 4) one address cannot fill the 8 places alone.
//! - **Retry-After** = the time the hints already waiting take to drain:
//!   `ceil(waiting × hint time / hint workers)`, in whole seconds, at least 1 s; 6 s when the
//!   8 places on 2 cores are full. Spreading retries over the drain time keeps clients that
//!   retry together from refilling the queue at once.
//! - **Reserved workers: 0 by default** ([`EngineQueue::reserve_for_games`]). Keeping one of 2
//!   workers for games makes a level-1 reply 6 ms even under a flood of hints, but halves hint
//!   capacity to 40 a minute; with priority alone the reply is already at most 1.5 s late.
//!   Worth it from 4 cores up, where it costs a quarter of the capacity or less.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub use job::{Priority, QueueError};
use state::{Grant, Shared, State};

mod job;
mod state;
#[cfg(test)]
mod tests;
mod wait;

/// How long a hint typically keeps a worker: the default `Think::movetime` (api.rs). Used only
/// for the `Retry-After` estimate; [`EngineQueue::with_hint_time`] sets the one in use.
pub const HINT_TIME: Duration = Duration::from_millis(1500);

/// Default for the number of hints that may wait, per worker (see the module's figures).
pub const DEFAULT_WAITING_HINTS_PER_WORKER: usize = 4;

/// The default number of waiting hints for a queue with this many workers.
pub fn default_max_waiting_hints(workers: usize) -> usize {
    DEFAULT_WAITING_HINTS_PER_WORKER * workers.max(1)
}

/// The queue; cheap to clone (all clones share one queue).
#[derive(Clone)]
pub struct EngineQueue {
    shared: Arc<Shared>,
}

impl EngineQueue {
    /// A queue running at most `workers` jobs at once (at least 1), refusing hints once
    /// `max_waiting_hints` wait (0: hints run only when a worker is free at once). See
    /// [`default_max_waiting_hints`].
    pub fn new(workers: usize, max_waiting_hints: usize) -> EngineQueue {
        let workers = workers.max(1);
        EngineQueue {
            shared: Arc::new(Shared {
                workers,
                max_waiting_hints,
                state: Mutex::new(State {
                    idle: workers,
                    running_hints: 0,
                    hint_workers: workers,
                    hint_time: HINT_TIME,
                    games: VecDeque::new(),
                    hints: VecDeque::new(),
                    next_id: 0,
                    closed: false,
                    yielding: Vec::new(),
                }),
                waited: Default::default(),
            }),
        }
    }

    /// Sets the typical hint time the `Retry-After` estimate uses (the server's movetime).
    pub fn with_hint_time(self, hint_time: Duration) -> EngineQueue {
        self.shared.lock().hint_time = hint_time;
        self
    }

    /// Keeps `n` workers for games only: hints use at most `workers - n`, and always at least
    /// one (with a single worker nothing can be reserved). 0 by default; see the module's
    /// figures.
    pub fn reserve_for_games(self, n: usize) -> EngineQueue {
        let workers = self.shared.workers;
        self.shared.lock().hint_workers = workers.saturating_sub(n).max(1);
        self
    }

    /// Runs `job` on a blocking thread once a worker is free: Game jobs before waiting Hint
    /// jobs, each first come first served. A hint is refused at once with
    /// [`QueueError::Full`] when it would wait and `max_waiting_hints` hints already wait.
    ///
    /// Dropping the returned future before the job starts takes it out of the queue (it never
    /// runs); once started, the job finishes and its result is dropped.
    pub async fn run<T, F>(&self, priority: Priority, job: F) -> Result<T, QueueError>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let asked = std::time::Instant::now();
        let grant = self.acquire(priority).await?;
        self.waited(priority).observe(asked.elapsed());
        on_worker(grant, job).await
    }

    /// [`run`](Self::run) for a hint-priority job that stops early when `stop` is set (an
    /// analysis): while it runs, a computer's move that has to wait for a worker sets `stop`
    /// (of the yielding job that started first), so that games never wait for it.
    pub async fn run_yielding<T, F>(&self, stop: Arc<AtomicBool>, job: F) -> Result<T, QueueError>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let asked = std::time::Instant::now();
        let mut grant = self.acquire(Priority::Hint).await?;
        self.waited(Priority::Hint).observe(asked.elapsed());
        {
            let mut st = self.shared.lock();
            let id = st.next_id;
            st.next_id += 1;
            grant.yields = Some(id);
            if st.games.is_empty() {
                st.yielding.push((id, stop));
            } else {
                // A game already waits: this job yields before it starts.
                stop.store(true, Ordering::Relaxed);
            }
        }
        on_worker(grant, job).await
    }

    /// Waits for a worker (crate::engine_queue::wait).
    async fn acquire(&self, priority: Priority) -> Result<Grant, QueueError> {
        self.shared.acquire(priority).await
    }

    /// How many jobs wait: (games, hints). For metrics and tests.
    pub fn waiting(&self) -> (usize, usize) {
        let st = self.shared.lock();
        (st.games.len(), st.hints.len())
    }

    /// How long the jobs of `priority` that started waited for a worker (0 when one was free).
    pub fn waited(&self, priority: Priority) -> &crate::histogram::Histogram {
        &self.shared.waited[usize::from(priority == Priority::Hint)]
    }

    /// How many jobs run now.
    pub fn running(&self) -> usize {
        self.shared.workers - self.shared.lock().idle
    }

    /// The number of workers.
    pub fn workers(&self) -> usize {
        self.shared.workers
    }

    /// Refuses new jobs with [`QueueError::Closed`] and gives that to every waiting one;
    /// running jobs finish.
    pub fn close(&self) {
        let (games, hints) = {
            let mut st = self.shared.lock();
            st.closed = true;
            (std::mem::take(&mut st.games), std::mem::take(&mut st.hints))
        };
        drop((games, hints));
    }
}

/// Runs `job` on a blocking thread with the worker `grant` holds, which it frees when the job
/// returns or unwinds.
async fn on_worker<T, F>(grant: Grant, job: F) -> Result<T, QueueError>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let handle = tokio::task::spawn_blocking(move || {
        let _grant = grant;
        job()
    });
    match handle.await {
        Ok(value) => Ok(value),
        Err(e) if e.is_panic() => Err(QueueError::Failed),
        // The runtime is shutting down and did not start the thread.
        Err(_) => Err(QueueError::Closed),
    }
}
