//! Players: the levels 1–10 for people, and the two baselines everyone understands.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anywoli_core::{Move, Position, Side};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use crate::book::{self, Book};
use crate::search::Engine;

/// How a level plays: how deep it looks and how much noise blurs its judgement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LevelSpec {
    /// Its rung, 1 (weakest) to 10.
    pub level: u8,
    /// Search depth in plies; `None` means a timed search at full strength.
    pub depth: Option<u32>,
    /// Standard deviation of the noise added to each move's score, in centiseeds: a human-like
    /// misjudgement that makes weaker levels choose second-best moves.
    pub noise: i32,
}

impl LevelSpec {
    /// Whether the level chooses by a shallow look (1 to 3 plies, with noise): microseconds, so
    /// a caller need not queue it behind searches.
    pub fn is_instant(&self) -> bool {
        self.noise != 0
    }
}

/// The ladder; `docs/strength.md` measures it.
pub const LEVELS: [LevelSpec; 10] = [
    level(1, Some(1), 800),
    level(2, Some(1), 300),
    level(3, Some(1), 100),
    level(4, Some(2), 80),
    level(5, Some(3), 40),
    level(6, Some(5), 0),
    level(7, Some(7), 0),
    level(8, Some(9), 0),
    level(9, Some(11), 0),
    level(10, None, 0),
];

const fn level(level: u8, depth: Option<u32>, noise: i32) -> LevelSpec {
    LevelSpec {
        level,
        depth,
        noise,
    }
}

/// The rung `level` of [`LEVELS`] (1 to 10); `None` for any other number.
pub fn level_spec(level: u8) -> Option<LevelSpec> {
    LEVELS.get((level as usize).wrapping_sub(1)).copied()
}

/// Something that chooses moves.
pub trait Player: Send {
    /// What the player is called in results and logs (`level 3`, `greedy`).
    fn name(&self) -> String;
    /// Called before each game.
    fn new_game(&mut self) {}
    /// A move for the side to move; `movetime` is the time it may think (a hint for weak
    /// players, a hard limit for level 10). `None` only when the game is over.
    fn choose(&mut self, pos: &Position, movetime: Duration) -> Option<Move>;
}

/// An approximately normal number with standard deviation `sigma` (sum of four uniforms).
fn noise(rng: &mut SmallRng, sigma: i32) -> i32 {
    if sigma == 0 {
        return 0;
    }
    let u: f64 = (0..4).map(|_| rng.random::<f64>()).sum::<f64>() - 2.0;
    (u * 3f64.sqrt() * sigma as f64) as i32
}

/// A level of the ladder, with its own engine.
pub struct LevelPlayer {
    spec: LevelSpec,
    engine: Engine,
    rng: SmallRng,
    /// Played from before any search when it has the position (level 10 only).
    book: Option<&'static Book>,
}

impl LevelPlayer {
    /// The rung `level` of [`LEVELS`] (`None` for any other number), its noise drawn from
    /// `seed`, its engine with a table of `hash_mib` MiB and `threads` threads. Level 10 opens
    /// from the shipped book.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// use anywoli_core::{Position, Rules};
    /// use anywoli_engine::{book, LevelPlayer, Player};
    ///
    /// let pos = Position::start(Rules::Anywoli);
    /// let think = Duration::from_millis(100);
    /// let mut weak = LevelPlayer::new(3, 7, 1, 1).expect("3 is a level");
    /// let mv = weak.choose(&pos, think).expect("the start has moves");
    /// assert!(pos.moves().contains(mv));
    /// // The same level and seed choose the same move.
    /// let mut again = LevelPlayer::new(3, 7, 1, 1).unwrap();
    /// assert_eq!(again.choose(&pos, think), Some(mv));
    /// // Level 10 plays the book's move where the book has one.
    /// let mut best = LevelPlayer::new(10, 7, 1, 1).unwrap();
    /// assert_eq!(best.choose(&pos, think), book::shipped().unwrap().best_move(&pos));
    /// assert!(LevelPlayer::new(11, 7, 1, 1).is_none());
    /// ```
    pub fn new(level: u8, seed: u64, hash_mib: usize, threads: usize) -> Option<LevelPlayer> {
        let mut p = LevelPlayer::with_spec(level_spec(level)?, seed, hash_mib, threads);
        // The strongest level opens from the shipped book (docs/book.md); the others keep the
        // mistakes of their depth and noise from the first move.
        if level == 10 {
            p.book = book::shipped().ok();
        }
        Some(p)
    }

