//! One connection's clock: what it is doing (a head, a request in flight, idle, a stalled
//! write), and so when the watchdog is to close it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

use tokio::sync::Notify;
use tokio::time::Instant;

use super::head::HeadScan;
use super::limits::Limits;

/// One connection's clock: what the watchdog needs to know when to close it.
pub(super) struct Clock {
    state: Mutex<ClockState>,
    /// Wakes the watchdog when a deadline comes nearer.
    pub(super) wake: Notify,
    /// Set once the connection is a WebSocket: nothing to watch any more.
    pub(super) upgraded: AtomicBool,
}

pub(super) struct ClockState {
    /// Requests whose response has not been sent whole yet.
    in_flight: u32,
    /// When the last response was sent (or the connection opened).
    idle_since: Instant,
    /// The first byte of a request whose head is not complete yet.
    head_started: Option<Instant>,
    /// The last time the client took bytes of a response.
    last_write: Instant,
    /// Since when a write waits for the client to take bytes.
    write_stalled_since: Option<Instant>,
    /// The server was told to stop.
    stopping: bool,
    head: HeadScan,
}

impl Clock {
    pub(super) fn new() -> Clock {
        let now = Instant::now();
        Clock {
            state: Mutex::new(ClockState {
                in_flight: 0,
                idle_since: now,
                head_started: None,
                last_write: now,
                write_stalled_since: None,
                stopping: false,
                head: HeadScan::armed(),
            }),
            wake: Notify::new(),
            upgraded: AtomicBool::new(false),
        }
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, ClockState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn on_read(&self, bytes: &[u8]) {
        if self.upgraded.load(Ordering::Relaxed) {
            return;
        }
        let mut s = self.lock();
        s.head.feed(bytes);
        if s.in_flight == 0 && s.head_started.is_none() {
            s.head_started = Some(Instant::now());
            drop(s);
            self.wake.notify_one();
        }
    }

    pub(super) fn on_write(&self, progressed: bool) {
        if self.upgraded.load(Ordering::Relaxed) {
            return;
        }
        let mut s = self.lock();
        if progressed {
            s.last_write = Instant::now();
            s.write_stalled_since = None;
        } else if s.write_stalled_since.is_none() {
            s.write_stalled_since = Some(Instant::now());
            drop(s);
            self.wake.notify_one();
        }
    }

    /// A request head was read: returns whether it had a `Content-Length` header.
    pub(super) fn request_started(&self) -> bool {
        let mut s = self.lock();
        s.in_flight += 1;
        s.head_started = None;
        s.head.take_content_length()
    }

    pub(super) fn request_finished(&self) {
        let mut s = self.lock();
        s.in_flight -= 1;
        if s.in_flight == 0 {
            s.idle_since = Instant::now();
            s.head = HeadScan::armed();
            drop(s);
            self.wake.notify_one();
        }
    }

    pub(super) fn stop(&self) {
        self.lock().stopping = true;
    }

    /// When the connection is to be closed, as things stand.
    pub(super) fn deadline(&self, limits: &Limits) -> Option<Instant> {
        if self.upgraded.load(Ordering::Relaxed) {
            return None;
        }
        let s = self.lock();
        let mut at: Option<Instant> = None;
        let mut consider = |t: Instant| at = Some(at.map_or(t, |a| a.min(t)));
        if s.in_flight == 0 {
            match s.head_started {
                // A head the app has not seen is no request in flight: stopping drops it.
                Some(_) if s.stopping => consider(Instant::now()),
                Some(t) => consider(t + limits.header_timeout),
                None => consider(s.idle_since.max(s.last_write) + limits.idle_timeout),
            }
        }
        if let Some(t) = s.write_stalled_since {
            consider(t + limits.request_timeout);
        }
        at
    }
}
