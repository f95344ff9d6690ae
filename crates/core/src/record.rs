//! Game records: a text format people can read and write, like PGN for chess.
//! The format is specified in `docs/record-format.md`.

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

use crate::{Line, Move, Outcome, PlayError, Position, Rules};

/// The result tokens a record may end with.
pub const RESULTS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];

/// One game: its tags, rules, start position and moves.
///
/// ```
/// use anywoli_core::{Position, Record, Rules};
///
/// let start = Position::start(Rules::Anywoli);
/// let mut p = start;
/// let mut r = Record::new(start);
/// for _ in 0..4 {
///     let mv = p.moves().next().unwrap();
///     p.play(mv).unwrap();
///     r.moves.push(mv);
/// }
/// r.set_tag("Event", "club night");
/// // A record written out reads back as the same game.
/// let back = Record::parse(&r.to_string()).unwrap();
/// assert_eq!(back.moves, r.moves);
/// assert_eq!(back.tag("Event"), Some("club night"));
/// assert_eq!(back.end().unwrap(), p);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// Tags other than `Rules`, `Seed`, `Position` and `Result`, in the order they were given.
    pub tags: Vec<(String, String)>,
    /// The variant played (the `Rules` tag, with its `Seed`).
    pub rules: Rules,
    /// The position the game started from (the start position unless a `Position` tag says
    /// otherwise).
    pub start: Position,
    /// The moves played from `start`, in order.
    pub moves: Vec<Move>,
    /// One of [`RESULTS`]; `*` while the game goes on or when unknown.
    pub result: String,
}

/// Why a record could not be read; `line` counts from 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordError {
    /// The line at fault, from 1.
    pub line: usize,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "record line {}: {}", self.line, self.message)
    }
}

impl core::error::Error for RecordError {}

/// Longest record text accepted (about 100,000 moves).
///
/// This is the only limit on what is read: there is no separate cap on the number of tags
/// or moves. Everything reading and writing does is linear in the text's length, or
/// `n log n` for the duplicate-tag check (a [`BTreeSet`] of the names seen), so a text of
/// this size, whatever it holds, is read or written in milliseconds (`benches/records.rs`:
/// 64,000 tags or a mebibyte of moves). A tag cap would bound nothing this does not bound
/// already (a mebibyte holds at most about 150,000 tags), and it would break the promise that
/// any [`Record`] written (to at most this length) reads back as itself.
pub const MAX_RECORD_LEN: usize = 1 << 20;

impl Record {
    /// A new record of a game from `start` with no moves yet.
    pub fn new(start: Position) -> Record {
        Record {
            tags: Vec::new(),
            rules: start.rules(),
            start,
            moves: Vec::new(),
            result: "*".to_string(),
        }
    }

    /// The value of a free-form tag.
    ///
    /// A scan of [`Record::tags`]: fine for a few look-ups, but to look up every tag of a long
    /// list, build a map from [`Record::tags`] once instead.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Sets a free-form tag, replacing an earlier value.
    ///
    /// A scan of [`Record::tags`], so calling it for each of `n` tags costs `n²`: to set many
    /// tags, use [`Record::set_tags`].
    pub fn set_tag(&mut self, name: &str, value: &str) {
        if let Some(t) = self.tags.iter_mut().find(|(k, _)| k == name) {
            t.1 = value.to_string();
        } else {
            self.tags.push((name.to_string(), value.to_string()));
        }
    }

