//! The writer: one thread owns the write connection and commits changes in batches (group
//! commit). With `synchronous=FULL` every commit costs an fsync; a commit per change capped
//! the whole server at one game's move per fsync, however many games were being played.
//!
//! Callers send their change and wait for its answer. The thread takes whatever is waiting
//! (up to [`MAX_BATCH`]), runs it in one transaction with a savepoint around each change, so
//! that a change that fails (a move whose ply is already stored, say) undoes only itself and
//! gets its own error, then commits once and answers. A change is answered Ok only after the
//! commit that holds it has returned; if that commit fails, every change in it fails, since
//! none of them is stored. Nothing waits to fill a batch: a change arriving at an idle writer
//! is committed alone at once, and those that arrive during a commit make up the next batch,
//! so batches grow exactly as fast as fsyncs fall behind.

mod connection;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

pub(super) use connection::{Publish, SetReadOnly};

use super::{Conn, Heard, StoreError, StoreResult};

/// The most changes in one transaction: bounds how long a batch holds the write lock and how
/// long its first change waits for the fsync, whatever the queue.
pub(super) const MAX_BATCH: usize = 256;

/// A change the writer runs, and what it answers once its batch is committed. Each aggregate
/// defines its own (`games::GameOp`, `accounts::AccountOp`...): the writer runs them without
/// knowing what they change.
pub(super) trait Change: Send + 'static {
    type Out: Send + 'static;
    /// Runs the change on either backend, inside the batch's transaction.
    fn apply(&self, c: &mut dyn Conn) -> StoreResult<Self::Out>;
    /// What the other instances must hear of this change once committed, if it changed a
    /// game they may hold.
    fn heard(&self) -> Option<Heard> {
        None
    }
    /// Whether it is a setting of the connection rather than a change in a transaction: it
    /// then runs between batches, alone.
    fn between_batches(&self) -> bool {
        false
    }
}

/// A change on its way through the writer, whatever its answer's type: the queue holds
/// changes of every kind.
pub(super) trait Job: Send {
    fn between_batches(&self) -> bool;
    fn heard(&self) -> Option<Heard>;
    /// Runs the change; its answer waits for the commit.
    fn apply(&mut self, c: &mut dyn Conn) -> StoreResult<()>;
    /// Sends the answer `apply` kept (`Ok`) or the error that undid the change.
    fn answer(self: Box<Self>, outcome: StoreResult<()>);
}

/// A [`Change`] with the channel its typed answer goes to.
struct Typed<C: Change> {
    change: C,
    out: Option<C::Out>,
    reply: SyncSender<StoreResult<C::Out>>,
}

impl<C: Change> Job for Typed<C> {
    fn between_batches(&self) -> bool {
        self.change.between_batches()
    }

    fn heard(&self) -> Option<Heard> {
        self.change.heard()
    }

    fn apply(&mut self, c: &mut dyn Conn) -> StoreResult<()> {
        self.out = Some(self.change.apply(c)?);
        Ok(())
    }

    fn answer(self: Box<Self>, outcome: StoreResult<()>) {
        let Typed { out, reply, .. } = *self;
        let answer = outcome.and_then(|()| {
            out.ok_or_else(|| StoreError::Failed("database: a change was not run".to_string()))
        });
        // A caller that is gone (its thread panicked) has nobody to tell; the change stands.
        let _ = reply.send(answer);
    }
}

/// `change` as a job, and where its answer will arrive.
pub(super) fn job<C: Change>(change: C) -> (Box<dyn Job>, Receiver<StoreResult<C::Out>>) {
    let (reply, answer) = mpsc::sync_channel(1);
    let job = Typed {
        change,
        out: None,
        reply,
    };
    (Box::new(job), answer)
}

/// The handle on the writer thread that [`super::Store`] holds.
pub(super) struct Writer {
    /// `None` only while dropping: closing the channel is what tells the thread to finish.
    queue: Option<Sender<Box<dyn Job>>>,
    thread: Option<JoinHandle<()>>,
}

impl Writer {
    /// Starts the thread. `conn` is locked for each batch: it is shared with the readers only
    /// for an in-memory database, whose one connection has to do both.
    pub(super) fn start(conn: Arc<Mutex<dyn Conn>>) -> StoreResult<Writer> {
        let (queue, jobs) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("anywoli-store-writer".to_string())
            .spawn(move || run(&conn, &jobs))
            .map_err(|e| StoreError::Failed(format!("cannot start the database writer: {e}")))?;
        Ok(Writer {
            queue: Some(queue),
            thread: Some(thread),
        })
    }

    /// Sends `change` and waits until it is committed (or has failed): its answer.
    pub(super) fn call<C: Change>(&self, change: C) -> StoreResult<C::Out> {
        let (job, answer) = job(change);
        self.send(job)?;
        answer.recv().map_err(|_| {
            StoreError::Failed("the database writer stopped before answering".to_string())
        })?
    }

