//! The lines the engine answers, as types: [`Reply`] writes a line ([`fmt::Display`]) and
//! reads it back ([`FromStr`], with the error as [`ReplyError`]), so that a program driving an
//! engine (the match runner) reads what the engine's session writes.

use std::fmt;
use std::str::FromStr;

use anywoli_core::Move;
use thiserror::Error;

use crate::search::Info;

/// One answer line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// `id name TEXT`.
    IdName(String),
    /// `id author TEXT`.
    IdAuthor(String),
    /// `aeiok`: the end of the answer to `aei`.
    AeiOk,
    /// `readyok`: the answer to `isready`.
    ReadyOk,
    /// `option name NAME type spin default D min A max B value V`.
    Option(SpinOption),
    /// `optionsok`: the end of the answer to `options`.
    OptionsOk,
    /// One completed depth's line.
    Info(SearchInfo),
    /// `info string TEXT`: a remark, or an error (`info string error: …`).
    InfoString(String),
    /// `bestmove M`, or `bestmove (none)` when the game is over.
    BestMove(Option<Move>),
}

/// A `spin` option as `options` lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpinOption {
    /// One word.
    pub name: String,
    /// The value at start.
    pub default: u64,
    /// The smallest value allowed.
    pub min: u64,
    /// The largest value allowed.
    pub max: u64,
    /// The value now.
    pub value: u64,
}

/// `info depth D [multipv K] score S nodes N nps X time MS pv M...`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchInfo {
    /// The depth completed, in plies.
    pub depth: u32,
    /// Which line, when the search reports several (`MultiPV` above 1).
    pub multipv: Option<usize>,
    /// In centiseeds, from the side to move's point of view.
    pub score: i32,
    /// Nodes searched so far, all threads together.
    pub nodes: u64,
    /// Nodes a second.
    pub nps: u64,
    /// Time since `go`, in milliseconds.
    pub time_ms: u128,
    /// The principal variation, its first move the one the line is about.
    pub pv: Vec<Move>,
}

impl SearchInfo {
    /// The line of `i`; `multi`: the search reports several lines, so the line says which.
    pub fn of(i: &Info, multi: bool) -> SearchInfo {
        SearchInfo {
            depth: i.depth,
            multipv: multi.then_some(i.multipv),
            score: i.score,
            nodes: i.nodes,
            nps: i.nps(),
            time_ms: i.time.as_millis(),
            pv: i.pv.clone(),
        }
    }
}

impl Reply {
    /// `info string error: MSG`, the answer to a command that is wrong.
    pub fn error(msg: impl fmt::Display) -> Reply {
        Reply::InfoString(format!("error: {msg}"))
    }

    /// Whether this is an error line (`info string error…`).
    pub fn is_error(&self) -> bool {
        matches!(self, Reply::InfoString(s) if s.starts_with("error"))
    }

    /// The line's first word, which says what it is.
    pub const fn word(&self) -> &'static str {
        match self {
            Reply::IdName(_) | Reply::IdAuthor(_) => "id",
            Reply::AeiOk => "aeiok",
            Reply::ReadyOk => "readyok",
            Reply::Option(_) => "option",
            Reply::OptionsOk => "optionsok",
            Reply::Info(_) | Reply::InfoString(_) => "info",
            Reply::BestMove(_) => "bestmove",
        }
    }
}

/// What is wrong with an answer line.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ReplyError {
    /// The first word is no answer's.
    #[error("not an answer line: {line:?}")]
    Unknown {
        /// The line.
        line: String,
    },
    /// The word after `bestmove` is neither a move nor `(none)`.
    #[error("bestmove {word:?} is not a move")]
    BestMove {
        /// The word.
        word: String,
    },
    /// A word where a number belongs is not one.
    #[error("{what} {word:?} is not a number")]
    Number {
        /// The keyword before it (`depth`, `default`, …).
        what: &'static str,
        /// The word.
        word: String,
    },
    /// A known line with words missing or out of place.
    #[error("malformed {what} line: {line:?}")]
    Malformed {
        /// The line's kind (`info`, `option`, …).
        what: &'static str,
        /// The line.
        line: String,
    },
}

impl fmt::Display for SearchInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "info depth {}", self.depth)?;
        if let Some(k) = self.multipv {
            write!(f, " multipv {k}")?;
        }
        write!(
            f,
            " score {} nodes {} nps {} time {} pv",
            self.score, self.nodes, self.nps, self.time_ms
        )?;
        for m in &self.pv {
            write!(f, " {}", m.letter())?;
        }
        Ok(())
    }
}

