//! The change signal of tournament pages: each instance reads the versions of the tournaments
//! its watchers look at, once a second in one query, and tells the watchers of those that
//! changed. 10,000 watchers of one tournament cost one small read a second and one short
//! message each when it changed; they then fetch the page of standings they show.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use tokio::sync::watch;

use crate::store::Store;

/// How often versions are read: the most a watcher hears.
pub const EVERY: Duration = Duration::from_secs(1);

/// A tournament's version, and when this instance first read it (ms since the epoch).
pub type Seen = (i64, i64);

/// The tournaments watched on this instance, each with its last version read.
pub struct Signals {
    store: Arc<Store>,
    watched: Mutex<HashMap<String, watch::Sender<Seen>>>,
}

impl Signals {
    pub fn new(store: Arc<Store>) -> Arc<Signals> {
        Arc::new(Signals {
            store,
            watched: Mutex::default(),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, watch::Sender<Seen>>> {
        self.watched.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Watches tournament `id`, whose version is `version` now.
    pub fn watch(&self, id: &str, version: i64) -> watch::Receiver<Seen> {
        let mut w = self.lock();
        match w.get(id) {
            Some(tx) => tx.subscribe(),
            None => {
                let (tx, rx) = watch::channel((version, crate::dates::now_ms()));
                w.insert(id.to_string(), tx);
                rx
            }
        }
    }

    /// Reads the versions of the watched tournaments and tells who watches those that changed;
    /// forgets tournaments nobody watches any longer.
    pub fn poll(&self) -> crate::store::StoreResult<()> {
        let ids: Vec<String> = {
            let mut w = self.lock();
            w.retain(|_, tx| tx.receiver_count() > 0);
            w.keys().cloned().collect()
        };
        if ids.is_empty() {
            return Ok(());
        }
        let versions = self.store.tournament_versions(&ids)?;
        let now = crate::dates::now_ms();
        let w = self.lock();
        for (id, v) in versions {
            if let Some(tx) = w.get(&id) {
                tx.send_if_modified(|old| {
                    let changed = old.0 != v;
                    if changed {
                        *old = (v, now);
                    }
                    changed
                });
            }
        }
        Ok(())
    }
}

/// Polls every [`EVERY`] until the signals are dropped.
pub async fn run(signals: Weak<Signals>) {
    let mut tick = tokio::time::interval(EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let Some(s) = signals.upgrade() else { return };
        match tokio::task::spawn_blocking(move || s.poll()).await {
            Ok(Err(e)) => tracing::warn!("tournament signals: {e}"),
            Err(e) => tracing::warn!("tournament signals: {e}"),
            Ok(Ok(())) => {}
        }
    }
}
