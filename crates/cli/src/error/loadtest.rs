//! Why `anywoli loadtest` stops before or after its load: a flag that cannot work, a server
//! that cannot be reached, a process that cannot be read, or errors seen during the load.

/// What stopped the load test; each variant names the flag or the thing at fault.
#[derive(Debug, thiserror::Error)]
pub enum LoadtestError {
    /// `--clock` is not `M+S`.
    #[error("{0:?} is not a real-time clock MINUTES+SECONDS such as 5+3")]
    Clock(String),
    /// A number of seconds (`--pace`, `--duration`, `--timeout`, `--failover-secs`) not above 0.
    #[error("{0:?} is not a number of seconds above 0")]
    Seconds(String),
    #[error("--failover moves games to another server: give two or more --server")]
    FailoverWithOneServer,
    #[error("--watch-other puts the watchers on another server: give two or more --server")]
    WatchOtherWithOneServer,
    #[error("--watch-other puts the watchers on another server: give --watchers 1 or more")]
    WatchOtherWithoutWatchers,
    #[error("--tournament needs --players N: how many accounts play it")]
    TournamentWithoutPlayers,
    #[error("{0} is for --tournament {1} only")]
    TournamentFlag(&'static str, &'static str),
    /// The tournament could not be set up (signups, creation, entries): the load cannot start.
    #[error("the tournament could not be set up: {0}")]
    TournamentSetup(String),
    #[error("--server {url}: give an http:// address (the load goes to the server itself, not to a TLS proxy)")]
    ServerNotHttp { url: String },
    #[error(
        "--server {url}: give the server's address without a path, e.g. http://127.0.0.1:8080"
    )]
    ServerWithPath { url: String },
    #[error("--server {url}: {error}")]
    ServerName { url: String, error: std::io::Error },
    #[error("--server {url}: the name has no address")]
    ServerNoAddress { url: String },
    #[error("--server-pid {pid}: cannot read {path}: {error}")]
    ServerPidUnreadable {
        pid: u32,
        path: String,
        error: std::io::Error,
    },
    #[error("--server-pid {pid}: no VmRSS in {path}")]
    ServerPidNoMemory { pid: u32, path: String },
    #[error("cannot start the runtime: {0}")]
    Runtime(std::io::Error),
    /// A server answers, but not as an anywoli server does.
    #[error("{url} answers GET /api/rules with {status} {code} (is it an anywoli server?)")]
    NotAnywoli {
        url: String,
        status: u16,
        code: String,
    },
    #[error("cannot reach {url}: {kind}")]
    Unreachable { url: String, kind: String },
    /// The load ran, and saw errors: the report tells which.
    #[error("the load test saw {0} errors (see the report)")]
    SawErrors(u64),
}