    /// A player that is not on the ladder (self-play for tuning, experiments).
    pub fn with_spec(spec: LevelSpec, seed: u64, hash_mib: usize, threads: usize) -> LevelPlayer {
        let mut engine = Engine::new(hash_mib, threads);
        engine.set_tablebase(crate::endgame::shared());
        LevelPlayer {
            spec,
            engine,
            rng: SmallRng::seed_from_u64(seed),
            book: None,
        }
    }

    /// Plays from `book` when it has the position (`None`: always search), as level 10 does
    /// with the shipped book.
    pub fn set_book(&mut self, book: Option<&'static Book>) {
        self.book = book;
    }

    /// The player's engine, to change its settings (table, threads, databases).
    pub fn engine_mut(&mut self) -> &mut Engine {
        &mut self.engine
    }
}

impl Player for LevelPlayer {
    fn name(&self) -> String {
        format!("level {}", self.spec.level)
    }

    fn new_game(&mut self) {
        self.engine.clear();
    }

    fn choose(&mut self, pos: &Position, movetime: Duration) -> Option<Move> {
        self.choose_until(pos, movetime, &AtomicBool::new(false))
    }
}

impl LevelPlayer {
    /// As [`Player::choose`], ending early when `stop` is set: a searching level answers with
    /// its best move so far, a noisy level chooses among the moves it has scored, and before
    /// any is scored plays the move that captures most at once. `None` only when the game is
    /// over.
    pub fn choose_until(
        &mut self,
        pos: &Position,
        movetime: Duration,
        stop: &AtomicBool,
    ) -> Option<Move> {
        let me = pos.to_move()?;
        if let Some(mv) = self.book.and_then(|b| b.best_move(pos)) {
            if pos.moves().contains(mv) {
                return Some(mv);
            }
        }
        match self.spec.limits(movetime) {
            Some(limits) => self.engine.search(pos, &limits, stop, &mut |_| {}).best,
            None => {
                let sigma = self.spec.noise;
                let depth = self.spec.depth.unwrap_or(1);
                let scored = self.engine.score_moves(pos, depth, stop);
                let rng = &mut self.rng;
                scored
                    .into_iter()
                    .map(|(m, s)| (m, s + noise(rng, sigma)))
                    .max_by_key(|&(_, s)| s)
                    .map(|(m, _)| m)
                    .or_else(|| {
                        pos.moves()
                            .filter_map(|m| immediate_gain(pos, m, me).map(|g| (m, g)))
                            .max_by_key(|&(_, g)| g)
                            .map(|(m, _)| m)
                    })
            }
        }
    }
}

/// Net seeds `side` gains by playing `mv` (negative when the move feeds the opponent).
fn immediate_gain(pos: &Position, mv: Move, side: Side) -> Option<i32> {
    let mut child = *pos;
    child.play_unchecked(mv).ok()?;
    let o = side.opponent();
    Some(
        (child.store(side) as i32 - pos.store(side) as i32)
            - (child.store(o) as i32 - pos.store(o) as i32),
    )
}

/// Plays the move that captures the most seeds at once (net of what it hands over); ties are
/// broken at random. The first baseline.
pub struct Greedy {
    rng: SmallRng,
}

impl Greedy {
    /// A greedy player whose ties are drawn by a generator seeded with `seed`.
    pub fn new(seed: u64) -> Greedy {
        Greedy {
            rng: SmallRng::seed_from_u64(seed),
        }
    }
}

fn pick_best(rng: &mut SmallRng, scored: impl Iterator<Item = (Move, i32)>) -> Option<Move> {
    let scored: Vec<(Move, i32)> = scored.collect();
    let best = scored.iter().map(|s| s.1).max()?;
    let ties: Vec<Move> = scored.iter().filter(|s| s.1 == best).map(|s| s.0).collect();
    Some(ties[rng.random_range(0..ties.len())])
}

