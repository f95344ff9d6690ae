//! `anywoli match`: games between two players, built in or external programs speaking the
//! protocol of `docs/protocol.md`, with the score, the Elo difference and the game records.

use std::io::{BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anywoli_core::{Move, Position, Record, Rules, Side, QUIET_LIMIT};
use anywoli_engine::arena;
use anywoli_engine::protocol::{read_line, Input};
use anywoli_engine::{builtin, Player};

use crate::common::{CmdResult, Failure};

pub struct Options {
    pub games: usize,
    pub jobs: usize,
    pub movetime: u64,
    pub opening_plies: usize,
    /// Largest skew of an opening from the start, in seeds; `None` keeps every random opening.
    pub balance: Option<u32>,
    pub out: Option<PathBuf>,
    pub rules: String,
    pub seed: u64,
    pub hash: usize,
    pub threads: usize,
    pub players: [String; 2],
}

/// The bounds of `--threads` and `--hash`, also for a player's own `threads=` and `hash=`.
pub const MAX_THREADS: usize = 64;
pub const MAX_HASH_MIB: usize = 4096;

/// How long an external engine may take to start (`aei` .. `aeiok`) or to get ready.
const HANDSHAKE: Duration = Duration::from_secs(10);

/// The hard limit on an external engine's answer to `go movetime MS`: five times MS and a
/// second more.
pub fn hard_limit(movetime: Duration) -> Duration {
    movetime * 5 + Duration::from_secs(1)
}

#[derive(Clone, Debug)]
enum Spec {
    /// A built-in player with its own table size and threads when the spec names them
    /// (`level10:threads=2:hash=64`), else the match's `--hash` and `--threads`.
    Builtin {
        name: String,
        hash: Option<usize>,
        threads: Option<usize>,
    },
    Cmd(Vec<String>),
}

/// Splits a command line into words: white space separates, '…' and "…" quote, \ escapes.
pub fn split_command(s: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        None => return Err(format!("the quote {c} is never closed")),
                        Some(q) if q == c => break,
                        Some('\\') if c == '"' => match chars.next() {
                            Some(e) => cur.push(e),
                            None => return Err("a \\ ends the command".into()),
                        },
                        Some(q) => cur.push(q),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(e) => cur.push(e),
                    None => return Err("a \\ ends the command".into()),
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    Ok(words)
}

fn parse_spec(s: &str) -> Result<Spec, Failure> {
    if let Some(cmd) = s.strip_prefix("cmd:") {
        let argv = split_command(cmd).map_err(|e| Failure::Says(format!("player '{s}': {e}")))?;
        if argv.is_empty() {
            return Err(Failure::Says(format!(
                "player '{s}': no command after cmd: (e.g. 'cmd:target/release/anywoli engine')"
            )));
        }
        return Ok(Spec::Cmd(argv));
    }
    let mut parts = s.split(':');
    let name = parts.next().unwrap_or_default();
    if builtin(name, 0, 1, 1).is_none() {
        return Err(Failure::Says(format!(
            "unknown player '{}': expected level1..level10, greedy, random, minimax1..minimax6 or cmd:COMMAND",
            s.escape_debug()
        )));
    }
    let (mut hash, mut threads) = (None, None);
    for option in parts {
        let bad = || {
            Failure::Says(format!(
                "player '{}': option '{}' is not threads=N (1 to {MAX_THREADS}) or hash=MIB (1 to {MAX_HASH_MIB})",
                s.escape_debug(),
                option.escape_debug()
            ))
        };
        let (key, value) = option.split_once('=').ok_or_else(bad)?;
        let value: usize = value.parse().map_err(|_| bad())?;
        match key {
            "threads" if (1..=MAX_THREADS).contains(&value) => threads = Some(value),
            "hash" if (1..=MAX_HASH_MIB).contains(&value) => hash = Some(value),
            _ => return Err(bad()),
        }
    }
    Ok(Spec::Builtin {
        name: name.to_string(),
        hash,
        threads,
    })
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
    fn spawn(argv: &[String]) -> Result<Proc, String> {
        let mut child = Command::new(&argv[0])
            .args(&argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("could not be started: {e}"))?;
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

    fn send(&mut self, line: &str) -> Result<(), String> {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|_| self.death())
    }

    /// Reads lines until one whose first word is `word`; keeps the engine's last error line.
    fn wait_for(
        &mut self,
        word: &str,
        deadline: Instant,
        said: &mut Option<String>,
    ) -> Result<String, WaitError> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(WaitError::Timeout);
            }
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    if line.split_whitespace().next() == Some(word) {
                        return Ok(line);
                    }
                    if line.starts_with("info string error") {
                        *said = Some(line.chars().take(200).collect());
                    }
                }
                Err(RecvTimeoutError::Timeout) => return Err(WaitError::Timeout),
                Err(RecvTimeoutError::Disconnected) => return Err(WaitError::Gone),
            }
        }
    }

    /// Why the engine stopped answering: its exit status and last words on stderr.
    fn death(&mut self) -> String {
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
        let mut s = match status {
            Some(st) => format!("crashed: the engine exited ({st})"),
            None => "crashed: the engine closed its output".to_string(),
        };
        let tail = self.stderr_tail.lock().unwrap_or_else(|e| e.into_inner());
        if !tail.is_empty() {
            s.push_str(&format!(", its last words: {tail}"));
        }
        s
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
        let _ = writeln!(stdin, "quit").and_then(|()| stdin.flush());
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
struct External {
    argv: Vec<String>,
    proc: Option<Proc>,
}

impl External {
    fn wait_error(&mut self, e: WaitError, what: &str, limit: Duration) -> String {
        let p = self.proc.take().expect("running");
        match e {
            WaitError::Timeout => {
                p.kill();
                format!("timed out: no {what} within {} ms", limit.as_millis())
            }
            WaitError::Gone => {
                let mut p = p;
                let why = p.death();
                p.kill();
                why
            }
        }
    }

    fn new_game(&mut self, rules: Rules) -> Result<(), String> {
        if self.proc.is_none() {
            let mut p = Proc::spawn(&self.argv)?;
            let r = p.send("aei");
            self.proc = Some(p);
            r.inspect_err(|_| self.fail())?;
            let mut said = None;
            let deadline = Instant::now() + HANDSHAKE;
            let r = self
                .proc
                .as_mut()
                .expect("running")
                .wait_for("aeiok", deadline, &mut said);
            if let Err(e) = r {
                return Err(self.wait_error(e, "aeiok after aei", HANDSHAKE));
            }
        }
        let mut cmd = format!("newgame rules {}", rules.name());
        if let Some(seed) = rules.seed() {
            cmd.push_str(&format!(" seed {seed}"));
        }
        let p = self.proc.as_mut().expect("running");
        let r = p.send(&cmd).and_then(|()| p.send("isready"));
        r.inspect_err(|_| self.fail())?;
        let mut said = None;
        let deadline = Instant::now() + HANDSHAKE;
        let p = self.proc.as_mut().expect("running");
        match p.wait_for("readyok", deadline, &mut said) {
            Ok(_) => match said {
                // The engine refused the rules: it cannot play this game.
                Some(s) => {
                    self.fail();
                    Err(format!("refused the game: {s}"))
                }
                None => Ok(()),
            },
            Err(e) => Err(self.wait_error(e, "readyok after newgame and isready", HANDSHAKE)),
        }
    }

    fn fail(&mut self) {
        if let Some(p) = self.proc.take() {
            p.kill();
        }
    }

    fn choose(
        &mut self,
        start: &Position,
        moves: &[Move],
        pos: &Position,
        movetime: Duration,
    ) -> Result<Move, String> {
        let mut cmd = if *start == Position::start(start.rules()) {
            "position startpos".to_string()
        } else {
            format!("position pos {start}")
        };
        if !moves.is_empty() {
            cmd.push_str(" moves");
            for m in moves {
                cmd.push(' ');
                cmd.push(m.letter());
            }
        }
        let Some(p) = self.proc.as_mut() else {
            return Err("is not running".into());
        };
        let r = p
            .send(&cmd)
            .and_then(|()| p.send(&format!("go movetime {}", movetime.as_millis())));
        r.inspect_err(|_| self.fail())?;
        let limit = hard_limit(movetime);
        let mut said = None;
        let p = self.proc.as_mut().expect("running");
        let line = match p.wait_for("bestmove", Instant::now() + limit, &mut said) {
            Ok(l) => l,
            Err(e) => return Err(self.wait_error(e, "bestmove", limit)),
        };
        let word = line.split_whitespace().nth(1).unwrap_or("");
        let why = |what: String| match &said {
            Some(s) => format!("{what} (after saying '{s}')"),
            None => what,
        };
        let mv: Move = word.parse().map_err(|_| {
            why(format!(
                "sent '{}', which is not a move",
                line.chars().take(60).collect::<String>()
            ))
        })?;
        let mut check = *pos;
        check
            .play(mv)
            .map_err(|e| why(format!("sent the illegal move {mv}: {e}")))?;
        Ok(mv)
    }
}

impl Drop for External {
    fn drop(&mut self) {
        if let Some(p) = self.proc.take() {
            p.close();
        }
    }
}

enum Contestant {
    Builtin(Box<dyn Player>),
    External(External),
}

impl Contestant {
    fn new_game(&mut self, rules: Rules) -> Result<(), String> {
        match self {
            Contestant::Builtin(p) => {
                p.new_game();
                Ok(())
            }
            Contestant::External(e) => e.new_game(rules),
        }
    }

    fn choose(
        &mut self,
        start: &Position,
        moves: &[Move],
        pos: &Position,
        movetime: Duration,
    ) -> Result<Move, String> {
        match self {
            Contestant::Builtin(p) => p
                .choose(pos, movetime)
                .ok_or_else(|| "gave no move".to_string()),
            Contestant::External(e) => e.choose(start, moves, pos, movetime),
        }
    }
}

/// One finished game.
struct Played {
    index: usize,
    a_is_south: bool,
    record: Record,
    end: Position,
    /// Points of South: 1, ½ or 0.
    south_score: f64,
    termination: String,
}

fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as i64;
    // Days to a civil date (H. Hinnant's algorithm), UTC.
    let z = secs.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}.{m:02}.{d:02}")
}

