//! What every game of the load shares: the servers, the flags in force, the stop signal and
//! the counters.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::watch;

use super::args::{parse_url, LoadtestArgs, Mode};
use super::client::Pool;
use super::stats::{Second, Stats};
use crate::error::LoadtestError;

/// The counters are independent: none orders other memory.
pub(super) const RELAXED: Ordering = Ordering::Relaxed;

/// One server under load.
pub(super) struct Target {
    pub(super) url: String,
    /// `HOST:PORT` as the URL writes it: the `Host` header.
    pub(super) host: String,
    pub(super) addr: SocketAddr,
    pub(super) pool: Pool,
}

impl Target {
    /// The server `--server URL` names, with its connections.
    pub(super) fn new(url: &str, args: &LoadtestArgs) -> Result<Target, LoadtestError> {
        let (host, addr) = parse_url(url)?;
        let timeout = Duration::from_secs_f64(args.timeout);
        Ok(Target {
            url: url.trim_end_matches('/').to_string(),
            pool: Pool::new(addr, host.clone(), args.connections, timeout),
            host,
            addr,
        })
    }
}

/// Everything the games share.
pub(super) struct Ctx {
    pub(super) targets: Vec<Target>,
    pub(super) next_target: AtomicUsize,
    pub(super) mode: Mode,
    pub(super) pace: Option<Duration>,
    pub(super) watchers: usize,
    pub(super) watch_other: bool,
    /// `--failover-secs` with `--failover`.
    pub(super) failover: Option<Duration>,
    /// `--clock`, and its increment in milliseconds.
    pub(super) clock: Option<(String, i64)>,
    pub(super) timeout: Duration,
    pub(super) stop: watch::Receiver<bool>,
    /// When the load started: second 0 of the timeline.
    pub(super) start: Instant,
    pub(super) stats: Stats,
}

impl Ctx {
    pub(super) fn stopped(&self) -> bool {
        *self.stop.borrow()
    }

    /// Sleeps until `t` or the stop; true if stopped.
    pub(super) async fn sleep_until(&self, t: Instant) -> bool {
        let mut stop = self.stop.clone();
        tokio::select! {
            _ = tokio::time::sleep_until(t.into()) => self.stopped(),
            _ = stop.wait_for(|s| *s) => true,
        }
    }

    pub(super) fn error(&self, kind: String) {
        self.error_n(kind, 1);
    }

    pub(super) fn error_n(&self, kind: String, n: u64) {
        *self.stats.errors.lock().unwrap().entry(kind).or_default() += n;
        self.this_second(|s| s.errors += n);
    }

    /// A request or a watcher went to another server after `kind` went wrong.
    pub(super) fn failed_over(&self, kind: &str) {
        *self
            .stats
            .failovers
            .lock()
            .unwrap()
            .entry(kind.to_string())
            .or_default() += 1;
        self.this_second(|s| s.failovers += 1);
    }

    /// Adds to the timeline's current second.
    pub(super) fn this_second(&self, add: impl FnOnce(&mut Second)) {
        let i = self.start.elapsed().as_secs() as usize;
        let mut timeline = self.stats.timeline.lock().unwrap();
        if timeline.len() <= i {
            let from = timeline.len();
            timeline.extend((from..=i).map(|second| Second {
                second,
                ..Second::default()
            }));
        }
        add(&mut timeline[i]);
    }
}
