//! An external engine: a program speaking `docs/protocol.md` on its standard input and
//! output, started when first needed and again after it failed, and why it failed.

use std::fmt;
use std::io::{BufReader, Write};
use std::process::{Child, ChildStdin, Command as Process, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anywoli_core::{Move, PlayError, Position, Rules};
use anywoli_engine::protocol::{read_line, Base, Command, Go, Input, Reply};
use anywoli_engine::Limits;
use thiserror::Error;

/// How long an external engine may take to start (`aei` .. `aeiok`) or to get ready.
const HANDSHAKE: Duration = Duration::from_secs(10);

/// The hard limit on an external engine's answer to `go movetime MS`: five times MS and a
/// second more.
pub fn hard_limit(movetime: Duration) -> Duration {
    movetime * 5 + Duration::from_secs(1)
}

/// A move to choose: the game's start, the moves played since, and the position they reach.
#[derive(Clone, Copy)]
pub(crate) struct Turn<'a> {
    pub(crate) start: &'a Position,
    pub(crate) moves: &'a [Move],
    pub(crate) pos: &'a Position,
}

/// The engine's last error line, if it said one, as a fault's text ends with it.
#[derive(Debug, Default)]
pub(crate) struct Said(Option<String>);

impl fmt::Display for Said {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(s) => write!(f, " (after saying '{s}')"),
            None => Ok(()),
        }
    }
}

/// Why a player lost its game by fault; the text follows its side and name in the record's
/// `Termination`.
#[derive(Debug, Error)]
pub(crate) enum Fault {
    #[error("could not be started: {0}")]
    Start(std::io::Error),
    #[error("crashed: {}{}", exited(.status), words_after(.last_words))]
    Crashed {
        status: Option<ExitStatus>,
        last_words: String,
    },
    #[error("timed out: no {what} within {} ms", .limit.as_millis())]
    Timeout { what: &'static str, limit: Duration },
    #[error("refused the game: {said}")]
    Refused { said: String },
    #[error("is not running")]
    NotRunning,
    #[error("sent '{sent}', which is not a move{said}")]
    NotAMove { sent: String, said: Said },
    #[error("sent the illegal move {mv}: {source}{said}")]
    SentIllegal {
        mv: Move,
        source: PlayError,
        said: Said,
    },
    #[error("gave no move")]
    NoMove,
    #[error("played the illegal move {mv}: {source}")]
    PlayedIllegal { mv: Move, source: PlayError },
}

fn exited(status: &Option<ExitStatus>) -> String {
    match status {
        Some(st) => format!("the engine exited ({st})"),
        None => "the engine closed its output".to_string(),
    }
}

fn words_after(tail: &str) -> String {
    if tail.is_empty() {
        String::new()
    } else {
        format!(", its last words: {tail}")
    }
}

/// A running external engine.
struct Proc {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    stderr_tail: Arc<Mutex<String>>,
}

enum WaitError {
    Timeout,
    Gone,
}

impl Proc {
    fn spawn(argv: &[String]) -> Result<Proc, Fault> {
        let mut child = Process::new(&argv[0])
            .args(&argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(Fault::Start)?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let stderr = child.stderr.take().expect("piped");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            let mut buf = Vec::new();
            while let Ok(Some(input)) = read_line(&mut r, &mut buf) {
                let line = match input {
                    Input::Line(l) => l,
                    _ => String::new(),
                };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let tail = Arc::new(Mutex::new(String::new()));
        let tail2 = tail.clone();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stderr);
            let mut buf = Vec::new();
            while let Ok(Some(input)) = read_line(&mut r, &mut buf) {
                if let Input::Line(l) = input {
                    let l = l.trim();
                    if !l.is_empty() {
                        let mut t = tail2.lock().unwrap_or_else(|e| e.into_inner());
                        *t = l.chars().take(200).collect();
                    }
                }
            }
        });
        Ok(Proc {
            child,
            stdin,
            lines: rx,
            stderr_tail: tail,
        })
    }

    fn send(&mut self, command: &Command) -> Result<(), Fault> {
        writeln!(self.stdin, "{command}")
            .and_then(|()| self.stdin.flush())
            .map_err(|_| self.death())
    }

    /// Reads lines until one whose first word is `reply`'s; keeps the engine's last error line.
    fn wait_for(
        &mut self,
        reply: &Reply,
        deadline: Instant,
        said: &mut Said,
    ) -> Result<String, WaitError> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(WaitError::Timeout);
            }
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    if line.split_whitespace().next() == Some(reply.word()) {
                        return Ok(line);
                    }
                    if line.parse::<Reply>().is_ok_and(|r| r.is_error()) {
                        *said = Said(Some(line.chars().take(200).collect()));
                    }
                }
                Err(RecvTimeoutError::Timeout) => return Err(WaitError::Timeout),
                Err(RecvTimeoutError::Disconnected) => return Err(WaitError::Gone),
            }
        }
    }

    /// Why the engine stopped answering: its exit status and last words on stderr.
    fn death(&mut self) -> Fault {
        let until = Instant::now() + Duration::from_secs(1);
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(s)) => break Some(s),
                Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(5)),
                _ => break None,
            }
        };
        // Let the stderr reader catch the last line.
        std::thread::sleep(Duration::from_millis(20));
        let tail = self.stderr_tail.lock().unwrap_or_else(|e| e.into_inner());
        Fault::Crashed {
            status,
            last_words: tail.clone(),
        }
    }

    fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Asks the engine to quit (and closes its input), and kills it if it has not gone within
    /// a second.
    fn close(self) {
        let Proc {
            mut child,
            mut stdin,
            ..
        } = self;
        let _ = writeln!(stdin, "{}", Command::Quit).and_then(|()| stdin.flush());
        drop(stdin);
        let until = Instant::now() + Duration::from_secs(1);
        loop {
            match child.try_wait() {
                Ok(Some(_)) => return,
                Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(5)),
                _ => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return;
                }
            }
        }
    }
}

