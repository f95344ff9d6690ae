//! The protocol's state machine: options, rules, position and the search that may be
//! running; each [`Command`] read is checked against that state and answered.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anywoli_core::{parse_position, PlayError, Position, PositionError, Rules};
use thiserror::Error;

use super::search_thread::{quick_move, spawn_search, spawn_watchdog, Answer, Plan};
use super::{
    Base, Command, EngineOption, Flow, Go, Input, Output, ParseError, Reply, SpinOption,
    DEFAULT_HASH_MIB, DEFAULT_LEVEL, DEFAULT_LEVEL_MOVETIME_MS, ENGINE_AUTHOR, ENGINE_NAME,
    MAX_HASH_MIB, MAX_LINE, MAX_THREADS,
};
use crate::players::{level_spec, LevelPlayer, Player};
use crate::search::MAX_MULTIPV;
use anywoli_core::Move;

/// The commands that change the state: refused while a search runs, before their words are
/// looked at.
const IDLE_ONLY: [&str; 4] = ["setoption", "newgame", "position", "go"];

/// Why a command line gets `info string error: …` and changes nothing.
#[derive(Debug, Error)]
pub enum CommandError {
    /// The line is longer than [`MAX_LINE`] bytes.
    #[error("line of {len} bytes refused: a line is at most {MAX_LINE} bytes")]
    TooLong {
        /// Its length in bytes.
        len: usize,
    },
    /// The line is not UTF-8.
    #[error("line refused: it is not UTF-8 text")]
    NotUtf8,
    /// The line is no well-formed command.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// A command that changes the state came while a search runs.
    #[error("{command} refused: a search is running (send stop, or wait for bestmove)")]
    Busy {
        /// The command word.
        command: String,
    },
    /// The transposition table of that size could not be allocated.
    #[error("setoption: Hash {mib} MiB: not that much memory")]
    NoMemory {
        /// The size asked for, in MiB.
        mib: usize,
    },
    /// The position string is not a position under the game's rules.
    #[error("position pos: {source} (rules {rules})")]
    Position {
        /// What is wrong with it.
        source: PositionError,
        /// The rules of the game (set by `newgame`).
        rules: Rules,
    },
    /// A move of `position` cannot be played.
    #[error("position: move {index} is illegal: {source}")]
    Illegal {
        /// Which move, counted from 1.
        index: usize,
        /// Why it cannot be played.
        source: PlayError,
    },
    /// The operating system refused a thread for the search.
    #[error("go: cannot start the search thread: {0}")]
    Thread(io::Error),
}

struct Running {
    stop: Arc<AtomicBool>,
    answer: Arc<Answer>,
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

fn new_player(level: u8, hash_mib: usize, threads: usize, multipv: usize) -> LevelPlayer {
    let mut p = LevelPlayer::new(level, 0, hash_mib, threads).expect("levels 1 to 10 exist");
    p.engine_mut().set_multipv(multipv);
    p
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
            .is_some_and(|r| !r.answer.done.load(Ordering::SeqCst))
    }

    fn send(&self, reply: &Reply) {
        let line = reply.to_string();
        if line.contains(['\n', '\r']) {
            (self.out)(&line.replace(['\n', '\r'], " "));
        } else {
            (self.out)(&line);
        }
    }

    fn error(&self, e: &CommandError) {
        self.send(&Reply::error(e));
    }

    /// Takes one line as [`super::read_line`] gives it.
    pub fn handle_input(&mut self, input: Input) -> Flow {
        match input {
            Input::Line(l) => self.handle(&l),
            Input::TooLong(len) => {
                self.error(&CommandError::TooLong { len });
                Flow::Continue
            }
            Input::NotUtf8 => {
                self.error(&CommandError::NotUtf8);
                Flow::Continue
            }
        }
    }

    /// Handles one command line (without its line break). Never panics; a bad command gets
    /// `info string error: …` and changes nothing.
    pub fn handle(&mut self, line: &str) -> Flow {
        let received = Instant::now();
        if line.len() > MAX_LINE {
            self.error(&CommandError::TooLong { len: line.len() });
            return Flow::Continue;
        }
        self.reap();
        let Some(word) = line.split_whitespace().next() else {
            return Flow::Continue;
        };
        let done = if self.running.is_some() && IDLE_ONLY.contains(&word) {
            Err(CommandError::Busy {
                command: word.to_string(),
            })
        } else {
            match line.parse::<Command>() {
                Ok(command) => self.run(command, received),
                Err(e) => Err(self.parse_fault(e)),
            }
        };
        match done {
            Ok(flow) => flow,
            Err(e) => {
                self.error(&e);
                Flow::Continue
            }
        }
    }

    /// The error a malformed line gets: a bad move word of `position` comes after the words
    /// before it, so a bad position string or an illegal earlier move is reported instead.
    fn parse_fault(&self, e: ParseError) -> CommandError {
        if let ParseError::Move { base, before, .. } = &e {
            if let Err(earlier) = self.play_line(base, before) {
                return earlier;
            }
        }
        CommandError::Parse(e)
    }