    pub(super) fn send(&self, job: Box<dyn Job>) -> StoreResult<()> {
        let queue = self
            .queue
            .as_ref()
            .expect("the queue is open until the writer is dropped");
        queue
            .send(job)
            .map_err(|_| StoreError::Failed("the database writer has stopped".to_string()))
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        // The thread drains the queue, then sees it closed and returns: every change sent
        // before the store was dropped is committed and answered.
        self.queue = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn run(conn: &Mutex<dyn Conn>, jobs: &Receiver<Box<dyn Job>>) {
    let mut held_over = None;
    loop {
        let first = match held_over.take() {
            Some(job) => job,
            None => match jobs.recv() {
                Ok(job) => job,
                Err(mpsc::RecvError) => return,
            },
        };
        let mut batch = vec![first];
        if !batch[0].between_batches() {
            while batch.len() < MAX_BATCH {
                match jobs.try_recv() {
                    Ok(job) if job.between_batches() => {
                        held_over = Some(job);
                        break;
                    }
                    Ok(job) => batch.push(job),
                    Err(_) => break,
                }
            }
        }
        // A panic while a batch holds the lock rolls the transaction back (below) and drops
        // the batch's replies, so its callers get an error; the lock is still usable.
        let mut guard = conn.lock().unwrap_or_else(|p| p.into_inner());
        let conn: &mut dyn Conn = &mut *guard;
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            if batch[0].between_batches() {
                let mut job = batch.pop().expect("a batch is never empty");
                let outcome = job.apply(conn);
                job.answer(outcome);
            } else {
                run_batch(conn, batch);
            }
        }));
        if outcome.is_err() && conn.in_transaction() {
            let _ = conn.exec("ROLLBACK");
        }
    }
}

/// Runs `jobs` in one transaction, each in its own savepoint, commits and answers them.
pub(super) fn run_batch(conn: &mut dyn Conn, jobs: Vec<Box<dyn Job>>) {
    let mut jobs = jobs.into_iter().peekable();
    while jobs.peek().is_some() {
        if let Err(e) = conn.begin() {
            for job in jobs {
                job.answer(Err(e.clone()));
            }
            return;
        }
        // The changes that worked, with their answers, until the commit says they stand.
        let mut done: Vec<Box<dyn Job>> = Vec::new();
        let mut changed: Vec<Heard> = Vec::new();
        let mut lost = None;
        for mut job in jobs.by_ref() {
            match in_savepoint(conn, &mut *job) {
                Ok(()) => {
                    changed.extend(job.heard());
                    done.push(job);
                }
                Err(e) => {
                    // Some errors (a full disk, an I/O error) make SQLite roll back the whole
                    // transaction, not just the statement: the changes before this one are
                    // gone too, and the rest need a new transaction.
                    if !conn.in_transaction() {
                        lost = Some(e.clone());
                    }
                    job.answer(Err(e));
                    if lost.is_some() {
                        break;
                    }
                }
            }
        }
        match lost {
            Some(cause) => {
                for job in done {
                    let msg = format!("database: rolled back with another change: {cause}");
                    let e = match cause {
                        StoreError::Unavailable(_) => StoreError::Unavailable(msg),
                        _ => StoreError::Failed(msg),
                    };
                    job.answer(Err(e));
                }
            }
            None => match conn.announce(&changed) {
                Ok(()) => commit(conn, done),
                Err(e) => {
                    if conn.in_transaction() {
                        let _ = conn.exec("ROLLBACK");
                    }
                    for job in done {
                        job.answer(Err(e.clone()));
                    }
                }
            },
        }
    }
}

fn in_savepoint(conn: &mut dyn Conn, job: &mut dyn Job) -> StoreResult<()> {
    conn.exec("SAVEPOINT op")?;
    let result = job.apply(conn).and_then(|()| conn.exec("RELEASE op"));
    if result.is_err() && conn.in_transaction() && conn.exec("ROLLBACK TO op; RELEASE op").is_err()
    {
        // The change's half cannot be undone alone, and committing it is out of the
        // question: the whole transaction goes, which the caller sees by `in_transaction`.
        let _ = conn.exec("ROLLBACK");
    }
    result
}

fn commit(conn: &mut dyn Conn, done: Vec<Box<dyn Job>>) {
    match conn.exec("COMMIT") {
        Ok(()) => {
            for job in done {
                job.answer(Ok(()));
            }
        }
        Err(e) => {
            // A failed COMMIT may leave the transaction open; nothing of it may stay.
            if conn.in_transaction() {
                let _ = conn.exec("ROLLBACK");
            }
            for job in done {
                job.answer(Err(e.clone()));
            }
        }
    }
}
