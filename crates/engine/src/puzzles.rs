//! Endgame puzzles: "South to play and force the win", found in the 8-seed database.
//!
//! A puzzle's solver is the side to move in its position: South in the collection, either
//! side in the puzzles people compose ([`crate::compose`]), whose lines may also end before
//! the game does, where every move wins (the rest plays itself).
//!
//! Each puzzle is an 8-seed position with South to move, 44 seeds in each store and the quiet
//! counter at 0: whoever makes the next capture takes all 8 seeds and wins 52-44. South can
//! force it, and at every South turn of the solution exactly one move keeps the forced
//! capture — every other move lets North force it instead (proven by the database when the
//! collection was made). North defends the longest way. So the whole solution is one line,
//! and checking a player's moves needs no database: the collection ([`PUZZLES_TXT`], made by
//! `anywoli tablebase puzzles`) carries its lines.

use std::sync::OnceLock;

use anywoli_core::{parse_position, Move, ParseMoveError, Position, PositionError, Rules, Side};

use crate::endgame::{positions, unrank, Tablebase, Verdict};

/// The committed collection: `id|grade|plies|defences|position|solution` a line.
pub const PUZZLES_TXT: &str = include_str!("../puzzles.txt");

/// One puzzle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Puzzle {
    /// Its number in the collection, from 1.
    pub id: u32,
    /// 1 (easiest) to 5, from the length of the solution and the defences North has.
    pub grade: u8,
    /// Plies of the solution, South's and North's, to the capture.
    pub plies: u16,
    /// North's moves along the solution that do not give the capture away at once: the
    /// defences a solver must see through.
    pub defences: u32,
    /// The position to solve: its side to move is the solver.
    pub position: Position,
    /// The solution: South's only moves and North's longest defence, to the capture.
    pub line: Vec<Move>,
}

impl Puzzle {
    /// The line of the collection file.
    pub fn to_line(&self) -> String {
        let moves: Vec<String> = self.line.iter().map(|m| m.to_string()).collect();
        format!(
            "{}|{}|{}|{}|{}|{}",
            self.id,
            self.grade,
            self.plies,
            self.defences,
            self.position,
            moves.join(" ")
        )
    }

    fn parse(line: &str) -> Result<Puzzle, PuzzleLineError> {
        let f: Vec<&str> = line.split('|').collect();
        if f.len() != 6 {
            return Err(PuzzleLineError::FieldCount(f.len()));
        }
        let num = |s: &str, field: &'static str| -> Result<u32, PuzzleLineError> {
            s.trim().parse().map_err(|_| PuzzleLineError::Number {
                field,
                text: s.to_string(),
            })
        };
        let position = parse_position(f[4], Rules::Anywoli)?;
        let line = f[5]
            .split_whitespace()
            .map(|m| m.parse::<Move>())
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Puzzle {
            id: num(f[0], "id")?,
            grade: num(f[1], "grade")? as u8,
            plies: num(f[2], "plies")? as u16,
            defences: num(f[3], "defences")?,
            position,
            line,
        })
    }

    /// The puzzle of `line` from `start`, graded from its length and `defences`; its id (0)
    /// is given when it joins a collection.
    pub(crate) fn unnumbered(start: &Position, line: Vec<Move>, defences: u32) -> Puzzle {
        let plies = line.len() as u16;
        Puzzle {
            id: 0,
            grade: grade(plies, defences),
            plies,
            defences,
            position: *start,
            line,
        }
    }

    /// The side that solves the puzzle: the side to move in its position (South in the
    /// collection).
    pub fn side(&self) -> Side {
        self.position.to_move().unwrap_or(Side::South)
    }

    /// The solver's moves of the solution, in order.
    pub fn solver_moves(&self) -> Vec<Move> {
        let side = self.side();
        self.line
            .iter()
            .copied()
            .filter(|m| m.side() == side)
            .collect()
    }

    /// South's moves of the solution, in order (the solver's, in the collection).
    pub fn south_moves(&self) -> Vec<Move> {
        self.line
            .iter()
            .copied()
            .filter(|m| m.side() == Side::South)
            .collect()
    }

    /// Judges a player's attempt: `moves` are all the moves played from the puzzle's position
    /// (the solver's and the opponent's), the last being the player's newest. Only the
    /// solution's moves are right, since each is the solver's only move that keeps the win.
    /// The attempt is solved when the game is over or the line is played out (a composed
    /// line ends where every move wins).
    pub fn judge(&self, moves: &[Move]) -> Judgement {
        let side = self.side();
        let Some((&last, before)) = moves.split_last() else {
            return Judgement::Invalid("no move given".to_string());
        };
        if before.len() >= self.line.len() || before != &self.line[..before.len()] {
            return Judgement::Invalid(
                "the moves before the last are not the puzzle's line so far".to_string(),
            );
        }
        let mut p = self.position;
        for &m in before {
            if p.play(m).is_err() {
                return Judgement::Invalid("the line so far cannot be played".to_string());
            }
        }
        if p.to_move() != Some(side) {
            return Judgement::Invalid(format!(
                "it is not {}'s turn",
                if side == Side::South {
                    "South"
                } else {
                    "North"
                }
            ));
        }
        if let Err(e) = p.play(last) {
            return Judgement::Illegal(e.to_string());
        }
        let expected = self.line[before.len()];
        if last != expected {
            return Judgement::Wrong { expected };
        }
        // The opponent's replies until the solver is to move again or the game is over.
        let mut replies = Vec::new();
        let mut i = moves.len();
        while p.to_move() == Some(side.opponent()) && i < self.line.len() {
            let r = self.line[i];
            if p.play(r).is_err() {
                break;
            }
            replies.push(r);
            i += 1;
        }
        if p.is_over() || i >= self.line.len() {
            Judgement::Solved { replies }
        } else {
            Judgement::Right { replies }
        }
    }
}

