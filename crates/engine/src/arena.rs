//! Games between players, openings to vary them, and the Elo arithmetic of match results.

use std::time::Duration;

use anywoli_core::{Move, Position, Side};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use crate::players::Player;

/// A finished (or abandoned) game.
#[derive(Clone, Debug)]
pub struct Game {
    /// The position the game started from.
    pub start: Position,
    /// The moves played from `start`.
    pub moves: Vec<Move>,
    /// The position the game stopped in.
    pub end: Position,
    /// Why it stopped before the end, if it did (a player gave no move or an illegal one).
    pub error: Option<String>,
}

impl Game {
    /// Score for South: 1, ½ or 0 (an abandoned game counts against the side that broke it).
    pub fn south_score(&self) -> f64 {
        if let Some(_e) = &self.error {
            return match self.end.to_move() {
                Some(Side::South) => 0.0,
                _ => 1.0,
            };
        }
        match self.end.outcome() {
            Some(anywoli_core::Outcome::Win(Side::South)) => 1.0,
            Some(anywoli_core::Outcome::Win(Side::North)) => 0.0,
            _ => 0.5,
        }
    }
}

/// Plays one game from `start`: `players[0]` is South, `players[1]` North.
pub fn play_game(players: [&mut dyn Player; 2], start: Position, movetime: Duration) -> Game {
    let [south, north] = players;
    south.new_game();
    north.new_game();
    let mut pos = start;
    let mut moves = Vec::new();
    while let Some(side) = pos.to_move() {
        let p: &mut dyn Player = match side {
            Side::South => &mut *south,
            Side::North => &mut *north,
        };
        let Some(mv) = p.choose(&pos, movetime) else {
            return Game {
                start,
                moves,
                end: pos,
                error: Some(format!("{} ({side}) gave no move", p.name())),
            };
        };
        if let Err(e) = pos.play(mv) {
            return Game {
                start,
                moves,
                end: pos,
                error: Some(format!("{} ({side}) played an illegal move: {e}", p.name())),
            };
        }
        moves.push(mv);
    }
    Game {
        start,
        moves,
        end: pos,
        error: None,
    }
}

/// `n` different openings of `plies` random moves each from `start` (fewer if there are not
/// that many), reproducible from `seed`. Each is meant to be played twice, sides swapped.
pub fn openings(start: &Position, n: usize, plies: usize, seed: u64) -> Vec<Vec<Move>> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut out: Vec<Vec<Move>> = Vec::new();
    let mut tries = 0;
    while out.len() < n && tries < n * 50 {
        tries += 1;
        let mut p = *start;
        let mut line = Vec::new();
        while line.len() < plies && !p.is_over() {
            let ms = p.moves();
            let Some(m) = ms.nth(rng.random_range(0..ms.len())) else {
                break;
            };
            if p.play(m).is_ok() {
                line.push(m);
            }
        }
        if !p.is_over() && !out.contains(&line) {
            out.push(line);
        }
    }
    out
}

/// The value [`openings_near`] keeps openings close to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Centre {
    /// The start position's own value as this program's network scores it, which moves with
    /// the network (at depth 8: round 6 −2.8 seeds for South, round 7 +12.0, round 8 −5.6).
    /// When it favours South by several seeds, South wins most games between strong players
    /// from these openings, whoever plays it (docs/strength.md, "Which openings").
    Start,
    /// An even game (0 for both sides): the openings where South's random plies gave back
    /// the first move's advantage, so that the better player, not the side, decides.
    Even,
}

/// Like [`openings`], but only lines that a depth-`depth` search scores within `max_skew`
/// centiseeds of `centre` (for South), `n` of them at most, reproducible from `seed`. A
/// random move is often a gross blunder in Anywoli (a random North reply loses many seeds at
/// once), and a match from such lines measures the opening lottery, not the players.
pub fn openings_near(
    start: &Position,
    n: usize,
    plies: usize,
    seed: u64,
    depth: u32,
    max_skew: i32,
    centre: Centre,
) -> Vec<Vec<Move>> {
    use std::sync::atomic::AtomicBool;
    let engine = crate::Engine::new(16, 1);
    let stop = AtomicBool::new(false);
    let south_score = |p: &Position| -> Option<i32> {
        let side = p.to_move()?;
        let r = engine.search(p, &crate::Limits::depth(depth), &stop, &mut |_| {});
        Some(if side == Side::South {
            r.score
        } else {
            -r.score
        })
    };
    let base = match centre {
        Centre::Start => match south_score(start) {
            Some(v) => v,
            None => return Vec::new(),
        },
        // The stores already won count: an even game is one both sides expect to end level.
        Centre::Even => 0,
    };
    let mut out = Vec::new();
    let mut round = 0u64;
    while out.len() < n && round < 20 {
        for line in openings(start, n * 4, plies, seed ^ round.wrapping_mul(0x9e37_79b9)) {
            if out.len() >= n || out.contains(&line) {
                continue;
            }
            let mut p = *start;
            for &m in &line {
                let _ = p.play(m);
            }
            if south_score(&p).is_some_and(|s| (s - base).abs() <= max_skew) {
                out.push(line);
            }
        }
        round += 1;
    }
    out
}

/// A match score turned into an Elo difference with its 95% error margin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    /// Games played.
    pub games: usize,
    /// Points of the first player (win 1, draw ½).
    pub score: f64,
    /// The first player's Elo advantage (negative: disadvantage).
    pub elo: f64,
    /// Half-width of the 95% interval; infinite when the score is 0% or 100%.
    pub error: f64,
}

fn elo_of(p: f64) -> f64 {
    -400.0 * (1.0 / p - 1.0).log10()
}

/// Elo difference from per-game results (1, 0.5, 0) of the first player.
pub fn elo(results: &[f64]) -> EloEstimate {
    let n = results.len();
    let score: f64 = results.iter().sum();
    if n == 0 {
        return EloEstimate {
            games: 0,
            score: 0.0,
            elo: 0.0,
            error: f64::INFINITY,
        };
    }
    let p = score / n as f64;
    let var = results.iter().map(|r| (r - p) * (r - p)).sum::<f64>() / n as f64;
    let se = (var / n as f64).sqrt();
    let (lo, hi) = (p - 1.96 * se, p + 1.96 * se);
    let clamp = |x: f64| x.clamp(1e-9, 1.0 - 1e-9);
    let (elo, error) = if p <= 0.0 || p >= 1.0 {
        (elo_of(clamp(p)).clamp(-1200.0, 1200.0), f64::INFINITY)
    } else {
        let e = elo_of(p);
        let err = if lo <= 0.0 || hi >= 1.0 {
            f64::INFINITY
        } else {
            (elo_of(hi) - elo_of(lo)) / 2.0
        };
        (e, err)
    };
    EloEstimate {
        games: n,
        score,
        elo,
        error,
    }
}
