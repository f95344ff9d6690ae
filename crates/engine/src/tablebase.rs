//! Endgame databases: who can force the next capture, and in how many plies.
//!
//! With 8 seeds in play the next capture ends the game: its four leave 4 in play, and those go
//! to one player at once (docs/rules.md, "The end"). So the whole 8-seed ending is one question —
//! which side can force the next capture, and how fast — plus who receives the last 4, which
//! the rules decide (the capturer in `anywoli`; the first-final capturer, else the capturer, in
//! `anywoli-first-final`; the drawn player in `anywoli-lottery`). The database answers the
//! question once for all three rules; [`Tablebase::probe`] applies the rules and the quiet
//! counter. See docs/tablebase.md for the method, the figures and why the build is a forward
//! move graph walked backwards rather than a generator of unmoves.
//!
//! A position is indexed by the rank of its seed distribution (stars and bars: a perfect hash
//! of the C(n+23, 23) ways to lay `n` seeds in 24 holes) with South to move; North to move is
//! the same position turned half a board round (hole `i` becomes `i + 12`), which swaps the
//! rows and keeps the sowing order.

use std::fmt;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, OnceLock};

use anywoli_core::{Hole, Move, Position, Rules, Side, QUIET_LIMIT, TOTAL_SEEDS};

pub mod compact;
pub mod entry12;
pub use compact::{Compact, CompactError};

/// Holes on the board.
const HOLES: usize = Hole::COUNT;
/// Most seeds a database may hold (the index tables are sized for it).
pub const MAX_SEEDS: usize = 16;

/// `WAYS[h][s]`: the ways to lay `s` seeds in `h` holes, C(s + h - 1, h - 1).
const WAYS: [[u64; MAX_SEEDS + 1]; HOLES + 1] = {
    let mut w = [[0u64; MAX_SEEDS + 1]; HOLES + 1];
    w[0][0] = 1;
    let mut h = 1;
    while h <= HOLES {
        let mut s = 0;
        while s <= MAX_SEEDS {
            // Ways with the first of the h holes holding k seeds, summed over k.
            let mut k = 0;
            while k <= s {
                w[h][s] += w[h - 1][s - k];
                k += 1;
            }
            s += 1;
        }
        h += 1;
    }
    w
};

/// `OFFSET[h][r][c]`: distributions that come before those whose next hole holds `c`, when
/// `r` seeds are left for that hole and the `h` holes after it.
static OFFSET: [[[u64; MAX_SEEDS + 2]; MAX_SEEDS + 1]; HOLES] = {
    let mut t = [[[0u64; MAX_SEEDS + 2]; MAX_SEEDS + 1]; HOLES];
    let mut h = 0;
    while h < HOLES {
        let mut r = 0;
        while r <= MAX_SEEDS {
            let mut c = 0;
            while c <= r {
                t[h][r][c + 1] = t[h][r][c] + WAYS[h][r - c];
                c += 1;
            }
            r += 1;
        }
        h += 1;
    }
    t
};

/// Distributions of `seeds` seeds over the 24 holes: the size of a database.
pub fn positions(seeds: u8) -> u64 {
    WAYS[HOLES][seeds as usize]
}

/// The rank of a distribution of `seeds` seeds (holes must sum to `seeds`).
#[inline]
pub fn rank(holes: &[u8; HOLES], seeds: u8) -> u64 {
    let mut r = seeds as usize;
    let mut idx = 0;
    for (i, &c) in holes[..HOLES - 1].iter().enumerate() {
        idx += OFFSET[HOLES - 1 - i][r][c as usize];
        r -= c as usize;
    }
    idx
}

/// The distribution of a rank: the inverse of [`rank`].
pub fn unrank(mut idx: u64, seeds: u8) -> [u8; HOLES] {
    let mut holes = [0u8; HOLES];
    let mut r = seeds as usize;
    for (i, hole) in holes[..HOLES - 1].iter_mut().enumerate() {
        let t = &OFFSET[HOLES - 1 - i][r];
        let mut c = 0;
        while idx >= t[c + 1] {
            c += 1;
        }
        idx -= t[c];
        *hole = c as u8;
        r -= c;
    }
    holes[HOLES - 1] = r as u8;
    holes
}

/// The board turned half round: North's row becomes South's and the other way about.
#[inline]
pub fn turned(holes: &[u8; HOLES]) -> [u8; HOLES] {
    let mut t = [0u8; HOLES];
    t[..12].copy_from_slice(&holes[12..]);
    t[12..].copy_from_slice(&holes[..12]);
    t
}

/// The stored value of one position (South to move), 16 bits: 0 nobody can force a capture;
/// `1..=0x7fff` the side to move makes the next capture in that many plies; `0x8000 | d` the
/// opponent does, in `d` plies; [`INVALID`] not a position (the side to move has no seeds);
/// [`STUCK`] no move of the side to move ever ends (docs/rules.md, "A sowing that never ends";
/// none exists, see docs/tablebase.md).
pub type Entry = u16;
pub const UNFORCED: Entry = 0;
pub const LOSS_BIT: Entry = 0x8000;
pub const INVALID: Entry = 0xffff;
pub const STUCK: Entry = 0xfffe;
/// Longest distance an entry can hold.
pub const MAX_DTC: u32 = 0x7ffd;