impl Player for Greedy {
    fn name(&self) -> String {
        "greedy".to_string()
    }

    fn choose(&mut self, pos: &Position, _movetime: Duration) -> Option<Move> {
        let side = pos.to_move()?;
        pick_best(
            &mut self.rng,
            pos.moves()
                .filter_map(|m| immediate_gain(pos, m, side).map(|g| (m, g))),
        )
    }
}

/// Plays a legal move drawn uniformly: a careless player who does not look at the board, the
/// floor the default level of the web app is measured against (docs/decisions.md).
pub struct RandomMover {
    rng: SmallRng,
}

impl RandomMover {
    /// A random player whose moves are drawn by a generator seeded with `seed`.
    pub fn new(seed: u64) -> RandomMover {
        RandomMover {
            rng: SmallRng::seed_from_u64(seed),
        }
    }
}

impl Player for RandomMover {
    fn name(&self) -> String {
        "random".to_string()
    }

    fn choose(&mut self, pos: &Position, _movetime: Duration) -> Option<Move> {
        let moves: Vec<Move> = pos.moves().collect();
        if moves.is_empty() {
            return None;
        }
        Some(moves[self.rng.random_range(0..moves.len())])
    }
}

/// Minimax to a fixed number of plies on the store difference alone (no evaluation beyond
/// the seeds captured); ties broken at random. The second baseline, at 3 plies.
pub struct Minimax {
    plies: u32,
    rng: SmallRng,
}

impl Minimax {
    /// Minimax to `plies` plies (at least 1), ties drawn by a generator seeded with `seed`.
    pub fn new(plies: u32, seed: u64) -> Minimax {
        Minimax {
            plies: plies.max(1),
            rng: SmallRng::seed_from_u64(seed),
        }
    }
}

/// Store difference for `side` after best play to `plies` more plies (plain minimax).
fn minimax(pos: &Position, side: Side, plies: u32) -> i32 {
    let diff = pos.store(side) as i32 - pos.store(side.opponent()) as i32;
    let Some(to_move) = pos.to_move() else {
        return diff;
    };
    if plies == 0 {
        return diff;
    }
    let values = pos.moves().filter_map(|m| {
        let mut c = *pos;
        c.play_unchecked(m).ok()?;
        Some(minimax(&c, side, plies - 1))
    });
    let v = if to_move == side {
        values.max()
    } else {
        values.min()
    };
    v.unwrap_or(diff)
}

impl Player for Minimax {
    fn name(&self) -> String {
        format!("minimax{}", self.plies)
    }

    fn choose(&mut self, pos: &Position, _movetime: Duration) -> Option<Move> {
        let side = pos.to_move()?;
        let plies = self.plies;
        pick_best(
            &mut self.rng,
            pos.moves().filter_map(|m| {
                let mut c = *pos;
                c.play_unchecked(m).ok()?;
                Some((m, minimax(&c, side, plies - 1)))
            }),
        )
    }
}

