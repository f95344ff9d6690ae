//! What a job is for (its priority) and why it may give no result: what the queue's callers
//! match on.

use std::time::Duration;

/// What a job is for; games go first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Priority {
    /// A computer opponent's move: never refused, always before waiting hints.
    Game,
    /// A player's hint: refused when too many already wait.
    Hint,
}

/// Why a job did not give its result.
#[derive(thiserror::Error, Debug, Clone, PartialEq, Eq)]
pub enum QueueError {
    /// Too many hints wait; try again after `retry_after` (whole seconds, at least 1 s).
    #[error("the engine is busy; try again in {} s", retry_after.as_secs())]
    Full { retry_after: Duration },
    /// The queue was closed (the server is stopping); the job did not run.
    #[error("the engine is shutting down")]
    Closed,
    /// The job panicked; its worker is free again.
    #[error("the engine failed")]
    Failed,
}
