//! What a `go` runs: the plan (a search, or a noisy level's choice), the thread it runs on,
//! and the [`Answer`] that sends its `info` lines and its one `bestmove`, from the search
//! thread or from the watchdog when a timed search is late.

use std::io;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anywoli_core::{Move, Position};

use super::{Output, Reply, SearchInfo};
use crate::players::LevelPlayer;
use crate::search::{Info, Limits};
use crate::timeman::grace;

/// How a `go` is answered.
pub(super) enum Plan {
    Search(Limits),
    /// A noisy level's choice (`LevelPlayer::choose`), with this movetime.
    Choose(Duration),
}

impl Plan {
    /// When the answer to a timed search read at `received` is due, grace included: a
    /// watchdog sends the best move known so far if the search has not answered by then.
    pub(super) fn due(&self, received: Instant) -> Option<Instant> {
        match self {
            Plan::Search(Limits {
                movetime: Some(t), ..
            }) => Some(received + *t + grace(*t)),
            _ => None,
        }
    }

    /// The plan with its movetime counted from `received`, when the command was read.
    pub(super) fn from(self, received: Instant) -> Plan {
        match self {
            Plan::Search(mut limits) => {
                limits.movetime = limits.movetime.map(|t| {
                    t.saturating_sub(received.elapsed())
                        .max(Duration::from_millis(1))
                });
                Plan::Search(limits)
            }
            p => p,
        }
    }
}

pub(super) struct AnswerState {
    /// The best move known: the first move of the last info line, or before any the move
    /// that captures most at once.
    pub(super) best: Option<Move>,
    /// `bestmove` has been sent.
    pub(super) sent: bool,
}

/// The answer to one `go`: sent once, by the search thread or by the watchdog, whichever
/// comes first; no info line follows it.
pub(super) struct Answer {
    pub(super) state: Mutex<AnswerState>,
    pub(super) sent: Condvar,
    /// As `state.sent`, readable without the lock.
    pub(super) done: AtomicBool,
    out: Output,
}

impl Answer {
    /// An answer not sent yet, whose best move so far is `best`.
    pub(super) fn new(best: Option<Move>, out: Output) -> Answer {
        Answer {
            state: Mutex::new(AnswerState { best, sent: false }),
            sent: Condvar::new(),
            done: AtomicBool::new(false),
            out,
        }
    }

    fn lock(&self) -> MutexGuard<'_, AnswerState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(super) fn info(&self, reply: &Reply) {
        let st = self.lock();
        if !st.sent {
            (self.out)(&reply.to_string());
        }
    }

    /// A depth's line `i`; `multi`: the search reports several lines (`MultiPV`), so the
    /// line says which it is.
    pub(super) fn searched(&self, i: &Info, multi: bool) {
        let mut st = self.lock();
        if !st.sent {
            if let (Some(&m), 1) = (i.pv.first(), i.multipv) {
                st.best = Some(m);
            }
            (self.out)(&Reply::Info(SearchInfo::of(i, multi)).to_string());
        }
    }

    /// Sends `bestmove` unless the watchdog already has; `Some(None)` is "(none)", `None`
    /// the best move known.
    pub(super) fn finish(&self, best: Option<Option<Move>>) {
        let mut st = self.lock();
        if !st.sent {
            let m = best.unwrap_or(st.best);
            self.send(&mut st, m);
        }
        self.sent.notify_all();
    }

    fn send(&self, st: &mut AnswerState, m: Option<Move>) {
        st.sent = true;
        self.done.store(true, Ordering::SeqCst);
        (self.out)(&Reply::BestMove(m).to_string());
    }

    /// Waits until `due`; if nothing was sent by then, stops the search and sends the best
    /// move known.
    pub(super) fn watch(&self, due: Instant, stop: &AtomicBool) {
        let mut st = self.lock();
        loop {
            if st.sent {
                return;
            }
            let now = Instant::now();
            if now >= due {
                break;
            }
            st = self
                .sent
                .wait_timeout(st, due - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        stop.store(true, Ordering::SeqCst);
        let m = st.best;
        self.send(&mut st, m);
    }
}

/// Starts the search thread: it runs `plan` with `player` and answers through `answer`; it
/// gives the player back when joined.
pub(super) fn spawn_search(
    mut player: LevelPlayer,
    pos: Position,
    plan: Plan,
    stop: Arc<AtomicBool>,
    answer: Arc<Answer>,
) -> io::Result<JoinHandle<LevelPlayer>> {
    std::thread::Builder::new()
        .name("anywoli-search".into())
        .spawn(move || {
            let best = catch_unwind(AssertUnwindSafe(|| {
                run_plan(&mut player, &pos, plan, &stop, &answer)
            }));
            match best {
                Ok(m) => answer.finish(Some(m)),
                Err(_) => {
                    answer.info(&Reply::error("the search failed (an internal error)"));
                    answer.finish(None);
                }
            }
            player
        })
}

/// Starts the watchdog of a search due at `due` (none if the thread cannot be started).
pub(super) fn spawn_watchdog(
    due: Instant,
    stop: Arc<AtomicBool>,
    answer: Arc<Answer>,
) -> Option<JoinHandle<()>> {
    std::thread::Builder::new()
        .name("anywoli-watchdog".into())
        .spawn(move || answer.watch(due, &stop))
        .ok()
}

/// The move that captures the most at once: an answer before any search.
pub(super) fn quick_move(pos: &Position) -> Option<Move> {
    let me = pos.to_move()?;
    pos.moves()
        .filter_map(|m| {
            let mut c = *pos;
            c.play_unchecked(m).ok()?;
            let net = (c.store(me) as i32 - pos.store(me) as i32)
                - (c.store(me.opponent()) as i32 - pos.store(me.opponent()) as i32);
            Some((net, std::cmp::Reverse(m), m))
        })
        .max()
        .map(|t| t.2)
}

fn run_plan(
    player: &mut LevelPlayer,
    pos: &Position,
    plan: Plan,
    stop: &AtomicBool,
    answer: &Answer,
) -> Option<Move> {
    match plan {
        Plan::Choose(movetime) => player.choose_until(pos, movetime, stop),
        Plan::Search(limits) => {
            let multi = player.engine_mut().multipv() > 1;
            let mut on_info = |i: &Info| answer.searched(i, multi);
            player
                .engine_mut()
                .search(pos, &limits, stop, &mut on_info)
                .best
        }
    }
}
