//! The opening book: positions of the first plies of good play, each searched far deeper than
//! a game move gets, with every move's score (docs/book.md).
//!
//! The book is text, one line per position, so that a change to it reads as a diff:
//!
//! ```text
//! anywoli-book 1
//! rules anywoli
//! plies 6
//! depth 14
//! margin 200
//! full-plies 1
//! 4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 14 d:783 e:612 …
//! ```
//!
//! A position is keyed by its holes and the side to move (the first two fields of its position
//! string): stores, counters and the last capturer are left out, as the search leaves them out
//! of its table (`crates/core/src/zobrist.rs`), so transpositions share a line. A move's score
//! is in centiseeds of *future* net gain for the side to move (the search's own unit before the
//! stores are added), so it holds whatever the stores are.
//!
//! # Examples
//!
//! The shipped book knows the start position; a book written out reads back the same:
//!
//! ```
//! use anywoli_core::{Position, Rules};
//! use anywoli_engine::book::{self, Book};
//!
//! let book = book::shipped().expect("the shipped book parses");
//! let start = Position::start(Rules::Anywoli);
//! let entry = book.lookup(&start).expect("the start is in the book");
//! assert_eq!(entry.moves.len(), 12);
//! assert_eq!(book.best_move(&start), entry.best());
//! // Another rules' game is not in this book.
//! assert!(book.lookup(&Position::start(Rules::FirstFinal)).is_none());
//! assert_eq!(Book::parse(&book.serialise()).as_ref(), Ok(book));
//! ```

mod build;

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::OnceLock;

use anywoli_core::{Hole, Move, Position, Rules, Side};

pub use build::{build, BuildOptions, Progress};

/// The first line of every book; the number is the format's version.
pub const MAGIC: &str = "anywoli-book 1";

/// The book shipped in the repository, built by `anywoli book build` (docs/book.md).
const SHIPPED: &str = include_str!("../../book.txt");

/// The shipped book, parsed once. An error here is a bad `book.txt` in the build: the tests
/// refuse it, and a player without a book searches as before.
pub fn shipped() -> Result<&'static Book, &'static BookError> {
    static BOOK: OnceLock<Result<Book, BookError>> = OnceLock::new();
    BOOK.get_or_init(|| Book::parse(SHIPPED)).as_ref()
}

/// What identifies a book position: the holes and the side to move.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Key {
    /// Seeds in each hole, in [`Hole::index`] order.
    pub holes: [u8; Hole::COUNT],
    /// The side to move.
    pub to_move: Side,
}

impl Key {
    /// `None` once the game is over: a finished game has no book moves.
    pub fn of(pos: &Position) -> Option<Key> {
        Some(Key {
            holes: *pos.holes(),
            to_move: pos.to_move()?,
        })
    }

    /// A position with these holes and side to move (the stores split what is not in play,
    /// counters at 0): what legality is checked against.
    fn position(&self, rules: Rules) -> Result<Position, anywoli_core::PositionError> {
        let in_play: u32 = self.holes.iter().map(|&c| c as u32).sum();
        let rest = 96u32.saturating_sub(in_play).min(96) as u8;
        Position::from_parts(
            self.holes,
            [rest - rest / 2, rest / 2],
            Some(self.to_move),
            None,
            None,
            0,
            0,
            rules,
        )
    }
}

/// One position's moves: every playable move with its score, best first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The depth each move's score was searched to.
    pub depth: u32,
    /// Moves with their scores in centiseeds of future net gain for the side to move, best
    /// first; on equal scores in hole order.
    pub moves: Vec<(Move, i32)>,
}

impl Entry {
    /// The move the book plays: the best score, on a tie the first in hole order (the order
    /// the moves are kept in), so that the same position always gets the same move.
    pub fn best(&self) -> Option<Move> {
        self.moves.first().map(|m| m.0)
    }
}

