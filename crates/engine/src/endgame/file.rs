//! The plain file of a table (`anywoli-N.awtb`): a 32-byte header (magic, seeds, entries,
//! checksum), then the entries as little-endian 16-bit words. [`Table::load`] also reads a
//! compact file whole, known by its magic bytes.

use std::io::{Read, Seek, Write};
use std::path::Path;
use std::path::PathBuf;

use super::compact::{self, Compact};
use super::entry::Entry;
use super::error::{Defect, EndgameError};
use super::index::{checksum, checksum_from, is_layer, positions, CHECKSUM_START};
use super::table::{damaged_entry, Table};

/// The file format's first bytes.
const MAGIC: &[u8; 8] = b"AWTB\0\x01\r\n";
const HEADER: usize = 32;

impl Table {
    /// Writes the table: a 32-byte header (magic, seeds, entries, checksum), then the
    /// entries as little-endian 16-bit words.
    pub fn save(&self, path: &Path) -> Result<(), EndgameError> {
        let data = self.entries()?;
        let mut w = PlainWriter::create(path, self.seeds(), data.len() as u64)?;
        w.write(&data)?;
        w.finish()
    }

    /// Reads a table whole and checks its header, size and checksum. A compact file
    /// (`.awtbz`, known by its magic bytes) is decompressed whole, every block checked.
    pub fn load(path: &Path) -> Result<Table, EndgameError> {
        let (f, header) = open_with_header(path)?;
        if &header[..8] == compact::MAGIC {
            let c = Compact::open(path, damaged_entry)?;
            let data = c.entries()?;
            return Ok(Table::in_memory(c.seeds(), data));
        }
        let (seeds, data) = read_plain(f, &header).map_err(invalid(path))?;
        Ok(Table::in_memory(seeds, data))
    }

    /// Maps a plain file instead of reading it: its header and size are checked now, its
    /// checksum is not (that would read the whole file: 75 GB at 16 seeds; `tablebase
    /// compare` reads it). A probe reads one entry through the map, and the kernel shares the
    /// file's pages between the processes (the ranks of a node) that map it.
    pub fn map_plain(path: &Path) -> Result<Table, EndgameError> {
        let (f, header) = open_with_header(path)?;
        let size = f
            .metadata()
            .map_err(|e| invalid(path)(Defect::Read(e)))?
            .len();
        let (seeds, _) = plain_layout(&header, size).map_err(invalid(path))?;
        // Safety: the file is only read; a build writes a new file and renames it over the
        // old, so a mapped file is never changed under a reader.
        let map = unsafe { memmap2::Mmap::map(&f) }.map_err(|err| EndgameError::Open {
            path: path.to_path_buf(),
            err,
        })?;
        Ok(Table::mapped(seeds, map, HEADER))
    }
}

/// A plain file written a part at a time, in index order, so that a table need not be whole in
/// one memory to be saved (the distributed build streams the ranks' slices through one): the
/// header's checksum is kept as the entries go by and written last. The file is written beside
/// its name and renamed when whole, so a reader never sees a half-written database.
pub struct PlainWriter {
    path: PathBuf,
    tmp: PathBuf,
    file: std::io::BufWriter<std::fs::File>,
    seeds: u8,
    len: u64,
    written: u64,
    sum: u64,
    buf: Vec<u8>,
}

impl PlainWriter {
    /// Starts the file of a `seeds`-seed table of `len` entries.
    pub fn create(path: &Path, seeds: u8, len: u64) -> Result<PlainWriter, EndgameError> {
        let tmp = path.with_extension("awtb.part");
        let fail = |err| EndgameError::Write {
            path: path.to_path_buf(),
            err,
        };
        let mut file = std::io::BufWriter::new(std::fs::File::create(&tmp).map_err(fail)?);
        // The header's place, filled in by `finish`.
        file.write_all(&[0u8; HEADER]).map_err(fail)?;
        Ok(PlainWriter {
            path: path.to_path_buf(),
            tmp,
            file,
            seeds,
            len,
            written: 0,
            sum: CHECKSUM_START,
            buf: Vec::with_capacity(1 << 16),
        })
    }

    fn fail(&self, err: std::io::Error) -> EndgameError {
        EndgameError::Write {
            path: self.path.clone(),
            err,
        }
    }

