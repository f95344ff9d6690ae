//! A position: the board, the stores, whose turn it is and the counters of docs/rules.md
//! ("Position strings").

use alloc::string::String;
use core::fmt;
use core::str::FromStr;

use crate::sowing::{self, NoObserver};
use crate::{zobrist, Hole, Move, MoveSet, Rules, Side};

/// All seeds of a game.
pub const TOTAL_SEEDS: u8 = 96;
/// Seeds in every hole at the start.
pub const START_SEEDS: u8 = 4;
/// The quiet rule: this many plies in a row without a capture end the game.
pub const QUIET_LIMIT: u16 = 100;

/// A game position under one rules variant.
///
/// Invariants (kept by every constructor and move): holes and stores hold 96 seeds; the seeds
/// in play are a multiple of 4 above the end threshold unless the game is over, in which case
/// the board is empty; the side to move has seeds.
///
/// ```
/// use anywoli_core::{Position, Rules, Side};
///
/// let mut p = Position::start(Rules::Anywoli);
/// assert_eq!(p.to_move(), Some(Side::South));
/// assert_eq!(p.moves().len(), 12);
/// p.play("a".parse().unwrap()).unwrap();
/// assert_eq!(p.ply(), 1);
/// // The position string reads back as the same position.
/// assert_eq!(p.to_string().parse::<Position>().unwrap(), p);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Position {
    pub(crate) holes: [u8; Hole::COUNT],
    pub(crate) stores: [u8; 2],
    /// `None` once the game is over.
    pub(crate) to_move: Option<Side>,
    pub(crate) last_capturer: Option<Side>,
    pub(crate) first_final: Option<Side>,
    pub(crate) quiet: u16,
    pub(crate) ply: u32,
    pub(crate) hash: u64,
    pub(crate) rules: Rules,
}

/// How a game ended, once it has.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Outcome {
    /// This side has more seeds in its store.
    Win(Side),
    /// Both stores hold 48.
    Draw,
}

impl Outcome {
    /// The result as a record writes it: `1-0` South won, `0-1` North won, `1/2-1/2` a draw;
    /// [`FromStr`] reads it back. ([`Display`](fmt::Display) says it in words, for people.)
    ///
    /// ```
    /// use anywoli_core::{Outcome, Side};
    ///
    /// let o: Outcome = "0-1".parse().unwrap();
    /// assert_eq!(o, Outcome::Win(Side::North));
    /// assert_eq!(o.as_str().parse(), Ok(o));
    /// assert_eq!(o.to_string(), "North wins");
    /// assert_eq!(o.score_for(Side::South), 0.0);
    /// assert_eq!(Outcome::Draw.score_for(Side::North), 0.5);
    /// assert!("*".parse::<Outcome>().is_err());
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            Outcome::Win(Side::South) => "1-0",
            Outcome::Win(Side::North) => "0-1",
            Outcome::Draw => "1/2-1/2",
        }
    }

    /// `side`'s points: 1 for a win, ½ for a draw, 0 for a loss.
    pub fn score_for(self, side: Side) -> f64 {
        match self {
            Outcome::Win(winner) if winner == side => 1.0,
            Outcome::Win(_) => 0.0,
            Outcome::Draw => 0.5,
        }
    }
}

/// For people: `South wins`, `North wins`, `draw` (a record's spelling is [`Outcome::as_str`]).
impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Win(s) => write!(f, "{s} wins"),
            Outcome::Draw => f.write_str("draw"),
        }
    }
}

impl FromStr for Outcome {
    type Err = UnknownOutcome;

    /// Reads `1-0`, `0-1` or `1/2-1/2` (a record's `*` is no outcome).
    fn from_str(s: &str) -> Result<Outcome, UnknownOutcome> {
        match s {
            "1-0" => Ok(Outcome::Win(Side::South)),
            "0-1" => Ok(Outcome::Win(Side::North)),
            "1/2-1/2" => Ok(Outcome::Draw),
            _ => Err(UnknownOutcome {
                given: s.chars().take(60).collect(),
            }),
        }
    }
}

