//! Why `anywoli bench` refuses its flags.

/// A bench flag out of its range.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("--seconds is {0}: give a number of seconds above 0 and at most 600")]
    Seconds(f64),
    #[error("--runs is {0}: give 1 to 1000")]
    Runs(u32),
    #[error("--search-depth is {0}: give 1 to 30")]
    SearchDepth(u32),
    #[error("--perft-depth is {0}: at most 9 (each ply multiplies the time by about 10)")]
    PerftDepth(u32),
}
