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
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::oneshot;

/// How long a hint typically keeps a worker: the default `Think::movetime` (api.rs). Used only
/// for the `Retry-After` estimate; [`EngineQueue::with_hint_time`] sets the one in use.
pub const HINT_TIME: Duration = Duration::from_millis(1500);

/// Default for the number of hints that may wait, per worker (see the module's figures).
pub const DEFAULT_WAITING_HINTS_PER_WORKER: usize = 4;

/// The default number of waiting hints for a queue with this many workers.
pub fn default_max_waiting_hints(workers: usize) -> usize {
    DEFAULT_WAITING_HINTS_PER_WORKER * workers.max(1)
}

/// What a job is for; games go first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Priority {
    /// A computer opponent's move: never refused, always before waiting hints.
    Game,
    /// A player's hint: refused when too many already wait.
    Hint,
}

/// Why a job did not give its result.
#[derive(thiserror::Error, Debug, Clone, PartialEq, Eq)]
pub enum QueueError {
    /// Too many hints wait; try again after `retry_after` (whole seconds, at least 1 s).
    #[error("the engine is busy; try again in {} s", retry_after.as_secs())]
    Full { retry_after: Duration },
    /// The queue was closed (the server is stopping); the job did not run.
    #[error("the engine is shutting down")]
    Closed,
    /// The job panicked; its worker is free again.
    #[error("the engine failed")]
    Failed,
}

/// The queue; cheap to clone (all clones share one queue).
#[derive(Clone)]
pub struct EngineQueue {
    shared: Arc<Shared>,
}

struct Shared {
    workers: usize,
    max_waiting_hints: usize,
    state: Mutex<State>,
    /// How long jobs waited for a worker, games' and hints' (`/metrics`).
    waited: [crate::histogram::Histogram; 2],
}

struct State {
    /// Workers with no job.
    idle: usize,
    /// Hints running now (bounded by `hint_workers`).
    running_hints: usize,
    /// How many workers hints may use at once: `workers` less the reserve, at least 1.
    hint_workers: usize,
    hint_time: Duration,
    games: VecDeque<Waiter>,
    hints: VecDeque<Waiter>,
    next_id: u64,
    closed: bool,
    /// The running jobs that yield to games, by when they started: their grant's id and
    /// their stop flag.
    yielding: Vec<(u64, Arc<AtomicBool>)>,
}

struct Waiter {
    id: u64,
    tx: oneshot::Sender<Grant>,
}

