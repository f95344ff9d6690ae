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

use rusqlite::{params, Connection};

use super::sql::{Lite, Sql};
use super::{
    ClockRow, Conn, EngineClaim, GameRow, Head, Heard, HeardMove, StatusRow, StoreError,
    StoreResult,
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

    /// SQLite's half of [`Conn::apply`] (PostgreSQL's is in `pg.rs`).
    pub(super) fn apply_sqlite(&self, c: &Connection) -> StoreResult<bool> {
        match self {
            Op::CreateGame { row, moves } => insert_game(c, row, moves)?,
            Op::AppendMove {
                head,
                ply,
                mv,
                status,
            } => {
                touch(c, head)?;
                set_status(c, head, status)?;
                c.prepare_cached("INSERT INTO moves (game, ply, mv, at) VALUES (?1, ?2, ?3, ?4)")?
                    .execute(params![head.id, ply, mv, head.at])?;
            }
            Op::TruncateMoves { head, keep } => {
                touch(c, head)?;
                c.prepare_cached("DELETE FROM moves WHERE game = ?1 AND ply > ?2")?
                    .execute(params![head.id, keep])?;
                c.prepare_cached(
                    "UPDATE games SET updated = ?2, status = 'playing', result = '*',
                        termination = NULL WHERE id = ?1",
                )?
                .execute(params![head.id, head.at])?;
            }
            Op::SetStatus { head, status } => {
                touch(c, head)?;
                set_status(c, head, status)?;
            }
            Op::Touch { head } => touch(c, head)?,
            Op::ClaimSeat {
                head,
                seat,
                secret,
                account,
            } => {
                touch(c, head)?;
                // The join's time is when the first move became due (Game::first_move_deadline).
                let sql = if *seat == 0 {
                    "UPDATE games SET south_secret = ?2, south_account = ?3, updated = ?4
                     WHERE id = ?1 AND south_secret IS NULL"
                } else {
                    "UPDATE games SET north_secret = ?2, north_account = ?3, updated = ?4
                     WHERE id = ?1 AND north_secret IS NULL"
                };
                if c.prepare_cached(sql)?
                    .execute(params![head.id, secret, account, head.at])?
                    != 1
                {
                    return Err(conflict(&head.id));
                }
            }
            Op::SetSeating {
                head,
                accounts,
                public,
            } => {
                touch(c, head)?;
                c.prepare_cached(
                    "UPDATE games SET south_account = ?2, north_account = ?3, public = ?4
                     WHERE id = ?1",
                )?
                .execute(params![head.id, accounts[0], accounts[1], public])?;
            }
            Op::Account(op) => return super::accounts::apply(&mut Lite(c), op),
            Op::SaveReview(r) => super::reviews::save(&mut Lite(c), r)?,
            Op::SavePuzzle(p) => return super::puzzles::save(&mut Lite(c), p),
            Op::RatePuzzle { attempt, out } => {
                let r = super::puzzle_ratings::rate(&mut Lite(c), attempt, false)?;
                let rated = r.is_some();
                *out.lock().unwrap_or_else(|e| e.into_inner()) = r;
                return Ok(rated);
            }
            Op::ImportPuzzleRatings { dump, out } => {
                *out.lock().unwrap_or_else(|e| e.into_inner()) =
                    super::puzzle_ratings::import(&mut Lite(c), dump)?;
            }
            Op::LessonsDone {
                account,
                exercises,
                at,
            } => return Ok(super::lessons::record(&mut Lite(c), account, exercises, *at)? > 0),
            Op::ImportLessonProgress { rows, out } => {
                *out.lock().unwrap_or_else(|e| e.into_inner()) =
                    super::lessons::import(&mut Lite(c), rows)?;
            }
            Op::CreateRematch { head, next } => {
                touch(c, head)?;
                let linked = c
                    .prepare_cached(
                        "UPDATE games SET rematch = ?2 WHERE id = ?1 AND rematch IS NULL",
                    )?
                    .execute(params![head.id, next.id])?;
                if linked != 1 {
                    return Err(conflict(&head.id));
                }
                insert_game(c, next, &[])?;
            }
            Op::ClaimEngine {
                id,
                expect,
                claim,
                now,
            } => {
                let granted = c
                    .prepare_cached(
                        "UPDATE games SET engine_owner = ?3, engine_until = ?4
                         WHERE id = ?1 AND revision = ?2
                           AND (engine_owner IS NULL OR engine_until < ?5 OR engine_owner = ?3)",
                    )?
                    .execute(params![id, expect, claim.owner, claim.until, now])?;
                return Ok(granted == 1);
            }
            Op::SetReadOnly(on) => c.pragma_update(None, "query_only", on)?,
            // One process uses a SQLite file: no other lobby to tell.
            Op::Publish { .. } => {}
            #[cfg(test)]
            Op::Sql(sql) => c.execute_batch(sql)?,
            #[cfg(test)]
            Op::Hold { .. } => unreachable!("writer::apply runs a Hold itself"),
        }
        Ok(true)
    }
}

/// The refusal of a change checked against a revision the game has left.
pub(super) fn conflict(id: &str) -> StoreError {
    StoreError::Conflict { id: id.to_string() }
}

