//! A wave's state on disk, so that a killed build resumes. Each rank writes its slice's packed
//! words and its wave list to a file of its own; when every rank has, rank 0 names the wave in
//! the manifest; only then does a rank delete its older files. A kill at any moment leaves the
//! manifest naming a wave whose files are all whole (each is written beside its name and
//! renamed when synced).
//!
//! A rank file: a 72-byte header (magic, seeds, thresholds, ranks, rank, first position,
//! positions, wave, whether a list follows and its length, bytes sent and fields settled so
//! far, the FNV-1a checksum of what follows and then of the header's first 64 bytes), the packed words as their little-endian 16-bit
//! cells (1 to 4 a position, [`super::super::packed`]), then the list as little-endian 32-bit
//! offsets.

use std::io::{BufReader, BufWriter, Read, Seek, Write};
use std::path::{Path, PathBuf};

use super::super::error::EndgameError;
use super::super::index::{fnv, CHECKSUM_START};
use super::super::packed::{Packing, Solved, MAX_THRESHOLDS};
use super::comm::{agree, Comm};
use super::slice::Slices;

/// Version 2: words packed in as many cells as their thresholds need (version 1 had two).
const MAGIC: &[u8; 8] = b"AWCK\0\x02\r\n";
const HEADER: usize = 72;

/// What a rank saves at the start of a wave.
pub struct State<'a> {
    /// The wave about to run.
    pub wave: u32,
    /// The slice's words.
    pub solved: &'a Solved,
    /// The positions the last wave settled, when listed.
    pub listed: Option<&'a [u32]>,
    /// Bytes this rank sent so far.
    pub sent: u64,
    /// Fields this rank settled so far.
    pub settled: u64,
}

/// What a rank reads back.
pub struct Loaded {
    /// The wave to run next.
    pub wave: u32,
    /// The slice's words.
    pub solved: Solved,
    /// The positions the last wave settled, when listed.
    pub listed: Option<Vec<u32>>,
    /// Bytes this rank had sent.
    pub sent: u64,
    /// Fields this rank had settled.
    pub settled: u64,
}

/// The manifest of a build of `seeds` seeds on `ranks` ranks.
pub fn manifest_path(dir: &Path, seeds: u8, ranks: usize) -> PathBuf {
    dir.join(format!("anywoli-{seeds}-on-{ranks}.ckpt"))
}

/// Rank `rank`'s file of `wave`.
fn rank_path(dir: &Path, seeds: u8, ranks: usize, rank: usize, wave: u32) -> PathBuf {
    dir.join(format!(
        "anywoli-{seeds}-on-{ranks}-rank-{rank}-wave-{wave}.ckpt"
    ))
}

/// Saves every rank's state; returns the bytes all ranks wrote.
pub fn save(
    comm: &dyn Comm,
    dir: &Path,
    seeds: u8,
    slices: &Slices,
    state: &State,
) -> Result<u64, EndgameError> {
    let (ranks, me) = (comm.ranks(), comm.rank());
    let path = rank_path(dir, seeds, ranks, me, state.wave);
    let r = std::fs::create_dir_all(dir)
        .map_err(|err| EndgameError::Write {
            path: dir.to_path_buf(),
            err,
        })
        .and_then(|()| {
            let which = Which {
                seeds,
                slices,
                rank: me,
                thresholds: state.solved.thresholds,
                wave: state.wave,
            };
            write_rank(&path, &which, state)
        });
    let bytes = agree(comm, r)?;
    let r = if me == 0 {
        write_manifest(dir, seeds, ranks, state.wave)
    } else {
        Ok(())
    };
    agree(comm, r)?;
    // The manifest names this wave: the older files are no longer needed.
    if let Ok(list) = std::fs::read_dir(dir) {
        let prefix = format!("anywoli-{seeds}-on-{ranks}-rank-{me}-wave-");
        let current = format!("{prefix}{}.ckpt", state.wave);
        for e in list.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with(&prefix) && name != current {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    Ok(comm.sum(bytes))
}

fn write_manifest(dir: &Path, seeds: u8, ranks: usize, wave: u32) -> Result<(), EndgameError> {
    let path = manifest_path(dir, seeds, ranks);
    let tmp = path.with_extension("ckpt.part");
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        writeln!(f, "anywoli distributed build checkpoint")?;
        writeln!(f, "seeds {seeds}\nranks {ranks}\nwave {wave}")?;
        f.sync_all()?;
        std::fs::rename(&tmp, &path)
    };
    write().map_err(|err| EndgameError::Write { path, err })
}

/// Which rank file of which build: what its header must say.
#[derive(Clone, Copy, Debug)]
pub struct Which<'a> {
    /// Seeds in play of the layer.
    pub seeds: u8,
    /// How the layer is cut into slices.
    pub slices: &'a Slices,
    /// The rank whose slice the file holds.
    pub rank: usize,
    /// Thresholds a position.
    pub thresholds: usize,
    /// The wave about to run.
    pub wave: u32,
}

