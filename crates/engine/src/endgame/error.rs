//! What can go wrong with an endgame database: reading or writing its file, building it, or
//! checking it. Each variant names the file, the field or the entry at fault.

use std::path::PathBuf;

use thiserror::Error;

/// What is wrong inside a database file (`.awtb` or `.awtbz`), found from its header, its size
/// or its checksums.
#[derive(Debug, Error)]
pub enum Defect {
    #[error("too short for its header")]
    TooShort,
    #[error("wrong magic bytes")]
    Magic,
    #[error("unsupported number of seeds")]
    Seeds,
    #[error("unknown codec")]
    Codec,
    #[error("unsupported block size")]
    BlockSize,
    #[error("wrong number of entries for its seeds")]
    Entries,
    #[error("wrong number of blocks for its entries")]
    Blocks,
    #[error("shorter than its header says")]
    Shorter,
    #[error("longer than its header says")]
    Longer,
    #[error("checksum mismatch in its header or index (the file is damaged)")]
    IndexChecksum,
    #[error("its block index is out of order")]
    IndexOrder,
    #[error("its block index does not end at its data")]
    IndexEnd,
    #[error("checksum mismatch (the file is damaged)")]
    Checksum,
    /// The file could not be read to its end (or its size asked).
    #[error("{0}")]
    Read(std::io::Error),
}

/// Why one compressed block of a compact file does not give its entries.
#[derive(Debug, Error)]
pub enum BlockDefect {
    /// zstd refused it (its content checksum, a damaged frame) or could not start.
    #[error("{0}")]
    Zstd(std::io::Error),
    #[error("{got} bytes instead of {want}")]
    Length { got: usize, want: usize },
}

/// What is wrong with a compact file.
#[derive(Debug, Error)]
pub enum CompactError {
    #[error("cannot open {path}: {err}")]
    Open { path: String, err: std::io::Error },
    #[error("cannot write {path}: {err}")]
    Write { path: String, err: std::io::Error },
    #[error("{path} is not a valid compact database: {defect}")]
    Invalid { path: String, defect: Defect },
    #[error("{path} is damaged: block {block} does not decompress ({defect})")]
    Block {
        path: String,
        block: usize,
        defect: BlockDefect,
    },
}

/// Errors of reading, writing, building or checking a database.
#[derive(Debug, Error)]
pub enum EndgameError {
    #[error("cannot open {}: {err}", .path.display())]
    Open { path: PathBuf, err: std::io::Error },
    #[error("cannot write {}: {err}", .path.display())]
    Write { path: PathBuf, err: std::io::Error },
    #[error("{} is not a valid database: {defect}", .path.display())]
    Invalid { path: PathBuf, defect: Defect },
    #[error(transparent)]
    Compact(#[from] CompactError),
    /// A table made from entries that are not one per position.
    #[error("{count} entries do not make a {seeds}-seed table")]
    Entries { seeds: u8, count: usize },
    /// The move-graph builder asked for another size than the one it builds.
    #[error(
        "the {seeds}-seed database cannot be built by this builder: it builds the 8-seed one \
         (see docs/tablebase.md for the 12-seed database)"
    )]
    Builder { seeds: u8 },
    #[error("the 12-seed database is built from the 8-seed one: build that first")]
    NoEight,
    /// A forced capture longer than an entry holds.
    #[error("a forced capture is longer than {max} plies: the entries cannot hold it")]
    Distance { max: u32 },
    /// The same in the retrograde builder's packed fields.
    #[error("a forced capture is longer than {max} plies: the packed entries cannot hold it")]
    PackedDistance { max: u32 },
    #[error("{count} thresholds: the packed entries hold 1 to {max}")]
    Thresholds { count: usize, max: usize },
    #[error("too many positions for 32-bit wave entries")]
    Positions,
    /// The table checked has another number of entries than its seeds make.
    #[error("the table has the wrong size")]
    Size,
    #[error("not a 12-seed table")]
    NotTwelve,
    /// An 8-seed entry that its position's moves contradict.
    #[error("entry {index} ({position}) disagrees with its moves: the database is wrong")]
    Disagrees { index: u64, position: String },
    /// A 12-seed entry that its position's moves contradict.
    #[error("12-seed entry {index} disagrees with its moves: the database is wrong")]
    Disagrees12 { index: u64 },
}