/// Who can force the next capture, from the side to move's point of view.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Verdict {
    /// The side to move makes the next capture, whatever the opponent does.
    Win,
    /// The opponent makes it, whatever the side to move does.
    Loss,
    /// Neither side can force a capture: left alone, the quiet rule ends the game.
    Unforced,
}

impl Verdict {
    fn of(e: Entry) -> Option<(Verdict, u16)> {
        match e {
            INVALID | STUCK => None,
            UNFORCED => Some((Verdict::Unforced, 0)),
            e if e & LOSS_BIT != 0 => Some((Verdict::Loss, e & !LOSS_BIT)),
            e => Some((Verdict::Win, e)),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Verdict::Win => "win",
            Verdict::Loss => "loss",
            Verdict::Unforced => "unforced",
        }
    }
}

/// A database of every position with one number of seeds in play.
pub struct Table {
    seeds: u8,
    store: Store,
}

/// Where a table's entries are: in memory (built, or loaded from `.awtb`), or in a compact
/// file read through a memory map (`.awtbz`, [`compact`]).
enum Store {
    Plain(Vec<Entry>),
    Compact(Compact),
}

/// The entry of a damaged compact block: the table's own "not a position", which no probe
/// answers for.
fn damaged_entry(seeds: u8) -> Entry {
    if seeds == 12 {
        entry12::INVALID12
    } else {
        INVALID
    }
}

/// The file format's first bytes.
const MAGIC: &[u8; 8] = b"AWTB\0\x01\r\n";
const HEADER: usize = 32;

impl Table {
    pub fn seeds(&self) -> u8 {
        self.seeds
    }

    /// A table from its entries (for tests and tools: [`verify`] says whether it is right).
    pub fn from_entries(seeds: u8, data: Vec<Entry>) -> Result<Table, String> {
        if seeds as usize > MAX_SEEDS || data.len() as u64 != positions(seeds) {
            return Err(format!(
                "{} entries do not make a {seeds}-seed table",
                data.len()
            ));
        }
        Ok(Table {
            seeds,
            store: Store::Plain(data),
        })
    }