    fn run(&mut self, command: Command, received: Instant) -> Result<Flow, CommandError> {
        match command {
            Command::Aei => {
                self.send(&Reply::IdName(ENGINE_NAME.to_string()));
                self.send(&Reply::IdAuthor(ENGINE_AUTHOR.to_string()));
                self.send(&Reply::AeiOk);
            }
            Command::IsReady => self.send(&Reply::ReadyOk),
            Command::SetOption(option) => self.setoption(option)?,
            Command::NewGame(rules) => {
                self.rules = rules;
                self.pos = Position::start(rules);
                self.player().new_game();
            }
            Command::Position { base, moves } => self.pos = self.play_line(&base, &moves)?,
            Command::Go(go) => self.go(go, received)?,
            Command::Stop => self.stop(),
            Command::Quit => {
                self.stop();
                return Ok(Flow::Quit);
            }
            Command::Show => self.send(&Reply::InfoString(format!(
                "position {} rules {}",
                self.pos, self.rules
            ))),
            Command::Options => self.options(),
        }
        Ok(Flow::Continue)
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
            r.answer.sent.notify_all();
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
            .is_some_and(|r| r.answer.done.load(Ordering::SeqCst))
        {
            self.join();
        }
    }

    fn options(&self) {
        let spin = |name: &str, default: usize, min: usize, max: usize, value: usize| {
            Reply::Option(SpinOption {
                name: name.to_string(),
                default: default as u64,
                min: min as u64,
                max: max as u64,
                value: value as u64,
            })
        };
        let level = usize::from(self.level);
        self.send(&spin("Level", DEFAULT_LEVEL.into(), 1, 10, level));
        self.send(&spin(
            "Hash",
            DEFAULT_HASH_MIB,
            1,
            MAX_HASH_MIB,
            self.hash_mib,
        ));
        self.send(&spin("Threads", 1, 1, MAX_THREADS, self.threads));
        self.send(&spin("MultiPV", 1, 1, MAX_MULTIPV, self.multipv));
        self.send(&Reply::OptionsOk);
    }

    fn player(&mut self) -> &mut LevelPlayer {
        self.player.get_or_insert_with(|| {
            new_player(self.level, self.hash_mib, self.threads, self.multipv)
        })
    }

    fn setoption(&mut self, option: EngineOption) -> Result<(), CommandError> {
        match option {
            EngineOption::Level(level) => {
                if level != self.level {
                    self.level = level;
                    self.player = None;
                    self.player =
                        Some(new_player(level, self.hash_mib, self.threads, self.multipv));
                }
            }
            EngineOption::Hash(mib) => {
                // Ask for the memory first, so that too much is an error rather than an abort.
                let mut probe: Vec<u8> = Vec::new();
                if probe.try_reserve_exact(mib << 20).is_err() {
                    return Err(CommandError::NoMemory { mib });
                }
                drop(probe);
                self.hash_mib = mib;
                self.player().engine_mut().set_hash(mib);
            }
            EngineOption::Threads(n) => {
                self.threads = n;
                self.player().engine_mut().set_threads(n);
            }
            EngineOption::MultiPv(n) => {
                self.multipv = n;
                self.player().engine_mut().set_multipv(n);
            }
        }
        Ok(())
    }

    /// The position `base` then `moves` lead to, under the game's rules.
    fn play_line(&self, base: &Base, moves: &[Move]) -> Result<Position, CommandError> {
        let mut pos = match base {
            Base::StartPos => Position::start(self.rules),
            Base::Pos(text) => {
                parse_position(text, self.rules).map_err(|source| CommandError::Position {
                    source,
                    rules: self.rules,
                })?
            }
        };
        for (i, &mv) in moves.iter().enumerate() {
            pos.play(mv).map_err(|source| CommandError::Illegal {
                index: i + 1,
                source,
            })?;
        }
        Ok(pos)
    }

    /// How `go` is answered, and whether it is `go infinite`.
    fn plan(&self, go: Go) -> (Plan, bool) {
        match go {
            Go::Search(limits) => (Plan::Search(limits), false),
            Go::Infinite => (Plan::Search(Default::default()), true),
            Go::Level { movetime } => {
                let movetime = movetime.unwrap_or(Duration::from_millis(DEFAULT_LEVEL_MOVETIME_MS));
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
        }
    }

    fn go(&mut self, go: Go, received: Instant) -> Result<(), CommandError> {
        if self.pos.is_over() {
            self.send(&Reply::BestMove(None));
            return Ok(());
        }
        let (plan, infinite) = self.plan(go);
        // The answer is due `movetime` after the command was read.
        let due = plan.due(received);
        let plan = plan.from(received);
        let player = self
            .player
            .take()
            .unwrap_or_else(|| new_player(self.level, self.hash_mib, self.threads, self.multipv));
        let pos = self.pos;
        let stop = Arc::new(AtomicBool::new(false));
        let answer = Arc::new(Answer::new(quick_move(&pos), self.out.clone()));
        let handle = spawn_search(player, pos, plan, stop.clone(), answer.clone())
            .map_err(CommandError::Thread)?;
        let watchdog = due.and_then(|due| spawn_watchdog(due, stop.clone(), answer.clone()));
        self.running = Some(Running {
            stop,
            answer,
            infinite,
            handle,
            watchdog,
        });
        Ok(())
    }
}
