//! The plain file of a table (`anywoli-N.awtb`): a 32-byte header (magic, seeds, entries,
//! checksum), then the entries as little-endian 16-bit words. [`Table::load`] also reads a
//! compact file whole, known by its magic bytes.

use std::io::{Read, Write};
use std::path::Path;

use super::compact::{self, Compact};
use super::entry::Entry;
use super::error::{Defect, EndgameError};
use super::index::{checksum, positions};
use super::table::{damaged_entry, Table};

/// The file format's first bytes.
const MAGIC: &[u8; 8] = b"AWTB\0\x01\r\n";
const HEADER: usize = 32;

impl Table {
    /// Writes the table: a 32-byte header (magic, seeds, entries, checksum), then the
    /// entries as little-endian 16-bit words.
    pub fn save(&self, path: &Path) -> Result<(), EndgameError> {
        let tmp = path.with_extension("awtb.part");
        let data = self.entries()?;
        let write = || -> std::io::Result<()> {
            let mut f = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
            let mut header = [0u8; HEADER];
            header[..8].copy_from_slice(MAGIC);
            header[8] = self.seeds();
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
        write().map_err(|err| EndgameError::Write {
            path: path.to_path_buf(),
            err,
        })
    }

    /// Reads a table whole and checks its header, size and checksum. A compact file
    /// (`.awtbz`, known by its magic bytes) is decompressed whole, every block checked.
    pub fn load(path: &Path) -> Result<Table, EndgameError> {
        let mut f = std::fs::File::open(path).map_err(|err| EndgameError::Open {
            path: path.to_path_buf(),
            err,
        })?;
        let bad = |defect| EndgameError::Invalid {
            path: path.to_path_buf(),
            defect,
        };
        let mut header = [0u8; HEADER];
        f.read_exact(&mut header)
            .map_err(|_| bad(Defect::TooShort))?;
        if &header[..8] == compact::MAGIC {
            let c = Compact::open(path, damaged_entry)?;
            let data = c.entries()?;
            return Ok(Table::in_memory(c.seeds(), data));
        }
        let (seeds, data) = read_plain(f, &header).map_err(bad)?;
        Ok(Table::in_memory(seeds, data))
    }
}

/// The seeds and entries of a plain file whose `header` was read from `f`.
fn read_plain(f: std::fs::File, header: &[u8; HEADER]) -> Result<(u8, Vec<Entry>), Defect> {
    if &header[..8] != MAGIC {
        return Err(Defect::Magic);
    }
    let seeds = header[8];
    if seeds != 8 && seeds != 12 {
        return Err(Defect::Seeds);
    }
    let len = u64::from_le_bytes(header[16..24].try_into().expect("8 bytes"));
    if len != positions(seeds) {
        return Err(Defect::Entries);
    }
    // The size first, so that a damaged header cannot make the loader ask for memory the
    // file does not back.
    let size = f.metadata().map_err(Defect::Read)?.len();
    if size < HEADER as u64 + 2 * len {
        return Err(Defect::Shorter);
    }
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
