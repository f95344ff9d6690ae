//! The puzzle composer: is a position a puzzle, and if not, why not.
//!
//! A position is a puzzle when the side to move (the solver, South or North) forces a win
//! (a final store difference above 0) and has exactly one winning first move. The solution
//! is then followed a ply at a time with the exact solver ([`crate::endgame::solve`]):
//!
//! - at each later turn of the solver, if there are two legal moves or more and every one
//!   wins, the line ends there (the rest plays itself); if exactly one move wins, it is the
//!   line's move; if two or more win but not all, the position is refused (a "dual"), so that
//!   the solution stays one line and a move can be judged against it with no solver, as the
//!   collection's are (docs/decisions.md, "Composed puzzles");
//! - at each turn of the opponent, its best defence: among the moves of the best value for it,
//!   the one that holds out longest ([`Solver::distance`]);
//! - the line ends when the game does, or at most [`MAX_PLIES`] plies in.
//!
//! All the solver's questions share one node budget ([`ComposeLimits::nodes`]); when it runs
//! out the answer is [`Refusal::Unproven`], never a guess. So does [`TIME_CAP`], a safety net
//! for an overloaded machine. Without an 8-seed database the solver builds its own
//! ([`crate::endgame::layer8`], once per process), so that a capture forced 50 or more plies
//! away in an 8-seed ending is proven at once rather than searched for.

use std::time::{Duration, Instant};

use anywoli_core::{Move, Position, Side};

use crate::endgame::Tablebase;
use crate::endgame::{Solution, Solver};
use crate::puzzles::Puzzle;

/// The longest solution a composed puzzle may have, in plies of both sides.
pub const MAX_PLIES: usize = 200;

/// The wall-clock cap of a composition: a safety net only. The node budget decides answers;
/// the web app's 2,000,000 nodes take under a second on the project's machine.
pub const TIME_CAP: Duration = Duration::from_secs(10);

/// What a composition may spend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ComposeLimits {
    /// Nodes of the solver, for all its questions together.
    pub nodes: u64,
    /// The longest solution, in plies.
    pub max_plies: usize,
}

impl ComposeLimits {
    /// At most `nodes` nodes, and solutions up to [`MAX_PLIES`].
    pub fn nodes(nodes: u64) -> ComposeLimits {
        ComposeLimits {
            nodes,
            max_plies: MAX_PLIES,
        }
    }
}

/// Why a position is not a puzzle.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The game is over: there is no move to find.
    #[error("the game is over: there is no move to find")]
    GameOver,
    /// The side to move does not force a win: `value` is what best play wins from here on
    /// (net seeds for the side to move), `margin` the final store difference it leads to.
    #[error("the side to move does not force a win: best play ends {margin:+} (winning {value:+} seeds from here)")]
    NotAWin {
        /// Net seeds best play wins from here on, for the side to move.
        value: i32,
        /// The final store difference best play leads to, for the side to move.
        margin: i32,
    },
    /// Several first moves win: a puzzle needs exactly one.
    #[error("{} first moves win ({}): a puzzle needs exactly one", .moves.len(), letters(.moves))]
    SeveralWinningFirstMoves {
        /// The winning first moves.
        moves: Vec<Move>,
    },
    /// At ply `ply` of the solution (counted from 0, the first move), the solver has two or
    /// more winning moves (`moves`) but not every move wins.
    #[error("at ply {ply} of the solution {} moves win ({}) but not all: the solution would not be one line", .moves.len(), letters(.moves))]
    Dual {
        /// The ply, from 0.
        ply: usize,
        /// The winning moves there.
        moves: Vec<Move>,
    },
    /// The solver's node budget ran out before the answer was proven.
    #[error("not proven within the limit of {nodes} nodes")]
    Unproven {
        /// The budget that ran out.
        nodes: u64,
    },
    /// The solution is longer than the limit.
    #[error("the solution is longer than {max} plies")]
    TooLong {
        /// The limit, in plies.
        max: usize,
    },
}

