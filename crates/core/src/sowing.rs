//! How a move is played: docs/rules.md, "A move" and "The end", in one place.
//!
//! One function sows every move. It reports what happens to an `Observer`; the fast path
//! passes `NoObserver`, whose empty methods compile away, and the move trace passes a
//! recorder, so the trace and the fast path cannot drift apart.

use crate::position::QUIET_LIMIT;
use crate::{zobrist, Hole, Move, PlayError, Position, Side};

/// What kind of capture took a four.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum CaptureKind {
    /// A seed that was not the last of its lap made the hole 4: the hole's owner takes them.
    MidSow,
    /// The last seed of a lap made the hole 4: the mover takes them.
    LastSeed,
}

/// Why the game ended.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum EndReason {
    /// Only the end threshold of seeds (4, or 8 in `anywoli-it`) was left in play; they went to
    /// one player.
    LastSeeds {
        /// The player who took them.
        to: Side,
        /// How many seeds they were.
        seeds: u8,
    },
    /// 100 plies in a row without a capture: each player took the seeds in their own row.
    Quiet {
        /// The seeds South took from its row.
        south: u8,
        /// The seeds North took from its row.
        north: u8,
    },
}

/// Receives the events of one move as it is sown.
pub(crate) trait Observer {
    /// Seeds taken up from `from` to sow a lap; `lap` counts from 1 (the move's own hole).
    #[inline(always)]
    fn lap(&mut self, _from: Hole, _seeds: u8, _lap: u32) {}
    /// One seed dropped into `hole`, which now holds `count` (before any capture).
    #[inline(always)]
    fn sow(&mut self, _hole: Hole, _count: u8) {}
    #[inline(always)]
    fn capture(&mut self, _hole: Hole, _by: Side, _kind: CaptureKind) {}
    /// The last seed of a lap fell into an empty hole: the move ends.
    #[inline(always)]
    fn stop(&mut self, _hole: Hole) {}
    #[inline(always)]
    fn extra_move(&mut self, _side: Side) {}
    #[inline(always)]
    fn pass(&mut self, _side: Side) {}
    #[inline(always)]
    fn game_over(&mut self, _reason: EndReason) {}
}

pub(crate) struct NoObserver;
impl Observer for NoObserver {}

/// Relays before the never-ending-sowing guard starts watching. The guard is exact from any
/// starting point (the lap sequence is deterministic), so starting late only saves work.
const GUARD_AFTER_LAPS: u32 = 24;

/// Plays `mv` for the side to move. On `Err` the position is left half-sown: callers restore it.
#[inline]
pub(crate) fn play<O: Observer>(p: &mut Position, mv: Move, obs: &mut O) -> Result<(), PlayError> {
    let Some(mover) = p.to_move else {
        return Err(PlayError::GameOver { mv });
    };
    let threshold = p.rules.end_threshold();
    let mut in_play = p.seeds_in_play();
    let mut captured = false;

    // Rule 1: take every seed of the chosen hole.
    let mut h = mv.hole();
    let mut hand = p.holes[h.index()];
    p.hash ^= zobrist::hole(h, hand);
    p.holes[h.index()] = 0;
    let mut laps = 1u32;
    obs.lap(h, hand, laps);

    let mut guard = Guard::new(h);

    loop {
        // Every seed of the lap but the last (rule 2: mid-sow fours go to the hole's owner).
        while hand > 1 {
            h = h.next();
            hand -= 1;
            let c = p.holes[h.index()];
            obs.sow(h, c + 1);
            if c == 3 {
                let owner = take_mid_sow_four(p, h, obs);
                captured = true;
                in_play -= 4;
                if in_play == threshold {
                    end_with_last_seeds(p, owner, obs);
                    return Ok(());
                }
            } else {
                p.holes[h.index()] = c + 1;
                p.hash ^= zobrist::DROP[h.index()][c as usize];
            }
        }

        // Rule 3: the last seed of the lap.
        h = h.next();
        let c = p.holes[h.index()];
        obs.sow(h, c + 1);
        match c {
            3 => {
                take_last_seed_four(p, h, mover, obs);
                in_play -= 4;
                if in_play == threshold {
                    end_with_last_seeds(p, mover, obs);
                    return Ok(());
                }
                finish_ply(p, mover, true, p.rules.extra_move(), obs);
                return Ok(());
            }
            0 => {
                p.holes[h.index()] = 1;
                p.hash ^= zobrist::DROP[h.index()][0];
                obs.stop(h);
                finish_ply(p, mover, captured, false, obs);
                return Ok(());
            }
            _ => {
                // Relay sowing: take up the hole and sow on from the next one.
                if laps >= GUARD_AFTER_LAPS {
                    // The board before the pickup, with `h` now holding c + 1.
                    p.holes[h.index()] = c + 1;
                    if guard.repeats(laps, h, &p.holes) {
                        return Err(PlayError::NeverEnds { mv });
                    }
                }
                p.hash ^= zobrist::hole(h, c);
                p.holes[h.index()] = 0;
                hand = c + 1;
                laps += 1;
                obs.lap(h, hand, laps);
            }
        }
    }
}