struct Game<'a> {
    index: usize,
    start: Position,
    opening: &'a [Move],
    a_is_south: bool,
}

fn play_one(
    game: &Game<'_>,
    labels: &[String; 2],
    players: [&mut Contestant; 2],
    movetime: Duration,
    date: &str,
) -> Played {
    let [a, b] = players;
    let (south, north) = if game.a_is_south { (a, b) } else { (b, a) };
    let (south_label, north_label) = if game.a_is_south {
        (&labels[0], &labels[1])
    } else {
        (&labels[1], &labels[0])
    };
    let start = game.start;
    let mut pos = start;
    let mut moves: Vec<Move> = Vec::new();
    for &m in game.opening {
        if pos.play(m).is_ok() {
            moves.push(m);
        }
    }
    let mut failure: Option<(Side, String)> = None;
    for (side, p) in [(Side::South, &mut *south), (Side::North, &mut *north)] {
        if let Err(e) = p.new_game(start.rules()) {
            failure = Some((side, e));
            break;
        }
    }
    while failure.is_none() {
        let Some(side) = pos.to_move() else { break };
        let p: &mut Contestant = match side {
            Side::South => &mut *south,
            Side::North => &mut *north,
        };
        match p.choose(&start, &moves, &pos, movetime) {
            Ok(mv) => match pos.play(mv) {
                Ok(()) => moves.push(mv),
                Err(e) => failure = Some((side, format!("played the illegal move {mv}: {e}"))),
            },
            Err(e) => failure = Some((side, e)),
        }
    }
    let (south_score, result, termination) = match &failure {
        Some((side, why)) => {
            let label = match side {
                Side::South => south_label,
                Side::North => north_label,
            };
            let t = format!("{side} ({label}) {why}");
            match side {
                Side::South => (0.0, "0-1", t),
                Side::North => (1.0, "1-0", t),
            }
        }
        None => {
            let outcome = pos.outcome();
            let score = match outcome {
                Some(anywoli_core::Outcome::Win(Side::South)) => 1.0,
                Some(anywoli_core::Outcome::Win(Side::North)) => 0.0,
                _ => 0.5,
            };
            let t = if pos.quiet_plies() >= QUIET_LIMIT {
                "quiet rule"
            } else {
                "normal"
            };
            (
                score,
                outcome.map_or("*", anywoli_core::Outcome::as_str),
                t.to_string(),
            )
        }
    };
    let mut record = Record::new(start);
    record.moves = moves;
    record.result = result.to_string();
    record.set_tag("Event", "anywoli match");
    record.set_tag("Round", &(game.index + 1).to_string());
    record.set_tag("Date", date);
    record.set_tag("South", south_label);
    record.set_tag("North", north_label);
    let opening: Vec<String> = game.opening.iter().map(|m| m.to_string()).collect();
    record.set_tag("Opening", &opening.join(" "));
    record.set_tag("Termination", &termination);
    Played {
        index: game.index,
        a_is_south: game.a_is_south,
        record,
        end: pos,
        south_score,
        termination,
    }
}