impl Refusal {
    /// The stable name of the reason (the API's `reason`).
    pub fn name(&self) -> &'static str {
        match self {
            Refusal::GameOver => "game_over",
            Refusal::NotAWin { .. } => "not_a_win",
            Refusal::SeveralWinningFirstMoves { .. } => "several_winning_first_moves",
            Refusal::Dual { .. } => "dual",
            Refusal::Unproven { .. } => "unproven",
            Refusal::TooLong { .. } => "too_long",
        }
    }
}

fn letters(moves: &[Move]) -> String {
    moves
        .iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The puzzle of `pos` (numbered 0), or why it is not one; `tb` is the endgame databases, if
/// any (`crate::endgame::shared`).
pub fn compose(
    pos: &Position,
    tb: Option<&Tablebase>,
    limits: ComposeLimits,
) -> Result<Puzzle, Refusal> {
    compose_counting(pos, tb, limits).0
}

/// [`compose`], with the nodes it searched.
pub fn compose_counting(
    pos: &Position,
    tb: Option<&Tablebase>,
    limits: ComposeLimits,
) -> (Result<Puzzle, Refusal>, u64) {
    // The layer is built before the clock starts: the cap is for the search.
    if pos.seeds_in_play() >= 8 && tb.is_none_or(|tb| tb.table(8).is_none()) {
        crate::endgame::layer8();
    }
    let mut solver = Solver::new(tb, limits.nodes);
    solver.set_deadline(Some(Instant::now() + TIME_CAP));
    let mut c = Composer {
        solver,
        limits,
        used: 0,
    };
    let r = c.run(pos);
    (r, c.used)
}

struct Composer<'a> {
    solver: Solver<'a>,
    limits: ComposeLimits,
    used: u64,
}

/// A move's value to the side to move: proven, or only bounded (the budget ran out on it).
enum Wins {
    Yes,
    No,
    Unknown,
}