fn write_rank(path: &Path, which: &Which, state: &State) -> Result<u64, EndgameError> {
    let tmp = path.with_extension("ckpt.part");
    let write = || -> std::io::Result<u64> {
        let mut f = BufWriter::with_capacity(1 << 20, std::fs::File::create(&tmp)?);
        encode_rank(&mut f, which, state)?;
        let file = f.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)?;
        Ok(file.metadata()?.len())
    };
    write().map_err(|err| EndgameError::Write {
        path: path.to_path_buf(),
        err,
    })
}

/// Writes a rank file to `f`: a header whose checksum is filled in once the body has gone
/// by, then the body. Public for the fuzz target, which reads back what it writes.
pub fn encode_rank<W: Write + Seek>(
    f: &mut W,
    which: &Which,
    state: &State,
) -> std::io::Result<()> {
    f.write_all(&[0u8; HEADER])?;
    let mut sum = CHECKSUM_START;
    let mut buf = Vec::with_capacity(1 << 16);
    let mut put = |f: &mut W, buf: &mut Vec<u8>| {
        sum = fnv(sum, buf);
        let r = f.write_all(buf);
        buf.clear();
        r
    };
    for chunk in state.solved.cells().chunks(1 << 15) {
        chunk
            .iter()
            .for_each(|c| buf.extend_from_slice(&c.to_le_bytes()));
        put(f, &mut buf)?;
    }
    for &p in state.listed.unwrap_or(&[]) {
        buf.extend_from_slice(&p.to_le_bytes());
        if buf.len() >= 1 << 16 {
            put(f, &mut buf)?;
        }
    }
    put(f, &mut buf)?;
    let mut h = [0u8; HEADER];
    h[..8].copy_from_slice(MAGIC);
    h[8] = which.seeds;
    h[9] = state.solved.thresholds as u8;
    h[10] = state.listed.is_some() as u8;
    h[12..16].copy_from_slice(&(which.slices.ranks() as u32).to_le_bytes());
    h[16..20].copy_from_slice(&(which.rank as u32).to_le_bytes());
    h[20..24].copy_from_slice(&state.wave.to_le_bytes());
    h[24..32].copy_from_slice(&which.slices.lo(which.rank).to_le_bytes());
    h[32..40].copy_from_slice(&(state.solved.positions() as u64).to_le_bytes());
    h[40..48].copy_from_slice(&(state.listed.map_or(0, |l| l.len()) as u64).to_le_bytes());
    h[48..56].copy_from_slice(&state.sent.to_le_bytes());
    h[56..64].copy_from_slice(&state.settled.to_le_bytes());
    // The header is in the checksum too: its counters are checked by nothing else.
    let sum = fnv(sum, &h[..64]);
    h[64..72].copy_from_slice(&sum.to_le_bytes());
    f.seek(std::io::SeekFrom::Start(0))?;
    f.write_all(&h)?;
    f.seek(std::io::SeekFrom::End(0))?;
    f.flush()
}

/// Deletes this rank's checkpoint files (and, on rank 0, the manifest) once the file is
/// written: they are as large as the ranks' memory and no longer needed.
pub fn remove(comm: &dyn Comm, dir: &Path, seeds: u8) {
    let (ranks, me) = (comm.ranks(), comm.rank());
    // The manifest first: a crash between the two leaves no manifest naming missing files.
    if me == 0 {
        let _ = std::fs::remove_file(manifest_path(dir, seeds, ranks));
    }
    comm.max(0);
    let prefix = format!("anywoli-{seeds}-on-{ranks}-rank-{me}-wave-");
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if e.file_name().to_string_lossy().starts_with(&prefix) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// The wave the manifest in `dir` names for this layer and number of ranks, if any.
fn manifest_wave(dir: &Path, seeds: u8, ranks: usize) -> Result<Option<u32>, EndgameError> {
    let path = manifest_path(dir, seeds, ranks);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(EndgameError::Open { path, err }),
    };
    parse_manifest(&text, seeds, ranks)
        .map(Some)
        .map_err(|what| EndgameError::Checkpoint {
            path,
            what: what.to_string(),
        })
}

/// The wave a manifest's text names, when it is of this layer and number of ranks, else what
/// is wrong with it. Public for the fuzz target.
pub fn parse_manifest(text: &str, seeds: u8, ranks: usize) -> Result<u32, &'static str> {
    let value = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key)?.trim().parse::<u64>().ok())
    };
    if value("seeds ") != Some(seeds as u64) || value("ranks ") != Some(ranks as u64) {
        return Err("made by another build (seeds or ranks differ)");
    }
    match value("wave ") {
        Some(w) if (1..=u32::MAX as u64).contains(&w) => Ok(w as u32),
        _ => Err("no wave"),
    }
}

