//! The bounds on connections (`anywoli serve` flags) and their defaults, measured as the
//! folder's text says; the cap on connections lowered to what the descriptor limit allows.

use std::time::Duration;

/// Default of `--max-connections`.
pub const DEFAULT_MAX_CONNECTIONS: usize = 960;
/// Default of `--max-connections-per-client`.
pub const DEFAULT_MAX_CONNECTIONS_PER_CLIENT: usize = 48;
/// Default of `--header-timeout`.
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// Default of `--idle-timeout`.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// Default of `--request-timeout`.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// Descriptors kept for everything but connections: the listener, the runtime, SQLite and its
/// backups, standard streams. `--max-connections` is lowered to the descriptor limit minus this.
pub const RESERVED_DESCRIPTORS: usize = 64;
/// Longest request head (request line and headers); hyper answers a longer one with 431.
pub const MAX_HEAD_BYTES: usize = 16 * 1024;

/// What one client, or all of them, may hold of the server (`anywoli serve` flags).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Connections open at once, WebSockets included. One more is closed as soon as it is
    /// accepted. Lowered at start to what the descriptor limit (`ulimit -n`) allows.
    pub max_connections: usize,
    /// Connections open at once from one client: one IPv4 address, or one IPv6 /64.
    /// 0: no cap per client (behind a reverse proxy every connection comes from the proxy).
    pub max_connections_per_client: usize,
    /// From the first byte of a request to the end of its headers.
    pub header_timeout: Duration,
    /// How long a connection may stay open with no request in flight and nothing received.
    /// An upgraded connection (a WebSocket) is never idle in this sense.
    pub idle_timeout: Duration,
    /// From the end of a request's headers to the end of its body (then: 408 and the
    /// connection closed); also how long a response may wait for the client to take a byte.
    pub request_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_connections_per_client: DEFAULT_MAX_CONNECTIONS_PER_CLIENT,
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
        }
    }
}

/// `max_connections`, lowered so that connections cannot take the last descriptors.
pub(super) fn effective_max_connections(wanted: usize) -> usize {
    let wanted = wanted.max(1);
    let Some(limit) = open_files_limit() else {
        return wanted;
    };
    let room = usize::try_from(limit)
        .unwrap_or(usize::MAX)
        .saturating_sub(RESERVED_DESCRIPTORS)
        .max(1);
    if wanted > room {
        tracing::warn!(
            "at most {room} connections at once instead of {wanted} (--max-connections): the \
             limit on open files (ulimit -n) is {limit}, and {RESERVED_DESCRIPTORS} are kept for \
             the database and the server itself"
        );
        return room;
    }
    wanted
}

/// The soft limit on open files, where the system says (Linux: /proc/self/limits).
fn open_files_limit() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = text.lines().find(|l| l.starts_with("Max open files"))?;
    line["Max open files".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}
