//! Failed logins per name and client address (crate::api::account's `attempt_key`): at most
//! [`MAX_FAILURES`] in [`WINDOW`]. A refused attempt is not checked (and does not count), so a
//! pair under attack is locked for at most the window after the last failure counted, not for
//! ever. Until issue 36 the key was the name alone, so that guessing from many addresses was as
//! slow as from one; but then anybody could lock anybody out with five wrong passwords. A
//! guesser with many addresses now gets five guesses per address and 15 minutes, each an
//! Argon2id hash that the hashing queue admits (crate::account::password) after the address's
//! own rate (`--logins-per-minute`).

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub const MAX_FAILURES: usize = 5;
pub const WINDOW: Duration = Duration::from_secs(15 * 60);
/// Names tracked at once; past it the names whose failures are oldest are forgotten.
pub const MAX_NAMES: usize = 10_000;

#[derive(Default)]
pub struct Attempts {
    failures: Mutex<HashMap<String, VecDeque<Instant>>>,
}

impl Attempts {
    /// `Err(wait)` while `key` has used up its failures.
    pub fn check(&self, key: &str) -> Result<(), Duration> {
        self.check_at(key, Instant::now())
    }

    pub fn failed(&self, key: &str) {
        self.failed_at(key, Instant::now());
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, VecDeque<Instant>>> {
        self.failures.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn check_at(&self, key: &str, now: Instant) -> Result<(), Duration> {
        let mut map = self.lock();
        let Some(times) = map.get_mut(key) else {
            return Ok(());
        };
        while times
            .front()
            .is_some_and(|t| now.duration_since(*t) >= WINDOW)
        {
            times.pop_front();
        }
        if times.len() < MAX_FAILURES {
            return Ok(());
        }
        let oldest = times[0];
        Err((oldest + WINDOW)
            .saturating_duration_since(now)
            .max(Duration::from_secs(1)))
    }

    fn failed_at(&self, key: &str, now: Instant) {
        let mut map = self.lock();
        if map.len() >= MAX_NAMES && !map.contains_key(key) {
            map.retain(|_, t| t.back().is_some_and(|t| now.duration_since(*t) < WINDOW));
            if map.len() >= MAX_NAMES {
                let oldest = map
                    .iter()
                    .min_by_key(|(_, t)| t.back().copied())
                    .map(|(k, _)| k.clone());
                if let Some(k) = oldest {
                    map.remove(&k);
                }
            }
        }
        let times = map.entry(key.to_string()).or_default();
        times.push_back(now);
        while times.len() > MAX_FAILURES {
            times.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn five_failures_lock_a_name_for_the_window() {
        let a = Attempts::default();
        let t0 = Instant::now();
        for i in 0..MAX_FAILURES {
            assert!(a.check_at("abula", t0).is_ok(), "attempt {i}");
            a.failed_at("abula", t0);
        }
        let wait = a.check_at("abula", t0).unwrap_err();
        assert_eq!(wait, WINDOW);
        assert!(
            a.check_at("okello", t0).is_ok(),
            "other names are not locked"
        );
        assert!(a
            .check_at("abula", t0 + WINDOW - Duration::from_secs(1))
            .is_err());
        assert!(a.check_at("abula", t0 + WINDOW).is_ok());
    }

    #[test]
    fn memory_is_bounded() {
        let a = Attempts::default();
        let t0 = Instant::now();
        for i in 0..MAX_NAMES + 50 {
            a.failed_at(&format!("n{i}"), t0 + Duration::from_millis(i as u64));
        }
        assert!(a.lock().len() <= MAX_NAMES);
    }
}