    pub fn len(&self) -> usize {
        match &self.store {
            Store::Plain(d) => d.len(),
            Store::Compact(c) => c.len() as usize,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the entries are read from a compact file rather than held in memory.
    pub fn is_compact(&self) -> bool {
        matches!(self.store, Store::Compact(_))
    }

    /// The raw entry of a distribution with South to move.
    #[inline]
    pub fn entry_south(&self, holes: &[u8; HOLES]) -> Entry {
        self.entry_at(rank(holes, self.seeds))
    }

    #[inline]
    pub fn entry_at(&self, idx: u64) -> Entry {
        match &self.store {
            Store::Plain(d) => d[idx as usize],
            Store::Compact(c) => c.entry_at(idx),
        }
    }

    /// The entry of index `idx`, or why it cannot be read (a damaged compact block).
    pub fn try_entry_at(&self, idx: u64) -> Result<Entry, CompactError> {
        match &self.store {
            Store::Plain(d) => Ok(d[idx as usize]),
            Store::Compact(c) => c.try_entry_at(idx),
        }
    }

    /// Every entry, in memory (a compact table is decompressed whole and checked).
    pub fn entries(&self) -> Result<std::borrow::Cow<'_, [Entry]>, String> {
        match &self.store {
            Store::Plain(d) => Ok(std::borrow::Cow::Borrowed(d)),
            Store::Compact(c) => c
                .entries()
                .map(std::borrow::Cow::Owned)
                .map_err(|e| e.to_string()),
        }
    }

    /// The compact file name of a table: `anywoli-12.awtbz`.
    pub fn compact_file_name(seeds: u8) -> String {
        format!("anywoli-{seeds}.awtbz")
    }

    /// Writes the table's compact file ([`compact`]), compressing on `threads` threads;
    /// returns its size in bytes.
    pub fn save_compact(&self, path: &Path, threads: usize) -> Result<u64, String> {
        let data = self.entries()?;
        compact::write(path, self.seeds, &data, threads).map_err(|e| e.to_string())
    }

    /// Maps a compact file: its header and block index are checked now, each block when a
    /// probe first decompresses it (zstd's checksum; a damaged block answers nothing, said
    /// once on stderr). [`Table::load`] reads one whole and checks every block.
    pub fn open_compact(path: &Path) -> Result<Table, String> {
        let c = Compact::open(path, damaged_entry).map_err(|e| e.to_string())?;
        Ok(Table {
            seeds: c.seeds(),
            store: Store::Compact(c),
        })
    }

    /// The raw entry of a position, from its side to move's point of view; `None` when the
    /// position does not have this table's seeds in play or the game is over.
    #[inline]
    pub fn entry(&self, pos: &Position) -> Option<Entry> {
        let me = pos.to_move()?;
        if pos.seeds_in_play() != self.seeds {
            return None;
        }
        Some(match me {
            Side::South => self.entry_south(pos.holes()),
            Side::North => self.entry_south(&turned(pos.holes())),
        })
    }

    /// Who can force the next capture and in how many plies, ignoring the quiet counter.
    pub fn verdict(&self, pos: &Position) -> Option<(Verdict, u16)> {
        Verdict::of(self.entry(pos)?)
    }

    /// The file name of a table: `anywoli-8.awtb`. One 8-seed table serves `anywoli`,
    /// `anywoli-first-final` and `anywoli-lottery` (see the module documentation).
    pub fn file_name(seeds: u8) -> String {
        format!("anywoli-{seeds}.awtb")
    }

    /// Writes the table: a 32-byte header (magic, seeds, entries, checksum), then the
    /// entries as little-endian 16-bit words.
    pub fn save(&self, path: &Path) -> Result<(), String> {
        let tmp = path.with_extension("awtb.part");
        let data = self.entries()?;
        let write = || -> std::io::Result<()> {
            let mut f = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
            let mut header = [0u8; HEADER];
            header[..8].copy_from_slice(MAGIC);
            header[8] = self.seeds;
            header[16..24].copy_from_slice(&(data.len() as u64).to_le_bytes());
            header[24..32].copy_from_slice(&checksum(&data).to_le_bytes());
            f.write_all(&header)?;
            let mut buf = Vec::with_capacity(1 << 16);
            for chunk in data.chunks(1 << 15) {
                buf.clear();
                for e in chunk {
                    buf.extend_from_slice(&e.to_le_bytes());
                }
                f.write_all(&buf)?;
            }
            f.into_inner().map_err(|e| e.into_error())?.sync_all()?;
            // Written whole, then renamed: a reader never sees a half-written database.
            std::fs::rename(&tmp, path)
        };
        write().map_err(|e| format!("cannot write {}: {e}", path.display()))
    }

    /// Reads a table whole and checks its header, size and checksum. A compact file
    /// (`.awtbz`, known by its magic bytes) is decompressed whole, every block checked.
    pub fn load(path: &Path) -> Result<Table, String> {
        let bad = |what: &str| format!("{} is not a valid database: {what}", path.display());
        let mut f = std::fs::File::open(path)
            .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        let mut header = [0u8; HEADER];
        f.read_exact(&mut header)
            .map_err(|_| bad("too short for its header"))?;
        if &header[..8] == compact::MAGIC {
            let c = Compact::open(path, damaged_entry).map_err(|e| e.to_string())?;
            let data = c.entries().map_err(|e| e.to_string())?;
            return Ok(Table {
                seeds: c.seeds(),
                store: Store::Plain(data),
            });
        }
        if &header[..8] != MAGIC {
            return Err(bad("wrong magic bytes"));
        }
        let seeds = header[8];
        if seeds != 8 && seeds != 12 {
            return Err(bad("unsupported number of seeds"));
        }
        let len = u64::from_le_bytes(header[16..24].try_into().expect("8 bytes"));
        if len != positions(seeds) {
            return Err(bad("wrong number of entries for its seeds"));
        }
        // The size first, so that a damaged header cannot make the loader ask for memory the
        // file does not back.
        let size = f.metadata().map_err(|e| bad(&e.to_string()))?.len();
        if size < HEADER as u64 + 2 * len {
            return Err(bad("shorter than its header says"));
        }
        let sum = u64::from_le_bytes(header[24..32].try_into().expect("8 bytes"));
        let mut data = Vec::with_capacity(len as usize);
        let mut r = std::io::BufReader::with_capacity(1 << 20, f);
        let mut buf = vec![0u8; 1 << 16];
        while (data.len() as u64) < len {
            let want = ((len - data.len() as u64) as usize * 2).min(buf.len());
            r.read_exact(&mut buf[..want])
                .map_err(|_| bad("shorter than its header says"))?;
            data.extend(
                buf[..want]
                    .chunks_exact(2)
                    .map(|b| u16::from_le_bytes([b[0], b[1]])),
            );
        }
        if r.read(&mut buf[..1]).map_err(|e| bad(&e.to_string()))? != 0 {
            return Err(bad("longer than its header says"));
        }
        if checksum(&data) != sum {
            return Err(bad("checksum mismatch (the file is damaged)"));
        }
        Ok(Table {
            seeds,
            store: Store::Plain(data),
        })
    }

    /// Counts of each kind of entry and the distribution of forced-capture lengths.
    pub fn stats(&self) -> Stats {
        let mut s = Stats {
            seeds: self.seeds,
            positions: self.len() as u64,
            ..Stats::default()
        };
        for i in 0..self.len() {
            let e = self.entry_at(i as u64);
            match Verdict::of(e) {
                None if e == STUCK => s.stuck += 1,
                None => s.invalid += 1,
                Some((Verdict::Unforced, _)) => s.unforced += 1,
                Some((v, d)) => {
                    if v == Verdict::Win {
                        s.wins += 1;
                    } else {
                        s.losses += 1;
                    }
                    let d = d as usize;
                    if s.by_dtc.len() <= d {
                        s.by_dtc.resize(d + 1, [0, 0]);
                    }
                    s.by_dtc[d][(v == Verdict::Loss) as usize] += 1;
                    if d as u32 > s.longest {
                        s.longest = d as u32;
                        s.longest_at = i as u64;
                    }
                    // Play never leaves 4 seeds in a hole (the fourth is captured at once):
                    // only a hole untouched since the start holds 4.
                    if !unrank(i as u64, self.seeds).contains(&4) {
                        s.playable += 1;
                        if d as u32 > s.longest_playable {
                            s.longest_playable = d as u32;
                        }
                        if d as u32 > QUIET_LIMIT as u32 {
                            s.playable_over_quiet_limit += 1;
                        }
                    }
                }
            }
        }
        s
    }

    /// The position of an index with South to move (stores split evenly, counters at 0).
    pub fn position_at(&self, idx: u64, rules: Rules) -> Option<Position> {
        position_of(&unrank(idx, self.seeds), self.seeds, rules, None)
    }
}

/// FNV-1a over bytes, from `h`.
fn fnv(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// FNV-1a over the entries: enough to catch a damaged or truncated file.
fn checksum(data: &[Entry]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for e in data {
        h ^= *e as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// What a database holds, counted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub seeds: u8,
    pub positions: u64,
    /// Not positions: the side to move has no seeds.
    pub invalid: u64,
    /// The side to move forces the next capture.
    pub wins: u64,
    /// The opponent forces it.
    pub losses: u64,
    pub unforced: u64,
    /// Positions where no move ends (none).
    pub stuck: u64,
    /// The longest forced capture, in plies, and the index of a position that needs it.
    pub longest: u32,
    pub longest_at: u64,
    /// `by_dtc[d] = [wins, losses]` with the capture `d` plies away.
    pub by_dtc: Vec<[u64; 2]>,
    /// Forced captures in positions without a hole of 4 (what play can reach but for holes
    /// untouched since the start): how many, the longest, and how many need more plies than
    /// the quiet rule's 100.
    pub playable: u64,
    pub longest_playable: u32,
    pub playable_over_quiet_limit: u64,
}

impl Stats {
    /// Forced captures (wins and losses) that need more plies than `plies`.
    pub fn longer_than(&self, plies: usize) -> u64 {
        self.by_dtc
            .iter()
            .skip(plies + 1)
            .map(|c| c[0] + c[1])
            .sum()
    }
}

/// A position with South to move and `holes` on the board, or `None` when South has no seeds.
fn position_of(
    holes: &[u8; HOLES],
    seeds: u8,
    rules: Rules,
    first_final: Option<Side>,
) -> Option<Position> {
    let rest = TOTAL_SEEDS - seeds;
    Position::from_parts(
        *holes,
        [rest / 2, rest - rest / 2],
        Some(Side::South),
        None,
        first_final,
        0,
        0,
        rules,
    )
    .ok()
}

/// Where a build is: the stage and how far through it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Playing every move of every position (the expensive part).
    Moves,
    /// Turning the move graph round: every position's predecessors.
    Links,
    /// Walking back from the captures, one ply of distance at a time.
    Retrograde,
    /// Checking every entry against its moves.
    Verify,
}

impl Stage {
    pub fn name(self) -> &'static str {
        match self {
            Stage::Moves => "moves",
            Stage::Links => "links",
            Stage::Retrograde => "retrograde",
            Stage::Verify => "verify",
        }
    }
}

/// Told of progress: the stage, the work done and the work in all.
pub type Progress<'a> = &'a (dyn Fn(Stage, u64, u64) + Sync);

/// The moves of one position, sorted: captures the mover makes, captures the opponent makes,
/// and the positions reached without a capture (their index, and whether the same side is to
/// move there: the opponent had no seeds and passed).
#[derive(Default)]
struct Moves {
    mine: u32,
    theirs: u32,
    never_end: u32,
    quiet: Vec<(u32, bool)>,
}

/// Plays every move of the position of index `idx` (South to move) and sorts what happens.
/// `None` when it is not a position.
fn expand(idx: u64, seeds: u8, out: &mut Moves) -> Option<()> {
    out.mine = 0;
    out.theirs = 0;
    out.never_end = 0;
    out.quiet.clear();
    let holes = unrank(idx, seeds);
    let pos = position_of(&holes, seeds, Rules::Anywoli, None)?;
    for mv in pos.moves() {
        let mut child = pos;
        if child.play_unchecked(mv).is_err() {
            out.never_end += 1;
            continue;
        }
        if child.seeds_in_play() < seeds {
            // With 8 in play the first capture ends the game; its taker is the last capturer.
            if child.last_capturer() == Some(Side::South) {
                out.mine += 1;
            } else {
                out.theirs += 1;
            }
            continue;
        }
        let same = child.to_move() == Some(Side::South);
        let ci = if same {
            rank(child.holes(), seeds)
        } else {
            rank(&turned(child.holes()), seeds)
        };
        out.quiet.push((ci as u32, same));
    }
    Some(())
}

/// The predecessors of a position with South to move, reached by a move without a capture:
/// the ranks of the positions before it (South to move, the board turned round when North
/// made the move) and whether the same side moves again (South moved, and North has no seeds
/// and passes). One entry per move, so two moves from one position to this one give two.
///
/// The first step towards the 12-seed database (docs/tablebase.md): a retrograde build that
/// generates predecessors instead of storing the move graph. A move is undone lap by lap from
/// its end: the last lap ended in a hole that was empty (it holds 1 now); each lap of `L` seeds
/// began in the hole `L` before its last one, which it emptied (it holds 0 now), and passed
/// holes that hold 1 or more and not 4 (a fourth seed would have been captured); that hole held
/// `L` when the lap began, which the previous lap made by dropping its last seed there (so `L` is
/// at least 2 and not 4), unless this was the first lap — then the hole is the mover's.
pub fn unmoves(holes: &[u8; HOLES], seeds: u8, out: &mut Vec<(u64, bool)>) {
    out.clear();
    // North moved, into South's turn.
    let before = turned(holes);
    undo_move(&before, seeds, &mut |b| out.push((rank(b, seeds), false)));
    // South moved and North, with no seeds, passed.
    if holes[12..].iter().all(|&c| c == 0) {
        undo_move(holes, seeds, &mut |b| out.push((rank(b, seeds), true)));
    }
}

/// Every board from which South's move (a hole of `0..12`) ends without a capture on `after`.
fn undo_move(after: &[u8; HOLES], seeds: u8, emit: &mut dyn FnMut(&[u8; HOLES])) {
    let mut path: Vec<([u8; HOLES], usize)> = Vec::new();
    for e in 0..HOLES {
        if after[e] == 1 {
            undo_lap(after, e, seeds, &mut path, emit);
        }
    }
}

/// Undoes the lap that ended in hole `e` of board `x` (the board right after that lap), and the
/// laps before it. `path` holds the states already undone on this line: meeting one again is a
/// cycle, which no move that ends can contain.
fn undo_lap(
    x: &[u8; HOLES],
    e: usize,
    seeds: u8,
    path: &mut Vec<([u8; HOLES], usize)>,
    emit: &mut dyn FnMut(&[u8; HOLES]),
) {
    if path.iter().any(|(b, h)| *h == e && b == x) || path.len() > 4096 {
        return;
    }
    path.push((*x, e));
    for len in 1..=(seeds as usize).min(HOLES - 1) {
        let s = (e + HOLES - len) % HOLES;
        if x[s] == 0 {
            // The lap began in `s` with `len` seeds.
            let mut y = *x;
            y[e] -= 1;
            for k in 1..len {
                y[(s + k) % HOLES] -= 1;
            }
            y[s] = len as u8;
            if s < 12 {
                emit(&y);
            }
            if len >= 2 && len != 4 {
                undo_lap(&y, s, seeds, path, emit);
            }
            // A longer lap would pass this empty hole: impossible.
            break;
        }
        if x[s] == 4 {
            break;
        }
    }
    path.pop();
}

/// Errors of a build or a check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TablebaseError(pub String);

impl fmt::Display for TablebaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TablebaseError {}

/// Splits `0..n` into `threads` ranges and runs `f` on each in its own thread.
fn parallel<T: Send>(n: u64, threads: usize, f: impl Fn(u64, u64) -> T + Sync) -> Vec<T> {
    let threads = threads.clamp(1, 64) as u64;
    let step = n.div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let f = &f;
                let lo = (t * step).min(n);
                let hi = ((t + 1) * step).min(n);
                s.spawn(move || f(lo, hi))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a database thread panicked"))
            .collect()
    })
}

