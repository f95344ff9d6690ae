//! The commands a GUI sends, as types: [`Command`] parses a line ([`FromStr`], with the error
//! as [`ParseError`]) and writes it back ([`fmt::Display`]). What a command can be told only
//! against the engine's state (the position, the memory, a running search) is the session's.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use anywoli_core::{Move, ParseMoveError, Rules, UnknownRules};
use thiserror::Error;

use super::{MAX_HASH_MIB, MAX_MOVETIME_MS, MAX_THREADS};
use crate::search::{Limits, MAX_MULTIPV, MAX_PLY};

/// The command words, as the error for an unknown one lists them.
pub const COMMANDS: &str =
    "aei, isready, setoption, newgame, position, go, stop, quit, show, options";

const SETOPTION_USAGE: &str = "expected setoption name NAME value VALUE";

/// One command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `aei`: asks for the engine's name, author and `aeiok`.
    Aei,
    /// `isready`: asks for `readyok`, at once even while a search runs.
    IsReady,
    /// `setoption name NAME value VALUE`.
    SetOption(EngineOption),
    /// `newgame [rules NAME] [seed N]`: the rules (`anywoli` when not given).
    NewGame(Rules),
    /// `position startpos|pos P1..P8 [moves M...]`.
    Position {
        /// The position the moves start from.
        base: Base,
        /// The moves played from `base`, in order; not yet checked for legality.
        moves: Vec<Move>,
    },
    /// `go ...`: search the position.
    Go(Go),
    /// `stop`: end the running search, which then sends its `bestmove` (nothing if none runs).
    Stop,
    /// Any words after `quit` are ignored: it always quits.
    Quit,
    /// `show`: the position the next `go` searches, and its rules, as an `info string`.
    Show,
    /// `options`: one `option` line per option, with its range and value, then `optionsok`.
    Options,
}

/// An option `setoption` sets, with its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineOption {
    /// The level `go level` plays at, 1 to 10.
    Level(u8),
    /// The transposition table's size in MiB, 1 to [`MAX_HASH_MIB`].
    Hash(usize),
    /// Search threads, 1 to [`MAX_THREADS`].
    Threads(usize),
    /// Lines a search reports, 1 to [`MAX_MULTIPV`].
    MultiPv(usize),
}

/// Where `position` starts from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Base {
    /// `startpos`: the start position of the game's rules.
    StartPos,
    /// The 8 fields of a position string, one space between them: read under the rules of
    /// the game, which only the session knows.
    Pos(String),
}

/// What a `go` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Go {
    /// At least one of movetime, depth and nodes.
    Search(Limits),
    /// `go infinite`: until `stop` (or the deepest depth).
    Infinite,
    /// `go level [movetime MS]`.
    Level {
        /// The time for the move; the level's own default when `None`.
        movetime: Option<Duration>,
    },
}

