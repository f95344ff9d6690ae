//! The databases the engine, the solver and the commands use ([`Tablebase`]), and what they say
//! about a position once the rules and the quiet counter are applied ([`Probe`]).

use std::path::{Path, PathBuf};

use anywoli_core::{Move, Position, Rules, Side, QUIET_LIMIT};

use super::bounds::{self, Bounds};
use super::entry::Verdict;
use super::error::EndgameError;
use super::index::{positions, LAYERS};
use super::table::Table;

/// What a database says about a position, with the rules and the quiet counter applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    /// Who can force the next capture (ignoring the quiet rule).
    pub verdict: Verdict,
    /// Plies to that capture under best play (the winner hurries, the loser holds out); 0
    /// when unforced.
    pub dtc: u16,
    /// Whether the forced capture comes before the quiet rule ends the game: `dtc` is at most
    /// the plies left, 100 minus the quiet plies.
    pub in_time: bool,
    /// The seeds the side to move wins from here on, net, when that is proven: the forced
    /// capture comes in time and its side also receives the last 4 (so neither side can do
    /// better). `None` otherwise: the search or the solver must decide.
    pub value: Option<i32>,
    /// A bound on that value when it is not exact: at least this for the side to move (it
    /// forces its own capture in time but the last 4 go to the other side: 0), ...
    pub lower: Option<i32>,
    /// ... or at most this (the opponent forces its capture in time and the side to move
    /// receives the last 4: 0).
    pub upper: Option<i32>,
}

/// The endgame databases the engine, the solver and the commands use.
pub struct Tablebase {
    tables: Vec<Table>,
    dir: Option<PathBuf>,
}

/// Entries past which [`Tablebase::open`] maps a compact file instead of decompressing it:
/// a probe of a mapped table decompresses a block (microseconds, docs/tablebase.md), one of a
/// table in memory reads an entry, and the 8-seed table is 16 MB in memory.
pub const MAP_OVER: u64 = 50_000_000;

impl Tablebase {
    /// A set of tables already in memory.
    pub fn from_tables(tables: Vec<Table>) -> Tablebase {
        Tablebase { tables, dir: None }
    }

    /// Opens every database found in `dir` (8, 12, 16 and 20 seeds): a compact file
    /// (`anywoli-N.awtbz`) is used when present — mapped, not read, when it holds more than
    /// [`MAP_OVER`] entries (12 seeds and up), else decompressed into memory — and else the
    /// `.awtb` file: loaded whole, but mapped from 16 seeds on (75 GB and more). A missing
    /// folder or missing files give an empty set, not an error; a damaged file is an error.
    pub fn open(dir: &Path) -> Result<Tablebase, EndgameError> {
        let mut tables = Vec::new();
        for seeds in LAYERS {
            let compact = dir.join(Table::compact_file_name(seeds));
            let path = dir.join(Table::file_name(seeds));
            if compact.exists() && positions(seeds) > MAP_OVER {
                tables.push(Table::open_compact(&compact)?);
            } else if compact.exists() {
                tables.push(Table::load(&compact)?);
            } else if path.exists() && seeds >= 16 {
                tables.push(Table::map_plain(&path)?);
            } else if path.exists() {
                tables.push(Table::load(&path)?);
            }
        }
        Ok(Tablebase {
            tables,
            dir: Some(dir.to_path_buf()),
        })
    }

    /// Whether no table was found.
    pub fn is_empty(&self) -> bool {
        self.tables.is_empty()
    }