/// Builds the database of every position with `seeds` seeds in play (8 is the one built by
/// retrograde analysis here; see docs/tablebase.md for 12).
///
/// 1. Every move of every position is played once (`threads` at a time). A move that captures
///    decides at once; the others are edges of the move graph.
/// 2. The graph is turned round: each position gets the list of its predecessors.
/// 3. Retrograde: starting from the positions decided in one ply, each wave settles the
///    positions one ply further away. A position is won as soon as one move reaches a
///    position lost for the side that moves there (the first wave to find one gives the
///    shortest win); it is lost when its last undecided move turns out to lose (that wave
///    gives the longest resistance). Whatever is never settled is unforced.
pub fn build(seeds: u8, threads: usize, progress: Progress) -> Result<Table, TablebaseError> {
    if seeds != 8 {
        return Err(TablebaseError(format!(
            "the {seeds}-seed database cannot be built by this builder: it builds the 8-seed \
             one (see docs/tablebase.md for the 12-seed database)"
        )));
    }
    let n = positions(seeds);
    let done = AtomicU64::new(0);

    // 1. Moves.
    struct Part {
        lo: u64,
        entries: Vec<Entry>,
        degree: Vec<u8>,
        edges: Vec<u32>,
    }
    let parts = parallel(n, threads, |lo, hi| {
        let mut moves = Moves::default();
        let mut part = Part {
            lo,
            entries: Vec::with_capacity((hi - lo) as usize),
            degree: Vec::with_capacity((hi - lo) as usize),
            edges: Vec::new(),
        };
        for idx in lo..hi {
            let (e, deg) = match expand(idx, seeds, &mut moves) {
                None => (INVALID, 0),
                Some(()) if moves.mine > 0 => (1, 0),
                Some(()) if moves.quiet.is_empty() && moves.theirs > 0 => (LOSS_BIT | 1, 0),
                Some(()) if moves.quiet.is_empty() => (STUCK, 0),
                Some(()) => {
                    for &(c, same) in &moves.quiet {
                        part.edges.push(c | (same as u32) << 31);
                    }
                    (UNFORCED, moves.quiet.len() as u8)
                }
            };
            part.entries.push(e);
            part.degree.push(deg);
            if idx & 0xffff == 0 {
                let d = done.fetch_add(0x10000, Relaxed);
                progress(Stage::Moves, d.min(n), n);
            }
        }
        part
    });
    progress(Stage::Moves, n, n);

    let mut entries: Vec<Entry> = Vec::with_capacity(n as usize);
    let mut degree: Vec<u8> = Vec::with_capacity(n as usize);
    for p in &parts {
        debug_assert_eq!(p.lo, entries.len() as u64);
        entries.extend_from_slice(&p.entries);
        degree.extend_from_slice(&p.degree);
    }

    // 2. Predecessors, as one array sorted by child (counting sort).
    let edges: usize = parts.iter().map(|p| p.edges.len()).sum();
    progress(Stage::Links, 0, 2);
    let mut start = vec![0u32; n as usize + 1];
    for p in &parts {
        for &e in &p.edges {
            start[(e & 0x7fff_ffff) as usize + 1] += 1;
        }
    }
    for i in 0..n as usize {
        start[i + 1] += start[i];
    }
    progress(Stage::Links, 1, 2);
    let mut fill = start.clone();
    let mut preds = vec![0u32; edges];
    for p in &parts {
        let mut k = 0;
        for (j, &deg) in p.degree.iter().enumerate() {
            let parent = (p.lo + j as u64) as u32;
            for &e in &p.edges[k..k + deg as usize] {
                let c = (e & 0x7fff_ffff) as usize;
                preds[fill[c] as usize] = parent | (e & 0x8000_0000);
                fill[c] += 1;
            }
            k += deg as usize;
        }
    }
    drop(fill);
    drop(parts);
    progress(Stage::Links, 2, 2);

    // 3. Retrograde, one wave per ply of distance.
    let mut wave: Vec<u32> = (0..n as u32)
        .filter(
            |&i| matches!(Verdict::of(entries[i as usize]), Some((v, 1)) if v != Verdict::Unforced),
        )
        .collect();
    let mut settled = wave.len() as u64;
    let mut dist = 1u32;
    while !wave.is_empty() {
        progress(Stage::Retrograde, dist as u64, 0);
        if dist >= MAX_DTC {
            return Err(TablebaseError(format!(
                "a forced capture is longer than {MAX_DTC} plies: the entries cannot hold it"
            )));
        }
        let mut next = Vec::new();
        for &c in &wave {
            let child_wins = entries[c as usize] & LOSS_BIT == 0;
            let (a, b) = (start[c as usize] as usize, start[c as usize + 1] as usize);
            for &p in &preds[a..b] {
                let parent = (p & 0x7fff_ffff) as usize;
                if entries[parent] != UNFORCED || degree[parent] == 0 {
                    continue;
                }
                let same = p & 0x8000_0000 != 0;
                // The child's verdict is its mover's; it is the parent's when the same side
                // moves again there (a pass), else the reverse.
                if child_wins == same {
                    entries[parent] = (dist + 1) as Entry;
                    degree[parent] = 0;
                    next.push(parent as u32);
                } else {
                    degree[parent] -= 1;
                    if degree[parent] == 0 {
                        entries[parent] = LOSS_BIT | (dist + 1) as Entry;
                        next.push(parent as u32);
                    }
                }
            }
        }
        settled += next.len() as u64;
        wave = next;
        dist += 1;
    }
    let _ = settled;
    Ok(Table {
        seeds,
        store: Store::Plain(entries),
    })
}