/// How a book was made: what `anywoli book build` was given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The rules the book's positions are played under.
    pub rules: Rules,
    /// Positions before this ply are in the book (0 is the start).
    pub plies: u32,
    /// The depth every position was searched to.
    pub depth: u32,
    /// Moves within this many centiseeds of the best were followed.
    pub margin: i32,
    /// Every move was followed in the first this many plies.
    pub full_plies: u32,
}

/// An opening book: positions in the order they were built (by ply), each with its moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Book {
    /// How the book was made.
    pub header: Header,
    entries: Vec<(Key, Entry)>,
    index: HashMap<Key, usize>,
}

/// What is wrong with a book's text, and on which line (from 1).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad book, line {line}: {kind}")]
pub struct BookError {
    /// The line at fault, from 1.
    pub line: usize,
    /// What is wrong with it.
    pub kind: BookErrorKind,
}

/// What is wrong with a line of a book. The texts quoted are cut after 40 characters.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BookErrorKind {
    /// No line but comments and blank ones.
    #[error("the book is empty: the first line must be '{MAGIC}'")]
    Empty,
    /// The first line is not [`MAGIC`] (the line).
    #[error("expected '{MAGIC}', found '{0}'")]
    Magic(String),
    /// A header line is missing or out of order (the field expected).
    #[error("expected the header line '{0} <value>'")]
    MissingHeader(&'static str),
    /// A header's value is not one.
    #[error("header '{field}': '{value}' is not {expected}")]
    BadHeader {
        /// The header's field (`rules`, `plies`, …).
        field: &'static str,
        /// Its value.
        value: String,
        /// What the value should be.
        expected: &'static str,
    },
    /// A position line has fewer than four words.
    #[error("expected '<holes> <s|n> <depth> <move>:<score> …'")]
    Shape,
    /// The holes are not 12 counts, `/`, 12 counts (the word).
    #[error("holes '{0}': expected 12 counts, '/', 12 counts (0 to 96)")]
    Holes(String),
    /// The side to move is neither `s` nor `n` (the word).
    #[error("side to move '{0}' is not s or n")]
    Side(String),
    /// The depth is not from 1 to 96 (the word).
    #[error("depth '{0}' is not a whole number from 1 to 96")]
    Depth(String),
    /// A word is not `<move>:<score>` (the word).
    #[error("'{0}' is not <move>:<score> (a hole letter, a colon, whole centiseeds)")]
    MoveScore(String),
    /// The holes and side make no position (why).
    #[error("not a position: {0}")]
    Position(String),
    /// A move cannot be played in its position (the move's letter, why).
    #[error("move {0} cannot be played here: {1}")]
    Illegal(char, String),
    /// A move is given twice (its letter).
    #[error("move {0} is listed twice")]
    DuplicateMove(char),
    /// A move's score is above the one before it (its letter).
    #[error("the moves are not best first: {0} after a lower score")]
    Order(char),
    /// The position is on an earlier line too (that line).
    #[error("the position is listed twice (first on line {0})")]
    DuplicatePosition(usize),
}

fn err(line: usize, kind: BookErrorKind) -> BookError {
    BookError { line, kind }
}

/// Text shown in an error, cut short so a huge line gives a short message.
fn shown(s: &str) -> String {
    s.chars().take(40).collect()
}

impl Book {
    /// An empty book with this header.
    pub fn new(header: Header) -> Book {
        Book {
            header,
            entries: Vec::new(),
            index: HashMap::new(),
        }
    }

    /// The moves of `pos`, if the book has it and was built for its rules.
    pub fn lookup(&self, pos: &Position) -> Option<&Entry> {
        if pos.rules() != self.header.rules {
            return None;
        }
        let key = Key::of(pos)?;
        self.index.get(&key).map(|&i| &self.entries[i].1)
    }

    /// The move the book plays in `pos` (see [`Entry::best`]).
    pub fn best_move(&self, pos: &Position) -> Option<Move> {
        self.lookup(pos)?.best()
    }