    /// Sets many free-form tags: the same as [`Record::set_tag`] for each in turn (a tag
    /// already there gets the new value in its place, a new name is added at the end, and
    /// of a name given several times the last value wins), in `n log n` for `n` tags in all,
    /// where a loop of `set_tag` takes `n²`.
    ///
    /// ```
    /// # use anywoli_core::{Position, Record, Rules};
    /// let mut r = Record::new(Position::start(Rules::Anywoli));
    /// r.set_tag("Event", "club night");
    /// r.set_tags([("South", "Ojulu"), ("Event", "final"), ("North", "Akway")]);
    /// assert_eq!(r.tags.len(), 3);
    /// assert_eq!(r.tags[0], ("Event".to_string(), "final".to_string()));
    /// assert_eq!(r.tag("North"), Some("Akway"));
    /// ```
    pub fn set_tags<I, K, V>(&mut self, tags: I)
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<String>,
    {
        let old = self.tags.len();
        self.tags
            .extend(tags.into_iter().map(|(k, v)| (k.into(), v.into())));
        if self.tags.len() == old {
            return;
        }
        // Which entry each new one goes to: the first of its name (as `set_tag` finds it),
        // taking the value of the last new one of that name; the other new ones go.
        let mut merges = Vec::new();
        let mut keep = vec![true; self.tags.len()];
        {
            let mut order: Vec<(&str, usize)> = self
                .tags
                .iter()
                .enumerate()
                .map(|(i, (k, _))| (k.as_str(), i))
                .collect();
            order.sort_unstable();
            for run in order.chunk_by(|a, b| a.0 == b.0) {
                let first = run[0].1;
                let last = run[run.len() - 1].1;
                if last >= old && last != first {
                    merges.push((first, last));
                }
                for &(_, i) in run {
                    if i >= old && i != first {
                        keep[i] = false;
                    }
                }
            }
        }
        for (first, last) in merges {
            self.tags[first].1 = core::mem::take(&mut self.tags[last].1);
        }
        let mut i = 0;
        self.tags.retain(|_| {
            i += 1;
            keep[i - 1]
        });
    }

    /// The game's line: its start and moves.
    pub fn line(&self) -> Line<'_> {
        Line::new(self.start, &self.moves)
    }

    /// The position after every move; the first is [`Record::start`]. The error is the first
    /// illegal move's index (from 0) and why.
    pub fn positions(&self) -> Result<Vec<Position>, (usize, PlayError)> {
        let out: Vec<Position> = self.line().positions().collect();
        // They stop before the first move that cannot be played: played again, it says why.
        let last = out.len() - 1;
        if let Some(&mv) = self.moves.get(last) {
            let mut at = out[last];
            at.play(mv).map_err(|e| (last, e))?;
        }
        Ok(out)
    }

    /// The position after the last move; the error is the first illegal move's index (from
    /// 0) and why.
    pub fn end(&self) -> Result<Position, (usize, PlayError)> {
        self.line().end().map_err(|e| (e.n - 1, e.error))
    }

    /// Sets the result from the final position, if the game is over there.
    pub fn set_result_from_play(&mut self) {
        if let Ok(end) = self.end() {
            self.result = end.outcome().map_or("*", Outcome::as_str).to_string();
        }
    }

    /// Reads exactly one game.
    pub fn parse(text: &str) -> Result<Record, RecordError> {
        let mut games = parse_all(text)?;
        match games.len() {
            1 => Ok(games.remove(0)),
            0 => Err(RecordError {
                line: 1,
                message: "no game in the text".to_string(),
            }),
            n => Err(RecordError {
                line: 1,
                message: format!("{n} games in the text, expected one"),
            }),
        }
    }
}

/// Writes a tag value: `\"` for a quote, `\\` for a backslash, a space for a line break.
fn write_escaped(f: &mut fmt::Formatter<'_>, v: &str) -> fmt::Result {
    let mut rest = v;
    while let Some(i) = rest.find(['"', '\\', '\n', '\r']) {
        f.write_str(&rest[..i])?;
        f.write_str(match rest.as_bytes()[i] {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            _ => " ",
        })?;
        rest = &rest[i + 1..];
    }
    f.write_str(rest)
}

impl fmt::Display for Record {
    /// Writes the record: tags, a blank line, moves wrapped at 80 columns, the result.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, v) in &self.tags {
            write!(f, "[{k} \"")?;
            write_escaped(f, v)?;
            f.write_str("\"]\n")?;
        }
        writeln!(f, "[Rules \"{}\"]", self.rules)?;
        if let Some(seed) = self.rules.seed() {
            writeln!(f, "[Seed \"{seed}\"]")?;
        }
        if self.start != Position::start(self.rules) {
            writeln!(f, "[Position \"{}\"]", self.start)?;
        }
        writeln!(f, "[Result \"{}\"]", self.result)?;
        writeln!(f)?;
        let mut col = 0;
        for mv in &self.moves {
            if col >= 78 {
                writeln!(f)?;
                col = 0;
            } else if col > 0 {
                f.write_str(" ")?;
                col += 1;
            }
            write!(f, "{mv}")?;
            col += 1;
        }
        if col + self.result.len() >= 80 {
            writeln!(f)?;
        } else if col > 0 {
            f.write_str(" ")?;
        }
        writeln!(f, "{}", self.result)
    }
}

