//! Why `anywoli export` stops (exit status 2: a dump half-written stays a `.partial` file).

/// Why an export stops.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("--month {0}: give it as YYYY-MM")]
    Month(String),
    #[error("{path}: {source}")]
    File {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: the checksum is {actual}, its .sha256 file says {expected}")]
    Checksum {
        path: String,
        expected: String,
        actual: String,
    },
    #[error("{path}: record {number}: {message}")]
    Record {
        path: String,
        number: usize,
        message: String,
    },
    #[error(transparent)]
    Store(#[from] anywoli_server::store::StoreError),
}
