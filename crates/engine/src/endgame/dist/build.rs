//! The distributed retrograde analysis: each rank expands its slice forward, then every wave
//! undoes the moves into the positions the last one settled, sending each predecessor to the
//! rank that owns it. A wave runs in rounds: a rank takes at most [`CHUNK`] of its candidates,
//! generates their predecessors into one buffer a destination, the ranks exchange the buffers
//! all-to-all and apply what they received. What a wave changes does not depend on the order
//! its predecessors are applied in (see [`super::super::retro`]), so any number of ranks gives
//! the single-process result, entry for entry.

use std::path::Path;
use std::time::{Duration, Instant};

use super::super::bounds;
use super::super::build12::{entry12_of, entry16_of, entry20_of, with_game};
use super::super::error::EndgameError;
use super::super::index::{positions, unrank};
use super::super::moves::unmoves;
use super::super::packed::{Packing, OPEN};
use super::super::probe::Tablebase;
use super::super::retro::{eight, expand_word, undone, Game, Solved, CHUNK, WAVE_LIST};
use super::comm::Comm;
use super::slice::Slices;
use super::{checkpoint, output, Event, Options, Summary};

/// A layer the distributed build makes: its game and how a position's per-threshold fields
/// become its entry in the file.
pub struct Layer<'a> {
    /// The analysis.
    pub game: &'a Game<'a>,
    /// The entry of a position from its fields (in the 8-seed encoding).
    pub entry: fn(&[u16]) -> u16,
}

/// Builds the `seeds`-seed database of `anywoli` on the ranks of `comm` and writes it to
/// `path` (rank 0 writes; the file is the one `tablebase build` writes, byte for byte). The
/// 12-, 16- and 20-seed layers need the database of the layer below, `below`, on every rank
/// (mapped, so that the ranks of a node share its pages). Every rank calls it alike; `events`
/// is called on rank 0 only.
pub fn build(
    comm: &dyn Comm,
    seeds: u8,
    below: Option<&Tablebase>,
    opts: &Options,
    path: &Path,
    events: &dyn Fn(&Event),
) -> Result<Summary, EndgameError> {
    supported(seeds)?;
    match seeds {
        8 => run(
            comm,
            &Layer {
                game: &eight(),
                entry: |st| st[0],
            },
            opts,
            path,
            events,
        ),
        _ => {
            let entry = match seeds {
                12 => entry12_of,
                16 => entry16_of,
                _ => entry20_of,
            };
            let none = Tablebase::from_tables(Vec::new());
            with_game(below.unwrap_or(&none), seeds, |game| {
                run(comm, &Layer { game, entry }, opts, path, events)
            })?
        }
    }
}

/// Whether the distributed build makes the `seeds`-seed layer, and if not, why.
pub fn supported(seeds: u8) -> Result<(), EndgameError> {
    match seeds {
        8 | 12 | 16 | 20 => Ok(()),
        _ => Err(EndgameError::Layer {
            seeds,
            why: "captures take seeds by fours, so the layers are 4, 8, 12, 16 and 20 seeds",
        }),
    }
}

/// Bytes of packed words a position of the `seeds`-seed layer takes while it is built: 2 at 8
/// seeds (one threshold), 4 at 12 (three), 6 at 16 (four), 8 at 20 (five).
pub fn word_bytes(seeds: u8) -> usize {
    let k = bounds::margins(seeds).map_or(1, |m| m.len() - 1);
    2 * Packing::of(k).cells
}

/// The fewest ranks that build the `seeds`-seed layer: the wave lists hold positions as 32-bit
/// offsets in a slice (1 up to 12 seeds, 9 at 16, 224 at 20).
pub fn least_ranks(seeds: u8) -> usize {
    let n = positions(seeds);
    (1..)
        .find(|&r| Slices::new(n, r).len(0) < u32::MAX as u64)
        .unwrap_or(usize::MAX)
}

