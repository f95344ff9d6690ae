//! The queue's order, refusals, yields and clean-up, with jobs that wait on channels.

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