/// The right to use one worker; dropping it (wherever: in the job's thread, or unreceived in a
/// channel whose waiter went away) frees the worker and starts the next job.
struct Grant {
    shared: Option<Arc<Shared>>,
    priority: Priority,
    /// Set for a job that yields to games: its place in `State::yielding`.
    yields: Option<u64>,
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
    fn lock(&self) -> MutexGuard<'_, State> {
        // Nothing panics while the lock is held, but a poisoned lock must not stop the engine.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes a worker for a job of this priority: the caller holds the lock and has checked
    /// that one is free.
    fn take(self: &Arc<Shared>, st: &mut State, priority: Priority) -> Grant {
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
    fn dispatch(self: &Arc<Shared>, st: &mut State) {
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

    /// Waits for a worker.
    async fn acquire(&self, priority: Priority) -> Result<Grant, QueueError> {
        let shared = &self.shared;
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    /// A yielding job on `q` that runs until its stop flag is set: (the flag, its task, which
    /// answers how long it ran).
    async fn analysis(
        q: &EngineQueue,
    ) -> (
        Arc<AtomicBool>,
        tokio::task::JoinHandle<std::time::Duration>,
    ) {
        let stop = Arc::new(AtomicBool::new(false));
        let yielding = q.shared.lock().yielding.len();
        let (q2, flag) = (q.clone(), stop.clone());
        let task = tokio::spawn(async move {
            let watch = flag.clone();
            q2.run_yielding(flag, move || {
                let t = std::time::Instant::now();
                // A 30 s analysis, unless it is told to stop.
                while !watch.load(Ordering::Relaxed) && t.elapsed().as_secs() < 30 {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
                t.elapsed()
            })
            .await
            .unwrap()
        });
        // Registered as yielding (after its worker was granted): the order the game's move
        // stops them in.
        while q.shared.lock().yielding.len() == yielding {
            tokio::task::yield_now().await;
        }
        (stop, task)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn analyses_yield_their_workers_to_games_at_once() {
        let q = EngineQueue::new(2, 8);
        let (first, first_task) = analysis(&q).await;
        let (second, second_task) = analysis(&q).await;
        assert_eq!(q.running(), 2);
        // A computer's move that would wait stops the analysis that started first, only it.
        let asked = std::time::Instant::now();
        q.run(Priority::Game, || ()).await.unwrap();
        assert!(first.load(Ordering::Relaxed));
        assert!(
            !second.load(Ordering::Relaxed),
            "one game, one analysis stopped"
        );
        let ran = first_task.await.unwrap();
        assert!(ran.as_secs() < 30, "it stopped early ({ran:?})");
        assert!(
            asked.elapsed().as_secs() < 30,
            "the game did not wait for it"
        );
        // A hint does not stop an analysis: it waits its turn.
        let hint = {
            let q = q.clone();
            tokio::spawn(async move { q.run(Priority::Hint, || ()).await })
        };
        until_waiting(&q, (0, 0)).await;
        hint.await.unwrap().unwrap();
        assert!(!second.load(Ordering::Relaxed));
        second.store(true, Ordering::Relaxed);
        second_task.await.unwrap();
        assert_eq!(q.running(), 0);
    }

    /// Starts a Game job that holds its worker until the returned sender sends (or drops).
    async fn hold(q: &EngineQueue) -> (mpsc::Sender<()>, tokio::task::JoinHandle<()>) {
        let (tx, rx) = mpsc::channel::<()>();
        let running = q.running();
        let q2 = q.clone();
        let task = tokio::spawn(async move {
            q2.run(Priority::Game, move || {
                let _ = rx.recv();
            })
            .await
            .unwrap();
        });
        while q.running() == running {
            tokio::task::yield_now().await;
        }
        (tx, task)
    }

    async fn until_waiting(q: &EngineQueue, want: (usize, usize)) {
        while q.waiting() != want {
            tokio::task::yield_now().await;
        }
    }

    #[tokio::test]
    async fn games_overtake_waiting_hints() {
        let q = EngineQueue::new(1, 10);
        let order = Arc::new(Mutex::new(Vec::new()));
        let (release, long) = hold(&q).await;
        let mut tasks = Vec::new();
        let mut queue_one = |priority: Priority, name: String| {
            let q = q.clone();
            let order = order.clone();
            tasks.push(tokio::spawn(async move {
                q.run(priority, move || order.lock().unwrap().push(name))
                    .await
                    .unwrap();
            }));
        };
        for i in 0..5 {
            queue_one(Priority::Hint, format!("hint {i}"));
            until_waiting(&q, (0, i + 1)).await;
        }
        queue_one(Priority::Game, "game".to_string());
        until_waiting(&q, (1, 5)).await;
        release.send(()).unwrap();
        long.await.unwrap();
        for t in tasks {
            t.await.unwrap();
        }
        let order = order.lock().unwrap().clone();
        assert_eq!(
            order,
            ["game", "hint 0", "hint 1", "hint 2", "hint 3", "hint 4"]
        );
        assert_eq!(q.waiting(), (0, 0));
        assert_eq!(q.running(), 0);
    }

    #[tokio::test]
    async fn too_many_hints_are_refused_with_a_retry() {
        let q = EngineQueue::new(1, 2);
        let (release, long) = hold(&q).await;
        let mut tasks = Vec::new();
        for i in 0..2 {
            let q2 = q.clone();
            tasks.push(tokio::spawn(
                async move { q2.run(Priority::Hint, || ()).await },
            ));
            until_waiting(&q, (0, i + 1)).await;
        }
        let refused = q.run(Priority::Hint, || ()).await;
        // 2 waiting hints × 1.5 s on 1 worker.
        assert_eq!(
            refused,
            Err(QueueError::Full {
                retry_after: Duration::from_secs(3)
            })
        );
        // Games are never refused.
        let q2 = q.clone();
        let game = tokio::spawn(async move { q2.run(Priority::Game, || 7).await });
        until_waiting(&q, (1, 2)).await;
        release.send(()).unwrap();
        long.await.unwrap();
        assert_eq!(game.await.unwrap(), Ok(7));
        for t in tasks {
            assert_eq!(t.await.unwrap(), Ok(()));
        }
    }

    #[tokio::test]
    async fn retry_after_is_at_least_a_second_and_whole() {
        let q = EngineQueue::new(4, 1).with_hint_time(Duration::from_millis(100));
        let mut holds = Vec::new();
        for _ in 0..4 {
            holds.push(hold(&q).await);
        }
        let q2 = q.clone();
        let waiting = tokio::spawn(async move { q2.run(Priority::Hint, || ()).await });
        until_waiting(&q, (0, 1)).await;
        assert_eq!(
            q.run(Priority::Hint, || ()).await,
            Err(QueueError::Full {
                retry_after: Duration::from_secs(1)
            })
        );
        for (tx, task) in holds {
            tx.send(()).unwrap();
            task.await.unwrap();
        }
        assert_eq!(waiting.await.unwrap(), Ok(()));
    }

    #[tokio::test]
    async fn no_waiting_hints_still_runs_a_hint_on_a_free_worker() {
        let q = EngineQueue::new(1, 0);
        assert_eq!(q.run(Priority::Hint, || 1).await, Ok(1));
        let (release, long) = hold(&q).await;
        assert!(matches!(
            q.run(Priority::Hint, || 2).await,
            Err(QueueError::Full { .. })
        ));
        release.send(()).unwrap();
        long.await.unwrap();
    }

    #[tokio::test]
    async fn a_dropped_waiter_never_runs() {
        let q = EngineQueue::new(1, 10);
        let (release, long) = hold(&q).await;
        let ran = Arc::new(AtomicBool::new(false));
        let q2 = q.clone();
        let ran2 = ran.clone();
        let task = tokio::spawn(async move {
            q2.run(Priority::Hint, move || ran2.store(true, Ordering::SeqCst))
                .await
        });
        until_waiting(&q, (0, 1)).await;
        task.abort();
        assert!(task.await.unwrap_err().is_cancelled());
        assert_eq!(q.waiting(), (0, 0));
        release.send(()).unwrap();
        long.await.unwrap();
        // The worker is free and the next job runs; the dropped one never did.
        assert_eq!(q.run(Priority::Hint, || 3).await, Ok(3));
        assert!(!ran.load(Ordering::SeqCst));
        assert_eq!(q.running(), 0);
    }

    #[tokio::test]
    async fn a_worker_handed_to_a_waiter_that_went_away_is_freed() {
        let q = EngineQueue::new(1, 10);
        let first = q.acquire(Priority::Game).await.unwrap();
        let mut second = Box::pin(q.acquire(Priority::Hint));
        assert!(futures_util::poll!(second.as_mut()).is_pending());
        assert_eq!(q.waiting(), (0, 1));
        // The worker goes to the waiting hint, whose future is dropped before it looks.
        drop(first);
        assert_eq!((q.waiting(), q.running()), ((0, 0), 1));
        drop(second);
        assert_eq!(q.running(), 0);
        assert_eq!(q.run(Priority::Game, || 4).await, Ok(4));
    }

    #[tokio::test]
    async fn a_started_job_finishes_when_its_caller_goes() {
        let q = EngineQueue::new(1, 10);
        let (tx, rx) = mpsc::channel::<()>();
        let done = Arc::new(AtomicBool::new(false));
        let done2 = done.clone();
        let q2 = q.clone();
        let task = tokio::spawn(async move {
            q2.run(Priority::Hint, move || {
                let _ = rx.recv();
                done2.store(true, Ordering::SeqCst);
            })
            .await
        });
        while q.running() == 0 {
            tokio::task::yield_now().await;
        }
        task.abort();
        let _ = task.await;
        tx.send(()).unwrap();
        // The next job starts only once the abandoned one has finished and freed the worker.
        assert_eq!(q.run(Priority::Game, || 5).await, Ok(5));
        assert!(done.load(Ordering::SeqCst));
    }

    #[tokio::test]
    async fn a_panicking_job_frees_its_worker() {
        let q = EngineQueue::new(1, 10);
        let failed = q
            .run(Priority::Hint, || -> u8 { panic!("a test panic") })
            .await;
        assert_eq!(failed, Err(QueueError::Failed));
        assert_eq!(q.running(), 0);
        assert_eq!(q.run(Priority::Hint, || 6).await, Ok(6));
        assert_eq!(q.run(Priority::Game, || 7).await, Ok(7));
    }

    #[tokio::test]
    async fn a_reserved_worker_is_kept_for_games() {
        let q = EngineQueue::new(2, 10).reserve_for_games(1);
        let (tx, rx) = mpsc::channel::<()>();
        let q2 = q.clone();
        let hint = tokio::spawn(async move {
            q2.run(Priority::Hint, move || {
                let _ = rx.recv();
            })
            .await
        });
        while q.running() == 0 {
            tokio::task::yield_now().await;
        }
        // A second hint waits although a worker is free; a game takes that worker at once.
        let q2 = q.clone();
        let second = tokio::spawn(async move { q2.run(Priority::Hint, || 8).await });
        until_waiting(&q, (0, 1)).await;
        assert_eq!(q.run(Priority::Game, || 9).await, Ok(9));
        assert_eq!(q.waiting(), (0, 1));
        tx.send(()).unwrap();
        assert_eq!(hint.await.unwrap(), Ok(()));
        assert_eq!(second.await.unwrap(), Ok(8));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn many_jobs_some_abandoned_leave_no_worker_behind() {
        fn assert_send<F: std::future::Future + Send>(f: F) -> F {
            f
        }
        let q = EngineQueue::new(3, 20);
        let ran = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let mut tasks = Vec::new();
        for i in 0..300u64 {
            let q2 = q.clone();
            let ran = ran.clone();
            let priority = if i % 3 == 0 {
                Priority::Game
            } else {
                Priority::Hint
            };
            let task = tokio::spawn(assert_send(async move {
                q2.run(priority, move || {
                    ran.fetch_add(1, Ordering::SeqCst);
                    if i % 17 == 0 {
                        panic!("a test panic");
                    }
                    std::hint::black_box((0..10_000u64).sum::<u64>())
                })
                .await
            }));
            if i % 5 == 0 {
                task.abort();
            }
            tasks.push(task);
        }
        let mut ok = 0;
        for t in tasks {
            if let Ok(Ok(_)) = t.await {
                ok += 1;
            }
        }
        assert!(ok > 0);
        // Every worker comes back and nothing is left waiting.
        let mut free = Vec::new();
        for _ in 0..3 {
            free.push(q.acquire(Priority::Game).await.unwrap());
        }
        assert_eq!((q.running(), q.waiting()), (3, (0, 0)));
        drop(free);
        assert_eq!(q.running(), 0);
        assert!(ran.load(Ordering::SeqCst) >= ok);
    }

    #[tokio::test]
    async fn closing_refuses_and_wakes_waiters() {
        let q = EngineQueue::new(1, 10);
        let (release, long) = hold(&q).await;
        let q2 = q.clone();
        let waiting = tokio::spawn(async move { q2.run(Priority::Game, || 1).await });
        until_waiting(&q, (1, 0)).await;
        q.close();
        assert_eq!(waiting.await.unwrap(), Err(QueueError::Closed));
        assert_eq!(q.run(Priority::Hint, || 2).await, Err(QueueError::Closed));
        // The running job finishes.
        release.send(()).unwrap();
        long.await.unwrap();
        assert_eq!(q.running(), 0);
    }
}