/// The build of one layer (see [`build`]).
pub fn run(
    comm: &dyn Comm,
    layer: &Layer,
    opts: &Options,
    path: &Path,
    events: &dyn Fn(&Event),
) -> Result<Summary, EndgameError> {
    let game = layer.game;
    let k = game.thresholds.len();
    let slices = Slices::new(positions(game.seeds), comm.ranks());
    let me = comm.rank();
    let len = slices.len(me) as usize;
    if comm.ranks() < least_ranks(game.seeds) {
        return Err(EndgameError::Slice {
            seeds: game.seeds,
            ranks: comm.ranks(),
            least: least_ranks(game.seeds),
        });
    }
    let say = |e: Event| {
        if me == 0 {
            events(&e)
        }
    };
    let t0 = Instant::now();
    let fields = positions(game.seeds) * k as u64;

    let resumed = match &opts.checkpoint {
        Some(dir) => checkpoint::load(comm, dir, game.seeds, &slices, k)?,
        None => None,
    };
    let mut r = Rank {
        comm,
        game,
        slices,
        lo: slices.lo(me),
        solved: Solved::blank(k, 0),
        sent: 0,
        settled: 0,
    };
    let (mut dist, mut listed, mut saved_at) = match resumed {
        Some(s) => {
            say(Event::Resumed { wave: s.wave });
            r.solved = s.solved;
            r.sent = s.sent;
            r.settled = s.settled;
            (s.wave, s.listed, Some(s.wave))
        }
        None => {
            r.solved = Solved::blank(k, len);
            r.forward(&say);
            (1, None, None)
        }
    };

    let mut last_save = Instant::now();
    let mut history: Vec<(u64, Duration)> = Vec::new();
    loop {
        if let Some(dir) = &opts.checkpoint {
            let due = me == 0 && last_save.elapsed() >= opts.checkpoint_every;
            let due = comm.max(due as u64) != 0;
            if saved_at != Some(dist) && (dist == 1 || due) {
                let state = checkpoint::State {
                    wave: dist,
                    solved: &r.solved,
                    listed: listed.as_deref(),
                    sent: r.sent,
                    settled: r.settled,
                };
                let bytes = checkpoint::save(comm, dir, game.seeds, &slices, &state)?;
                say(Event::Checkpoint { wave: dist, bytes });
                saved_at = Some(dist);
                last_save = Instant::now();
            }
        }
        if opts.stop_at == Some(dist) {
            return Err(EndgameError::Stopped { wave: dist });
        }
        if dist >= game.packing().max_dtc() {
            return Err(EndgameError::PackedDistance {
                max: game.packing().max_dtc(),
            });
        }
        let before = comm.sum(r.settled);
        let tw = Instant::now();
        let (any, next) = r.wave(listed.take(), dist);
        let settled = comm.sum(r.settled);
        history.push((settled - before, tw.elapsed()));
        say(Event::Wave {
            wave: dist,
            settled,
            fields,
            sent: comm.sum(r.sent),
            elapsed: t0.elapsed(),
            left: time_left(&history),
        });
        if !any {
            break;
        }
        listed = next;
        dist += 1;
    }
    let summary = Summary {
        waves: dist,
        sent: comm.sum(r.sent),
        settled: comm.sum(r.settled),
    };
    let entries = r.solved.into_entries(layer.entry);
    output::write(comm, path, game.seeds, &slices, entries)?;
    if let Some(dir) = &opts.checkpoint {
        checkpoint::remove(comm, dir, game.seeds);
    }
    Ok(summary)
}

/// A rough time left from the last waves: when the fields each wave settles thin out by a
/// steady ratio (the geometric mean over the last [`SPAN`] waves), the waves left are those
/// until it falls under one, each taking the last waves' mean time.
fn time_left(history: &[(u64, Duration)]) -> Option<Duration> {
    let last = history.get(history.len().checked_sub(SPAN + 1)?..)?;
    let (first, now) = (last[0].0 as f64, last[SPAN].0 as f64);
    if now < 1.0 || now >= first {
        return None;
    }
    let ratio = (now / first).powf(1.0 / SPAN as f64);
    let waves = now.ln() / (1.0 / ratio).ln();
    let per_wave = last[1..].iter().map(|w| w.1).sum::<Duration>() / SPAN as u32;
    Some(per_wave.mul_f64(waves.clamp(0.0, 10_000.0)))
}

/// Waves the time left is estimated over.
const SPAN: usize = 5;

/// One rank's part of the build.
struct Rank<'a> {
    comm: &'a dyn Comm,
    game: &'a Game<'a>,
    slices: Slices,
    /// The first position of this rank's slice.
    lo: u64,
    /// The packed words of this rank's slice.
    solved: Solved,
    /// Bytes this rank sent the others.
    sent: u64,
    /// Threshold fields this rank settled.
    settled: u64,
}

/// Where a wave's candidates come from.
enum Source {
    /// The last wave's list (offsets in the slice), from this index on.
    List(Vec<u32>, usize),
    /// Every word of the slice, from this offset on.
    Scan(usize),
}

/// A predecessor in a message: its index (40 bits: every layer to 20 seeds), whether the
/// move into the candidate kept the turn, which of the candidate's thresholds the wave
/// settled and which of those it won (5 bits each: the 20-seed layer's five thresholds).
#[inline]
fn encode(p: u64, same: bool, mask: u32, wins: u32) -> u64 {
    p | (same as u64) << 40 | (mask as u64) << 41 | (wins as u64) << 46
}

#[inline]
fn decode(m: u64) -> (u64, bool, u8, u8) {
    (
        m & ((1 << 40) - 1),
        m >> 40 & 1 != 0,
        (m >> 41 & 0x1f) as u8,
        (m >> 46 & 0x1f) as u8,
    )
}