    /// Positions in the book.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the book has no position.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The positions with their moves, in the order they were inserted (by ply).
    pub fn entries(&self) -> impl Iterator<Item = (&Key, &Entry)> {
        self.entries.iter().map(|(k, e)| (k, e))
    }

    /// Whether the book has this position.
    pub fn contains(&self, key: &Key) -> bool {
        self.index.contains_key(key)
    }

    /// Adds a position's moves (sorted best first, ties in hole order); a position already in
    /// the book keeps its first entry.
    pub fn insert(&mut self, key: Key, mut entry: Entry) {
        if self.index.contains_key(&key) {
            return;
        }
        entry
            .moves
            .sort_by_key(|&(m, s)| (std::cmp::Reverse(s), m.hole().index()));
        self.index.insert(key, self.entries.len());
        self.entries.push((key, entry));
    }

    /// The book as text (see the module's documentation); [`Book::parse`] reads it back.
    pub fn serialise(&self) -> String {
        let h = &self.header;
        let mut out = String::new();
        let _ = writeln!(out, "{MAGIC}");
        let _ = writeln!(
            out,
            "# Built by: anywoli book build --plies {} --depth {} --margin {} --full-plies {}",
            h.plies,
            h.depth,
            margin_seeds(h.margin),
            h.full_plies
        );
        out.push_str(
            "# <holes a..l/A..L> <side to move> <depth> then <move>:<score>, best first; scores\n\
             # are centiseeds of future net gain for the side to move (docs/book.md).\n",
        );
        let _ = writeln!(out, "rules {}", h.rules.name());
        let _ = writeln!(out, "plies {}", h.plies);
        let _ = writeln!(out, "depth {}", h.depth);
        let _ = writeln!(out, "margin {}", h.margin);
        let _ = writeln!(out, "full-plies {}", h.full_plies);
        for (key, entry) in &self.entries {
            for (i, c) in key.holes.iter().enumerate() {
                match i {
                    0 => {}
                    12 => out.push('/'),
                    _ => out.push(','),
                }
                let _ = write!(out, "{c}");
            }
            let side = match key.to_move {
                Side::South => 's',
                Side::North => 'n',
            };
            let _ = write!(out, " {side} {}", entry.depth);
            for (m, s) in &entry.moves {
                let _ = write!(out, " {}:{s}", m.letter());
            }
            out.push('\n');
        }
        out
    }

    /// Reads a book's text, checking every line: each position is valid, each move playable
    /// there, the moves best first, no position twice.
    pub fn parse(text: &str) -> Result<Book, BookError> {
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.trim_end_matches('\r')))
            .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'));
        match lines.next() {
            None => return Err(err(1, BookErrorKind::Empty)),
            Some((_, l)) if l.trim() == MAGIC => {}
            Some((n, l)) => return Err(err(n, BookErrorKind::Magic(shown(l)))),
        }
        let mut last = 1;
        let mut header_line = |field: &'static str| -> Result<(usize, String), BookError> {
            match lines.next() {
                Some((n, l)) => {
                    last = n;
                    match l.split_once(' ') {
                        Some((f, v)) if f == field => Ok((n, v.trim().to_string())),
                        _ => Err(err(n, BookErrorKind::MissingHeader(field))),
                    }
                }
                None => Err(err(last + 1, BookErrorKind::MissingHeader(field))),
            }
        };
        let bad = |n, field, value: &str, expected| {
            err(
                n,
                BookErrorKind::BadHeader {
                    field,
                    value: shown(value),
                    expected,
                },
            )
        };
        let (n, v) = header_line("rules")?;
        let rules = match Rules::from_name(&v, 0) {
            Ok(Rules::Anywoli) => Rules::Anywoli,
            _ => {
                return Err(bad(
                    n,
                    "rules",
                    &v,
                    "anywoli (the only rules a book is built for)",
                ))
            }
        };
        let mut number = |field: &'static str, max: u32| -> Result<u32, BookError> {
            let (n, v) = header_line(field)?;
            v.parse::<u32>()
                .ok()
                .filter(|&x| x <= max)
                .ok_or_else(|| bad(n, field, &v, "a whole number in range"))
        };
        let plies = number("plies", 1000)?;
        let depth = number("depth", 96)?;
        let margin = number("margin", 9600)? as i32;
        let full_plies = number("full-plies", 1000)?;
        let mut book = Book::new(Header {
            rules,
            plies,
            depth,
            margin,
            full_plies,
        });
        let mut first_line: HashMap<Key, usize> = HashMap::new();
        for (n, l) in lines {
            let (key, entry) = parse_entry(l, rules).map_err(|k| err(n, k))?;
            if let Some(&first) = first_line.get(&key) {
                return Err(err(n, BookErrorKind::DuplicatePosition(first)));
            }
            first_line.insert(key, n);
            book.index.insert(key, book.entries.len());
            book.entries.push((key, entry));
        }
        Ok(book)
    }
}

