//! The slices' entries streamed to rank 0, which writes them in index order through the same
//! writer as the single-process build: the file is the same, byte for byte. A rank sends its
//! slice in parts of [`PART`] entries, so rank 0 holds its own slice and one part.

use std::path::Path;

use super::super::error::EndgameError;
use super::super::file::PlainWriter;
use super::comm::{agree, Comm};
use super::slice::Slices;

/// Entries a message carries (2 MB).
pub const PART: usize = 1 << 20;

/// Writes the table whose slice this rank holds as `entries` to `path`, on rank 0.
pub fn write(
    comm: &dyn Comm,
    path: &Path,
    seeds: u8,
    slices: &Slices,
    entries: Vec<u16>,
) -> Result<(), EndgameError> {
    if comm.rank() != 0 {
        // Rank 0 says first whether it could open the file, so that nobody sends into a
        // build that already failed.
        agree(comm, Ok(()))?;
        for part in entries.chunks(PART) {
            comm.send_entries(part);
        }
        return agree(comm, Ok(()));
    }
    let total: u64 = (0..comm.ranks()).map(|r| slices.len(r)).sum();
    let writer = PlainWriter::create(path, seeds, total);
    let mut writer = agree(comm, writer)?;
    let mut result = writer.write(&entries);
    drop(entries);
    for from in 1..comm.ranks() {
        let mut got = 0u64;
        while got < slices.len(from) {
            let part = comm.recv_entries(from);
            if part.is_empty() {
                result = result.and(Err(EndgameError::RankFailed { rank: from }));
                break;
            }
            got += part.len() as u64;
            // After a failed write the rest is still received (the senders block until it
            // is), and dropped.
            if result.is_ok() {
                result = writer.write(&part);
            }
        }
    }
    let result = result.and_then(|()| writer.finish());
    agree(comm, result)
}