/// What a move of an attempt was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Judgement {
    /// The right move; the opponent answered with `replies` (none when the solver moves
    /// again).
    Right {
        /// The opponent's answers, in order.
        replies: Vec<Move>,
    },
    /// The right move, and it wins (after the opponent's last replies, if any): the game is
    /// over, or the line is played out.
    Solved {
        /// The opponent's last answers, in order.
        replies: Vec<Move>,
    },
    /// A legal move that gives the win away: `expected` was the only way.
    Wrong {
        /// The solution's move.
        expected: Move,
    },
    /// The rules forbid the move.
    Illegal(String),
    /// The attempt does not follow the puzzle (earlier moves off its line, not the solver's
    /// turn).
    Invalid(String),
}

/// What is wrong with one line of a collection.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PuzzleLineError {
    /// The line has not the six `|`-separated fields.
    #[error("expected 6 fields, found {0}")]
    FieldCount(usize),
    /// The id, grade, plies or defences field is not a number.
    #[error("bad {field} '{text}'")]
    Number {
        /// The field's name.
        field: &'static str,
        /// Its text.
        text: String,
    },
    /// The position field.
    #[error(transparent)]
    Position(#[from] PositionError),
    /// A move of the solution field.
    #[error(transparent)]
    Move(#[from] ParseMoveError),
}

/// A collection that cannot be read: the first bad line (numbered from 1) and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("puzzle line {line}: {error}")]
pub struct CollectionError {
    /// The line, from 1.
    pub line: usize,
    /// What is wrong with it.
    pub error: PuzzleLineError,
}

/// The committed collection, read once.
pub fn all() -> &'static [Puzzle] {
    static ALL: OnceLock<Vec<Puzzle>> = OnceLock::new();
    ALL.get_or_init(|| parse_collection(PUZZLES_TXT).expect("the committed puzzles are valid"))
}

/// Reads a collection: one puzzle a line; `#` lines and blank lines are skipped.
pub fn parse_collection(text: &str) -> Result<Vec<Puzzle>, CollectionError> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|(i, l)| Puzzle::parse(l).map_err(|error| CollectionError { line: i + 1, error }))
        .collect()
}

/// The puzzle with this id.
pub fn by_id(id: u32) -> Option<&'static Puzzle> {
    all().iter().find(|p| p.id == id)
}

/// The puzzle of a day (days since 1970-01-01): each day the next one, round the collection.
pub fn daily(day: i64) -> &'static Puzzle {
    let all = all();
    &all[day.rem_euclid(all.len() as i64) as usize]
}

/// Days since 1970-01-01 of a date `YYYY-MM-DD`.
pub fn day_of(date: &str) -> Option<i64> {
    let mut it = date.trim().splitn(3, '-');
    let y: i64 = it.next()?.parse().ok()?;
    let m: i64 = it.next()?.parse().ok()?;
    let d: i64 = it.next()?.parse().ok()?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || !(1..=9999).contains(&y) {
        return None;
    }
    // Days from civil (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146_097 + doe - 719_468)
}

