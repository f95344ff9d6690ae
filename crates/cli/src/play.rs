//! `anywoli play`: a person against the engine in the terminal (or through a pipe).

use std::io::{IsTerminal, Write};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anywoli_core::{Move, Outcome, Position, Side};
use anywoli_engine::protocol::{read_line, Input};
use anywoli_engine::{LevelPlayer, Limits, Player};

use crate::analyse::{line, seeds};
use crate::board;
use crate::common::{CmdResult, Failure, Start};

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

pub struct Options {
    pub level: u8,
    pub human: Side,
    /// The time level 10 thinks, and the time `hint` thinks.
    pub movetime: u64,
    /// Search threads of the engine's searching levels.
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

pub fn run(start: &Start, opts: &Options) -> CmdResult {
    let mut pos = start.position()?;
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mut engine = LevelPlayer::new(opts.level, seed, 16, opts.threads)
        .ok_or_else(|| Failure::Says(format!("no level {}: levels are 1 to 10", opts.level)))?;
    engine.new_game();
    let movetime = Duration::from_millis(opts.movetime);
    let human = opts.human;
    let echo = !std::io::stdin().is_terminal();
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut buf = Vec::new();
    let mut out = std::io::stdout();
    let mut history: Vec<Ply> = Vec::new();
    let mut last: Option<Move> = None;
    writeln!(
        out,
        "You play {human} ({}) against the engine at level {}. {HELP}.",
        range(human),
        opts.level
    )?;
    write!(out, "{}", board::draw(&pos, last))?;
    loop {
        let Some(side) = pos.to_move() else {
            let verdict = match pos.outcome() {
                Some(Outcome::Win(s)) if s == human => "You win.",
                Some(Outcome::Win(_)) => "You lose.",
                _ => "A draw.",
            };
            writeln!(out, "{verdict}")?;
            let moves: Vec<Move> = history.iter().map(|p| p.mv).collect();
            writeln!(out, "moves: {}", line(&moves))?;
            return Ok(());
        };
        if side != human {
            let Some(mv) = engine.choose(&pos, movetime) else {
                writeln!(
                    out,
                    "The engine finds no move it can play; the game stops here."
                )?;
                return Ok(());
            };
            let before = pos;
            pos.play(mv)
                .map_err(|e| Failure::Says(format!("the engine played an illegal move: {e}")))?;
            history.push(Ply {
                before,
                last_before: last,
                mover: side,
                mv,
            });
            last = Some(mv);
            writeln!(out, "level {} ({side}) plays {mv}", opts.level)?;
            write!(out, "{}", board::draw(&pos, last))?;
            continue;
        }
        write!(
            out,
            "{side} to move ({}), or undo, hint, quit: ",
            range(side)
        )?;
        out.flush()?;
        let text = match read_line(&mut input, &mut buf) {
            Ok(Some(Input::Line(l))) => l,
            Ok(Some(Input::TooLong(n))) => {
                writeln!(out, "\nerror: a line of {n} bytes is too long")?;
                continue;
            }
            Ok(Some(Input::NotUtf8)) => {
                writeln!(out, "\nerror: the line is not UTF-8 text")?;
                continue;
            }
            Ok(None) => {
                writeln!(out)?;
                return Ok(());
            }
            Err(e) => return Err(Failure::Says(format!("cannot read the input: {e}"))),
        };
        let cmd = text.trim();
        if echo {
            writeln!(out, "{cmd}")?;
        }
        match cmd {
            "" => {}
            "quit" | "exit" | "q" => return Ok(()),
            "help" | "?" => writeln!(out, "{HELP}")?,
            "board" => write!(out, "{}", board::draw(&pos, last))?,
            "undo" => match history.iter().rposition(|p| p.mover == human) {
                None => writeln!(out, "error: nothing to undo, you have not moved yet")?,
                Some(i) => {
                    let taken = history.len() - i;
                    pos = history[i].before;
                    last = history[i].last_before;
                    history.truncate(i);
                    writeln!(
                        out,
                        "took back {taken} move{}",
                        if taken == 1 { "" } else { "s" }
                    )?;
                    write!(out, "{}", board::draw(&pos, last))?;
                }
            },
            "hint" => {
                let stop = AtomicBool::new(false);
                let r = engine.engine_mut().search(
                    &pos,
                    &Limits::movetime(movetime),
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
            }
            _ => {
                let mv = match cmd.parse::<Move>() {
                    Ok(mv) => mv,
                    Err(e) => {
                        writeln!(out, "error: {e}; type help for the commands")?;
                        continue;
                    }
                };
                let before = pos;
                if let Err(e) = pos.play(mv) {
                    writeln!(out, "error: illegal move: {e}")?;
                    continue;
                }
                history.push(Ply {
                    before,
                    last_before: last,
                    mover: side,
                    mv,
                });
                last = Some(mv);
                write!(out, "{}", board::draw(&pos, last))?;
            }
        }
    }
}