/// Reads every rank's state back from the wave the manifest names; `None` when there is no
/// manifest (a fresh build).
pub fn load(
    comm: &dyn Comm,
    dir: &Path,
    seeds: u8,
    slices: &Slices,
    thresholds: usize,
) -> Result<Option<Loaded>, EndgameError> {
    let (ranks, me) = (comm.ranks(), comm.rank());
    let r = if me == 0 {
        manifest_wave(dir, seeds, ranks)
    } else {
        Ok(None)
    };
    let wave = agree(comm, r)?.map_or(0, |w| w as u64);
    let wave = comm.max(wave) as u32;
    if wave == 0 {
        return Ok(None);
    }
    let path = rank_path(dir, seeds, ranks, me, wave);
    let which = Which {
        seeds,
        slices,
        rank: me,
        thresholds,
        wave,
    };
    let r = read_rank(&path, &which);
    agree(comm, r).map(Some)
}

fn read_rank(path: &Path, which: &Which) -> Result<Loaded, EndgameError> {
    let file = std::fs::File::open(path).map_err(|err| EndgameError::Open {
        path: path.to_path_buf(),
        err,
    })?;
    let size = file
        .metadata()
        .map_err(|_| EndgameError::Checkpoint {
            path: path.to_path_buf(),
            what: "unreadable".to_string(),
        })?
        .len();
    decode_rank(BufReader::with_capacity(1 << 20, file), size, path, which)
}

/// Reads a rank file of `size` bytes from `f` and checks it is `which`'s; `path` names it in
/// errors. Public for the fuzz target.
pub fn decode_rank(
    mut f: impl Read,
    size: u64,
    path: &Path,
    which: &Which,
) -> Result<Loaded, EndgameError> {
    let bad = |what: &str| EndgameError::Checkpoint {
        path: path.to_path_buf(),
        what: what.to_string(),
    };
    let Which {
        seeds,
        slices,
        rank,
        thresholds,
        wave,
    } = *which;
    let ranks = slices.ranks();
    if !(1..=MAX_THRESHOLDS).contains(&thresholds) {
        return Err(bad("its build has no packing for that many thresholds"));
    }
    let mut h = [0u8; HEADER];
    f.read_exact(&mut h).map_err(|_| bad("too short"))?;
    let u32_at = |i: usize| u32::from_le_bytes(h[i..i + 4].try_into().expect("4 bytes"));
    let u64_at = |i: usize| u64::from_le_bytes(h[i..i + 8].try_into().expect("8 bytes"));
    let n = slices.len(rank);
    if &h[..8] != MAGIC
        || h[8] != seeds
        || h[9] as usize != thresholds
        || u32_at(12) as usize != ranks
        || u32_at(16) as usize != rank
        || u32_at(20) != wave
        || u64_at(24) != slices.lo(rank)
        || u64_at(32) != n
    {
        return Err(bad("its header does not match this build"));
    }
    let listed = h[10] != 0;
    let list_len = u64_at(40);
    // The size first, so that a damaged header cannot make the reader ask for memory the file
    // does not back.
    let cells = n * Packing::of(thresholds).cells as u64;
    let expected = list_len
        .checked_mul(4)
        .and_then(|list| list.checked_add(2 * cells))
        .and_then(|body| body.checked_add(HEADER as u64));
    if expected != Some(size) {
        return Err(bad("its size does not match its header"));
    }
    let mut solved = Solved::blank(thresholds, n as usize);
    let mut sum = CHECKSUM_START;
    let mut buf = vec![0u8; 1 << 16];
    for part in solved.cells_mut().chunks_mut(1 << 15) {
        let b = &mut buf[..2 * part.len()];
        f.read_exact(b).map_err(|_| bad("too short"))?;
        sum = fnv(sum, b);
        for (c, two) in part.iter_mut().zip(b.chunks_exact(2)) {
            *c = u16::from_le_bytes([two[0], two[1]]);
        }
    }
    let mut list = Vec::with_capacity(list_len as usize);
    while (list.len() as u64) < list_len {
        let take = (list_len as usize - list.len()).min(buf.len() / 4);
        let b = &mut buf[..4 * take];
        f.read_exact(b).map_err(|_| bad("too short"))?;
        sum = fnv(sum, b);
        list.extend(
            b.chunks_exact(4)
                .map(|w| u32::from_le_bytes(w.try_into().expect("4 bytes"))),
        );
    }
    if fnv(sum, &h[..64]) != u64_at(64) {
        return Err(bad("its checksum is wrong (damaged)"));
    }
    if list.iter().any(|&p| p as u64 >= n) {
        return Err(bad("its list names a position outside the slice"));
    }
    Ok(Loaded {
        wave,
        solved,
        listed: listed.then_some(list),
        sent: u64_at(48),
        settled: u64_at(56),
    })
}