fn contestant(spec: &Spec, seed: u64, opts: &Options) -> Contestant {
    match spec {
        Spec::Builtin {
            name,
            hash,
            threads,
        } => Contestant::Builtin(
            builtin(
                name,
                seed,
                hash.unwrap_or(opts.hash),
                threads.unwrap_or(opts.threads),
            )
            .expect("checked by parse_spec"),
        ),
        Spec::Cmd(argv) => Contestant::External(External {
            argv: argv.clone(),
            proc: None,
        }),
    }
}

/// A signed whole number of Elo (`+89`, `-120`, `0`), or `inf`.
fn elo_text(x: f64, signed: bool) -> String {
    if !x.is_finite() {
        return "inf".to_string();
    }
    let r = x.round();
    if r == 0.0 {
        "0".to_string()
    } else if signed {
        format!("{r:+.0}")
    } else {
        format!("{r:.0}")
    }
}

pub fn run(opts: &Options) -> CmdResult {
    let specs = [parse_spec(&opts.players[0])?, parse_spec(&opts.players[1])?];
    let labels = opts.players.clone();
    // The rules are checked before anything is played or written.
    Rules::from_name(&opts.rules, opts.seed)?;
    let mut file = match &opts.out {
        Some(path) => Some(
            std::fs::File::create(path)
                .map_err(|e| Failure::Says(format!("cannot create {}: {e}", path.display())))?,
        ),
        None => None,
    };
    let movetime = Duration::from_millis(opts.movetime);
    let pairs = opts.games.div_ceil(2);
    let base = Position::start(Rules::from_name(&opts.rules, opts.seed)?);
    let mut openings = match opts.balance {
        Some(seeds) => arena::balanced_openings(
            &base,
            pairs,
            opts.opening_plies,
            opts.seed,
            8,
            seeds as i32 * 100,
        ),
        None => arena::openings(&base, pairs, opts.opening_plies, opts.seed),
    };
    if openings.is_empty() {
        openings.push(Vec::new());
    }
    // Both games of an opening share its lottery seed, so the pair stays fair.
    let games: Vec<Game> = (0..opts.games)
        .map(|i| {
            let o = (i / 2) % openings.len();
            let rules = Rules::from_name(&opts.rules, opts.seed.wrapping_add(o as u64))
                .expect("checked above");
            Game {
                index: i,
                start: Position::start(rules),
                opening: &openings[o],
                a_is_south: i % 2 == 0,
            }
        })
        .collect();
    let date = today();
    let mut out = std::io::stdout();
    writeln!(
        out,
        "match: {} vs {}, {} games, {} opening{} of {} plies{} each played with both sides, movetime {} ms, rules {}, {} jobs",
        labels[0],
        labels[1],
        opts.games,
        openings.len().min(pairs),
        if openings.len().min(pairs) == 1 { "" } else { "s" },
        opts.opening_plies,
        match opts.balance {
            Some(b) => format!(" (within {b} seeds of the start)"),
            None => String::new(),
        },
        opts.movetime,
        opts.rules,
        opts.jobs.min(opts.games)
    )?;
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<Played>();
    let mut done: Vec<Option<Played>> = (0..opts.games).map(|_| None).collect();
    let mut write_err: Option<std::io::Error> = None;
    std::thread::scope(|scope| {
        for _ in 0..opts.jobs.min(opts.games) {
            let tx = tx.clone();
            let (games, next, specs, labels, date) = (&games, &next, &specs, &labels, &date);
            scope.spawn(move || {
                // External engines live as long as the worker; built-in players are new for
                // every game, seeded by the game, so results do not depend on --jobs.
                let mut externals: [Option<Contestant>; 2] = [0, 1].map(|k| match &specs[k] {
                    Spec::Cmd(_) => Some(contestant(&specs[k], 0, opts)),
                    Spec::Builtin { .. } => None,
                });
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(game) = games.get(i) else { break };
                    let seed = |k: u64| {
                        opts.seed
                            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
                            .wrapping_add(i as u64 * 2 + k)
                    };
                    let mut fresh: [Option<Contestant>; 2] = [0, 1].map(|k| match &specs[k] {
                        Spec::Builtin { .. } => Some(contestant(&specs[k], seed(k as u64), opts)),
                        Spec::Cmd(_) => None,
                    });
                    let [ea, eb] = &mut externals;
                    let [fa, fb] = &mut fresh;
                    let a = fa.as_mut().or(ea.as_mut()).expect("one of the two");
                    let b = fb.as_mut().or(eb.as_mut()).expect("one of the two");
                    let played = play_one(game, labels, [a, b], movetime, date);
                    if tx.send(played).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut finished = 0;
        for p in rx {
            finished += 1;
            let (s, n) = (p.end.store(Side::South), p.end.store(Side::North));
            let (sl, nl) = if p.a_is_south {
                (&labels[0], &labels[1])
            } else {
                (&labels[1], &labels[0])
            };
            if write_err.is_none() {
                if let Err(e) = writeln!(
                    out,
                    "game {}/{} (done {finished}): {sl} (South) {s}-{n} {nl} (North), {} {}, {} plies",
                    p.index + 1,
                    opts.games,
                    p.record.result,
                    p.termination,
                    p.record.moves.len()
                ) {
                    write_err = Some(e);
                }
            }
            let i = p.index;
            done[i] = Some(p);
        }
    });
    if let Some(e) = write_err {
        return Err(e.into());
    }
    let played: Vec<Played> = done.into_iter().flatten().collect();
    let a_scores: Vec<f64> = played
        .iter()
        .map(|p| {
            if p.a_is_south {
                p.south_score
            } else {
                1.0 - p.south_score
            }
        })
        .collect();
    let wins = a_scores.iter().filter(|&&s| s == 1.0).count();
    let losses = a_scores.iter().filter(|&&s| s == 0.0).count();
    let draws = a_scores.len() - wins - losses;
    let est = arena::elo(&a_scores);
    writeln!(
        out,
        "score: {} {} - {} {} ({} games: {} +{wins} ={draws} -{losses})",
        labels[0],
        est.score,
        a_scores.len() as f64 - est.score,
        labels[1],
        a_scores.len(),
        labels[0]
    )?;
    writeln!(
        out,
        "elo: {} - {} = {} +/- {} (95%)",
        labels[0],
        labels[1],
        elo_text(est.elo, true),
        elo_text(est.error, false)
    )?;
    if let (Some(f), Some(path)) = (file.as_mut(), &opts.out) {
        let text: Vec<String> = played.iter().map(|p| p.record.to_string()).collect();
        f.write_all(text.join("\n").as_bytes())
            .and_then(|()| f.flush())
            .map_err(|e| Failure::Says(format!("cannot write {}: {e}", path.display())))?;
        writeln!(out, "records: {} ({} games)", path.display(), played.len())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_split_like_a_shell() {
        assert_eq!(
            split_command("target/release/anywoli engine").unwrap(),
            ["target/release/anywoli", "engine"]
        );
        assert_eq!(
            split_command(r#"  "/opt/my engine/run" --x 'a b' c\ d "q\"" "#).unwrap(),
            ["/opt/my engine/run", "--x", "a b", "c d", "q\""]
        );
        assert_eq!(split_command("''").unwrap(), [""]);
        assert!(split_command("'open").is_err());
        assert!(split_command("end\\").is_err());
    }

    #[test]
    fn dates_are_civil() {
        let d = today();
        assert_eq!(d.len(), 10, "{d}");
        assert!(d.starts_with("20"), "{d}");
    }

    #[test]
    fn the_hard_limit_is_five_movetimes_and_a_second() {
        assert_eq!(
            hard_limit(Duration::from_millis(100)),
            Duration::from_millis(1500)
        );
    }
}
