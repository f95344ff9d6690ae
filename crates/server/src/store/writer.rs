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

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use super::games;
use super::sql::Sql;
use super::{
    Conn, EngineClaim, GameRow, Head, Heard, HeardMove, StatusRow, StoreError, StoreResult,
};

/// The most changes in one transaction: bounds how long a batch holds the write lock and how
/// long its first change waits for the fsync, whatever the queue.
pub(super) const MAX_BATCH: usize = 256;

/// A change to the database, owning what it writes (it crosses to the writer's thread).
pub(super) enum Op {
    CreateGame {
        row: GameRow,
        moves: Vec<String>,
    },
    AppendMove {
        head: Head,
        ply: i64,
        mv: String,
        status: StatusRow,
    },
    TruncateMoves {
        head: Head,
        keep: i64,
    },
    SetStatus {
        head: Head,
        status: StatusRow,
    },
    /// Only what the head carries changes (an offer).
    Touch {
        head: Head,
    },
    ClaimSeat {
        head: Head,
        seat: usize,
        secret: String,
        /// The account of whoever took the seat.
        account: Option<String>,
    },
    SetSeating {
        head: Head,
        accounts: [Option<String>; 2],
        public: bool,
    },
    /// Not a change of any game.
    Account(super::AccountOp),
    /// A game's review (not a change of the game).
    SaveReview(super::ReviewRow),
    /// A community puzzle (not a change of any game); answers false when its position is a
    /// puzzle already.
    SavePuzzle(super::PuzzleRow),
    /// A solver's attempt at a puzzle, rated if it is the first; the ratings go to `out`.
    RatePuzzle {
        attempt: super::Attempt,
        out: Arc<Mutex<Option<super::Rated>>>,
    },
    /// Exercises of the course an account has done (not a change of any game); answers
    /// whether any was new.
    LessonsDone {
        account: String,
        exercises: Vec<String>,
        at: i64,
    },
    /// Course progress copied from another store (`anywoli db migrate`); the rows written go
    /// to `out`.
    ImportLessonProgress {
        rows: Vec<(String, String, i64)>,
        out: Arc<Mutex<u64>>,
    },
    /// Puzzle ratings copied from another store (`anywoli db migrate`); the rows written go
    /// to `out`.
    ImportPuzzleRatings {
        dump: super::RatingsDump,
        out: Arc<Mutex<u64>>,
    },
    /// A message for the other instances' lobbies (PostgreSQL's `NOTIFY`).
    Publish {
        channel: String,
        payload: String,
    },
    CreateRematch {
        head: Head,
        next: GameRow,
    },
    /// Not a change of the game (its revision stays): who plays the engine's move.
    ClaimEngine {
        id: String,
        expect: i64,
        claim: EngineClaim,
        now: i64,
    },
    SetReadOnly(bool),
    /// Runs SQL as a change of its own, for tests that need a batch to fail in some way.
    #[cfg(test)]
    Sql(&'static str),
    /// Runs `first`, says so on `entered`, then keeps the batch's transaction open until
    /// `resume` hears from the test (or is dropped).
    #[cfg(test)]
    Hold {
        first: Box<Op>,
        entered: SyncSender<()>,
        resume: Receiver<()>,
    },
}

/// What a change answers: whether it took effect (`claim_engine`); true for the others, which
/// either take effect or fail.
pub(super) type Answer = StoreResult<bool>;

/// A change and where its answer goes.
pub(super) struct Job {
    pub(super) op: Op,
    pub(super) reply: SyncSender<Answer>,
}

impl Job {
    fn answer(self, a: Answer) {
        answer(&self.reply, a);
    }
}

fn answer(reply: &SyncSender<Answer>, a: Answer) {
    // A caller that is gone (its thread panicked) has nobody to tell; the change stands.
    let _ = reply.send(a);
}

impl Op {
    /// `PRAGMA query_only` is a setting of the connection, not a change in a transaction: it
    /// runs between batches, so the changes sent before it are committed under the old
    /// setting and those sent after it run under the new one.
    fn between_batches(&self) -> bool {
        matches!(self, Op::SetReadOnly(_))
    }