impl Rank<'_> {
    /// Every position of the slice once, forward.
    fn forward(&mut self, say: &dyn Fn(Event)) {
        let pack = self.game.packing();
        let n = self.solved.positions();
        let t0 = Instant::now();
        for j in 0..n {
            if j & 0xf_ffff == 0 {
                let left = (j > 0).then(|| t0.elapsed().mul_f64((n - j) as f64 / j as f64));
                say(Event::Moves {
                    done: j as u64,
                    of: n as u64,
                    left,
                });
            }
            let w = expand_word(self.game, self.lo as usize + j, self.game.seeds);
            self.solved.set_word(j, w);
            self.settled += pack.decided(w);
        }
    }

    /// The next candidate of a wave at `dist`: a position of the slice with thresholds
    /// settled at `dist`.
    fn next(&self, source: &mut Source, dist: u32) -> Option<(usize, u32)> {
        let pack = self.game.packing();
        match source {
            Source::List(list, i) => {
                while *i < list.len() {
                    let c = list[*i] as usize;
                    *i += 1;
                    let mask = pack.settled_at(self.solved.word(c), dist);
                    if mask != 0 {
                        return Some((c, mask));
                    }
                }
                None
            }
            Source::Scan(c) => {
                while *c < self.solved.positions() {
                    let at = *c;
                    *c += 1;
                    let mask = pack.settled_at(self.solved.word(at), dist);
                    if mask != 0 {
                        return Some((at, mask));
                    }
                }
                None
            }
        }
    }

    fn exhausted(&self, source: &Source) -> bool {
        match source {
            Source::List(list, i) => *i >= list.len(),
            Source::Scan(c) => *c >= self.solved.positions(),
        }
    }

    /// One wave: the positions settled at `dist` (those of `listed`, or found by scanning the
    /// slice) are undone, in rounds the ranks take together. Returns whether any rank had a
    /// candidate, and the positions of this slice the wave settled (`None` when too many to
    /// list: the next wave scans).
    fn wave(&mut self, listed: Option<Vec<u32>>, dist: u32) -> (bool, Option<Vec<u32>>) {
        let seeds = self.game.seeds;
        let pack = self.game.packing();
        let me = self.comm.rank();
        let mut source = match listed {
            Some(mut list) => {
                list.sort_unstable();
                list.dedup();
                Source::List(list, 0)
            }
            None => Source::Scan(0),
        };
        let mut next: Option<Vec<u32>> = Some(Vec::new());
        let mut any = false;
        let mut out: Vec<Vec<u64>> = vec![Vec::new(); self.slices.ranks()];
        let mut undone_moves = Vec::new();
        loop {
            out.iter_mut().for_each(Vec::clear);
            let mut taken = 0;
            while taken < CHUNK {
                let Some((c, mask)) = self.next(&mut source, dist) else {
                    break;
                };
                taken += 1;
                any = true;
                let wins = pack.won_mask(self.solved.word(c));
                unmoves(&unrank(self.lo + c as u64, seeds), seeds, &mut undone_moves);
                for &(p, same) in &undone_moves {
                    out[self.slices.owner(p)].push(encode(p, same, mask, wins));
                }
            }
            self.sent += out
                .iter()
                .enumerate()
                .filter(|&(r, _)| r != me)
                .map(|(_, o)| 8 * o.len() as u64)
                .sum::<u64>();
            let got = self.comm.exchange(&out);
            for m in got {
                let (p, same, mask, wins) = decode(m);
                let i = (p - self.lo) as usize;
                let before = self.solved.word(i);
                let (pw, newly) = undone(self.game, before, same, mask, wins, dist);
                if pw != before {
                    self.solved.set_word(i, pw);
                    self.settled += (0..pack.k)
                        .filter(|&j| pack.field(before, j).0 == OPEN && pack.field(pw, j).0 != OPEN)
                        .count() as u64;
                }
                if newly {
                    match &mut next {
                        Some(list) if list.len() < WAVE_LIST => list.push(i as u32),
                        _ => next = None,
                    }
                }
            }
            let more = !self.exhausted(&source);
            if self.comm.max(more as u64) == 0 {
                break;
            }
        }
        (self.comm.max(any as u64) != 0, next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_carry_every_field() {
        for (p, same, mask, wins) in [
            (0u64, false, 1u32, 0u32),
            (960_566_918_219, true, 31, 21),
            (37_711_260_989, false, 8, 8),
            ((1 << 40) - 1, true, 16, 0),
        ] {
            assert_eq!(
                decode(encode(p, same, mask, wins)),
                (p, same, mask as u8, wins as u8)
            );
        }
    }
}
