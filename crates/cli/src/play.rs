//! `anywoli play`: a person against the engine in the terminal (or through a pipe).

use std::io::{IsTerminal, Write};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anywoli_core::{Move, Outcome, Position, Side};
use anywoli_engine::protocol::{read_line, Input};
use anywoli_engine::{LevelPlayer, Limits, Player};
use clap::Args;

use crate::analyse::{line, seeds};
use crate::board;
use crate::common::{usize_in, CmdResult, Failure, Start};

/// The side the person plays.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum SideArg {
    South,
    North,
}

impl From<SideArg> for Side {
    fn from(s: SideArg) -> Side {
        match s {
            SideArg::South => Side::South,
            SideArg::North => Side::North,
        }
    }
}

#[derive(Args)]
/// What `anywoli play` takes.
pub struct PlayArgs {
    #[command(flatten)]
    pub start: Start,
    /// The engine's level, 1 (weakest) to 10 (timed full-strength search).
    #[arg(long, default_value_t = 5, value_name = "N", value_parser = clap::value_parser!(u8).range(1..=10))]
    pub level: u8,
    /// The side you play (South moves first).
    #[arg(long, value_enum, default_value = "south", value_name = "SIDE")]
    pub side: SideArg,
    /// Thinking time in milliseconds: level 10's, the most levels 6 to 9 take, and hints'.
    #[arg(long, default_value_t = 1000, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub movetime: u64,
    /// Search threads of levels 6 to 10.
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = usize_in(1, 64))]
    pub threads: usize,
}

const HELP: &str = "commands: a move letter (a..l South, A..L North), undo (take back your last move), hint (the engine's advice), board (draw it again), quit";

fn range(side: Side) -> &'static str {
    match side {
        Side::South => "a..l",
        Side::North => "A..L",
    }
}

/// One position of the game and the move that was played from it.
struct Ply {
    before: Position,
    last_before: Option<Move>,
    mover: Side,
    mv: Move,
}

/// What became of a line read from the person.
enum Read {
    Line(String),
    /// A line that cannot be a command: said so, and the prompt comes again.
    Again,
    /// The input ended.
    End,
}

/// The game in the terminal: the position, the moves played and the engine.
struct Session {
    pos: Position,
    last: Option<Move>,
    history: Vec<Ply>,
    engine: LevelPlayer,
    level: u8,
    human: Side,
    movetime: Duration,
}

pub fn run(args: &PlayArgs) -> CmdResult {
    let pos = args.start.position()?;
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mut engine =
        LevelPlayer::new(args.level, seed, 16, args.threads).ok_or(Failure::Level(args.level))?;
    engine.new_game();
    let mut game = Session {
        pos,
        last: None,
        history: Vec::new(),
        engine,
        level: args.level,
        human: args.side.into(),
        movetime: Duration::from_millis(args.movetime),
    };
    let echo = !std::io::stdin().is_terminal();
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut buf = Vec::new();
    let mut out = std::io::stdout();
    writeln!(
        out,
        "You play {} ({}) against the engine at level {}. {HELP}.",
        game.human,
        range(game.human),
        game.level
    )?;
    write!(out, "{}", board::draw(&game.pos, game.last))?;
    loop {
        let Some(side) = game.pos.to_move() else {
            return game.over(&mut out);
        };
        if side != game.human {
            if !game.engine_moves(&mut out, side)? {
                return Ok(());
            }
            continue;
        }
        write!(
            out,
            "{side} to move ({}), or undo, hint, quit: ",
            range(side)
        )?;
        out.flush()?;
        let text = match read(&mut out, &mut input, &mut buf)? {
            Read::Line(l) => l,
            Read::Again => continue,
            Read::End => return Ok(()),
        };
        let cmd = text.trim();
        if echo {
            writeln!(out, "{cmd}")?;
        }
        if !game.command(&mut out, cmd, side)? {
            return Ok(());
        }
    }
}

/// Reads the person's next line.
fn read(
    out: &mut impl Write,
    input: &mut impl std::io::BufRead,
    buf: &mut Vec<u8>,
) -> Result<Read, Failure> {
    match read_line(input, buf) {
        Ok(Some(Input::Line(l))) => Ok(Read::Line(l)),
        Ok(Some(Input::TooLong(n))) => {
            writeln!(out, "\nerror: a line of {n} bytes is too long")?;
            Ok(Read::Again)
        }
        Ok(Some(Input::NotUtf8)) => {
            writeln!(out, "\nerror: the line is not UTF-8 text")?;
            Ok(Read::Again)
        }
        Ok(None) => {
            writeln!(out)?;
            Ok(Read::End)
        }
        Err(e) => Err(Failure::Input(e)),
    }
}

