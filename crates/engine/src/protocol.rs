//! The engine's line protocol (AEI, like UCI for chess), specified in `docs/protocol.md`.
//!
//! [`Protocol`] is a state machine with no I/O of its own: [`Protocol::handle`] takes one
//! command line and every answer line goes out through the [`Output`] callback, from the
//! caller's thread or, for `go`, from the search thread. A search runs on a thread of its own,
//! so `stop`, `isready` and `quit` are read and answered while it runs; a watchdog thread sends
//! `bestmove` itself if a timed search is late. [`read_line`] reads one line of at most
//! [`MAX_LINE`] bytes from any reader, without ever holding more.

use std::io::{self, BufRead};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anywoli_core::{parse_position, Move, Position, Rules};

use crate::players::{level_spec, LevelPlayer, Player};
use crate::search::{Info, Limits, MAX_MULTIPV, MAX_PLY};

/// Longest command line accepted, in bytes (the line break not counted).
pub const MAX_LINE: usize = 64 * 1024;
/// The `Level` option at start.
pub const DEFAULT_LEVEL: u8 = 10;
/// The `Hash` option at start, in MiB.
pub const DEFAULT_HASH_MIB: usize = 16;
/// Largest `Hash`, in MiB.
pub const MAX_HASH_MIB: usize = 4096;
/// Largest `Threads`.
pub const MAX_THREADS: usize = 64;
/// The time `go level` gives level 10 (and, as a cap, level 9) unless `movetime` is given.
pub const DEFAULT_LEVEL_MOVETIME_MS: u64 = 1000;
/// Longest `movetime`: one day.
pub const MAX_MOVETIME_MS: u64 = 86_400_000;
/// What `aei` answers with `id name`.
pub const ENGINE_NAME: &str = concat!("Anywoli ", env!("CARGO_PKG_VERSION"));
/// What `aei` answers with `id author`.
pub const ENGINE_AUTHOR: &str = "the Anywoli authors";

/// Where answer lines go: one call per line, without the line break. It is called from the
/// caller's thread, the search thread and the watchdog, possibly at the same time: each call
/// must write its line whole (as a locked stdout does).
pub type Output = Arc<dyn Fn(&str) + Send + Sync>;

/// Whether to go on reading after a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    /// `quit` was read: the search (if any) has been stopped and its `bestmove` sent.
    Quit,
}

/// One line read by [`read_line`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    Line(String),
    /// A line longer than [`MAX_LINE`] bytes (its length); it was read to its end and dropped.
    TooLong(usize),
    /// A line that is not UTF-8 text.
    NotUtf8,
}