/// Moves the game to its next revision, with who owes the engine's reply after the change; a
/// [`StoreError::Conflict`] if it is no longer at the revision the change was checked against.
fn touch(c: &Connection, head: &Head) -> StoreResult<()> {
    let (owner, until) = claim_columns(head.engine.as_ref());
    let (south, north, since, deadline) = clock_columns(head.clock.as_ref());
    let n = c
        .prepare_cached(
            "UPDATE games SET revision = revision + 1, engine_owner = ?3, engine_until = ?4,
                clock_south = ?5, clock_north = ?6, clock_since = ?7, deadline = ?8, offer = ?9,
                south_away = ?10, north_away = ?11
             WHERE id = ?1 AND revision = ?2",
        )?
        .execute(params![
            head.id,
            head.expect,
            owner,
            until,
            south,
            north,
            since,
            deadline,
            head.offer,
            head.away[0],
            head.away[1]
        ])?;
    if n == 1 {
        Ok(())
    } else {
        Err(conflict(&head.id))
    }
}

fn set_status(c: &Connection, head: &Head, s: &StatusRow) -> StoreResult<()> {
    c.prepare_cached(
        "UPDATE games SET updated = ?2, status = ?3, result = ?4, termination = ?5 WHERE id = ?1",
    )?
    .execute(params![head.id, head.at, s.status, s.result, s.termination])?;
    if let Some(rate) = &s.rate {
        let start: Option<String> = c
            .prepare_cached("SELECT ratings FROM games WHERE id = ?1")?
            .query_row([&head.id], |r| r.get(0))?;
        super::accounts::rate(
            &mut Lite(c),
            &head.id,
            head.at,
            start.as_deref(),
            rate,
            false,
        )?;
    }
    Ok(())
}

/// `clock_south`, `clock_north`, `clock_since` and `deadline` as stored.
pub(super) fn clock_columns(
    c: Option<&ClockRow>,
) -> (Option<i64>, Option<i64>, Option<i64>, Option<i64>) {
    match c {
        Some(c) => (Some(c.left[0]), Some(c.left[1]), c.since, c.deadline),
        None => (None, None, None, None),
    }
}

/// `engine_owner` and `engine_until` as stored.
pub(super) fn claim_columns(c: Option<&EngineClaim>) -> (Option<&str>, Option<i64>) {
    (c.map(|c| c.owner.as_str()), c.map(|c| c.until))
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
        op => c.apply(op),
    }
}

fn insert_game(c: &Connection, g: &GameRow, moves: &[String]) -> rusqlite::Result<()> {
    let (owner, until) = claim_columns(g.engine.as_ref());
    let (south, north, since, deadline) = clock_columns(g.clock.as_ref());
    let control = g.clock.as_ref().map(|c| c.control.as_str());
    c.prepare_cached(
        "INSERT INTO games (id, created, updated, mode, rules, seed, start, south, north,
            south_secret, north_secret, status, result, termination, rematch, tags, hints, invite,
            revision, engine_owner, engine_until, clock, clock_south, clock_north, clock_since,
            deadline, offer, south_away, north_away, south_account, north_account, rated, public,
            ratings, category)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,
            ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34, ?35)",
    )?
    .execute(params![
        g.id,
        g.created,
        g.updated,
        g.mode,
        g.rules,
        g.seed,
        g.start,
        g.seats[0],
        g.seats[1],
        g.secrets[0],
        g.secrets[1],
        g.status,
        g.result,
        g.termination,
        g.rematch,
        g.tags,
        g.hints,
        g.invite,
        g.revision,
        owner,
        until,
        control,
        south,
        north,
        since,
        deadline,
        g.offer,
        g.away[0],
        g.away[1],
        g.accounts[0],
        g.accounts[1],
        g.rated,
        g.public,
        g.ratings,
        g.category
    ])?;
    let mut ins =
        c.prepare_cached("INSERT INTO moves (game, ply, mv, at) VALUES (?1, ?2, ?3, ?4)")?;
    for (i, mv) in moves.iter().enumerate() {
        ins.execute(params![g.id, i as i64 + 1, mv, g.created])?;
    }
    Ok(())
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

/// SQLite's side of [`Conn`]: the writer's statements above, the reads in `read.rs`.
impl Conn for Connection {
    fn begin(&mut self) -> StoreResult<()> {
        Ok(self.execute_batch("BEGIN IMMEDIATE")?)
    }

    fn exec(&mut self, sql: &str) -> StoreResult<()> {
        Ok(self.execute_batch(sql)?)
    }

    fn in_transaction(&self) -> bool {
        !self.is_autocommit()
    }

    fn apply(&mut self, op: &Op) -> StoreResult<bool> {
        op.apply_sqlite(self)
    }

    fn sql(&mut self) -> Box<dyn Sql + '_> {
        Box::new(Lite(self))
    }

    fn load(&mut self, id: &str) -> StoreResult<Option<(GameRow, Vec<String>)>> {
        Ok(super::read::load(self, id)?)
    }

    fn ids_after(&mut self, after: &str, limit: usize) -> StoreResult<Vec<String>> {
        Ok(super::read::ids_after(self, after, limit)?)
    }

    fn due(&mut self, now: i64, limit: usize) -> StoreResult<Vec<String>> {
        Ok(super::read::due(self, now, limit)?)
    }
}