/// A built-in player by name: `level1`..`level10` (or `1`..`10`), `greedy`, `random`,
/// `minimax3` (`minimaxN` for any N from 1 to 6).
pub fn builtin(name: &str, seed: u64, hash_mib: usize, threads: usize) -> Option<Box<dyn Player>> {
    let level = name.strip_prefix("level").unwrap_or(name);
    if let Ok(n) = level.parse::<u8>() {
        return LevelPlayer::new(n, seed, hash_mib, threads)
            .map(|p| Box::new(p) as Box<dyn Player>);
    }
    if name == "greedy" {
        return Some(Box::new(Greedy::new(seed)));
    }
    if name == "random" {
        return Some(Box::new(RandomMover::new(seed)));
    }
    if let Some(n) = name.strip_prefix("minimax") {
        let n: u32 = n.parse().ok()?;
        if (1..=6).contains(&n) {
            return Some(Box::new(Minimax::new(n, seed)));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeman::ClockLeft;

    #[test]
    fn levels_search_or_choose_as_specified() {
        let t = Duration::from_millis(300);
        for n in 1..=10u8 {
            let spec = level_spec(n).unwrap();
            assert_eq!(spec.level, n);
            assert_eq!(
                spec.is_instant(),
                n <= 5,
                "levels 1-5 choose by a shallow look"
            );
            match spec.limits(t) {
                None => assert!(spec.noise > 0, "level {n}"),
                Some(l) => {
                    assert_eq!(spec.noise, 0, "level {n}");
                    assert_eq!(l.depth, spec.depth);
                    assert_eq!(l.movetime, Some(t), "the caller's time bounds every search");
                }
            }
        }
        assert_eq!(level_spec(10).unwrap().limits(t).unwrap().depth, None);
        assert!(level_spec(0).is_none() && level_spec(11).is_none());
        // Deeper or less noisy, level by level.
        for w in LEVELS.windows(2) {
            let d = |s: &LevelSpec| s.depth.unwrap_or(u32::MAX);
            assert!(d(&w[1]) > d(&w[0]) || (d(&w[1]) == d(&w[0]) && w[1].noise < w[0].noise));
        }
    }

    #[test]
    fn budgets_follow_the_level_and_the_clock() {
        let t = Duration::from_millis(1500);
        let ten = level_spec(10).unwrap();
        let nine = level_spec(9).unwrap();
        assert_eq!(ten.budget(t, None), t);
        assert_eq!(nine.budget(t, None), Duration::from_millis(3000));
        // 5+3 with 4 minutes left: 8 s + 2.25 s is more than the level's own.
        let roomy = ClockLeft {
            left_ms: 240_000,
            increment_ms: 3_000,
        };
        assert_eq!(ten.budget(t, Some(roomy)), t);
        // 3 s left and no increment: 100 ms; nearly flagged: never under 20 ms.
        let short = ClockLeft {
            left_ms: 3_000,
            increment_ms: 0,
        };
        assert_eq!(ten.budget(t, Some(short)), Duration::from_millis(100));
        let flagging = ClockLeft {
            left_ms: 10,
            increment_ms: 0,
        };
        assert_eq!(nine.budget(t, Some(flagging)), Duration::from_millis(20));
    }

    #[test]
    fn every_player_gives_a_legal_move() {
        let pos = Position::start(anywoli_core::Rules::Anywoli);
        for name in ["level1", "level5", "6", "greedy", "random", "minimax3"] {
            let mut p = builtin(name, 1, 1, 1).unwrap();
            let mv = p.choose(&pos, Duration::from_millis(50)).unwrap();
            assert!(pos.moves().contains(mv), "{name}");
        }
        assert!(builtin("minimax7", 1, 1, 1).is_none());
        assert!(builtin("level11", 1, 1, 1).is_none());
        assert!(builtin("bogus", 1, 1, 1).is_none());
    }

    #[test]
    fn a_stopped_noisy_level_still_answers_with_a_legal_move() {
        // k captures (its last seed makes a 4 in North's second hole), l does not: the
        // fallback must find k.
        let pos: Position = "0,0,0,0,0,0,0,0,0,0,3,1/0,3,0,0,0,0,0,0,0,0,1,0 s 44 44 - - 0 0"
            .parse()
            .unwrap();
        let stopped = AtomicBool::new(true);
        for n in 1..=5u8 {
            let mut p = LevelPlayer::new(n, 7, 1, 1).unwrap();
            assert!(
                p.spec.limits(Duration::from_millis(50)).is_none(),
                "level {n} is noisy"
            );
            assert!(p.engine.score_moves(&pos, 4, &stopped).is_empty());
            let mv = p
                .choose_until(&pos, Duration::from_millis(50), &stopped)
                .unwrap();
            let best = pos
                .moves()
                .filter_map(|m| immediate_gain(&pos, m, Side::South))
                .max()
                .unwrap();
            assert_eq!(
                immediate_gain(&pos, mv, Side::South),
                Some(best),
                "level {n}"
            );
            assert_eq!(mv.to_string(), "k", "level {n}");
        }
        // Not stopped, every move is scored.
        let p = LevelPlayer::new(1, 7, 1, 1).unwrap();
        let all = p.engine.score_moves(&pos, 2, &AtomicBool::new(false));
        assert_eq!(all.len(), pos.moves().len());
    }
}