/// Checks every entry of a table against the moves of its position: a win in `d` must have a
/// move to a loss in `d - 1` for the side then to move (or a capture when `d` is 1) and none
/// shorter; a loss in `d` must have every move lose, the longest in `d`; an unforced position
/// must have no winning move and a move to an unforced one. A table that passes is right:
/// by induction on the distance, every win and loss it states is a forced capture of that
/// length, and every forced capture is stated.
pub fn verify(table: &Table, threads: usize, progress: Progress) -> Result<Stats, TablebaseError> {
    let seeds = table.seeds;
    let n = positions(seeds);
    if table.len() as u64 != n {
        return Err(TablebaseError("the table has the wrong size".to_string()));
    }
    let done = AtomicU64::new(0);
    let errors = parallel(n, threads, |lo, hi| {
        let mut moves = Moves::default();
        for idx in lo..hi {
            if idx & 0xffff == 0 {
                let d = done.fetch_add(0x10000, Relaxed);
                progress(Stage::Verify, d.min(n), n);
            }
            let e = table.entry_at(idx);
            let Some(()) = expand(idx, seeds, &mut moves) else {
                if e != INVALID {
                    return Err(idx);
                }
                continue;
            };
            // What each move gives the mover: Some(Win/Loss, plies to the capture) or None.
            let mut best_win = if moves.mine > 0 { Some(1u32) } else { None };
            let mut all_lose = moves.mine == 0;
            let mut longest_loss = if moves.theirs > 0 { 1u32 } else { 0 };
            let mut any = moves.mine + moves.theirs > 0;
            for &(c, same) in &moves.quiet {
                any = true;
                let ce = table.entry_at(c as u64);
                match Verdict::of(ce) {
                    None => return Err(idx),
                    Some((Verdict::Unforced, _)) => all_lose = false,
                    Some((v, d)) => {
                        let good = (v == Verdict::Win) == same;
                        let d = d as u32 + 1;
                        if good {
                            all_lose = false;
                            best_win = Some(best_win.map_or(d, |b| b.min(d)));
                        } else {
                            longest_loss = longest_loss.max(d);
                        }
                    }
                }
            }
            let want = if !any {
                STUCK
            } else if let Some(d) = best_win {
                d as Entry
            } else if all_lose {
                LOSS_BIT | longest_loss as Entry
            } else {
                UNFORCED
            };
            if e != want {
                return Err(idx);
            }
        }
        Ok(())
    });
    for r in errors {
        if let Err(idx) = r {
            let pos = position_of(&unrank(idx, seeds), seeds, Rules::Anywoli, None)
                .map_or_else(|| format!("{:?}", unrank(idx, seeds)), |p| p.to_string());
            return Err(TablebaseError(format!(
                "entry {idx} ({pos}) disagrees with its moves: the database is wrong"
            )));
        }
    }
    progress(Stage::Verify, n, n);
    Ok(table.stats())
}

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

