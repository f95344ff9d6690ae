//! What can go wrong with an endgame database: reading or writing its file, building it, or
//! checking it. Each variant names the file, the field or the entry at fault.

use std::path::PathBuf;

use thiserror::Error;

/// What is wrong inside a database file (`.awtb` or `.awtbz`), found from its header, its size
/// or its checksums.
#[derive(Debug, Error)]
pub enum Defect {
    /// The file is shorter than a header.
    #[error("too short for its header")]
    TooShort,
    /// The file does not start with the magic bytes of its kind.
    #[error("wrong magic bytes")]
    Magic,
    /// The header names a number of seeds the engine has no database for.
    #[error("unsupported number of seeds")]
    Seeds,
    /// The header names a compression the engine cannot read.
    #[error("unknown codec")]
    Codec,
    /// The header names a block size the engine does not use.
    #[error("unsupported block size")]
    BlockSize,
    /// The header's entry count is not the number of positions of its seeds.
    #[error("wrong number of entries for its seeds")]
    Entries,
    /// The header's block count does not cover its entries.
    #[error("wrong number of blocks for its entries")]
    Blocks,
    /// The file ends before the size its header gives.
    #[error("shorter than its header says")]
    Shorter,
    /// The file goes on past the size its header gives.
    #[error("longer than its header says")]
    Longer,
    /// The header's or block index's checksum does not match.
    #[error("checksum mismatch in its header or index (the file is damaged)")]
    IndexChecksum,
    /// The block offsets do not start at 0 and rise within the data.
    #[error("its block index is out of order")]
    IndexOrder,
    /// The last block does not end where the data does.
    #[error("its block index does not end at its data")]
    IndexEnd,
    /// The checksum of the entries does not match.
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
    /// It decompressed to the wrong length.
    #[error("{got} bytes instead of {want}")]
    Length {
        /// Bytes it gave.
        got: usize,
        /// Bytes its entries take.
        want: usize,
    },
}

/// What is wrong with a compact file.
#[derive(Debug, Error)]
pub enum CompactError {
    /// The file could not be opened.
    #[error("cannot open {path}: {err}")]
    Open {
        /// The file.
        path: String,
        /// Why.
        err: std::io::Error,
    },
    /// The file could not be written.
    #[error("cannot write {path}: {err}")]
    Write {
        /// The file.
        path: String,
        /// Why.
        err: std::io::Error,
    },
    /// The file's header, size or index is wrong.
    #[error("{path} is not a valid compact database: {defect}")]
    Invalid {
        /// The file.
        path: String,
        /// What is wrong.
        defect: Defect,
    },
    /// A block does not decompress to its entries.
    #[error("{path} is damaged: block {block} does not decompress ({defect})")]
    Block {
        /// The file.
        path: String,
        /// The block's number, from 0.
        block: usize,
        /// What is wrong with it.
        defect: BlockDefect,
    },
}

/// Errors of reading, writing, building or checking a database.
#[derive(Debug, Error)]
pub enum EndgameError {
    /// The file could not be opened.
    #[error("cannot open {}: {err}", .path.display())]
    Open {
        /// The file.
        path: PathBuf,
        /// Why.
        err: std::io::Error,
    },
    /// The file could not be written.
    #[error("cannot write {}: {err}", .path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        err: std::io::Error,
    },
    /// The file's header, size or checksum is wrong.
    #[error("{} is not a valid database: {defect}", .path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        defect: Defect,
    },
    /// A compact (`.awtbz`) file's fault.
    #[error(transparent)]
    Compact(#[from] CompactError),
    /// A table made from entries that are not one per position.
    #[error("{count} entries do not make a {seeds}-seed table")]
    Entries {
        /// The table's seeds.
        seeds: u8,
        /// The entries given.
        count: usize,
    },
    /// The move-graph builder asked for another size than the one it builds.
    #[error(
        "the {seeds}-seed database cannot be built by this builder: it builds the 8-seed one \
         (see docs/tablebase.md for the 12-seed database)"
    )]
    Builder {
        /// The seeds asked for.
        seeds: u8,
    },
    /// The 12-seed build was started without the 8-seed database it needs.
    #[error("the 12-seed database is built from the 8-seed one: build that first")]
    NoEight,
    /// A forced capture longer than an entry holds.
    #[error("a forced capture is longer than {max} plies: the entries cannot hold it")]
    Distance {
        /// The longest distance an entry holds, in plies.
        max: u32,
    },
    /// The same in the retrograde builder's packed fields.
    #[error("a forced capture is longer than {max} plies: the packed entries cannot hold it")]
    PackedDistance {
        /// The longest distance a packed field holds, in plies.
        max: u32,
    },
    /// The retrograde analysis was given no thresholds, or more than its fields hold.
    #[error("{count} thresholds: the packed entries hold 1 to {max}")]
    Thresholds {
        /// The thresholds given.
        count: usize,
        /// The most the packed entries hold.
        max: usize,
    },
    /// The seeds make more positions than a 32-bit index numbers.
    #[error(
        "too many positions for one process's 32-bit wave entries: build this layer with \
         --distributed on enough ranks (docs/tablebase-distributed.md)"
    )]
    Positions,
    /// The distributed build's slices would hold more positions than a rank's 32-bit wave
    /// lists number.
    #[error(
        "the {seeds}-seed layer needs at least {least} ranks (a rank's slice holds at most \
         4,294,967,295 positions), not {ranks}"
    )]
    Slice {
        /// The layer.
        seeds: u8,
        /// The ranks given.
        ranks: usize,
        /// The fewest that do.
        least: usize,
    },
    /// A layer past 12 seeds needs the database of the layer below, for what its captures
    /// lead to.
    #[error("the {seeds}-seed database is built from the {lower}-seed one: put it in the folder")]
    NoLower {
        /// The layer asked for.
        seeds: u8,
        /// The layer it needs.
        lower: u8,
    },
    /// A checkpoint of the distributed build that cannot be used.
    #[error("checkpoint {}: {what}", .path.display())]
    Checkpoint {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        what: String,
    },
    /// Another rank of the distributed build failed (its own message says why).
    #[error("rank {rank} of the distributed build failed")]
    RankFailed {
        /// The lowest rank that failed.
        rank: usize,
    },
    /// The distributed build was stopped where it was asked to (a test's stand-in for a kill).
    #[error("stopped at wave {wave}, as asked")]
    Stopped {
        /// The wave it stopped at.
        wave: u32,
    },
    /// The distributed build does not build this layer.
    #[error("the distributed build makes the 8-, 12-, 16- and 20-seed databases, not {seeds} seeds: {why}")]
    Layer {
        /// The seeds asked for.
        seeds: u8,
        /// Why not.
        why: &'static str,
    },
    /// The table checked has another number of entries than its seeds make.
    #[error("the table has the wrong size")]
    Size,
    /// The table given to the 12-seed check is not one.
    #[error("not a 12-seed table")]
    NotTwelve,
    /// An 8-seed entry that its position's moves contradict.
    #[error("entry {index} ({position}) disagrees with its moves: the database is wrong")]
    Disagrees {
        /// The entry's index.
        index: u64,
        /// Its position string.
        position: String,
    },
    /// A 12-seed entry that its position's moves contradict.
    #[error("12-seed entry {index} disagrees with its moves: the database is wrong")]
    Disagrees12 {
        /// The entry's index.
        index: u64,
    },
}