impl fmt::Display for Reply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reply::IdName(s) => write!(f, "id name {s}"),
            Reply::IdAuthor(s) => write!(f, "id author {s}"),
            Reply::AeiOk => f.write_str("aeiok"),
            Reply::ReadyOk => f.write_str("readyok"),
            Reply::Option(o) => write!(
                f,
                "option name {} type spin default {} min {} max {} value {}",
                o.name, o.default, o.min, o.max, o.value
            ),
            Reply::OptionsOk => f.write_str("optionsok"),
            Reply::Info(i) => i.fmt(f),
            Reply::InfoString(s) => write!(f, "info string {s}"),
            Reply::BestMove(Some(m)) => write!(f, "bestmove {m}"),
            Reply::BestMove(None) => f.write_str("bestmove (none)"),
        }
    }
}

fn num<T: FromStr>(what: &'static str, word: Option<&str>) -> Result<T, ReplyError> {
    let word = word.unwrap_or("");
    word.parse().map_err(|_| ReplyError::Number {
        what,
        word: word.to_string(),
    })
}

/// The values of `line`'s key-value pairs after its first word: `keys` in this order, each
/// followed by one word, then `tail` (if any) followed by the rest of the words.
fn pairs<'a>(
    what: &'static str,
    line: &'a str,
    keys: &[&str],
    tail: Option<&str>,
) -> Result<(Vec<&'a str>, Vec<&'a str>), ReplyError> {
    let malformed = || ReplyError::Malformed {
        what,
        line: line.to_string(),
    };
    let mut words = line.split(' ').skip(1);
    let mut values = Vec::with_capacity(keys.len());
    for key in keys {
        if words.next() != Some(key) {
            return Err(malformed());
        }
        values.push(words.next().ok_or_else(malformed)?);
    }
    if let Some(tail) = tail {
        if words.next() != Some(tail) {
            return Err(malformed());
        }
    }
    let rest: Vec<&str> = words.collect();
    if tail.is_none() && !rest.is_empty() {
        return Err(malformed());
    }
    Ok((values, rest))
}

fn parse_info(line: &str) -> Result<SearchInfo, ReplyError> {
    let multi = line.split(' ').nth(3) == Some("multipv");
    let keys: &[&str] = if multi {
        &["depth", "multipv", "score", "nodes", "nps", "time"]
    } else {
        &["depth", "score", "nodes", "nps", "time"]
    };
    let (v, pv) = pairs("info", line, keys, Some("pv"))?;
    let mut v = v.into_iter();
    let depth = num("depth", v.next())?;
    let multipv = if multi {
        Some(num("multipv", v.next())?)
    } else {
        None
    };
    Ok(SearchInfo {
        depth,
        multipv,
        score: num("score", v.next())?,
        nodes: num("nodes", v.next())?,
        nps: num("nps", v.next())?,
        time_ms: num("time", v.next())?,
        pv: pv
            .into_iter()
            .map(|w| num("pv move", Some(w)))
            .collect::<Result<_, _>>()?,
    })
}

fn parse_option(line: &str) -> Result<SpinOption, ReplyError> {
    let keys = ["name", "type", "default", "min", "max", "value"];
    let (v, _) = pairs("option", line, &keys, None)?;
    if v[1] != "spin" {
        return Err(ReplyError::Malformed {
            what: "option",
            line: line.to_string(),
        });
    }
    Ok(SpinOption {
        name: v[0].to_string(),
        default: num("default", Some(v[2]))?,
        min: num("min", Some(v[3]))?,
        max: num("max", Some(v[4]))?,
        value: num("value", Some(v[5]))?,
    })
}

impl FromStr for Reply {
    type Err = ReplyError;

    /// Reads a line as the engine writes it: words one space apart, in the order above.
    fn from_str(line: &str) -> Result<Reply, ReplyError> {
        if let Some(s) = line.strip_prefix("id name ") {
            return Ok(Reply::IdName(s.to_string()));
        }
        if let Some(s) = line.strip_prefix("id author ") {
            return Ok(Reply::IdAuthor(s.to_string()));
        }
        if let Some(s) = line.strip_prefix("info string ") {
            return Ok(Reply::InfoString(s.to_string()));
        }
        let mut words = line.split_whitespace();
        if words.next() == Some("bestmove") {
            // Only the move is read: words after it (UCI's `ponder M`) are no concern here.
            return match words.next().unwrap_or("") {
                "(none)" => Ok(Reply::BestMove(None)),
                w => {
                    w.parse()
                        .map(|m| Reply::BestMove(Some(m)))
                        .map_err(|_| ReplyError::BestMove {
                            word: w.to_string(),
                        })
                }
            };
        }
        match line {
            "aeiok" => Ok(Reply::AeiOk),
            "readyok" => Ok(Reply::ReadyOk),
            "optionsok" => Ok(Reply::OptionsOk),
            _ if line.starts_with("info ") => parse_info(line).map(Reply::Info),
            _ if line.starts_with("option ") => parse_option(line).map(Reply::Option),
            _ => Err(ReplyError::Unknown {
                line: line.to_string(),
            }),
        }
    }
}