    /// What the other instances must hear of this change once committed, if it changed a
    /// game they may hold.
    pub(super) fn heard(&self) -> Option<Heard> {
        let (head, mv) = match self {
            Op::AppendMove { head, ply, mv, .. } => (
                head,
                Some(HeardMove {
                    ply: *ply,
                    mv: mv.clone(),
                    at: head.at,
                    engine: head.engine.clone(),
                    clock: head.clock.clone(),
                }),
            ),
            Op::TruncateMoves { head, .. }
            | Op::SetStatus { head, .. }
            | Op::Touch { head }
            | Op::ClaimSeat { head, .. }
            | Op::SetSeating { head, .. }
            | Op::CreateRematch { head, .. } => (head, None),
            #[cfg(test)]
            Op::Hold { first, .. } => return first.heard(),
            _ => return None,
        };
        Some(Heard {
            id: head.id.clone(),
            revision: head.expect + 1,
            mv,
        })
    }

    /// Runs the change on either backend: whether it took effect (true for the changes
    /// that either take effect or fail).
    fn apply(&self, c: &mut dyn Conn) -> StoreResult<bool> {
        match self {
            Op::CreateGame { row, moves } => games::insert_game(c.sql(), row, moves)?,
            Op::AppendMove {
                head,
                ply,
                mv,
                status,
            } => games::append_move(c, head, *ply, mv, status)?,
            Op::TruncateMoves { head, keep } => games::truncate_moves(c, head, *keep)?,
            Op::SetStatus { head, status } => games::set_status(c, head, status)?,
            Op::Touch { head } => games::touch(c, head)?,
            Op::ClaimSeat {
                head,
                seat,
                secret,
                account,
            } => games::claim_seat(c, head, *seat, secret, account.as_ref())?,
            Op::SetSeating {
                head,
                accounts,
                public,
            } => games::set_seating(c, head, accounts, *public)?,
            Op::CreateRematch { head, next } => games::create_rematch(c, head, next)?,
            Op::ClaimEngine {
                id,
                expect,
                claim,
                now,
            } => return games::claim_engine(c.sql(), id, *expect, claim, *now),
            Op::SetReadOnly(on) => c.set_read_only(*on)?,
            Op::Publish { channel, payload } => c.notify(channel, payload)?,
            #[cfg(test)]
            Op::Sql(sql) => c.exec(sql)?,
            #[cfg(test)]
            Op::Hold { .. } => unreachable!("writer::apply runs a Hold itself"),
            other => return other.apply_other(c.sql()),
        }
        Ok(true)
    }

    /// The changes that are not changes of a game, in SQL both backends share.
    fn apply_other(&self, db: &mut dyn Sql) -> StoreResult<bool> {
        match self {
            Op::Account(op) => return super::accounts::apply(db, op),
            Op::SaveReview(r) => super::reviews::save(db, r)?,
            Op::SavePuzzle(p) => return super::puzzles::save(db, p),
            Op::RatePuzzle { attempt, out } => {
                let r = super::puzzle_ratings::rate(db, attempt)?;
                let rated = r.is_some();
                *out.lock().unwrap_or_else(|e| e.into_inner()) = r;
                return Ok(rated);
            }
            Op::ImportPuzzleRatings { dump, out } => {
                *out.lock().unwrap_or_else(|e| e.into_inner()) =
                    super::puzzle_ratings::import(db, dump)?;
            }
            Op::LessonsDone {
                account,
                exercises,
                at,
            } => return Ok(super::lessons::record(db, account, exercises, *at)? > 0),
            Op::ImportLessonProgress { rows, out } => {
                *out.lock().unwrap_or_else(|e| e.into_inner()) = super::lessons::import(db, rows)?;
            }
            _ => unreachable!("Op::apply runs the changes of games itself"),
        }
        Ok(true)
    }
}

/// Runs `op` on either backend; a test's `Hold` is the same for both.
pub(super) fn apply(c: &mut dyn Conn, op: &Op) -> StoreResult<bool> {
    match op {
        #[cfg(test)]
        Op::Hold {
            first,
            entered,
            resume,
        } => {
            let took = apply(c, first)?;
            let _ = entered.send(());
            let _ = resume.recv();
            Ok(took)
        }
        op => op.apply(c),
    }
}

/// The handle on the writer thread that [`super::Store`] holds.
pub(super) struct Writer {
    /// `None` only while dropping: closing the channel is what tells the thread to finish.
    queue: Option<Sender<Job>>,
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