/// What is wrong with a command line; the text is what `info string error:` says.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParseError {
    /// The first word is no command.
    #[error("unknown command {} (commands: {COMMANDS})", shown(.word))]
    Unknown {
        /// The first word (empty for an empty line).
        word: String,
    },
    /// A command that takes nothing after it got a word.
    #[error("{command} takes no arguments, got {}", shown(.got))]
    NoArguments {
        /// The command word.
        command: &'static str,
        /// The first word after it.
        got: String,
    },
    /// A number is missing at the end of the line.
    #[error("{what} needs a number{unit} from {min} to {max}")]
    NoNumber {
        /// What the number is, with its command (`go: depth`).
        what: &'static str,
        /// Its unit as the message says it (` of ms`), or empty.
        unit: &'static str,
        /// The smallest value allowed.
        min: u64,
        /// The largest value allowed.
        max: u64,
    },
    /// A word where a number belongs is not one, or is out of range.
    #[error("{what} {} is not a whole number{unit} from {min} to {max}", shown(.token))]
    BadNumber {
        /// What the number is, with its command (`go: depth`).
        what: &'static str,
        /// The word given.
        token: String,
        /// Its unit as the message says it (` of ms`), or empty.
        unit: &'static str,
        /// The smallest value allowed.
        min: u64,
        /// The largest value allowed.
        max: u64,
    },
    /// A keyword that may come once came twice.
    #[error("{command}: {word} is given twice")]
    Twice {
        /// The command word.
        command: &'static str,
        /// The repeated keyword.
        word: &'static str,
    },
    /// `setoption` with nothing after it.
    #[error("setoption: {SETOPTION_USAGE}")]
    SetOptionEmpty,
    /// `setoption` not followed by `name`.
    #[error("setoption: {} where 'name' belongs ({SETOPTION_USAGE})", shown(.got))]
    NotName {
        /// The word where `name` belongs.
        got: String,
    },
    /// `setoption name ...` without `value`.
    #[error("setoption: no 'value' ({SETOPTION_USAGE})")]
    NoValue,
    /// `setoption name value ...`: no words between `name` and `value`.
    #[error("setoption: no option name ({SETOPTION_USAGE})")]
    NoOptionName,
    /// More than one word after `value`.
    #[error("setoption: {} after the value {}: a value is one word", shown(.extra), shown(.value))]
    ValueWords {
        /// The first word after `value`.
        value: String,
        /// The second.
        extra: String,
    },
    /// The option name is none of Level, Hash, Threads and MultiPV (in any case).
    #[error("setoption: unknown option {} (options: Level, Hash, Threads, MultiPV)", shown(.name))]
    UnknownOption {
        /// The name, its words joined by one space.
        name: String,
    },
    /// `newgame rules` at the end of the line.
    #[error("newgame: rules needs a name (see `anywoli rules`)")]
    NoRulesName,
    /// A word after `newgame` that is neither `rules` nor `seed`.
    #[error("newgame: {} where 'rules NAME' or 'seed N' belongs", shown(.got))]
    NewGameWord {
        /// The word.
        got: String,
    },
    /// The rules' name is unknown.
    #[error("newgame: {0}")]
    Rules(#[from] UnknownRules),
    /// A seed for rules that draw no lots.
    #[error("newgame: seed is only for anywoli-lottery, not {rules}")]
    SeedNotLottery {
        /// The rules named.
        rules: Rules,
    },
    /// `position` with nothing after it.
    #[error("position: expected 'startpos' or 'pos <position string>'")]
    NoBase,
    /// `position` followed by neither `startpos` nor `pos`.
    #[error("position: {} where 'startpos' or 'pos' belongs", shown(.got))]
    NotBase {
        /// The word.
        got: String,
    },
    /// `position pos` not followed by 8 fields (then `moves` or the end).
    #[error("position pos: a position string has 8 fields, got {fields}")]
    FieldCount {
        /// The words up to `moves` or the end.
        fields: usize,
    },
    /// A word after the position that is not `moves`.
    #[error("position: {} after the position, where 'moves' belongs", shown(.got))]
    NotMoves {
        /// The word.
        got: String,
    },
    /// Move `index` (from 1) is not a move. The session still reports an earlier fault first,
    /// in the order of the words: a bad position string, or an illegal move among `before`.
    #[error("position: move {index}: {source}")]
    Move {
        /// Which move, counted from 1.
        index: usize,
        /// Why it is not a move.
        source: ParseMoveError,
        /// The position the moves start from.
        base: Base,
        /// The moves before it, all well formed.
        before: Vec<Move>,
    },
    /// A word after `go` that is no limit.
    #[error("go: {} is not a limit (expected movetime MS, depth D, nodes N, level or infinite)", shown(.got))]
    NotLimit {
        /// The word.
        got: String,
    },
    /// `go level` with `depth`, `nodes` or `infinite`.
    #[error("go level takes no other limit than movetime (go level [movetime MS])")]
    LevelWithLimit,
    /// `go infinite` with another limit.
    #[error("go infinite takes no limit")]
    InfiniteWithLimit,
    /// `go` alone.
    #[error("go needs a limit: movetime MS, depth D, nodes N, level or infinite")]
    NoLimit,
}

/// A token as error messages show it: escaped, and cut after 32 characters.
pub(crate) fn shown(tok: &str) -> String {
    let mut s: String = tok.chars().take(32).collect::<String>();
    if s.len() < tok.len() {
        s.push('…');
    }
    format!("'{}'", s.escape_debug())
}

/// A whole number from `min` to `max`; `what` and `unit` name it in the error.
fn number<T: FromStr + Into<u64> + Copy>(
    what: &'static str,
    tok: Option<&&str>,
    min: T,
    max: T,
    unit: &'static str,
) -> Result<T, ParseError> {
    let (min64, max64) = (min.into(), max.into());
    let Some(tok) = tok else {
        return Err(ParseError::NoNumber {
            what,
            unit,
            min: min64,
            max: max64,
        });
    };
    match tok.parse::<T>() {
        Ok(v) if (min64..=max64).contains(&v.into()) => Ok(v),
        _ => Err(ParseError::BadNumber {
            what,
            token: tok.to_string(),
            unit,
            min: min64,
            max: max64,
        }),
    }
}