/// Brent's cycle finder over the states at the start of each relay lap (rule 4): a sowing
/// that comes back to a state it was in never ends.
struct Guard {
    board: [u8; Hole::COUNT],
    hole: Hole,
    power: u32,
    len: u32,
}

impl Guard {
    #[inline(always)]
    fn new(h: Hole) -> Guard {
        Guard {
            board: [0u8; Hole::COUNT],
            hole: h,
            power: 1,
            len: 0,
        }
    }

    /// Whether the relay from `h` on `holes` (lap `laps`, at least [`GUARD_AFTER_LAPS`])
    /// starts from a state seen before.
    #[inline(always)]
    fn repeats(&mut self, laps: u32, h: Hole, holes: &[u8; Hole::COUNT]) -> bool {
        if laps == GUARD_AFTER_LAPS {
            self.board = *holes;
            self.hole = h;
        } else if self.hole == h && self.board == *holes {
            return true;
        } else {
            self.len += 1;
            if self.len == self.power {
                self.board = *holes;
                self.hole = h;
                self.power *= 2;
                self.len = 0;
            }
        }
        false
    }
}

/// Rule 2: a seed sown mid-lap made `h` a four; its owner takes it. Gives the owner.
#[inline(always)]
fn take_mid_sow_four<O: Observer>(p: &mut Position, h: Hole, obs: &mut O) -> Side {
    p.holes[h.index()] = 0;
    p.hash ^= zobrist::hole(h, 3);
    let owner = h.owner();
    p.stores[owner.index()] += 4;
    p.last_capturer = Some(owner);
    obs.capture(h, owner, CaptureKind::MidSow);
    owner
}

/// Rule 3: the last seed made `h` a four; the mover takes it (the game's first such capture
/// is remembered for `firstfinal`).
#[inline(always)]
fn take_last_seed_four<O: Observer>(p: &mut Position, h: Hole, mover: Side, obs: &mut O) {
    p.holes[h.index()] = 0;
    p.hash ^= zobrist::hole(h, 3);
    p.stores[mover.index()] += 4;
    p.last_capturer = Some(mover);
    if p.first_final.is_none() {
        p.first_final = Some(mover);
        p.hash ^= zobrist::first_final(Some(mover));
    }
    obs.capture(h, mover, CaptureKind::LastSeed);
}

/// The end: the seeds left in play (the threshold) go to one player as the rules say.
/// `capturer` took the four that left them.
fn end_with_last_seeds<O: Observer>(p: &mut Position, capturer: Side, obs: &mut O) {
    let to = match p.rules {
        crate::Rules::Anywoli => capturer,
        crate::Rules::FirstFinal => p.first_final.unwrap_or(capturer),
        crate::Rules::Lottery { seed } => crate::rules::lottery_draw(seed),
        // "the player who moved first": South always moves first.
        crate::Rules::It => Side::South,
    };
    let seeds = p.seeds_in_play();
    p.stores[to.index()] += seeds;
    p.holes = [0; Hole::COUNT];
    // Saturating: a position string may say any ply count up to u32::MAX.
    p.ply = p.ply.saturating_add(1);
    p.quiet = 0;
    p.to_move = None;
    p.hash = p.compute_hash();
    obs.game_over(EndReason::LastSeeds { to, seeds });
}

/// After a move that did not end the game: counters, the quiet rule, whose turn, passes.
#[inline]
fn finish_ply<O: Observer>(
    p: &mut Position,
    mover: Side,
    captured: bool,
    extra: bool,
    obs: &mut O,
) {
    // Saturating: a position string may say any ply count up to u32::MAX.
    p.ply = p.ply.saturating_add(1);
    if captured {
        p.quiet = 0;
    } else {
        p.quiet += 1;
        if p.quiet >= QUIET_LIMIT {
            let south = p.row_seeds(Side::South);
            let north = p.row_seeds(Side::North);
            p.stores[0] += south;
            p.stores[1] += north;
            p.holes = [0; Hole::COUNT];
            p.to_move = None;
            p.hash = p.compute_hash();
            obs.game_over(EndReason::Quiet { south, north });
            return;
        }
    }
    let mut next = if extra {
        obs.extra_move(mover);
        mover
    } else {
        mover.opponent()
    };
    // Rule 5: a player with an empty row passes. Seeds in play are at least 8 here and none is
    // in hand, so the other player has seeds.
    if p.row_seeds(next) == 0 {
        obs.pass(next);
        next = next.opponent();
    }
    if next != mover {
        p.hash ^= zobrist::NORTH_TO_MOVE;
    }
    p.to_move = Some(next);
}