/// Centiseeds as seeds for a command line: `2`, `0.5`.
pub fn margin_seeds(centiseeds: i32) -> String {
    if centiseeds % 100 == 0 {
        format!("{}", centiseeds / 100)
    } else {
        format!("{}", centiseeds as f64 / 100.0)
    }
}

fn parse_entry(line: &str, rules: Rules) -> Result<(Key, Entry), BookErrorKind> {
    let mut fields = line.split(' ');
    let (Some(holes), Some(side), Some(depth)) = (fields.next(), fields.next(), fields.next())
    else {
        return Err(BookErrorKind::Shape);
    };
    let key = Key {
        holes: parse_holes(holes).ok_or_else(|| BookErrorKind::Holes(shown(holes)))?,
        to_move: match side {
            "s" => Side::South,
            "n" => Side::North,
            _ => return Err(BookErrorKind::Side(shown(side))),
        },
    };
    let depth = depth
        .parse::<u32>()
        .ok()
        .filter(|d| (1..=96).contains(d))
        .ok_or_else(|| BookErrorKind::Depth(shown(depth)))?;
    let pos = key
        .position(rules)
        .map_err(|e| BookErrorKind::Position(e.to_string()))?;
    let mut moves: Vec<(Move, i32)> = Vec::new();
    for f in fields {
        let parsed = f.split_once(':').and_then(|(m, s)| {
            let m: Move = m.parse().ok()?;
            let s: i32 = s.parse().ok().filter(|s: &i32| s.abs() <= 9600 * 2)?;
            Some((m, s))
        });
        let (m, s) = parsed.ok_or_else(|| BookErrorKind::MoveScore(shown(f)))?;
        if let Err(e) = pos.check(m) {
            return Err(BookErrorKind::Illegal(m.letter(), e.to_string()));
        }
        if moves.iter().any(|&(x, _)| x == m) {
            return Err(BookErrorKind::DuplicateMove(m.letter()));
        }
        if let Some(&(p, ps)) = moves.last() {
            if s > ps || (s == ps && m.hole().index() < p.hole().index()) {
                return Err(BookErrorKind::Order(m.letter()));
            }
        }
        moves.push((m, s));
    }
    if moves.is_empty() {
        return Err(BookErrorKind::Shape);
    }
    Ok((key, Entry { depth, moves }))
}

fn parse_holes(text: &str) -> Option<[u8; Hole::COUNT]> {
    let (south, north) = text.split_once('/')?;
    let mut holes = [0u8; Hole::COUNT];
    let mut n = 0;
    for c in south.split(',').chain(north.split(',')) {
        if n == Hole::COUNT || c.is_empty() || c.len() > 2 || !c.bytes().all(|b| b.is_ascii_digit())
        {
            return None;
        }
        holes[n] = c.parse().ok().filter(|&v| v <= 96)?;
        n += 1;
    }
    (n == Hole::COUNT && south.split(',').count() == Hole::ROW).then_some(holes)
}