    /// Appends the next entries.
    pub fn write(&mut self, data: &[Entry]) -> Result<(), EndgameError> {
        self.written += data.len() as u64;
        if self.written > self.len {
            return Err(EndgameError::Entries {
                seeds: self.seeds,
                count: self.written as usize,
            });
        }
        self.sum = checksum_from(self.sum, data);
        for chunk in data.chunks(1 << 15) {
            self.buf.clear();
            for e in chunk {
                self.buf.extend_from_slice(&e.to_le_bytes());
            }
            let r = self.file.write_all(&self.buf);
            r.map_err(|e| self.fail(e))?;
        }
        Ok(())
    }

    /// Writes the header, flushes the file to disk and gives it its name.
    pub fn finish(self) -> Result<(), EndgameError> {
        if self.written != self.len {
            return Err(EndgameError::Entries {
                seeds: self.seeds,
                count: self.written as usize,
            });
        }
        let mut header = [0u8; HEADER];
        header[..8].copy_from_slice(MAGIC);
        header[8] = self.seeds;
        header[16..24].copy_from_slice(&self.len.to_le_bytes());
        header[24..32].copy_from_slice(&self.sum.to_le_bytes());
        let (path, tmp) = (self.path.clone(), self.tmp.clone());
        let fail = |err| EndgameError::Write {
            path: path.clone(),
            err,
        };
        let mut f = self.file.into_inner().map_err(|e| fail(e.into_error()))?;
        f.seek(std::io::SeekFrom::Start(0)).map_err(fail)?;
        f.write_all(&header).map_err(fail)?;
        f.sync_all().map_err(fail)?;
        std::fs::rename(&tmp, &path).map_err(fail)
    }
}

/// The error of a file that is not a valid database, for its defect.
fn invalid(path: &Path) -> impl Fn(Defect) -> EndgameError + '_ {
    move |defect| EndgameError::Invalid {
        path: path.to_path_buf(),
        defect,
    }
}

/// A table file opened, and its first [`HEADER`] bytes.
fn open_with_header(path: &Path) -> Result<(std::fs::File, [u8; HEADER]), EndgameError> {
    let mut f = std::fs::File::open(path).map_err(|err| EndgameError::Open {
        path: path.to_path_buf(),
        err,
    })?;
    let mut header = [0u8; HEADER];
    f.read_exact(&mut header)
        .map_err(|_| invalid(path)(Defect::TooShort))?;
    Ok((f, header))
}

/// The seeds and entries of a plain file of `size` bytes whose `header` is this, when they
/// agree. The size is checked before anything is read, so that a damaged header cannot make
/// the loader ask for memory the file does not back.
fn plain_layout(header: &[u8; HEADER], size: u64) -> Result<(u8, u64), Defect> {
    if &header[..8] != MAGIC {
        return Err(Defect::Magic);
    }
    let seeds = header[8];
    if !is_layer(seeds) {
        return Err(Defect::Seeds);
    }
    let len = u64::from_le_bytes(header[16..24].try_into().expect("8 bytes"));
    if len != positions(seeds) {
        return Err(Defect::Entries);
    }
    match size.cmp(&(HEADER as u64 + 2 * len)) {
        std::cmp::Ordering::Less => Err(Defect::Shorter),
        std::cmp::Ordering::Greater => Err(Defect::Longer),
        std::cmp::Ordering::Equal => Ok((seeds, len)),
    }
}

/// The seeds and entries of a plain file whose `header` was read from `f`.
fn read_plain(f: std::fs::File, header: &[u8; HEADER]) -> Result<(u8, Vec<Entry>), Defect> {
    let (seeds, len) = plain_layout(header, f.metadata().map_err(Defect::Read)?.len())?;
    let sum = u64::from_le_bytes(header[24..32].try_into().expect("8 bytes"));
    let mut data = Vec::with_capacity(len as usize);
    let mut r = std::io::BufReader::with_capacity(1 << 20, f);
    let mut buf = vec![0u8; 1 << 16];
    while (data.len() as u64) < len {
        let want = ((len - data.len() as u64) as usize * 2).min(buf.len());
        r.read_exact(&mut buf[..want])
            .map_err(|_| Defect::Shorter)?;
        data.extend(
            buf[..want]
                .chunks_exact(2)
                .map(|b| u16::from_le_bytes([b[0], b[1]])),
        );
    }
    if r.read(&mut buf[..1]).map_err(Defect::Read)? != 0 {
        return Err(Defect::Longer);
    }
    if checksum(&data) != sum {
        return Err(Defect::Checksum);
    }
    Ok((seeds, data))
}