impl<'a> Composer<'a> {
    /// Runs one question of the solver on what is left of the budget.
    fn ask<T>(
        &mut self,
        f: impl FnOnce(&mut Solver<'a>) -> Result<T, crate::endgame::Unproven>,
    ) -> Result<T, Refusal> {
        let left = self.limits.nodes.saturating_sub(self.used);
        let unproven = Refusal::Unproven {
            nodes: self.limits.nodes,
        };
        if left == 0 {
            return Err(unproven);
        }
        self.solver.set_limit(left);
        let r = f(&mut self.solver);
        self.used += self.solver.nodes().min(left);
        r.map_err(|_| unproven)
    }

    fn run(&mut self, start: &Position) -> Result<Puzzle, Refusal> {
        let Some(solver) = start.to_move() else {
            return Err(Refusal::GameOver);
        };
        let mut p = *start;
        let mut line: Vec<Move> = Vec::new();
        let mut defences = 0u32;
        while let Some(me) = p.to_move() {
            if line.len() >= self.limits.max_plies {
                return Err(Refusal::TooLong {
                    max: self.limits.max_plies,
                });
            }
            let sol = self.ask(|s| s.solve_moves(&p))?;
            let mv = if me == solver {
                let first = line.is_empty();
                if first && sol.margin <= 0 {
                    return Err(Refusal::NotAWin {
                        value: sol.value,
                        margin: sol.margin,
                    });
                }
                let (mut winning, unknown, legal) = winners(&p, &sol);
                winning.sort();
                if first {
                    if winning.len() >= 2 {
                        return Err(Refusal::SeveralWinningFirstMoves { moves: winning });
                    }
                    if unknown > 0 || winning.is_empty() {
                        return Err(Refusal::Unproven {
                            nodes: self.limits.nodes,
                        });
                    }
                } else {
                    if unknown > 0 || winning.is_empty() {
                        // Either every move wins or it is a dual: the budget did not tell.
                        return Err(Refusal::Unproven {
                            nodes: self.limits.nodes,
                        });
                    }
                    if legal >= 2 && winning.len() == legal {
                        break;
                    }
                    if winning.len() >= 2 {
                        return Err(Refusal::Dual {
                            ply: line.len(),
                            moves: winning,
                        });
                    }
                }
                winning[0]
            } else {
                defences += self.defences(&p, solver);
                self.defence(&p, &sol, solver)?
            };
            if p.play(mv).is_err() {
                return Err(Refusal::Unproven {
                    nodes: self.limits.nodes,
                });
            }
            line.push(mv);
        }
        Ok(Puzzle::unnumbered(start, line, defences))
    }

    /// The opponent's best defence: the best value for it, and of those the move that holds
    /// out longest (the first of them in the solver's order when several hold out as long).
    fn defence(&mut self, p: &Position, sol: &Solution, solver: Side) -> Result<Move, Refusal> {
        let unproven = Refusal::Unproven {
            nodes: self.limits.nodes,
        };
        let Some(&(_, best)) = sol.moves.first() else {
            return Err(unproven);
        };
        // A move left unproven might be better still.
        if sol.unproven_moves.iter().any(|&(_, _, hi)| hi > best) {
            return Err(unproven);
        }
        let tied: Vec<Move> = sol
            .moves
            .iter()
            .filter(|m| m.1 == best)
            .map(|m| m.0)
            .collect();
        if tied.len() == 1 {
            return Ok(tied[0]);
        }
        let cap = self.limits.max_plies.min(u16::MAX as usize) as u16;
        let mut chosen = (tied[0], 0u16);
        for (i, &mv) in tied.iter().enumerate() {
            let mut c = *p;
            if c.play(mv).is_err() {
                continue;
            }
            let d = if c.is_over() {
                0
            } else {
                self.ask(|s| s.distance(&c, solver, cap))?
            };
            if i == 0 || d > chosen.1 {
                chosen = (mv, d);
            }
        }
        Ok(chosen.0)
    }

    /// The opponent's moves from `p` that give nothing away at once: after them the game
    /// goes on and the solver cannot win seeds with its very next move (what a person solving
    /// the puzzle must see through; as the collection counts North's defences).
    fn defences(&self, p: &Position, solver: Side) -> u32 {
        let mut n = 0;
        for mv in p.moves() {
            let mut c = *p;
            if c.play(mv).is_err() || c.is_over() {
                continue;
            }
            let gives = c.to_move() == Some(solver)
                && c.moves().any(|m| {
                    let mut d = c;
                    d.play(m).is_ok()
                        && d.store(solver) as i32 - d.store(solver.opponent()) as i32
                            > c.store(solver) as i32 - c.store(solver.opponent()) as i32
                });
            if !gives {
                n += 1;
            }
        }
        n
    }
}

/// The moves that win for the side to move (final margin above 0), how many moves the budget
/// left undecided, and how many moves can be played.
fn winners(p: &Position, sol: &Solution) -> (Vec<Move>, usize, usize) {
    let me = p.to_move().unwrap_or(Side::South);
    let stores = p.store(me) as i32 - p.store(me.opponent()) as i32;
    let mut winning = Vec::new();
    let mut unknown = 0;
    for &(mv, v) in &sol.moves {
        if stores + v > 0 {
            winning.push(mv);
        }
    }
    for &(mv, lo, hi) in &sol.unproven_moves {
        match wins(stores, lo, hi) {
            Wins::Yes => winning.push(mv),
            Wins::No => {}
            Wins::Unknown => unknown += 1,
        }
    }
    (winning, unknown, sol.moves.len() + sol.unproven_moves.len())
}

fn wins(stores: i32, lo: i32, hi: i32) -> Wins {
    if stores + lo > 0 {
        Wins::Yes
    } else if stores + hi <= 0 {
        Wins::No
    } else {
        Wins::Unknown
    }
}
