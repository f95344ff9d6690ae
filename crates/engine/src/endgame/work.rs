//! How a build or a check runs: its stages, the progress it reports, and its threads.

/// Most threads a build, a check or a compression uses.
pub const MAX_THREADS: usize = 64;

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
    /// The word progress lines print for the stage.
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

/// Splits `0..n` into `threads` ranges and runs `f` on each in its own thread.
pub(crate) fn parallel<T: Send>(
    n: u64,
    threads: usize,
    f: impl Fn(u64, u64) -> T + Sync,
) -> Vec<T> {
    let threads = threads.clamp(1, MAX_THREADS) as u64;
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