    /// Sends `op` and waits until it is committed (or has failed).
    pub(super) fn call(&self, op: Op) -> Answer {
        let (reply, answer) = mpsc::sync_channel(1);
        self.send(Job { op, reply })?;
        answer.recv().map_err(|_| {
            StoreError::Failed("the database writer stopped before answering".to_string())
        })?
    }

    pub(super) fn send(&self, job: Job) -> StoreResult<()> {
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

fn run(conn: &Mutex<dyn Conn>, jobs: &Receiver<Job>) {
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
        if !batch[0].op.between_batches() {
            while batch.len() < MAX_BATCH {
                match jobs.try_recv() {
                    Ok(job) if job.op.between_batches() => {
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
            if batch[0].op.between_batches() {
                let job = batch.pop().expect("a batch is never empty");
                let a = apply(conn, &job.op);
                job.answer(a);
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
pub(super) fn run_batch(conn: &mut dyn Conn, jobs: Vec<Job>) {
    let mut jobs = jobs.into_iter().peekable();
    while jobs.peek().is_some() {
        if let Err(e) = conn.begin() {
            for job in jobs {
                job.answer(Err(e.clone()));
            }
            return;
        }
        // The changes that worked, with their answers, until the commit says they stand.
        let mut done: Vec<(SyncSender<Answer>, bool)> = Vec::new();
        let mut changed: Vec<Heard> = Vec::new();
        let mut lost = None;
        for job in jobs.by_ref() {
            match in_savepoint(conn, &job.op) {
                Ok(took) => {
                    changed.extend(job.op.heard());
                    done.push((job.reply, took));
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
                for (reply, _) in done {
                    let msg = format!("database: rolled back with another change: {cause}");
                    let e = match cause {
                        StoreError::Unavailable(_) => StoreError::Unavailable(msg),
                        _ => StoreError::Failed(msg),
                    };
                    answer(&reply, Err(e));
                }
            }
            None => match conn.announce(&changed) {
                Ok(()) => commit(conn, done),
                Err(e) => {
                    if conn.in_transaction() {
                        let _ = conn.exec("ROLLBACK");
                    }
                    for (reply, _) in done {
                        answer(&reply, Err(e.clone()));
                    }
                }
            },
        }
    }
}

fn in_savepoint(conn: &mut dyn Conn, op: &Op) -> StoreResult<bool> {
    conn.exec("SAVEPOINT op")?;
    let result = apply(conn, op).and_then(|took| conn.exec("RELEASE op").map(|()| took));
    if result.is_err() && conn.in_transaction() && conn.exec("ROLLBACK TO op; RELEASE op").is_err()
    {
        // The change's half cannot be undone alone, and committing it is out of the
        // question: the whole transaction goes, which the caller sees by `in_transaction`.
        let _ = conn.exec("ROLLBACK");
    }
    result
}

fn commit(conn: &mut dyn Conn, done: Vec<(SyncSender<Answer>, bool)>) {
    match conn.exec("COMMIT") {
        Ok(()) => {
            for (reply, took) in done {
                answer(&reply, Ok(took));
            }
        }
        Err(e) => {
            // A failed COMMIT may leave the transaction open; nothing of it may stay.
            if conn.in_transaction() {
                let _ = conn.exec("ROLLBACK");
            }
            for (reply, _) in done {
                answer(&reply, Err(e.clone()));
            }
        }
    }
}