/// A game being read: its tags and its move tokens (slices of the text), with their lines.
struct Pending<'a> {
    line: usize,
    tags: Vec<(String, String)>,
    /// The names of `tags`, to find a repeated one in `log n` rather than by a scan.
    names: BTreeSet<&'a str>,
    rules: Option<(usize, String)>,
    seed: Option<(usize, String)>,
    position: Option<(usize, String)>,
    result: Option<(usize, String)>,
    moves: Vec<(usize, &'a str)>,
    end_token: Option<(usize, &'a str)>,
}

impl<'a> Pending<'a> {
    fn new(line: usize) -> Pending<'a> {
        Pending {
            line,
            tags: Vec::new(),
            names: BTreeSet::new(),
            rules: None,
            seed: None,
            position: None,
            result: None,
            moves: Vec::new(),
            end_token: None,
        }
    }

    fn is_empty(&self) -> bool {
        self.tags.is_empty()
            && self.rules.is_none()
            && self.seed.is_none()
            && self.position.is_none()
            && self.result.is_none()
            && self.moves.is_empty()
            && self.end_token.is_none()
    }

    fn finish(self) -> Result<Record, RecordError> {
        let err = |line, message: String| RecordError { line, message };
        let seed = match &self.seed {
            None => 0,
            Some((line, s)) => s.parse::<u64>().map_err(|_| {
                err(
                    *line,
                    format!(
                        "Seed is '{}', not a whole number below 2^64",
                        s.escape_debug()
                    ),
                )
            })?,
        };
        let rules = match &self.rules {
            None => Rules::Anywoli,
            Some((line, name)) => {
                Rules::from_name(name, seed).map_err(|e| err(*line, e.to_string()))?
            }
        };
        if self.seed.is_some() && rules.seed().is_none() {
            let line = self.seed.as_ref().map_or(self.line, |s| s.0);
            return Err(err(
                line,
                format!("a Seed tag, but the rules {rules} draw no lottery"),
            ));
        }
        let start = match &self.position {
            None => Position::start(rules),
            Some((line, text)) => {
                crate::parse_position(text, rules).map_err(|e| err(*line, e.to_string()))?
            }
        };
        let result = match (&self.result, &self.end_token) {
            (Some((line, tag)), Some((_, token))) if tag != token => {
                return Err(err(
                    *line,
                    format!("the Result tag says {tag} but the moves end with {token}"),
                ))
            }
            (Some((_, r)), _) => r.clone(),
            (None, Some((_, r))) => r.to_string(),
            (None, None) => "*".to_string(),
        };
        let mut pos = start;
        let mut moves = Vec::with_capacity(self.moves.len());
        for (i, (line, tok)) in self.moves.iter().enumerate() {
            let mv: Move = tok
                .parse()
                .map_err(|e: crate::ParseMoveError| err(*line, format!("move {}: {e}", i + 1)))?;
            pos.play(mv)
                .map_err(|e| err(*line, format!("move {} is illegal: {e}", i + 1)))?;
            moves.push(mv);
        }
        Ok(Record {
            tags: self.tags,
            rules,
            start,
            moves,
            result,
        })
    }
}

/// Reads a tag line: its name (a slice of the line) and its value, unescaped.
fn parse_tag(line: &str, n: usize) -> Result<(&str, String), RecordError> {
    let err = |message: String| RecordError { line: n, message };
    let inner = line
        .strip_prefix('[')
        .and_then(|l| l.strip_suffix(']'))
        .ok_or_else(|| err("a tag line must look like [Name \"value\"]".to_string()))?;
    let (name, rest) = inner
        .split_once(' ')
        .ok_or_else(|| err("a tag needs a name, a space and a quoted value".to_string()))?;
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(err(format!(
            "tag name '{}' must be letters, digits or _",
            name.escape_debug()
        )));
    }
    let rest = rest.trim();
    let body = rest
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .ok_or_else(|| err(format!("the value of tag {name} must be in double quotes")))?;
    let mut value = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(e @ ('"' | '\\')) => value.push(e),
                _ => {
                    return Err(err(format!(
                        "tag {name}: a \\ must be followed by \" or \\"
                    )))
                }
            },
            '"' => {
                return Err(err(format!(
                    "tag {name}: a \" inside the value must be \\\""
                )))
            }
            c => value.push(c),
        }
    }
    Ok((name, value))
}