/// An external engine, started when first needed and again after it failed.
pub(crate) struct External {
    argv: Vec<String>,
    /// Sent once the engine has started (`setoption …`), before its first game.
    options: Vec<Command>,
    proc: Option<Proc>,
}

impl External {
    pub(crate) fn new(argv: Vec<String>) -> External {
        External::with_options(argv, Vec::new())
    }

    /// An engine told `options` (`setoption` commands) each time it starts.
    pub(crate) fn with_options(argv: Vec<String>, options: Vec<Command>) -> External {
        External {
            argv,
            options,
            proc: None,
        }
    }

    fn wait_error(&mut self, e: WaitError, what: &'static str, limit: Duration) -> Fault {
        let p = self.proc.take().expect("running");
        match e {
            WaitError::Timeout => {
                p.kill();
                Fault::Timeout { what, limit }
            }
            WaitError::Gone => {
                let mut p = p;
                let why = p.death();
                p.kill();
                why
            }
        }
    }

    /// Sends `commands` in order; the engine is dropped if it cannot take them.
    fn send(&mut self, commands: &[Command]) -> Result<(), Fault> {
        let p = self.proc.as_mut().ok_or(Fault::NotRunning)?;
        let r = commands.iter().try_for_each(|c| p.send(c));
        r.inspect_err(|_| self.fail())
    }

    /// Waits for `reply` until `limit` from now; `what` names it in a timeout.
    fn wait(
        &mut self,
        reply: &Reply,
        what: &'static str,
        limit: Duration,
        said: &mut Said,
    ) -> Result<String, Fault> {
        let p = self.proc.as_mut().expect("running");
        match p.wait_for(reply, Instant::now() + limit, said) {
            Ok(line) => Ok(line),
            Err(e) => Err(self.wait_error(e, what, limit)),
        }
    }

    pub(crate) fn new_game(&mut self, rules: Rules) -> Result<(), Fault> {
        if self.proc.is_none() {
            self.proc = Some(Proc::spawn(&self.argv)?);
            self.send(&[Command::Aei])?;
            self.wait(
                &Reply::AeiOk,
                "aeiok after aei",
                HANDSHAKE,
                &mut Said::default(),
            )?;
            let options = self.options.clone();
            self.send(&options)?;
        }
        self.send(&[Command::NewGame(rules), Command::IsReady])?;
        let mut said = Said::default();
        let what = "readyok after newgame and isready";
        self.wait(&Reply::ReadyOk, what, HANDSHAKE, &mut said)?;
        match said.0 {
            // The engine refused the rules: it cannot play this game.
            Some(said) => {
                self.fail();
                Err(Fault::Refused { said })
            }
            None => Ok(()),
        }
    }

    fn fail(&mut self) {
        if let Some(p) = self.proc.take() {
            p.kill();
        }
    }

    pub(crate) fn choose(&mut self, turn: Turn<'_>, movetime: Duration) -> Result<Move, Fault> {
        self.choose_with(turn, Go::Search(Limits::movetime(movetime)), movetime)
    }

    /// The engine's move for `turn` by `go`, which should take about `movetime`.
    pub(crate) fn choose_with(
        &mut self,
        turn: Turn<'_>,
        go: Go,
        movetime: Duration,
    ) -> Result<Move, Fault> {
        let Turn { start, moves, pos } = turn;
        let base = if *start == Position::start(start.rules()) {
            Base::StartPos
        } else {
            Base::Pos(start.to_string())
        };
        let position = Command::Position {
            base,
            moves: moves.to_vec(),
        };
        self.send(&[position, Command::Go(go)])?;
        let mut said = Said::default();
        let line = self.wait(
            &Reply::BestMove(None),
            "bestmove",
            hard_limit(movetime),
            &mut said,
        )?;
        let Ok(Reply::BestMove(Some(mv))) = line.parse::<Reply>() else {
            let sent = line.chars().take(60).collect();
            return Err(Fault::NotAMove { sent, said });
        };
        let mut check = *pos;
        match check.play(mv) {
            Ok(()) => Ok(mv),
            Err(source) => Err(Fault::SentIllegal { mv, source, said }),
        }
    }
}

impl Drop for External {
    fn drop(&mut self) {
        if let Some(p) = self.proc.take() {
            p.close();
        }
    }
}
