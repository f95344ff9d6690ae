//! The compact file of a table (`anywoli-N.awtbz`, docs/tablebase.md "The compact file"):
//! the same 16-bit entries as `.awtb`, in blocks of [`BLOCK`] entries compressed one by one
//! (zstd), with an index of where each block starts, read through a memory map. A probe
//! decompresses the one block it needs (8 KB), so a process never holds the table, and the
//! kernel shares the file's pages between processes.
//!
//! A block holds its entries' low bytes, then their high bytes: one byte is the distance and
//! the other the verdict or the margin class, and each plane alone compresses far better than
//! the two interleaved. The entries are the `.awtb` file's exactly, so every probe answers as
//! the loaded table does (tested on every 8-seed entry; `anywoli tablebase compare` on 12).

use std::cell::RefCell;
use std::io::{Seek, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

use memmap2::Mmap;

use super::entry::Entry;
use super::error::{BlockDefect, CompactError, Defect};
use super::index::{checksum, checksum_from, fnv, is_layer, positions, CHECKSUM_START};
use super::work::MAX_THREADS;

/// The compact file's first bytes.
pub const MAGIC: &[u8; 8] = b"AWTBZ\x01\r\n";
/// Header bytes: magic, seeds, codec, block size, entries, their checksum, blocks, data bytes,
/// the checksum of the header and the index.
pub const HEADER: usize = 64;
/// Entries a block: 8 KB raw, a few microseconds to decompress; larger blocks compress
/// better and probe slower.
pub const BLOCK: usize = 4096;
/// The codec byte: zstd frames (with their content checksum) of the two byte planes.
const CODEC_ZSTD_PLANES: u8 = 1;
/// zstd's level: decompressing costs about the same at any level; on sampled 8-seed blocks
/// 12 is within 6% of 19's size and compresses several times faster (docs/tablebase.md).
pub const LEVEL: i32 = 12;

/// A table read through a memory map of its compact file.
pub struct Compact {
    map: Mmap,
    path: String,
    seeds: u8,
    len: u64,
    blocks: usize,
    sum: u64,
    /// Where the compressed blocks begin in the map (the index begins at [`HEADER`]).
    data_at: usize,
    /// This table's key in the per-thread block cache.
    id: u64,
    /// The entry a probe gets from a damaged block: the table's own "not a position", so the
    /// probe answers nothing rather than something wrong.
    damaged: Entry,
    told: AtomicBool,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// Blocks a thread keeps decoded (direct-mapped by block number): the search probes children
/// of one position, which often share a block; 16 × 8 KB a thread.
const SLOTS: usize = 16;

struct Cache {
    dec: Option<zstd::bulk::Decompressor<'static>>,
    keys: [(u64, usize); SLOTS],
    blocks: Vec<Vec<Entry>>,
    raw: Vec<u8>,
}

thread_local! {
    static CACHE: RefCell<Cache> = RefCell::new(Cache {
        dec: None,
        keys: [(0, 0); SLOTS],
        blocks: vec![Vec::new(); SLOTS],
        raw: Vec::new(),
    });
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// What a compact file's header says, once checked against the file's size and its index.
struct Layout {
    seeds: u8,
    len: u64,
    sum: u64,
    blocks: usize,
    /// Where the compressed blocks begin (the index begins at [`HEADER`]).
    data_at: usize,
}

impl Layout {
    fn read(map: &[u8]) -> Result<Layout, Defect> {
        if map.len() < HEADER {
            return Err(Defect::TooShort);
        }
        let h = &map[..HEADER];
        if &h[..8] != MAGIC {
            return Err(Defect::Magic);
        }
        let seeds = h[8];
        if !is_layer(seeds) {
            return Err(Defect::Seeds);
        }
        if h[9] != CODEC_ZSTD_PLANES {
            return Err(Defect::Codec);
        }
        let block = u32::from_le_bytes(h[12..16].try_into().expect("4 bytes")) as usize;
        if block != BLOCK {
            return Err(Defect::BlockSize);
        }
        let len = u64_at(h, 16);
        if len != positions(seeds) {
            return Err(Defect::Entries);
        }
        let blocks = u64_at(h, 32);
        if blocks != len.div_ceil(BLOCK as u64) {
            return Err(Defect::Blocks);
        }
        let blocks = blocks as usize;
        let data_len = u64_at(h, 40);
        let data_at = HEADER + 8 * (blocks + 1);
        if (map.len() as u64) < data_at as u64 + data_len {
            return Err(Defect::Shorter);
        }
        if map.len() as u64 > data_at as u64 + data_len {
            return Err(Defect::Longer);
        }
        let index = &map[HEADER..data_at];
        if fnv(fnv(0xcbf2_9ce4_8422_2325, &h[..48]), index) != u64_at(h, 48) {
            return Err(Defect::IndexChecksum);
        }
        check_index(index, blocks, data_len)?;
        Ok(Layout {
            seeds,
            len,
            sum: u64_at(h, 24),
            blocks,
            data_at,
        })
    }
}

/// The block index must start at 0, never go back, and end at the data's end.
fn check_index(index: &[u8], blocks: usize, data_len: u64) -> Result<(), Defect> {
    let mut last = 0;
    for b in 0..=blocks {
        let o = u64_at(index, 8 * b);
        if (b == 0 && o != 0) || o < last || o > data_len {
            return Err(Defect::IndexOrder);
        }
        last = o;
    }
    if last != data_len {
        return Err(Defect::IndexEnd);
    }
    Ok(())
}

impl Compact {
    /// Maps `path` and checks its header and index (not the blocks: each is checked by zstd's
    /// content checksum when it is decompressed, and [`Compact::entries`] reads them all).
    pub fn open(path: &Path, damaged: impl Fn(u8) -> Entry) -> Result<Compact, CompactError> {
        let name = path.display().to_string();
        let open_err = |err| CompactError::Open {
            path: name.clone(),
            err,
        };
        let f = std::fs::File::open(path).map_err(open_err)?;
        // Safety: the file is only read; the builder writes a new file and renames it over the
        // old, so a mapped file is never changed under a reader.
        let map = unsafe { Mmap::map(&f) }.map_err(open_err)?;
        let layout = Layout::read(&map).map_err(|defect| CompactError::Invalid {
            path: name.clone(),
            defect,
        })?;
        Ok(Compact {
            map,
            path: name,
            seeds: layout.seeds,
            len: layout.len,
            blocks: layout.blocks,
            sum: layout.sum,
            data_at: layout.data_at,
            id: NEXT_ID.fetch_add(1, Relaxed),
            damaged: damaged(layout.seeds),
            told: AtomicBool::new(false),
        })
    }

    /// Seeds in play in the table's positions.
    pub fn seeds(&self) -> u8 {
        self.seeds
    }

    /// Entries in the table: one per position, valid or not.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the table has no entries.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The checksum of the entries, as the header says.
    pub fn checksum(&self) -> u64 {
        self.sum
    }

    /// Appends block `b`'s entries to `out`, decoded through this thread's cache.
    pub fn fill_block(&self, b: usize, out: &mut Vec<Entry>) -> Result<(), CompactError> {
        self.try_entry_at((b * BLOCK) as u64)?;
        CACHE.with(|c| out.extend_from_slice(&c.borrow().blocks[b % SLOTS]));
        Ok(())
    }

    fn block_bytes(&self, b: usize) -> &[u8] {
        let at = HEADER + 8 * b;
        let (lo, hi) = (u64_at(&self.map, at), u64_at(&self.map, at + 8));
        &self.map[self.data_at + lo as usize..self.data_at + hi as usize]
    }

    fn block_len(&self, b: usize) -> usize {
        (self.len as usize - b * BLOCK).min(BLOCK)
    }

    /// Decompresses block `b` into `out`.
    fn decode(
        &self,
        b: usize,
        dec: &mut zstd::bulk::Decompressor<'static>,
        raw: &mut Vec<u8>,
        out: &mut Vec<Entry>,
    ) -> Result<(), CompactError> {
        let n = self.block_len(b);
        let fail = |defect| CompactError::Block {
            path: self.path.clone(),
            block: b,
            defect,
        };
        decode_block(self.block_bytes(b), n, dec, raw, out).map_err(fail)
    }

    /// The entry of index `idx`, or what is wrong with its block.
    pub fn try_entry_at(&self, idx: u64) -> Result<Entry, CompactError> {
        let b = (idx / BLOCK as u64) as usize;
        let i = (idx % BLOCK as u64) as usize;
        CACHE.with(|c| {
            let c = &mut *c.borrow_mut();
            let slot = b % SLOTS;
            if c.keys[slot] != (self.id, b) {
                let dec = match &mut c.dec {
                    Some(d) => d,
                    None => c.dec.insert(zstd::bulk::Decompressor::new().map_err(|e| {
                        CompactError::Block {
                            path: self.path.clone(),
                            block: b,
                            defect: BlockDefect::Zstd(e),
                        }
                    })?),
                };
                // Not cached under any key until it decodes.
                c.keys[slot] = (0, 0);
                self.decode(b, dec, &mut c.raw, &mut c.blocks[slot])?;
                c.keys[slot] = (self.id, b);
            }
            Ok(c.blocks[slot][i])
        })
    }

    /// The entry of index `idx`; from a damaged block, the table's "not a position" (so the
    /// probe answers nothing), said once on stderr.
    #[inline]
    pub fn entry_at(&self, idx: u64) -> Entry {
        match self.try_entry_at(idx) {
            Ok(e) => e,
            Err(e) => {
                if !self.told.swap(true, Relaxed) {
                    eprintln!("anywoli: {e}; its positions are not answered");
                }
                self.damaged
            }
        }
    }

    /// Every entry, decompressed block by block: what `tablebase compare` and the loader of
    /// a whole table read. Checks every block and the entries' checksum.
    pub fn entries(&self) -> Result<Vec<Entry>, CompactError> {
        let mut dec = zstd::bulk::Decompressor::new().map_err(|e| CompactError::Block {
            path: self.path.clone(),
            block: 0,
            defect: BlockDefect::Zstd(e),
        })?;
        let mut raw = Vec::new();
        let mut block = Vec::new();
        let mut all = Vec::with_capacity(self.len as usize);
        for b in 0..self.blocks {
            self.decode(b, &mut dec, &mut raw, &mut block)?;
            all.extend_from_slice(&block);
        }
        if checksum(&all) != self.sum {
            return Err(CompactError::Invalid {
                path: self.path.clone(),
                defect: Defect::Checksum,
            });
        }
        Ok(all)
    }
}

/// Decompresses a block of `n` entries from `src` into `out` (`raw` is scratch).
pub fn decode_block(
    src: &[u8],
    n: usize,
    dec: &mut zstd::bulk::Decompressor<'static>,
    raw: &mut Vec<u8>,
    out: &mut Vec<Entry>,
) -> Result<(), BlockDefect> {
    raw.clear();
    raw.reserve(2 * n);
    let got = dec
        .decompress_to_buffer(src, raw)
        .map_err(BlockDefect::Zstd)?;
    if got != 2 * n {
        return Err(BlockDefect::Length { got, want: 2 * n });
    }
    let (lo, hi) = raw.split_at(n);
    out.clear();
    out.extend(
        lo.iter()
            .zip(hi)
            .map(|(&l, &h)| l as Entry | (h as Entry) << 8),
    );
    Ok(())
}

/// Compresses one block: low bytes, then high bytes, in a zstd frame with its checksum.
pub fn encode_block(
    entries: &[Entry],
    comp: &mut zstd::bulk::Compressor<'static>,
) -> std::io::Result<Vec<u8>> {
    let mut planes = Vec::with_capacity(2 * entries.len());
    planes.extend(entries.iter().map(|&e| e as u8));
    planes.extend(entries.iter().map(|&e| (e >> 8) as u8));
    comp.compress(&planes)
}

fn compressor() -> std::io::Result<zstd::bulk::Compressor<'static>> {
    let mut c = zstd::bulk::Compressor::new(LEVEL)?;
    c.set_parameter(zstd::zstd_safe::CParameter::ChecksumFlag(true))?;
    Ok(c)
}

/// Writes the compact file of a table's entries (`threads` compress at once), to a temporary
/// name then renamed, as `.awtb` files are. Returns the bytes written.
pub fn write(path: &Path, seeds: u8, data: &[Entry], threads: usize) -> Result<u64, CompactError> {
    let fill = |b: usize, out: &mut Vec<Entry>| {
        out.extend_from_slice(&data[b * BLOCK..((b + 1) * BLOCK).min(data.len())]);
        Ok(())
    };
    write_from(path, seeds, data.len() as u64, threads, &fill)
}

/// Blocks compressed at once, a thread: enough to keep the threads busy, few enough that
/// the frames in flight stay small (a 16-seed table's frames are gigabytes in all).
const BATCH: usize = 256;

/// A source of a table's entries by block: `fill(b, out)` appends block `b`'s entries.
pub type Blocks<'a> = dyn Fn(usize, &mut Vec<Entry>) -> Result<(), CompactError> + Sync + 'a;

/// Writes the compact file of a table of `len` entries read block by block from `fill`: a
/// batch of blocks at a time is compressed on `threads` threads and written, so the table need
/// not be in memory (a 16-seed table is 75 GB). Only the block index (8 bytes a block) is kept
/// until the end, when it and the header are written in front of the frames.
pub fn write_from(
    path: &Path,
    seeds: u8,
    len: u64,
    threads: usize,
    fill: &Blocks,
) -> Result<u64, CompactError> {
    let name = path.display().to_string();
    let werr = |err: std::io::Error| CompactError::Write {
        path: name.clone(),
        err,
    };
    let threads = threads.clamp(1, MAX_THREADS);
    let blocks = len.div_ceil(BLOCK as u64) as usize;
    let tmp = path.with_extension("awtbz.part");
    let mut f =
        std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&tmp).map_err(werr)?);
    // The header's and the index's places, filled in at the end.
    f.write_all(&vec![0u8; HEADER + 8 * (blocks + 1)])
        .map_err(werr)?;
    let mut index = Vec::with_capacity(8 * (blocks + 1));
    let mut at = 0u64;
    index.extend_from_slice(&at.to_le_bytes());
    let mut sum = CHECKSUM_START;
    let mut comps: Vec<zstd::bulk::Compressor<'static>> = (0..threads)
        .map(|_| compressor())
        .collect::<Result<_, _>>()
        .map_err(werr)?;
    let mut next = 0;
    while next < blocks {
        let end = (next + BATCH * threads).min(blocks);
        let per = (end - next).div_ceil(threads);
        // Each block's frame and its entries, which the checksum then reads in index order.
        type Part = Result<Vec<(Vec<u8>, Vec<Entry>)>, CompactError>;
        let parts: Vec<Part> = std::thread::scope(|sc| {
            let hs: Vec<_> = comps
                .iter_mut()
                .enumerate()
                .map(|(t, comp)| {
                    let lo = (next + t * per).min(end);
                    let hi = (lo + per).min(end);
                    sc.spawn(move || {
                        (lo..hi)
                            .map(|b| {
                                let mut entries = Vec::with_capacity(BLOCK);
                                fill(b, &mut entries)?;
                                let frame = encode_block(&entries, comp).map_err(|err| {
                                    CompactError::Write {
                                        path: path.display().to_string(),
                                        err,
                                    }
                                })?;
                                Ok((frame, entries))
                            })
                            .collect::<Part>()
                    })
                })
                .collect();
            hs.into_iter()
                .map(|h| h.join().expect("a compressing thread panicked"))
                .collect()
        });
        for part in parts {
            for (frame, entries) in part? {
                sum = checksum_from(sum, &entries);
                f.write_all(&frame).map_err(werr)?;
                at += frame.len() as u64;
                index.extend_from_slice(&at.to_le_bytes());
            }
        }
        next = end;
    }
    let mut h = [0u8; HEADER];
    h[..8].copy_from_slice(MAGIC);
    h[8] = seeds;
    h[9] = CODEC_ZSTD_PLANES;
    h[12..16].copy_from_slice(&(BLOCK as u32).to_le_bytes());
    h[16..24].copy_from_slice(&len.to_le_bytes());
    h[24..32].copy_from_slice(&sum.to_le_bytes());
    h[32..40].copy_from_slice(&(blocks as u64).to_le_bytes());
    h[40..48].copy_from_slice(&at.to_le_bytes());
    let hsum = fnv(fnv(CHECKSUM_START, &h[..48]), &index);
    h[48..56].copy_from_slice(&hsum.to_le_bytes());
    let mut file = f.into_inner().map_err(|e| werr(e.into_error()))?;
    file.seek(std::io::SeekFrom::Start(0)).map_err(werr)?;
    let mut w = std::io::BufWriter::with_capacity(1 << 20, &mut file);
    w.write_all(&h).map_err(werr)?;
    w.write_all(&index).map_err(werr)?;
    w.flush().map_err(werr)?;
    drop(w);
    file.sync_all().map_err(werr)?;
    std::fs::rename(&tmp, path).map_err(werr)?;
    Ok((HEADER + index.len()) as u64 + at)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks of every length from 0 to a full one, of entries drawn from a few values (as
    /// real tables are) or from all 65,536, come back as they went in; a damaged frame is
    /// refused, never decoded into other entries.
    #[test]
    fn blocks_round_trip_and_damage_is_refused() {
        let mut comp = compressor().unwrap();
        let mut dec = zstd::bulk::Decompressor::new().unwrap();
        let (mut raw, mut out) = (Vec::new(), Vec::new());
        let mut rng = anywoli_core::XorShift::new(0x9e37_79b9_7f4a_7c15);
        let mut next = || rng.next();
        let (mut refused, mut flipped) = (0, 0);
        for round in 0..300 {
            let n = if round < 10 {
                round
            } else {
                (next() % BLOCK as u64 + 1) as usize
            };
            let spread = [3u64, 40, 300, 65_536][round % 4];
            let entries: Vec<Entry> = (0..n)
                .map(|_| {
                    let v = next() % spread;
                    if spread == 65_536 {
                        v as Entry
                    } else {
                        (v as Entry) | (0x8000 * (v as Entry & 1))
                    }
                })
                .collect();
            let frame = encode_block(&entries, &mut comp).unwrap();
            decode_block(&frame, n, &mut dec, &mut raw, &mut out).unwrap();
            assert_eq!(out, entries, "round {round}");
            if n > 0 {
                // A wrong length is refused.
                assert!(decode_block(&frame, n + 1, &mut dec, &mut raw, &mut out).is_err());
                // A flipped bit past the frame's magic never decodes into other entries
                // (zstd's checksum covers the content).
                let at = 4 + (next() as usize) % (frame.len() - 4);
                let mut bad = frame.clone();
                bad[at] ^= 1 << (next() % 8);
                let r = decode_block(&bad, n, &mut dec, &mut raw, &mut out);
                assert!(
                    r.is_err() || out == entries,
                    "round {round}: a flipped bit at byte {at} decoded into other entries"
                );
                refused += r.is_err() as usize;
                flipped += 1;
            }
        }
        // A flip in the frame's header can leave the content as it was (a flag zstd does
        // not need); nearly everywhere else it is refused.
        assert!(refused * 10 >= flipped * 9, "{refused} of {flipped}");
    }
}