fn no_args(command: &'static str, args: &[&str], c: Command) -> Result<Command, ParseError> {
    match args.first() {
        None => Ok(c),
        Some(t) => Err(ParseError::NoArguments {
            command,
            got: t.to_string(),
        }),
    }
}

impl FromStr for Command {
    type Err = ParseError;

    /// An empty line is [`ParseError::Unknown`] with an empty word; the session ignores it
    /// before parsing.
    fn from_str(line: &str) -> Result<Command, ParseError> {
        let mut toks = line.split_whitespace();
        let cmd = toks.next().unwrap_or("");
        let args: Vec<&str> = toks.collect();
        match cmd {
            "aei" => no_args("aei", &args, Command::Aei),
            "isready" => no_args("isready", &args, Command::IsReady),
            "setoption" => parse_setoption(&args).map(Command::SetOption),
            "newgame" => parse_newgame(&args).map(Command::NewGame),
            "position" => parse_position(&args),
            "go" => parse_go(&args).map(Command::Go),
            "stop" => no_args("stop", &args, Command::Stop),
            "quit" => Ok(Command::Quit),
            "show" => no_args("show", &args, Command::Show),
            "options" => no_args("options", &args, Command::Options),
            _ => Err(ParseError::Unknown {
                word: cmd.to_string(),
            }),
        }
    }
}

fn parse_setoption(args: &[&str]) -> Result<EngineOption, ParseError> {
    if args.first() != Some(&"name") {
        return Err(match args.first() {
            None => ParseError::SetOptionEmpty,
            Some(t) => ParseError::NotName { got: t.to_string() },
        });
    }
    let Some(vi) = args.iter().position(|&t| t == "value") else {
        return Err(ParseError::NoValue);
    };
    let name = args[1..vi].join(" ");
    let value = &args[vi + 1..];
    if name.is_empty() {
        return Err(ParseError::NoOptionName);
    }
    if value.len() > 1 {
        return Err(ParseError::ValueWords {
            value: value[0].to_string(),
            extra: value[1].to_string(),
        });
    }
    let v = value.first();
    Ok(match name.to_ascii_lowercase().as_str() {
        "level" => EngineOption::Level(number("setoption: Level value", v, 1, 10, "")?),
        "hash" => EngineOption::Hash(number(
            "setoption: Hash value",
            v,
            1,
            MAX_HASH_MIB as u64,
            " of MiB",
        )? as usize),
        "threads" => {
            EngineOption::Threads(
                number("setoption: Threads value", v, 1, MAX_THREADS as u64, "")? as usize,
            )
        }
        "multipv" => {
            EngineOption::MultiPv(
                number("setoption: MultiPV value", v, 1, MAX_MULTIPV as u64, "")? as usize,
            )
        }
        _ => return Err(ParseError::UnknownOption { name }),
    })
}

fn parse_newgame(args: &[&str]) -> Result<Rules, ParseError> {
    let mut name: Option<&str> = None;
    let mut seed: Option<u64> = None;
    let mut it = args.iter();
    while let Some(&t) = it.next() {
        match t {
            "rules" if name.is_none() => name = Some(*it.next().ok_or(ParseError::NoRulesName)?),
            "seed" if seed.is_none() => {
                seed = Some(number("newgame: seed", it.next(), 0, u64::MAX, "")?)
            }
            "rules" | "seed" => {
                return Err(ParseError::Twice {
                    command: "newgame",
                    word: if t == "rules" { "rules" } else { "seed" },
                })
            }
            _ => return Err(ParseError::NewGameWord { got: t.to_string() }),
        }
    }
    let rules = Rules::from_name(name.unwrap_or("anywoli"), seed.unwrap_or(0))?;
    if seed.is_some() && rules.seed().is_none() {
        return Err(ParseError::SeedNotLottery { rules });
    }
    Ok(rules)
}

fn parse_position(args: &[&str]) -> Result<Command, ParseError> {
    let (base, rest) = match args.first() {
        Some(&"startpos") => (Base::StartPos, &args[1..]),
        Some(&"pos") => {
            let n = args[1..]
                .iter()
                .position(|&t| t == "moves")
                .unwrap_or(args.len() - 1);
            if n != 8 {
                return Err(ParseError::FieldCount { fields: n });
            }
            (Base::Pos(args[1..=8].join(" ")), &args[9..])
        }
        Some(t) => return Err(ParseError::NotBase { got: t.to_string() }),
        None => return Err(ParseError::NoBase),
    };
    let words = match rest.split_first() {
        None => &[][..],
        Some((&"moves", m)) => m,
        Some((t, _)) => return Err(ParseError::NotMoves { got: t.to_string() }),
    };
    let mut moves = Vec::with_capacity(words.len());
    for (i, tok) in words.iter().enumerate() {
        match tok.parse() {
            Ok(mv) => moves.push(mv),
            Err(source) => {
                return Err(ParseError::Move {
                    index: i + 1,
                    source,
                    base,
                    before: moves,
                })
            }
        }
    }
    Ok(Command::Position { base, moves })
}