impl Session {
    /// The game is over: who won, and its moves.
    fn over(&self, out: &mut impl Write) -> CmdResult {
        let verdict = match self.pos.outcome() {
            Some(Outcome::Win(s)) if s == self.human => "You win.",
            Some(Outcome::Win(_)) => "You lose.",
            _ => "A draw.",
        };
        writeln!(out, "{verdict}")?;
        let moves: Vec<Move> = self.history.iter().map(|p| p.mv).collect();
        writeln!(out, "moves: {}", line(&moves))?;
        Ok(())
    }

    /// Plays `side`'s move for the engine; false when it finds none and the game stops.
    fn engine_moves(&mut self, out: &mut impl Write, side: Side) -> Result<bool, Failure> {
        let Some(mv) = self.engine.choose(&self.pos, self.movetime) else {
            writeln!(
                out,
                "The engine finds no move it can play; the game stops here."
            )?;
            return Ok(false);
        };
        let before = self.pos;
        self.pos.play(mv).map_err(Failure::EngineMove)?;
        self.played(before, side, mv);
        writeln!(out, "level {} ({side}) plays {mv}", self.level)?;
        write!(out, "{}", board::draw(&self.pos, self.last))?;
        Ok(true)
    }

    fn played(&mut self, before: Position, mover: Side, mv: Move) {
        self.history.push(Ply {
            before,
            last_before: self.last,
            mover,
            mv,
        });
        self.last = Some(mv);
    }

    /// Carries out the person's command `cmd`, `side` being to move; false on quit.
    fn command(&mut self, out: &mut impl Write, cmd: &str, side: Side) -> Result<bool, Failure> {
        match cmd {
            "" => {}
            "quit" | "exit" | "q" => return Ok(false),
            "help" | "?" => writeln!(out, "{HELP}")?,
            "board" => write!(out, "{}", board::draw(&self.pos, self.last))?,
            "undo" => self.undo(out)?,
            "hint" => self.hint(out)?,
            _ => self.person_moves(out, cmd, side)?,
        }
        Ok(true)
    }

    /// Takes back the person's last move and the engine's moves after it.
    fn undo(&mut self, out: &mut impl Write) -> CmdResult {
        let Some(i) = self.history.iter().rposition(|p| p.mover == self.human) else {
            writeln!(out, "error: nothing to undo, you have not moved yet")?;
            return Ok(());
        };
        let taken = self.history.len() - i;
        self.pos = self.history[i].before;
        self.last = self.history[i].last_before;
        self.history.truncate(i);
        writeln!(
            out,
            "took back {taken} move{}",
            if taken == 1 { "" } else { "s" }
        )?;
        write!(out, "{}", board::draw(&self.pos, self.last))?;
        Ok(())
    }

    fn hint(&mut self, out: &mut impl Write) -> CmdResult {
        let stop = AtomicBool::new(false);
        let r = self.engine.engine_mut().search(
            &self.pos,
            &Limits::movetime(self.movetime),
            &stop,
            &mut |_| {},
        );
        match r.best {
            Some(best) => writeln!(
                out,
                "hint: {best} (score {} seeds for you, expected final store difference; line {})",
                seeds(r.score),
                line(&r.pv)
            )?,
            None => writeln!(out, "hint: no move can be played")?,
        }
        Ok(())
    }

    /// The person's move `cmd`, or why it is not one.
    fn person_moves(&mut self, out: &mut impl Write, cmd: &str, side: Side) -> CmdResult {
        let mv = match cmd.parse::<Move>() {
            Ok(mv) => mv,
            Err(e) => {
                writeln!(out, "error: {e}; type help for the commands")?;
                return Ok(());
            }
        };
        let before = self.pos;
        if let Err(e) = self.pos.play(mv) {
            writeln!(out, "error: illegal move: {e}")?;
            return Ok(());
        }
        self.played(before, side, mv);
        write!(out, "{}", board::draw(&self.pos, self.last))?;
        Ok(())
    }
}