/// Reads one line (up to `\n`, a trailing `\r` removed) keeping at most [`MAX_LINE`] bytes in
/// `buf`; `None` at the end of the input. A last line without `\n` counts as a line.
pub fn read_line(r: &mut impl BufRead, buf: &mut Vec<u8>) -> io::Result<Option<Input>> {
    buf.clear();
    let mut total = 0usize;
    let mut any = false;
    loop {
        let avail = match r.fill_buf() {
            Ok(a) => a,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if avail.is_empty() {
            if !any {
                return Ok(None);
            }
            break;
        }
        any = true;
        let (chunk, used, end) = match avail.iter().position(|&b| b == b'\n') {
            Some(i) => (&avail[..i], i + 1, true),
            None => (avail, avail.len(), false),
        };
        total += chunk.len();
        if total <= MAX_LINE + 1 {
            // One byte beyond the limit is kept, so that a `\r` ending a line of exactly
            // MAX_LINE bytes does not make it too long.
            buf.extend_from_slice(chunk);
        }
        r.consume(used);
        if end {
            break;
        }
    }
    if buf.last() == Some(&b'\r') && total <= MAX_LINE + 1 {
        buf.pop();
        total -= 1;
    }
    if total > MAX_LINE {
        return Ok(Some(Input::TooLong(total)));
    }
    Ok(Some(match std::str::from_utf8(buf) {
        Ok(s) => Input::Line(s.to_string()),
        Err(_) => Input::NotUtf8,
    }))
}

/// A token as error messages show it: escaped, and cut after 32 characters.
fn shown(tok: &str) -> String {
    let mut s: String = tok.chars().take(32).collect::<String>();
    if s.len() < tok.len() {
        s.push('…');
    }
    format!("'{}'", s.escape_debug())
}

/// What a `go` asks for.
#[derive(Clone, Copy, Debug)]
enum Go {
    Limits { limits: Limits, infinite: bool },
    Level { movetime: Duration },
}

struct Running {
    stop: Arc<AtomicBool>,
    reply: Arc<Reply>,
    infinite: bool,
    handle: JoinHandle<LevelPlayer>,
    watchdog: Option<JoinHandle<()>>,
}

/// The protocol's state: options, rules, position, and the search that may be running.
pub struct Protocol {
    out: Output,
    rules: Rules,
    pos: Position,
    level: u8,
    hash_mib: usize,
    threads: usize,
    /// Lines a `go` reports (`MultiPV`).
    multipv: usize,
    /// The player (its engine does every search); away on the search thread while it runs.
    player: Option<LevelPlayer>,
    running: Option<Running>,
}

type Answer = Result<(), String>;

const COMMANDS: &str = "aei, isready, setoption, newgame, position, go, stop, quit, show, options";

fn new_player(level: u8, hash_mib: usize, threads: usize, multipv: usize) -> LevelPlayer {
    let mut p = LevelPlayer::new(level, 0, hash_mib, threads).expect("levels 1 to 10 exist");
    p.engine_mut().set_multipv(multipv);
    p
}

fn number<T: std::str::FromStr + PartialOrd + std::fmt::Display + Copy>(
    what: &str,
    tok: Option<&&str>,
    min: T,
    max: T,
    unit: &str,
) -> Result<T, String> {
    let Some(tok) = tok else {
        return Err(format!("{what} needs a number{unit} from {min} to {max}"));
    };
    match tok.parse::<T>() {
        Ok(v) if v >= min && v <= max => Ok(v),
        _ => Err(format!(
            "{what} {} is not a whole number{unit} from {min} to {max}",
            shown(tok)
        )),
    }
}

impl Protocol {
    /// A protocol at its start state: rules `anywoli`, the start position, default options.
    pub fn new(out: Output) -> Protocol {
        Protocol {
            out,
            rules: Rules::Anywoli,
            pos: Position::start(Rules::Anywoli),
            level: DEFAULT_LEVEL,
            hash_mib: DEFAULT_HASH_MIB,
            threads: 1,
            multipv: 1,
            player: Some(new_player(DEFAULT_LEVEL, DEFAULT_HASH_MIB, 1, 1)),
            running: None,
        }
    }

    /// The current position (after `position` and `newgame`).
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// Whether a search is running (its `bestmove` not yet sent).
    pub fn is_searching(&self) -> bool {
        self.running
            .as_ref()
            .is_some_and(|r| !r.reply.done.load(Ordering::SeqCst))
    }

    fn send(&self, line: &str) {
        if line.contains(['\n', '\r']) {
            (self.out)(&line.replace(['\n', '\r'], " "));
        } else {
            (self.out)(line);
        }
    }

    fn error(&self, msg: &str) {
        self.send(&format!("info string error: {msg}"));
    }

    /// Takes one line as [`read_line`] gives it.
    pub fn handle_input(&mut self, input: Input) -> Flow {
        match input {
            Input::Line(l) => self.handle(&l),
            Input::TooLong(n) => {
                self.error(&format!(
                    "line of {n} bytes refused: a line is at most {MAX_LINE} bytes"
                ));
                Flow::Continue
            }
            Input::NotUtf8 => {
                self.error("line refused: it is not UTF-8 text");
                Flow::Continue
            }
        }
    }

    /// Handles one command line (without its line break). Never panics; a bad command gets
    /// `info string error: …` and changes nothing.
    pub fn handle(&mut self, line: &str) -> Flow {
        let received = Instant::now();
        if line.len() > MAX_LINE {
            self.error(&format!(
                "line of {} bytes refused: a line is at most {MAX_LINE} bytes",
                line.len()
            ));
            return Flow::Continue;
        }
        self.reap();
        let mut toks = line.split_whitespace();
        let Some(cmd) = toks.next() else {
            return Flow::Continue;
        };
        let args: Vec<&str> = toks.collect();
        let answer = match cmd {
            "aei" => self.no_args(cmd, &args).map(|()| {
                self.send(&format!("id name {ENGINE_NAME}"));
                self.send(&format!("id author {ENGINE_AUTHOR}"));
                self.send("aeiok");
            }),
            "isready" => self.no_args(cmd, &args).map(|()| self.send("readyok")),
            "setoption" => self.idle(cmd).and_then(|()| self.setoption(&args)),
            "newgame" => self.idle(cmd).and_then(|()| self.newgame(&args)),
            "position" => self.idle(cmd).and_then(|()| self.set_position(&args)),
            "go" => self.idle(cmd).and_then(|()| self.go(&args, received)),
            "stop" => self.no_args(cmd, &args).map(|()| self.stop()),
            "quit" => {
                self.stop();
                return Flow::Quit;
            }
            "show" => self.no_args(cmd, &args).map(|()| {
                self.send(&format!(
                    "info string position {} rules {}",
                    self.pos, self.rules
                ))
            }),
            "options" => self.no_args(cmd, &args).map(|()| self.options()),
            _ => Err(format!(
                "unknown command {} (commands: {COMMANDS})",
                shown(cmd)
            )),
        };
        if let Err(e) = answer {
            self.error(&e);
        }
        Flow::Continue
    }

    /// At the end of the input: waits for a running search to end on its limits (an
    /// `infinite` one is stopped), so its `bestmove` is sent.
    pub fn finish(&mut self) {
        if let Some(r) = &self.running {
            if r.infinite {
                r.stop.store(true, Ordering::SeqCst);
            }
        }
        self.join();
    }

    /// Stops a running search and waits for its `bestmove`; nothing if none runs.
    pub fn stop(&mut self) {
        if let Some(r) = &self.running {
            r.stop.store(true, Ordering::SeqCst);
        }
        self.join();
    }

    /// Waits for a running search to end by itself.
    pub fn wait(&mut self) {
        self.join();
    }

    fn join(&mut self) {
        if let Some(r) = self.running.take() {
            match r.handle.join() {
                Ok(p) => self.player = Some(p),
                Err(_) => {
                    self.player = Some(new_player(
                        self.level,
                        self.hash_mib,
                        self.threads,
                        self.multipv,
                    ))
                }
            }
            // The search thread has answered (or the watchdog has), so the watchdog is done.
            r.reply.sent.notify_all();
            if let Some(w) = r.watchdog {
                let _ = w.join();
            }
        }
    }

    /// Joins a search that has already sent its `bestmove`.
    fn reap(&mut self) {
        if self
            .running
            .as_ref()
            .is_some_and(|r| r.reply.done.load(Ordering::SeqCst))
        {
            self.join();
        }
    }

    fn no_args(&self, cmd: &str, args: &[&str]) -> Answer {
        match args.first() {
            None => Ok(()),
            Some(t) => Err(format!("{cmd} takes no arguments, got {}", shown(t))),
        }
    }

    fn idle(&self, cmd: &str) -> Answer {
        if self.running.is_some() {
            Err(format!(
                "{cmd} refused: a search is running (send stop, or wait for bestmove)"
            ))
        } else {
            Ok(())
        }
    }

    fn options(&self) {
        self.send(&format!(
            "option name Level type spin default {DEFAULT_LEVEL} min 1 max 10 value {}",
            self.level
        ));
        self.send(&format!(
            "option name Hash type spin default {DEFAULT_HASH_MIB} min 1 max {MAX_HASH_MIB} value {}",
            self.hash_mib
        ));
        self.send(&format!(
            "option name Threads type spin default 1 min 1 max {MAX_THREADS} value {}",
            self.threads
        ));
        self.send(&format!(
            "option name MultiPV type spin default 1 min 1 max {MAX_MULTIPV} value {}",
            self.multipv
        ));
        self.send("optionsok");
    }

    fn player(&mut self) -> &mut LevelPlayer {
        self.player.get_or_insert_with(|| {
            new_player(self.level, self.hash_mib, self.threads, self.multipv)
        })
    }

    fn setoption(&mut self, args: &[&str]) -> Answer {
        const USAGE: &str = "expected setoption name NAME value VALUE";
        if args.first() != Some(&"name") {
            return Err(match args.first() {
                None => format!("setoption: {USAGE}"),
                Some(t) => format!("setoption: {} where 'name' belongs ({USAGE})", shown(t)),
            });
        }
        let Some(vi) = args.iter().position(|&t| t == "value") else {
            return Err(format!("setoption: no 'value' ({USAGE})"));
        };
        let name = args[1..vi].join(" ");
        let value = &args[vi + 1..];
        if name.is_empty() {
            return Err(format!("setoption: no option name ({USAGE})"));
        }
        if value.len() > 1 {
            return Err(format!(
                "setoption: {} after the value {}: a value is one word",
                shown(value[1]),
                shown(value[0])
            ));
        }
        let v = value.first();
        match name.to_ascii_lowercase().as_str() {
            "level" => {
                let level: u8 = number("setoption: Level value", v, 1, 10, "")?;
                if level != self.level {
                    self.level = level;
                    self.player = None;
                    self.player =
                        Some(new_player(level, self.hash_mib, self.threads, self.multipv));
                }
            }
            "hash" => {
                let mib: usize = number("setoption: Hash value", v, 1, MAX_HASH_MIB, " of MiB")?;
                // Ask for the memory first, so that too much is an error rather than an abort.
                let mut probe: Vec<u8> = Vec::new();
                if probe.try_reserve_exact(mib << 20).is_err() {
                    return Err(format!("setoption: Hash {mib} MiB: not that much memory"));
                }
                drop(probe);
                self.hash_mib = mib;
                self.player().engine_mut().set_hash(mib);
            }
            "threads" => {
                let n: usize = number("setoption: Threads value", v, 1, MAX_THREADS, "")?;
                self.threads = n;
                self.player().engine_mut().set_threads(n);
            }
            "multipv" => {
                let n: usize = number("setoption: MultiPV value", v, 1, MAX_MULTIPV, "")?;
                self.multipv = n;
                self.player().engine_mut().set_multipv(n);
            }
            _ => {
                return Err(format!(
                    "setoption: unknown option {} (options: Level, Hash, Threads, MultiPV)",
                    shown(&name)
                ))
            }
        }
        Ok(())
    }

    fn newgame(&mut self, args: &[&str]) -> Answer {
        let mut name: Option<&str> = None;
        let mut seed: Option<u64> = None;
        let mut it = args.iter();
        while let Some(&t) = it.next() {
            match t {
                "rules" if name.is_none() => {
                    name = Some(
                        *it.next()
                            .ok_or("newgame: rules needs a name (see `anywoli rules`)")?,
                    )
                }
                "seed" if seed.is_none() => {
                    seed = Some(number("newgame: seed", it.next(), 0, u64::MAX, "")?)
                }
                "rules" | "seed" => return Err(format!("newgame: {t} is given twice")),
                _ => {
                    return Err(format!(
                        "newgame: {} where 'rules NAME' or 'seed N' belongs",
                        shown(t)
                    ))
                }
            }
        }
        let rules = Rules::from_name(name.unwrap_or("anywoli"), seed.unwrap_or(0))
            .map_err(|e| format!("newgame: {e}"))?;
        if seed.is_some() && rules.seed().is_none() {
            return Err(format!(
                "newgame: seed is only for anywoli-lottery, not {rules}"
            ));
        }
        self.rules = rules;
        self.pos = Position::start(rules);
        self.player().new_game();
        Ok(())
    }

    fn set_position(&mut self, args: &[&str]) -> Answer {
        let (base, rest) = match args.first() {
            Some(&"startpos") => (Position::start(self.rules), &args[1..]),
            Some(&"pos") => {
                let n = args[1..]
                    .iter()
                    .position(|&t| t == "moves")
                    .unwrap_or(args.len() - 1);
                if n != 8 {
                    return Err(format!(
                        "position pos: a position string has 8 fields, got {n}"
                    ));
                }
                let text = args[1..=8].join(" ");
                let p = parse_position(&text, self.rules)
                    .map_err(|e| format!("position pos: {e} (rules {})", self.rules))?;
                (p, &args[9..])
            }
            Some(t) => {
                return Err(format!(
                    "position: {} where 'startpos' or 'pos' belongs",
                    shown(t)
                ))
            }
            None => return Err("position: expected 'startpos' or 'pos <position string>'".into()),
        };
        let moves = match rest.split_first() {
            None => &[][..],
            Some((&"moves", m)) => m,
            Some((t, _)) => {
                return Err(format!(
                    "position: {} after the position, where 'moves' belongs",
                    shown(t)
                ))
            }
        };
        let mut pos = base;
        for (i, tok) in moves.iter().enumerate() {
            let mv: Move = tok
                .parse()
                .map_err(|e| format!("position: move {}: {e}", i + 1))?;
            pos.play(mv)
                .map_err(|e| format!("position: move {} is illegal: {e}", i + 1))?;
        }
        self.pos = pos;
        Ok(())
    }

    fn parse_go(args: &[&str]) -> Result<Go, String> {
        let mut limits = Limits::default();
        let (mut level, mut infinite) = (false, false);
        let mut it = args.iter();
        let twice = |w: &str| format!("go: {w} is given twice");
        while let Some(&t) = it.next() {
            match t {
                "movetime" => {
                    if limits.movetime.is_some() {
                        return Err(twice(t));
                    }
                    let ms = number("go: movetime", it.next(), 1, MAX_MOVETIME_MS, " of ms")?;
                    limits.movetime = Some(Duration::from_millis(ms));
                }
                "depth" => {
                    if limits.depth.is_some() {
                        return Err(twice(t));
                    }
                    limits.depth = Some(number("go: depth", it.next(), 1, MAX_PLY as u32, "")?);
                }
                "nodes" => {
                    if limits.nodes.is_some() {
                        return Err(twice(t));
                    }
                    limits.nodes = Some(number("go: nodes", it.next(), 1, u64::MAX, "")?);
                }
                "level" | "infinite" => {
                    let flag = if t == "level" {
                        &mut level
                    } else {
                        &mut infinite
                    };
                    if *flag {
                        return Err(twice(t));
                    }
                    *flag = true;
                }
                _ => {
                    return Err(format!(
                        "go: {} is not a limit (expected movetime MS, depth D, nodes N, level or infinite)",
                        shown(t)
                    ))
                }
            }
        }
        let any_limit = limits.depth.is_some() || limits.nodes.is_some();
        if level {
            if infinite || any_limit {
                return Err(
                    "go level takes no other limit than movetime (go level [movetime MS])".into(),
                );
            }
            let movetime = limits
                .movetime
                .unwrap_or(Duration::from_millis(DEFAULT_LEVEL_MOVETIME_MS));
            return Ok(Go::Level { movetime });
        }
        if infinite {
            if any_limit || limits.movetime.is_some() {
                return Err("go infinite takes no limit".into());
            }
            return Ok(Go::Limits {
                limits,
                infinite: true,
            });
        }
        if !any_limit && limits.movetime.is_none() {
            return Err(
                "go needs a limit: movetime MS, depth D, nodes N, level or infinite".into(),
            );
        }
        Ok(Go::Limits {
            limits,
            infinite: false,
        })
    }

    fn go(&mut self, args: &[&str], received: Instant) -> Answer {
        let go = Self::parse_go(args)?;
        if self.pos.is_over() {
            self.send("bestmove (none)");
            return Ok(());
        }
        let (plan, infinite) = match go {
            Go::Limits { limits, infinite } => (Plan::Search(limits), infinite),
            Go::Level { movetime } => {
                let spec = level_spec(self.level).expect("levels 1 to 10 exist");
                let plan = match spec.limits(movetime) {
                    // As LevelPlayer::choose, with this stop flag and info lines.
                    Some(limits) => Plan::Search(limits),
                    // Noisy levels score every move at a small depth: quick, and stoppable
                    // between moves.
                    None => Plan::Choose(movetime),
                };
                (plan, false)
            }
        };
        // The answer is due `movetime` after the command was read; a watchdog sends the best
        // move known so far if the search has not answered a little after that.
        let due = match &plan {
            Plan::Search(Limits {
                movetime: Some(t), ..
            }) => Some(received + *t + (*t / 10).clamp(GRACE_MIN, GRACE_MAX)),
            _ => None,
        };
        let plan = match plan {
            Plan::Search(mut limits) => {
                limits.movetime = limits.movetime.map(|t| {
                    t.saturating_sub(received.elapsed())
                        .max(Duration::from_millis(1))
                });
                Plan::Search(limits)
            }
            p => p,
        };
        let mut player = self
            .player
            .take()
            .unwrap_or_else(|| new_player(self.level, self.hash_mib, self.threads, self.multipv));
        let pos = self.pos;
        let stop = Arc::new(AtomicBool::new(false));
        let reply = Arc::new(Reply {
            state: Mutex::new(ReplyState {
                best: quick_move(&pos),
                sent: false,
            }),
            sent: Condvar::new(),
            done: AtomicBool::new(false),
            out: self.out.clone(),
        });
        let (stop2, reply2) = (stop.clone(), reply.clone());
        let spawned = std::thread::Builder::new()
            .name("anywoli-search".into())
            .spawn(move || {
                let best = catch_unwind(AssertUnwindSafe(|| {
                    run_plan(&mut player, &pos, plan, &stop2, &reply2)
                }));
                match best {
                    Ok(m) => reply2.finish(Some(m)),
                    Err(_) => {
                        reply2.info("info string error: the search failed (an internal error)");
                        reply2.finish(None);
                    }
                }
                player
            });
        let handle = match spawned {
            Ok(h) => h,
            Err(e) => return Err(format!("go: cannot start the search thread: {e}")),
        };
        let watchdog = due.and_then(|due| {
            let (stop, reply) = (stop.clone(), reply.clone());
            std::thread::Builder::new()
                .name("anywoli-watchdog".into())
                .spawn(move || reply.watch(due, &stop))
                .ok()
        });
        self.running = Some(Running {
            stop,
            reply,
            infinite,
            handle,
            watchdog,
        });
        Ok(())
    }
}

/// The watchdog's grace after movetime: a tenth of it, within these bounds.
const GRACE_MIN: Duration = Duration::from_millis(2);
const GRACE_MAX: Duration = Duration::from_millis(20);

/// How a `go` is answered.
enum Plan {
    Search(Limits),
    /// A noisy level's choice (`LevelPlayer::choose`), with this movetime.
    Choose(Duration),
}

struct ReplyState {
    /// The best move known: the first move of the last info line, or before any the move
    /// that captures most at once.
    best: Option<Move>,
    /// `bestmove` has been sent.
    sent: bool,
}

/// The answer to one `go`: sent once, by the search thread or by the watchdog, whichever
/// comes first; no info line follows it.
struct Reply {
    state: Mutex<ReplyState>,
    sent: Condvar,
    /// As `state.sent`, readable without the lock.
    done: AtomicBool,
    out: Output,
}

impl Reply {
    fn lock(&self) -> std::sync::MutexGuard<'_, ReplyState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn info(&self, line: &str) {
        let st = self.lock();
        if !st.sent {
            (self.out)(line);
        }
    }

    /// A depth's line `i`; `multi`: the search reports several lines (`MultiPV`), so the
    /// line says which it is.
    fn searched(&self, i: &Info, multi: bool) {
        let mut st = self.lock();
        if !st.sent {
            if let (Some(&m), 1) = (i.pv.first(), i.multipv) {
                st.best = Some(m);
            }
            (self.out)(&info_line(i, multi));
        }
    }

    /// Sends `bestmove` unless the watchdog already has; `Some(None)` is "(none)", `None`
    /// the best move known.
    fn finish(&self, best: Option<Option<Move>>) {
        let mut st = self.lock();
        if !st.sent {
            let m = best.unwrap_or(st.best);
            self.send(&mut st, m);
        }
        self.sent.notify_all();
    }

    fn send(&self, st: &mut ReplyState, m: Option<Move>) {
        st.sent = true;
        self.done.store(true, Ordering::SeqCst);
        match m {
            Some(m) => (self.out)(&format!("bestmove {m}")),
            None => (self.out)("bestmove (none)"),
        }
    }

    /// Waits until `due`; if nothing was sent by then, stops the search and sends the best
    /// move known.
    fn watch(&self, due: Instant, stop: &AtomicBool) {
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

/// The move that captures the most at once: an answer before any search.
fn quick_move(pos: &Position) -> Option<Move> {
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

/// The `info` line of one completed depth: with `multi` (`MultiPV` above 1), of one of its
/// lines, which `multipv K` names.
pub fn info_line(i: &Info, multi: bool) -> String {
    let which = if multi {
        format!(" multipv {}", i.multipv)
    } else {
        String::new()
    };
    let mut s = format!(
        "info depth {}{which} score {} nodes {} nps {} time {} pv",
        i.depth,
        i.score,
        i.nodes,
        i.nps(),
        i.time.as_millis()
    );
    for m in &i.pv {
        s.push(' ');
        s.push(m.letter());
    }
    s
}

fn run_plan(
    player: &mut LevelPlayer,
    pos: &Position,
    plan: Plan,
    stop: &AtomicBool,
    reply: &Reply,
) -> Option<Move> {
    match plan {
        Plan::Choose(movetime) => player.choose_until(pos, movetime, stop),
        Plan::Search(limits) => {
            let multi = player.engine_mut().multipv() > 1;
            let mut on_info = |i: &Info| reply.searched(i, multi);
            player
                .engine_mut()
                .search(pos, &limits, stop, &mut on_info)
                .best
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn machine() -> (Protocol, Arc<Mutex<Vec<String>>>) {
        let lines = Arc::new(Mutex::new(Vec::new()));
        let sink = lines.clone();
        let out: Output = Arc::new(move |l: &str| sink.lock().unwrap().push(l.to_string()));
        (Protocol::new(out), lines)
    }

    /// Feeds `line`, waits for any search it starts, and returns what was sent.
    fn say(p: &mut Protocol, lines: &Arc<Mutex<Vec<String>>>, line: &str) -> Vec<String> {
        assert_eq!(p.handle(line), Flow::Continue, "{line}");
        p.wait();
        std::mem::take(&mut *lines.lock().unwrap())
    }

    fn error_of(p: &mut Protocol, lines: &Arc<Mutex<Vec<String>>>, line: &str) -> String {
        let got = say(p, lines, line);
        assert_eq!(got.len(), 1, "{line}: {got:?}");
        assert!(got[0].starts_with("info string error: "), "{line}: {got:?}");
        got[0].clone()
    }

    #[test]
    fn handshake_and_ready() {
        let (mut p, l) = machine();
        assert_eq!(
            say(&mut p, &l, "aei"),
            [
                format!("id name {ENGINE_NAME}"),
                format!("id author {ENGINE_AUTHOR}"),
                "aeiok".to_string()
            ]
        );
        assert_eq!(say(&mut p, &l, "isready"), ["readyok"]);
        assert_eq!(say(&mut p, &l, "   "), Vec::<String>::new());
        assert_eq!(say(&mut p, &l, "stop"), Vec::<String>::new());
    }

    #[test]
    fn go_depth_gives_one_info_per_depth_then_a_legal_bestmove() {
        let (mut p, l) = machine();
        say(&mut p, &l, "newgame rules anywoli");
        say(&mut p, &l, "position startpos moves e F");
        let got = say(&mut p, &l, "go depth 3");
        let (bestmove, infos) = got.split_last().unwrap();
        let mut depth = 0;
        for line in infos {
            let w: Vec<&str> = line.split(' ').collect();
            assert_eq!(&w[..2], ["info", "depth"], "{line}");
            let d: u32 = w[2].parse().unwrap();
            assert!(d > depth && d <= 3, "{got:?}");
            depth = d;
            assert_eq!(w[3], "score");
            w[4].parse::<i32>().unwrap();
            assert_eq!((w[5], w[7], w[9], w[11]), ("nodes", "nps", "time", "pv"));
        }
        assert_eq!(depth, 3, "{got:?}");
        let mv: Move = bestmove.strip_prefix("bestmove ").unwrap().parse().unwrap();
        let mut pos = *p.position();
        pos.play(mv).unwrap();
        // The principal line of the last depth starts with the best move and is legal.
        let pv: Vec<Move> = infos
            .last()
            .unwrap()
            .split(" pv ")
            .nth(1)
            .unwrap()
            .split(' ')
            .map(|m| m.parse().unwrap())
            .collect();
        assert_eq!(pv[0], mv);
        let mut q = *p.position();
        for m in pv {
            q.play(m).unwrap();
        }
    }

    #[test]
    fn stop_ends_a_long_search_with_a_bestmove() {
        let (mut p, l) = machine();
        assert_eq!(p.handle("go depth 60"), Flow::Continue);
        assert_eq!(p.handle("isready"), Flow::Continue);
        // isready is answered while the search runs; the search keeps running.
        assert!(l.lock().unwrap().contains(&"readyok".to_string()));
        assert!(p.is_searching());
        let e = p.handle("position startpos");
        assert_eq!(e, Flow::Continue);
        p.stop();
        assert!(!p.is_searching());
        let got = std::mem::take(&mut *l.lock().unwrap());
        assert!(got
            .iter()
            .any(|g| g == "info string error: position refused: a search is running (send stop, or wait for bestmove)"));
        let last = got.last().unwrap();
        let mv: Move = last.strip_prefix("bestmove ").unwrap().parse().unwrap();
        assert!(Position::start(Rules::Anywoli).moves().contains(mv));
        // Ready for the next search at once.
        assert!(say(&mut p, &l, "go nodes 2000")
            .last()
            .unwrap()
            .starts_with("bestmove "));
    }

    #[test]
    fn quit_stops_the_search() {
        let (mut p, l) = machine();
        p.handle("go infinite");
        assert_eq!(p.handle("quit"), Flow::Quit);
        assert!(l.lock().unwrap().last().unwrap().starts_with("bestmove "));
    }

    #[test]
    fn a_finished_game_has_no_bestmove() {
        let (mut p, l) = machine();
        let over = "0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 x 50 46 s s 0 80";
        say(&mut p, &l, &format!("position pos {over}"));
        assert_eq!(say(&mut p, &l, "go depth 3"), ["bestmove (none)"]);
        assert_eq!(say(&mut p, &l, "go level"), ["bestmove (none)"]);
    }

    #[test]
    fn go_level_plays_a_legal_move_at_every_level() {
        let (mut p, l) = machine();
        say(&mut p, &l, "position startpos moves e");
        for level in 1..=10 {
            say(&mut p, &l, &format!("setoption name Level value {level}"));
            let got = say(&mut p, &l, "go level movetime 20");
            let mv: Move = got.last().unwrap()[9..].parse().unwrap();
            assert!(p.position().moves().contains(mv), "level {level}: {got:?}");
        }
    }

    #[test]
    fn options_change_and_are_listed() {
        let (mut p, l) = machine();
        assert!(say(&mut p, &l, "setoption name Hash value 2").is_empty());
        assert!(say(&mut p, &l, "setoption name threads value 2").is_empty());
        assert!(say(&mut p, &l, "setoption name Level value 3").is_empty());
        assert!(say(&mut p, &l, "setoption name MultiPV value 3").is_empty());
        let got = say(&mut p, &l, "options");
        assert_eq!(got.len(), 5);
        assert!(got[0].ends_with("value 3"), "{got:?}");
        assert!(got[1].ends_with("value 2"), "{got:?}");
        assert!(got[2].ends_with("value 2"), "{got:?}");
        assert_eq!(
            got[3],
            format!("option name MultiPV type spin default 1 min 1 max {MAX_MULTIPV} value 3")
        );
        assert_eq!(got[4], "optionsok");
        // Three lines a depth, each named, the best first; bestmove is the first line's.
        let got = say(&mut p, &l, "go depth 3");
        let depth3: Vec<&String> = got
            .iter()
            .filter(|l| l.starts_with("info depth 3 "))
            .collect();
        assert_eq!(depth3.len(), 3, "{got:?}");
        for (k, line) in depth3.iter().enumerate() {
            assert!(
                line.starts_with(&format!("info depth 3 multipv {} score ", k + 1)),
                "{got:?}"
            );
        }
        let score = |l: &str| -> i32 { l.split(' ').nth(6).unwrap().parse().unwrap() };
        assert!(score(depth3[0]) >= score(depth3[1]) && score(depth3[1]) >= score(depth3[2]));
        let best = depth3[0]
            .split(" pv ")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap();
        assert_eq!(got.last().unwrap(), &format!("bestmove {best}"));
        assert!(say(&mut p, &l, "setoption name MultiPV value 13")[0].contains("MultiPV"));
        assert!(say(&mut p, &l, "setoption name MultiPV value 1").is_empty());
        let got = say(&mut p, &l, "go depth 2");
        assert!(got.iter().all(|l| !l.contains("multipv")), "{got:?}");
        assert!(say(&mut p, &l, "go depth 4")
            .last()
            .unwrap()
            .starts_with("bestmove "));
    }

    #[test]
    fn newgame_and_position_set_what_show_prints() {
        let (mut p, l) = machine();
        say(&mut p, &l, "newgame rules anywoli-lottery seed 7");
        assert_eq!(p.position().rules(), Rules::Lottery { seed: 7 });
        say(&mut p, &l, "position startpos moves e");
        assert_eq!(
            say(&mut p, &l, "show"),
            ["info string position 5,5,5,5,1,5,5,5,0,5,5,5/5,0,5,5,5,5,0,5,5,5,5,0 n 0 0 - - 1 1 rules anywoli-lottery"]
        );
        say(
            &mut p,
            &l,
            "position pos 5,5,5,5,1,5,5,5,0,5,5,5/5,0,5,5,5,5,0,5,5,5,5,0 n 0 0 - - 1 1 moves F",
        );
        assert_eq!(p.position().ply(), 2);
        say(&mut p, &l, "newgame");
        assert_eq!(*p.position(), Position::start(Rules::Anywoli));
    }

    #[test]
    fn every_error_names_what_is_wrong_and_changes_nothing() {
        let (mut p, l) = machine();
        say(&mut p, &l, "position startpos moves e");
        let before = *p.position();
        let cases: &[(&str, &[&str])] = &[
            ("hello", &["unknown command 'hello'"]),
            ("aei now", &["aei takes no arguments", "'now'"]),
            ("setoption", &["setoption name NAME value VALUE"]),
            ("setoption name Level", &["no 'value'"]),
            (
                "setoption name Level value 11",
                &["Level value '11'", "1 to 10"],
            ),
            ("setoption name Level value x", &["'x'"]),
            (
                "setoption name Colour value red",
                &["unknown option 'Colour'"],
            ),
            ("setoption name Hash value 0", &["Hash value '0'"]),
            ("setoption name Threads value 65", &["Threads value '65'"]),
            ("newgame rules chess", &["unknown rules 'chess'"]),
            ("newgame rules", &["rules needs a name"]),
            ("newgame seed 3", &["seed is only for anywoli-lottery"]),
            ("newgame rules anywoli-lottery seed -1", &["seed '-1'"]),
            ("newgame colour red", &["'colour'"]),
            ("position", &["'startpos' or 'pos"]),
            ("position fen x", &["'fen'"]),
            ("position startpos e", &["'e'", "'moves'"]),
            (
                "position startpos moves e Z",
                &["move 2", "'Z' is not a move"],
            ),
            (
                "position startpos moves e e",
                &["move 2 is illegal", "North's turn"],
            ),
            ("position pos 4,4/4 s 0 0", &["8 fields, got 4"]),
            (
                "position pos 4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 q 0 0 - - 0 0",
                &["to-move", "'q'"],
            ),
            ("go", &["go needs a limit"]),
            ("go depth", &["depth needs a number"]),
            ("go depth 0", &["depth '0'", "1 to 96"]),
            ("go depth 97", &["depth '97'"]),
            ("go movetime fast", &["movetime 'fast'"]),
            ("go nodes -5", &["nodes '-5'"]),
            ("go sideways", &["'sideways' is not a limit"]),
            ("go depth 3 depth 4", &["depth is given twice"]),
            ("go level depth 3", &["go level takes no other limit"]),
            ("go infinite movetime 5", &["go infinite takes no limit"]),
            ("stop now", &["stop takes no arguments"]),
        ];
        for (line, needles) in cases {
            let e = error_of(&mut p, &l, line);
            for n in *needles {
                assert!(e.contains(n), "{line}: {e} lacks {n}");
            }
            assert_eq!(*p.position(), before, "{line} changed the position");
        }
        let long = "x".repeat(MAX_LINE + 1);
        assert!(error_of(&mut p, &l, &long).contains("65537 bytes refused"));
        let odd = format!("go {}", "\u{7}".repeat(100));
        let e = error_of(&mut p, &l, &odd);
        assert!(
            e.contains("\\u{7}") && e.contains('…') && e.len() < 400,
            "{e}"
        );
        // Still answering.
        assert_eq!(say(&mut p, &l, "isready"), ["readyok"]);
    }

    #[test]
    fn the_watchdog_answers_once_with_the_best_move_known() {
        let lines = Arc::new(Mutex::new(Vec::new()));
        let sink = lines.clone();
        let pos = Position::start(Rules::Anywoli);
        let reply = Reply {
            state: Mutex::new(ReplyState {
                best: quick_move(&pos),
                sent: false,
            }),
            sent: Condvar::new(),
            done: AtomicBool::new(false),
            out: Arc::new(move |l: &str| sink.lock().unwrap().push(l.to_string())),
        };
        let info = Info {
            multipv: 1,
            depth: 4,
            score: 120,
            nodes: 900,
            time: Duration::from_millis(3),
            pv: vec!["g".parse().unwrap(), "B".parse().unwrap()],
        };
        reply.searched(&info, false);
        // Due already: the search is late.
        let stop = AtomicBool::new(false);
        reply.watch(Instant::now(), &stop);
        assert!(stop.load(Ordering::SeqCst));
        assert!(reply.done.load(Ordering::SeqCst));
        // What the search sends afterwards is dropped: one bestmove, and no info after it.
        reply.searched(&info, false);
        reply.finish(Some(Some("a".parse().unwrap())));
        assert_eq!(
            *lines.lock().unwrap(),
            [
                "info depth 4 score 120 nodes 900 nps 300000 time 3 pv g B",
                "bestmove g"
            ]
        );
        // Before any info line, the best immediate capture (here: none, so the first hole).
        assert_eq!(quick_move(&pos), Some("a".parse().unwrap()));
    }

    #[test]
    fn read_line_bounds_what_it_keeps() {
        let exact = "y".repeat(MAX_LINE);
        let text = format!(
            "aei\r\nisready\n{exact}\r\n{}\n\u{ff}x\nlast",
            "z".repeat(MAX_LINE + 1)
        );
        let mut bytes = text.into_bytes();
        let bad = bytes.iter().position(|&b| b == 0xc3).unwrap();
        bytes[bad] = 0xff; // not UTF-8
        let mut r = io::BufReader::with_capacity(1000, Cursor::new(bytes));
        let mut buf = Vec::new();
        let mut got = Vec::new();
        while let Some(i) = read_line(&mut r, &mut buf).unwrap() {
            assert!(buf.capacity() < 3 * MAX_LINE);
            got.push(i);
        }
        assert_eq!(got.len(), 6);
        assert_eq!(got[0], Input::Line("aei".into()));
        assert_eq!(got[1], Input::Line("isready".into()));
        assert_eq!(got[2], Input::Line(exact));
        assert_eq!(got[3], Input::TooLong(MAX_LINE + 1));
        assert_eq!(got[4], Input::NotUtf8);
        assert_eq!(got[5], Input::Line("last".into()));
    }
}