/// The grade of a solution of `plies` plies against `defences` defences.
pub fn grade(plies: u16, defences: u32) -> u8 {
    let score = plies as u32 + defences;
    match score {
        0..=4 => 1,
        5..=10 => 2,
        11..=18 => 3,
        19..=30 => 4,
        _ => 5,
    }
}

/// The puzzle of a position (South to move, quiet 0), if it is one: South forces the capture
/// and has exactly one move that keeps it at every turn, against North's longest defence.
pub fn puzzle_of(tb: &Tablebase, start: &Position) -> Option<Puzzle> {
    let p0 = tb.probe(start)?;
    if p0.verdict != Verdict::Win || p0.value != Some(8) || start.to_move() != Some(Side::South) {
        return None;
    }
    let mut p = *start;
    let mut line = Vec::new();
    let mut defences = 0;
    while let Some(me) = p.to_move() {
        let best = tb.best_moves(&p)?;
        if me == Side::South {
            // The only move that keeps the win (the others must all be proven losses).
            if best.len() != 1 {
                return None;
            }
            for mv in p.moves() {
                if mv == best[0].0 {
                    continue;
                }
                let mut c = p;
                c.play_unchecked(mv).ok()?;
                let lost = match c.to_move() {
                    None => c.store(Side::South) < c.store(Side::North),
                    Some(s) => {
                        let v = tb.probe(&c)?.value?;
                        (if s == Side::South { v } else { -v }) < 0
                    }
                };
                if !lost {
                    return None;
                }
            }
        } else {
            // North's moves that do not give South a capture on the next ply.
            defences += p
                .moves()
                .filter(|&mv| {
                    let mut c = p;
                    c.play_unchecked(mv).is_ok()
                        && !c.is_over()
                        && tb.probe(&c).is_some_and(|pr| pr.dtc > 1)
                })
                .count() as u32;
        }
        let mv = best[0].0;
        p.play(mv).ok()?;
        line.push(mv);
    }
    if p.store(Side::South) <= p.store(Side::North) {
        return None;
    }
    Some(Puzzle::unnumbered(start, line, defences))
}

/// A collection of up to `per_grade` puzzles of each grade, found by trying positions of the
/// 8-seed database in an order fixed by `seed` (so the same database and seed give the same
/// collection). Puzzles are numbered from 1, easiest first.
pub fn generate(tb: &Tablebase, per_grade: usize, seed: u64) -> Vec<Puzzle> {
    let Some(table) = tb.table(8) else {
        return Vec::new();
    };
    let n = positions(8);
    let mut by_grade: [Vec<Puzzle>; 5] = Default::default();
    let mut rng = anywoli_core::XorShift::new(seed | 1);
    for _ in 0..4_000_000u32 {
        if by_grade.iter().all(|g| g.len() >= per_grade) {
            break;
        }
        let idx = rng.below(n);
        let e = table.entry_at(idx);
        // Wins of at least 3 plies (South needs two moves at least).
        if !(3..=0x7fff).contains(&e) {
            continue;
        }
        let holes = unrank(idx, 8);
        // A hole of 4 is never made by play (a fourth seed is captured at once).
        if holes.contains(&4) {
            continue;
        }
        let Ok(start) = Position::from_parts(
            holes,
            [44, 44],
            Some(Side::South),
            None,
            None,
            0,
            0,
            Rules::Anywoli,
        ) else {
            continue;
        };
        if let Some(pz) = puzzle_of(tb, &start) {
            let g = &mut by_grade[pz.grade as usize - 1];
            if g.len() < per_grade && !g.iter().any(|q| q.position == pz.position) {
                g.push(pz);
            }
        }
    }
    let mut out: Vec<Puzzle> = Vec::new();
    for mut g in by_grade {
        g.sort_by_key(|p| (p.plies, p.defences));
        out.extend(g);
    }
    for (i, p) in out.iter_mut().enumerate() {
        p.id = i as u32 + 1;
    }
    out
}

/// The collection file's text.
pub fn format_collection(puzzles: &[Puzzle]) -> String {
    let mut s = String::from(
        "# Anywoli endgame puzzles: South to play and force the win (anywoli rules).\n\
         # Made by `anywoli tablebase puzzles` from the 8-seed database; see docs/tablebase.md.\n\
         # id|grade|plies|defences|position|solution (South's only moves, North's longest defence)\n",
    );
    for p in puzzles {
        s.push_str(&p.to_line());
        s.push('\n');
    }
    s
}