/// The databases named by `$ANYWOLI_TABLEBASES`, loaded once per process: what the level
/// players (and so `play`, `match`, `engine` and the web app's computer), `analyse` and the web
/// app's hints use. `None` when the variable is unset or its folder holds no database; a
/// damaged file is said once on stderr and not used.
pub fn from_env() -> Option<Arc<Tablebase>> {
    static TB: OnceLock<Option<Arc<Tablebase>>> = OnceLock::new();
    TB.get_or_init(|| {
        let dir = std::env::var_os(ENV_DIR)?;
        match Tablebase::open(Some(Path::new(&dir))) {
            Ok(tb) if !tb.is_empty() => Some(Arc::new(tb)),
            Ok(_) => None,
            Err(e) => {
                eprintln!("anywoli: the endgame databases are not used: {e}");
                None
            }
        }
    })
    .clone()
}

/// The endgame databases the engine, the solver and the commands use.
pub struct Tablebase {
    tables: Vec<Table>,
    dir: Option<PathBuf>,
}

/// The environment variable naming the databases' folder.
pub const ENV_DIR: &str = "ANYWOLI_TABLEBASES";
/// The folder used when neither a flag nor [`ENV_DIR`] names one.
pub const DEFAULT_DIR: &str = "tablebases";
/// Entries past which [`Tablebase::open`] maps a compact file instead of decompressing it:
/// a probe of a mapped table decompresses a block (microseconds, docs/tablebase.md), one of a
/// table in memory reads an entry, and the 8-seed table is 16 MB in memory.
pub const MAP_OVER: u64 = 50_000_000;