/// A text that is not an outcome (`1-0`, `0-1` or `1/2-1/2`).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct UnknownOutcome {
    /// The text read (its first 60 characters).
    pub given: String,
}

impl fmt::Display for UnknownOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown outcome '{}': expected 1-0, 0-1 or 1/2-1/2",
            self.given.escape_debug()
        )
    }
}

impl core::error::Error for UnknownOutcome {}

/// Why a move cannot be played.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PlayError {
    /// The game is already over.
    GameOver {
        /// The move refused.
        mv: Move,
    },
    /// The hole belongs to the player who is not to move.
    WrongSide {
        /// The move refused.
        mv: Move,
        /// The side whose turn it is.
        to_move: Side,
    },
    /// The hole is empty.
    EmptyHole {
        /// The move refused.
        mv: Move,
    },
    /// The sowing would come back to a state it was already in and never end (docs/rules.md,
    /// "A sowing that never ends").
    NeverEnds {
        /// The move refused.
        mv: Move,
    },
}

impl PlayError {
    /// The move refused.
    pub const fn mv(self) -> Move {
        match self {
            PlayError::GameOver { mv }
            | PlayError::WrongSide { mv, .. }
            | PlayError::EmptyHole { mv }
            | PlayError::NeverEnds { mv } => mv,
        }
    }
}

impl fmt::Display for PlayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PlayError::GameOver { mv } => write!(f, "move {mv}: the game is over"),
            PlayError::WrongSide { mv, to_move } => {
                let range = match to_move {
                    Side::South => "a..l",
                    Side::North => "A..L",
                };
                write!(
                    f,
                    "move {mv}: hole {mv} is {}'s, but it is {to_move}'s turn (moves {range})",
                    mv.side()
                )
            }
            PlayError::EmptyHole { mv } => write!(f, "move {mv}: hole {mv} is empty"),
            PlayError::NeverEnds { mv } => write!(
                f,
                "move {mv}: its sowing comes back to a state it was already in and would never end"
            ),
        }
    }
}

impl core::error::Error for PlayError {}

impl Default for Position {
    fn default() -> Position {
        Position::start(Rules::Anywoli)
    }
}

impl Position {
    /// The start position: 4 seeds in every hole, South to move.
    pub fn start(rules: Rules) -> Position {
        let mut p = Position {
            holes: [START_SEEDS; Hole::COUNT],
            stores: [0; 2],
            to_move: Some(Side::South),
            last_capturer: None,
            first_final: None,
            quiet: 0,
            ply: 0,
            hash: 0,
            rules,
        };
        p.hash = p.compute_hash();
        p
    }

    /// The variant the position is played under.
    #[inline]
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// The same position under other rules. Fails if it is not valid there (for example fewer
    /// than 12 seeds in play under `anywoli-it`).
    pub fn with_rules(&self, rules: Rules) -> Result<Position, crate::PositionError> {
        crate::notation::parse_position(&alloc::string::ToString::to_string(self), rules)
    }

    /// The seeds in `hole`.
    #[inline]
    pub fn seeds(&self, hole: Hole) -> u8 {
        self.holes[hole.index()]
    }

    /// The seeds of every hole, by hole number.
    #[inline]
    pub fn holes(&self) -> &[u8; Hole::COUNT] {
        &self.holes
    }

    /// The seeds in `side`'s store.
    #[inline]
    pub fn store(&self, side: Side) -> u8 {
        self.stores[side.index()]
    }

    /// The side to move, or `None` once the game is over.
    #[inline]
    pub fn to_move(&self) -> Option<Side> {
        self.to_move
    }

    /// Whether the game is over (no side to move).
    #[inline]
    pub fn is_over(&self) -> bool {
        self.to_move.is_none()
    }

    /// Who captured most recently.
    #[inline]
    pub fn last_capturer(&self) -> Option<Side> {
        self.last_capturer
    }

    /// Who made the game's first last-seed capture.
    #[inline]
    pub fn first_final_capturer(&self) -> Option<Side> {
        self.first_final
    }

    /// Plies since the last capture.
    #[inline]
    pub fn quiet_plies(&self) -> u16 {
        self.quiet
    }

