//! Why `anywoli admin` stops (exit status 1: nothing was changed).

use anywoli_server::store::StoreError;

/// Why `anywoli admin` stopped; each variant names the database, player or value at fault.
#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    #[error("no such database file: {label}")]
    NoSuchFile { label: String },
    #[error("{label} has no player named {name}; nothing changed")]
    NoPlayer { label: String, name: String },
    /// A reset link for a closed account would open nothing.
    #[error("{name}'s account is closed: reopen it first (anywoli admin reopen {name})")]
    Closed { name: String },
    #[error("--url {url}: give the site's address, http://… or https://…, without a query")]
    BadUrl { url: String },
    /// A schedule file's item `at` (from 1; 0: the file) is not a schedule; nothing was added.
    #[error("schedule {at}: {message}; nothing was added")]
    BadSchedule { at: usize, message: String },
    #[error("{label} has no schedule {id}")]
    NoSchedule { label: String, id: String },
    #[error("--scope: {message}; nothing was made")]
    BadScope { message: String },
    #[error("{name} holds {max} tokens already, the most an account may: revoke one on the account page")]
    TooManyTokens { name: String, max: i64 },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot write the output: {0}")]
    Output(#[from] std::io::Error),
}
