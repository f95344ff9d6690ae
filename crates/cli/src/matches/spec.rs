//! A player as `anywoli match` is told it: a built-in player with its own table size and
//! threads, or an external program's command line (`cmd:…`, split like a shell would).

use anywoli_engine::builtin;
use anywoli_engine::protocol::{MAX_HASH_MIB, MAX_THREADS};
use thiserror::Error;

/// The longest time a move a player's own `movetime=` may ask: ten minutes.
pub(super) const MAX_MOVETIME_MS: u64 = 600_000;

#[derive(Clone, Debug)]
pub(super) enum Spec {
    /// A built-in player with its own table size, threads and time a move when the spec
    /// names them (`level10:threads=2:hash=64:movetime=200`), else the match's `--hash`,
    /// `--threads` and `--movetime`. A time of its own plays time odds: what a doubled time
    /// is worth is the ceiling of what a second thread can bring.
    Builtin {
        name: String,
        hash: Option<usize>,
        threads: Option<usize>,
        movetime: Option<u64>,
    },
    Cmd(Vec<String>),
}

/// Why a command line cannot be split into words.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SplitError {
    #[error("the quote {quote} is never closed")]
    Unclosed { quote: char },
    #[error("a \\ ends the command")]
    TrailingBackslash,
}

/// Why a player spec is refused.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SpecError {
    #[error("player '{spec}': {source}")]
    Command { spec: String, source: SplitError },
    #[error("player '{spec}': no command after cmd: (e.g. 'cmd:target/release/anywoli engine')")]
    NoCommand { spec: String },
    #[error("unknown player '{}': expected level1..level10, greedy, random, minimax1..minimax6 or cmd:COMMAND", .spec.escape_debug())]
    Unknown { spec: String },
    #[error("player '{}': option '{}' is not threads=N (1 to {MAX_THREADS}), hash=MIB (1 to {MAX_HASH_MIB}) or movetime=MS (1 to {MAX_MOVETIME_MS})", .spec.escape_debug(), .option.escape_debug())]
    Option { spec: String, option: String },
}

/// Splits a command line into words: white space separates, '…' and "…" quote, \ escapes.
pub fn split_command(s: &str) -> Result<Vec<String>, SplitError> {
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
                        None => return Err(SplitError::Unclosed { quote: c }),
                        Some(q) if q == c => break,
                        Some('\\') if c == '"' => {
                            cur.push(chars.next().ok_or(SplitError::TrailingBackslash)?)
                        }
                        Some(q) => cur.push(q),
                    }
                }
            }
            '\\' => {
                in_word = true;
                cur.push(chars.next().ok_or(SplitError::TrailingBackslash)?);
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

pub(super) fn parse_spec(s: &str) -> Result<Spec, SpecError> {
    if let Some(cmd) = s.strip_prefix("cmd:") {
        let argv = split_command(cmd).map_err(|source| SpecError::Command {
            spec: s.to_string(),
            source,
        })?;
        if argv.is_empty() {
            return Err(SpecError::NoCommand {
                spec: s.to_string(),
            });
        }
        return Ok(Spec::Cmd(argv));
    }
    let mut parts = s.split(':');
    let name = parts.next().unwrap_or_default();
    if builtin(name, 0, 1, 1).is_none() {
        return Err(SpecError::Unknown {
            spec: s.to_string(),
        });
    }
    let (mut hash, mut threads, mut movetime) = (None, None, None);
    for option in parts {
        let bad = || SpecError::Option {
            spec: s.to_string(),
            option: option.to_string(),
        };
        let (key, value) = option.split_once('=').ok_or_else(bad)?;
        let value: usize = value.parse().map_err(|_| bad())?;
        match key {
            "threads" if (1..=MAX_THREADS).contains(&value) => threads = Some(value),
            "hash" if (1..=MAX_HASH_MIB).contains(&value) => hash = Some(value),
            "movetime" if (1..=MAX_MOVETIME_MS as usize).contains(&value) => {
                movetime = Some(value as u64)
            }
            _ => return Err(bad()),
        }
    }
    Ok(Spec::Builtin {
        name: name.to_string(),
        hash,
        threads,
        movetime,
    })
}