/// Reads every game of a text (games follow each other, each starting with its tags).
///
/// Texts longer than [`MAX_RECORD_LEN`] are refused; anything shorter is read in time
/// `n log n` in its length at worst, whatever it holds.
pub fn parse_all(text: &str) -> Result<Vec<Record>, RecordError> {
    if text.len() > MAX_RECORD_LEN {
        return Err(RecordError {
            line: 1,
            message: format!(
                "the text is {} bytes; records are read up to {MAX_RECORD_LEN}",
                text.len()
            ),
        });
    }
    let mut games = Vec::new();
    let mut cur = Pending::new(1);
    let mut in_comment = false;
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim();
        if in_comment {
            if let Some(end) = line.find('}') {
                in_comment = false;
                scan_moves(&line[end + 1..], n, &mut cur, &mut in_comment)?;
            }
            continue;
        }
        if line.starts_with('[') {
            // Tags after moves start the next game.
            if !cur.moves.is_empty() || cur.end_token.is_some() {
                let done = core::mem::replace(&mut cur, Pending::new(n));
                games.push(done.finish()?);
            }
            let (k, v) = parse_tag(line, n)?;
            let slot = match k {
                "Rules" => &mut cur.rules,
                "Seed" => &mut cur.seed,
                "Position" => &mut cur.position,
                "Result" => {
                    if !RESULTS.contains(&v.as_str()) {
                        return Err(RecordError {
                            line: n,
                            message: format!(
                                "Result is '{}', expected 1-0, 0-1, 1/2-1/2 or *",
                                v.escape_debug()
                            ),
                        });
                    }
                    &mut cur.result
                }
                _ => {
                    if !cur.names.insert(k) {
                        return Err(RecordError {
                            line: n,
                            message: format!("tag {k} is given twice"),
                        });
                    }
                    cur.tags.push((k.to_string(), v));
                    continue;
                }
            };
            if slot.is_some() {
                return Err(RecordError {
                    line: n,
                    message: format!("tag {k} is given twice"),
                });
            }
            *slot = Some((n, v));
            continue;
        }
        scan_moves(line, n, &mut cur, &mut in_comment)?;
    }
    if in_comment {
        return Err(RecordError {
            line: text.lines().count().max(1),
            message: "a comment opened with { is never closed".to_string(),
        });
    }
    if !cur.is_empty() {
        games.push(cur.finish()?);
    }
    Ok(games)
}

fn scan_moves<'a>(
    line: &'a str,
    n: usize,
    cur: &mut Pending<'a>,
    in_comment: &mut bool,
) -> Result<(), RecordError> {
    let mut rest = line;
    loop {
        if let Some(open) = rest.find('{') {
            scan_tokens(&rest[..open], n, cur)?;
            match rest[open + 1..].find('}') {
                Some(close) => rest = &rest[open + 1 + close + 1..],
                None => {
                    *in_comment = true;
                    return Ok(());
                }
            }
        } else {
            return scan_tokens(rest, n, cur);
        }
    }
}

fn scan_tokens<'a>(text: &'a str, n: usize, cur: &mut Pending<'a>) -> Result<(), RecordError> {
    for tok in text.split_whitespace() {
        if let Some((line, end)) = &cur.end_token {
            return Err(RecordError {
                line: n,
                message: format!(
                    "'{}' after the result {end} (line {line}) that ends the game's moves",
                    tok.escape_debug()
                ),
            });
        }
        if RESULTS.contains(&tok) {
            cur.end_token = Some((n, tok));
        } else {
            cur.moves.push((n, tok));
        }
    }
    Ok(())
}