    /// The folder the tables were opened from, if any.
    pub fn folder(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// The table for this many seeds in play, if held.
    pub fn table(&self, seeds: u8) -> Option<&Table> {
        self.tables.iter().find(|t| t.seeds() == seeds)
    }

    /// The most seeds in play of a position the set answers for.
    pub fn max_seeds(&self) -> u8 {
        self.tables.iter().map(|t| t.seeds()).max().unwrap_or(0)
    }

    /// What the databases say about `pos`, or `None` when they do not cover it (another
    /// number of seeds in play, rules they do not answer for, or the game is over).
    #[inline]
    pub fn probe(&self, pos: &Position) -> Option<Probe> {
        match pos.seeds_in_play() {
            8 => self.probe8(pos),
            s @ (12 | 16 | 20) => self.probe_margins(pos, s),
            _ => None,
        }
    }

    /// A table of 12, 16 or 20 seeds (of `anywoli` only: under the other rules the first
    /// capture can change who gets the last 4). Its verdict is Win when the side to move
    /// forces a positive margin, Loss when the opponent forces a negative one; `dtc` is the
    /// distance that proves both bounds.
    fn probe_margins(&self, pos: &Position, seeds: u8) -> Option<Probe> {
        if pos.rules() != Rules::Anywoli {
            return None;
        }
        let margins = bounds::margins(seeds)?;
        let e = Bounds::decode(seeds, self.table(seeds)?.entry(pos)?)?;
        let in_time = e.dtc <= QUIET_LIMIT - pos.quiet_plies();
        let (lower, upper) = (margins[e.lower as usize], margins[e.upper as usize]);
        let verdict = if lower > 0 {
            Verdict::Win
        } else if upper < 0 {
            Verdict::Loss
        } else {
            Verdict::Unforced
        };
        Some(Probe {
            verdict,
            dtc: e.dtc,
            in_time,
            value: (in_time && lower == upper).then_some(lower),
            lower: (in_time && e.lower > 0).then_some(lower),
            upper: (in_time && (e.upper as usize) < margins.len() - 1).then_some(upper),
        })
    }

    fn probe8(&self, pos: &Position) -> Option<Probe> {
        let me = pos.to_move()?;
        // Who receives the last 4 once the next capture is made, if the rules fix it now.
        let last_four: Option<Side> = match pos.rules() {
            Rules::Anywoli => None,
            Rules::FirstFinal => pos.first_final_capturer(),
            Rules::Lottery { seed } => Some(anywoli_core::lottery_draw(seed)),
            // The game ends at 8 in play there: no 8-seed position exists.
            Rules::It => return None,
        };
        let table = self.table(8)?;
        let (verdict, dtc) = table.verdict(pos)?;
        let left = QUIET_LIMIT - pos.quiet_plies();
        let in_time = verdict != Verdict::Unforced && dtc <= left;
        let mut probe = Probe {
            verdict,
            dtc,
            in_time,
            value: None,
            lower: None,
            upper: None,
        };
        if in_time {
            // The forcing side takes 4 and the last 4 go to `last_four`, or to it.
            let forcer = if verdict == Verdict::Win {
                me
            } else {
                me.opponent()
            };
            let sign = if forcer == me { 1 } else { -1 };
            if last_four.is_none_or(|s| s == forcer) {
                probe.value = Some(8 * sign);
            } else if sign > 0 {
                probe.lower = Some(0);
            } else {
                probe.upper = Some(0);
            }
        }
        Some(probe)
    }

    /// The best moves by the database alone, when it proves the position's value: the moves
    /// that keep the proven value, the fastest win (or slowest loss) first. `None` when the
    /// position is not proven by the database.
    pub fn best_moves(&self, pos: &Position) -> Option<Vec<(Move, i32, u16)>> {
        let p = self.probe(pos)?;
        let value = p.value?;
        let me = pos.to_move()?;
        let mut out = Vec::new();
        for mv in pos.moves() {
            let mut child = *pos;
            if child.play_unchecked(mv).is_err() {
                continue;
            }
            let g = child.store(me) as i32
                - pos.store(me) as i32
                - (child.store(me.opponent()) as i32 - pos.store(me.opponent()) as i32);
            let (v, d) = match child.to_move() {
                None => (g, 1),
                Some(s) => {
                    let Some(cp) = self.probe(&child) else {
                        continue;
                    };
                    let Some(cv) = cp.value else { continue };
                    let cv = if s == me { cv } else { -cv };
                    (g + cv, cp.dtc + 1)
                }
            };
            if v == value {
                out.push((mv, v, d));
            }
        }
        // A win is best fast, a loss best slow.
        if value > 0 {
            out.sort_by_key(|o| o.2);
        } else {
            out.sort_by_key(|o| std::cmp::Reverse(o.2));
        }
        Some(out)
    }
}