impl Tablebase {
    /// A set of tables already in memory.
    pub fn from_tables(tables: Vec<Table>) -> Tablebase {
        Tablebase { tables, dir: None }
    }

    /// The folder to use: `dir` if given, else `$ANYWOLI_TABLEBASES`, else `tablebases`.
    pub fn dir(dir: Option<&Path>) -> PathBuf {
        match dir {
            Some(d) => d.to_path_buf(),
            None => std::env::var_os(ENV_DIR)
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(DEFAULT_DIR)),
        }
    }

    /// Opens every database found in `dir` (see [`Tablebase::dir`]): a compact file
    /// (`anywoli-N.awtbz`) is used when present — mapped, not read, when it holds more than
    /// [`MAP_OVER`] entries (the 12-seed one), else decompressed into memory — and else the
    /// `.awtb` file is loaded whole. A missing folder or missing files give an empty set, not an
    /// error; a damaged file is an error.
    pub fn open(dir: Option<&Path>) -> Result<Tablebase, String> {
        let dir = Tablebase::dir(dir);
        let mut tables = Vec::new();
        for seeds in [8u8, 12] {
            let compact = dir.join(Table::compact_file_name(seeds));
            let path = dir.join(Table::file_name(seeds));
            if compact.exists() && positions(seeds) > MAP_OVER {
                tables.push(Table::open_compact(&compact)?);
            } else if compact.exists() {
                tables.push(Table::load(&compact)?);
            } else if path.exists() {
                tables.push(Table::load(&path)?);
            }
        }
        Ok(Tablebase {
            tables,
            dir: Some(dir),
        })
    }

    pub fn is_empty(&self) -> bool {
        self.tables.is_empty()
    }

    pub fn folder(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// The seeds in play of each table held.
    pub fn sizes(&self) -> Vec<u8> {
        self.tables.iter().map(|t| t.seeds).collect()
    }

    /// The table for this many seeds in play, if held.
    pub fn table(&self, seeds: u8) -> Option<&Table> {
        self.tables.iter().find(|t| t.seeds == seeds)
    }

    /// The most seeds in play of a position the set answers for.
    pub fn max_seeds(&self) -> u8 {
        self.tables.iter().map(|t| t.seeds).max().unwrap_or(0)
    }

    /// What the databases say about `pos`, or `None` when they do not cover it (another
    /// number of seeds in play, rules they do not answer for, or the game is over).
    #[inline]
    pub fn probe(&self, pos: &Position) -> Option<Probe> {
        match pos.seeds_in_play() {
            8 => self.probe8(pos),
            12 => self.probe12(pos),
            _ => None,
        }
    }

    /// The 12-seed table (of `anywoli` only: under the other rules the first capture can
    /// change who gets the last 4). Its verdict is Win when the side to move forces a positive
    /// margin, Loss when the opponent does; `dtc` is the distance that proves both bounds.
    fn probe12(&self, pos: &Position) -> Option<Probe> {
        use entry12::{Entry12, MARGINS12};
        if pos.rules() != Rules::Anywoli {
            return None;
        }
        let e = Entry12::decode(self.table(12)?.entry(pos)?)?;
        let in_time = e.dtc <= QUIET_LIMIT - pos.quiet_plies();
        let verdict = if e.lower >= 2 {
            Verdict::Win
        } else if e.upper <= 1 {
            Verdict::Loss
        } else {
            Verdict::Unforced
        };
        Some(Probe {
            verdict,
            dtc: e.dtc,
            in_time,
            value: e.exact().filter(|_| in_time),
            lower: (in_time && e.lower > 0).then(|| MARGINS12[e.lower as usize]),
            upper: (in_time && e.upper < 3).then(|| MARGINS12[e.upper as usize]),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_is_a_perfect_hash() {
        for seeds in [0u8, 1, 2, 4] {
            let n = positions(seeds);
            for i in 0..n {
                let h = unrank(i, seeds);
                assert_eq!(h.iter().map(|&c| c as u32).sum::<u32>(), seeds as u32);
                assert_eq!(rank(&h, seeds), i);
            }
        }
        assert_eq!(positions(8), 7_888_725);
        assert_eq!(positions(12), 834_451_800);
        // The ends of the range, and a spot check in the middle.
        let mut h = [0u8; 24];
        h[23] = 8;
        assert_eq!(rank(&h, 8), 0);
        let mut h = [0u8; 24];
        h[0] = 8;
        assert_eq!(rank(&h, 8), positions(8) - 1);
        let mid = positions(8) / 2 + 12345;
        assert_eq!(rank(&unrank(mid, 8), 8), mid);
    }

    /// The unmove generator against the moves: on a sample of 8-seed positions, every quiet
    /// move of a parent is among its child's unmoves, and every unmove of a child is a move of
    /// that parent, as many times.
    #[test]
    fn unmoves_are_the_moves_turned_round() {
        let n = positions(8);
        let mut moves = Moves::default();
        let mut back = Vec::new();
        let mut checked = 0;
        for idx in (0..n).step_by(37) {
            if expand(idx, 8, &mut moves).is_none() {
                continue;
            }
            for &(c, same) in &moves.quiet {
                unmoves(&unrank(c as u64, 8), 8, &mut back);
                assert!(
                    back.contains(&(idx, same)),
                    "{idx} -> {c} ({same}) is not among the unmoves of {c}"
                );
                checked += 1;
            }
        }
        assert!(checked > 500_000, "{checked}");
        let mut checked = 0;
        for c in (0..n).step_by(41) {
            let holes = unrank(c, 8);
            if holes[..12].iter().all(|&k| k == 0) {
                continue;
            }
            unmoves(&holes, 8, &mut back);
            for &(p, same) in &back {
                expand(p, 8, &mut moves).expect("an unmove gives a position");
                let forward = moves
                    .quiet
                    .iter()
                    .filter(|&&q| q == (c as u32, same))
                    .count();
                let backward = back.iter().filter(|&&b| b == (p, same)).count();
                assert_eq!(forward, backward, "{p} -> {c} ({same})");
                checked += 1;
            }
        }
        assert!(checked > 500_000, "{checked}");
    }

    #[test]
    fn turning_the_board_swaps_the_rows() {
        let mut h = [0u8; 24];
        h[0] = 3;
        h[13] = 5;
        let t = turned(&h);
        assert_eq!(t[12], 3);
        assert_eq!(t[1], 5);
        assert_eq!(turned(&t), h);
    }
}