fn parse_go(args: &[&str]) -> Result<Go, ParseError> {
    let mut limits = Limits::default();
    let (mut level, mut infinite) = (false, false);
    let mut it = args.iter();
    let twice = |word| {
        Err(ParseError::Twice {
            command: "go",
            word,
        })
    };
    while let Some(&t) = it.next() {
        match t {
            "movetime" => {
                if limits.movetime.is_some() {
                    return twice("movetime");
                }
                let ms = number("go: movetime", it.next(), 1, MAX_MOVETIME_MS, " of ms")?;
                limits.movetime = Some(Duration::from_millis(ms));
            }
            "depth" => {
                if limits.depth.is_some() {
                    return twice("depth");
                }
                limits.depth = Some(number("go: depth", it.next(), 1, MAX_PLY as u32, "")?);
            }
            "nodes" => {
                if limits.nodes.is_some() {
                    return twice("nodes");
                }
                limits.nodes = Some(number("go: nodes", it.next(), 1, u64::MAX, "")?);
            }
            "level" if level => return twice("level"),
            "infinite" if infinite => return twice("infinite"),
            "level" => level = true,
            "infinite" => infinite = true,
            _ => return Err(ParseError::NotLimit { got: t.to_string() }),
        }
    }
    let any_limit = limits.depth.is_some() || limits.nodes.is_some();
    if level {
        if infinite || any_limit {
            return Err(ParseError::LevelWithLimit);
        }
        return Ok(Go::Level {
            movetime: limits.movetime,
        });
    }
    if infinite {
        if any_limit || limits.movetime.is_some() {
            return Err(ParseError::InfiniteWithLimit);
        }
        return Ok(Go::Infinite);
    }
    if !any_limit && limits.movetime.is_none() {
        return Err(ParseError::NoLimit);
    }
    Ok(Go::Search(limits))
}

impl fmt::Display for EngineOption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineOption::Level(v) => write!(f, "name Level value {v}"),
            EngineOption::Hash(v) => write!(f, "name Hash value {v}"),
            EngineOption::Threads(v) => write!(f, "name Threads value {v}"),
            EngineOption::MultiPv(v) => write!(f, "name MultiPV value {v}"),
        }
    }
}

impl fmt::Display for Go {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Go::Search(l) => {
                if let Some(t) = l.movetime {
                    write!(f, " movetime {}", t.as_millis())?;
                }
                if let Some(d) = l.depth {
                    write!(f, " depth {d}")?;
                }
                if let Some(n) = l.nodes {
                    write!(f, " nodes {n}")?;
                }
                Ok(())
            }
            Go::Infinite => f.write_str(" infinite"),
            Go::Level { movetime } => {
                f.write_str(" level")?;
                match movetime {
                    Some(t) => write!(f, " movetime {}", t.as_millis()),
                    None => Ok(()),
                }
            }
        }
    }
}

impl fmt::Display for Command {
    /// The canonical line: one space between words, `newgame` with its rules named.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Aei => f.write_str("aei"),
            Command::IsReady => f.write_str("isready"),
            Command::SetOption(o) => write!(f, "setoption {o}"),
            Command::NewGame(rules) => {
                write!(f, "newgame rules {}", rules.name())?;
                match rules.seed() {
                    Some(seed) => write!(f, " seed {seed}"),
                    None => Ok(()),
                }
            }
            Command::Position { base, moves } => {
                match base {
                    Base::StartPos => f.write_str("position startpos")?,
                    Base::Pos(text) => write!(f, "position pos {text}")?,
                }
                if !moves.is_empty() {
                    f.write_str(" moves")?;
                    for m in moves {
                        write!(f, " {}", m.letter())?;
                    }
                }
                Ok(())
            }
            Command::Go(go) => write!(f, "go{go}"),
            Command::Stop => f.write_str("stop"),
            Command::Quit => f.write_str("quit"),
            Command::Show => f.write_str("show"),
            Command::Options => f.write_str("options"),
        }
    }
}