    /// Plies played so far.
    #[inline]
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// The Zobrist key (see [`crate::zobrist`] for what it covers), kept up to date by every move.
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// Seeds in the holes (between moves nothing is in hand, so these are the seeds in play).
    #[inline]
    pub fn seeds_in_play(&self) -> u8 {
        TOTAL_SEEDS - self.stores[0] - self.stores[1]
    }

    /// Seeds in one side's row.
    #[inline]
    pub fn row_seeds(&self, side: Side) -> u8 {
        let r = side.index() * Hole::ROW;
        self.holes[r..r + Hole::ROW].iter().sum()
    }

    /// The result, once the game is over.
    pub fn outcome(&self) -> Option<Outcome> {
        if !self.is_over() {
            return None;
        }
        Some(match self.stores[0].cmp(&self.stores[1]) {
            core::cmp::Ordering::Greater => Outcome::Win(Side::South),
            core::cmp::Ordering::Less => Outcome::Win(Side::North),
            core::cmp::Ordering::Equal => Outcome::Draw,
        })
    }

    /// The moves the side to move may try: its non-empty holes. A move whose sowing never ends
    /// (docs/rules.md, "A sowing that never ends") is among them and is refused by
    /// [`Position::play`]; none is known.
    #[inline]
    pub fn moves(&self) -> MoveSet {
        let Some(side) = self.to_move else {
            return MoveSet::EMPTY;
        };
        let r = side.index() * Hole::ROW;
        let mut bits = 0u32;
        for (i, &c) in self.holes[r..r + Hole::ROW].iter().enumerate() {
            bits |= ((c != 0) as u32) << i;
        }
        MoveSet::from_bits(bits << r)
    }

    /// Checks that `mv` may be played here, without playing it (the never-ending sowing is only
    /// found by playing).
    pub fn check(&self, mv: Move) -> Result<(), PlayError> {
        let Some(side) = self.to_move else {
            return Err(PlayError::GameOver { mv });
        };
        if mv.side() != side {
            return Err(PlayError::WrongSide { mv, to_move: side });
        }
        if self.holes[mv.hole().index()] == 0 {
            return Err(PlayError::EmptyHole { mv });
        }
        Ok(())
    }

    /// Plays a move, or says precisely why it cannot be played and leaves the position as it was.
    pub fn play(&mut self, mv: Move) -> Result<(), PlayError> {
        self.check(mv)?;
        self.play_unchecked(mv)
    }

    /// The fast path for search: `mv` must be one of [`Position::moves`]. It still refuses a
    /// never-ending sowing (that can only be found by sowing) and then leaves the position as it
    /// was. Passing any other move does not break memory safety, but the resulting position is
    /// unspecified.
    #[inline]
    pub fn play_unchecked(&mut self, mv: Move) -> Result<(), PlayError> {
        let before = *self;
        match sowing::play(self, mv, &mut NoObserver) {
            Ok(()) => Ok(()),
            Err(e) => {
                *self = before;
                Err(e)
            }
        }
    }

    /// The key computed from scratch; equal to [`Position::hash`] at all times.
    pub fn compute_hash(&self) -> u64 {
        let mut h = zobrist::to_move(self.to_move) ^ zobrist::first_final(self.first_final);
        for hole in Hole::all() {
            h ^= zobrist::hole(hole, self.holes[hole.index()]);
        }
        h
    }

    /// Builds a position from its parts, checking every rule of validity (the same checks as the
    /// position string parser).
    #[allow(clippy::too_many_arguments)]
    pub fn from_parts(
        holes: [u8; Hole::COUNT],
        stores: [u8; 2],
        to_move: Option<Side>,
        last_capturer: Option<Side>,
        first_final: Option<Side>,
        quiet: u16,
        ply: u32,
        rules: Rules,
    ) -> Result<Position, crate::PositionError> {
        let mut p = Position {
            holes,
            stores,
            to_move,
            last_capturer,
            first_final,
            quiet,
            ply,
            hash: 0,
            rules,
        };
        crate::notation::validate(&p)?;
        p.hash = p.compute_hash();
        Ok(p)
    }
}
