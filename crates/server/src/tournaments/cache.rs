//! This instance's copy of the tournaments being read, with their standings, by version: a
//! change signal sends every watcher to fetch again, and 500 of them must cost one read of the
//! state and one computation of the standings, not 500. A reader asks the store for the
//! tournament's version (one row by its key); the same version is served from here, and one
//! reader at a time reads a newer one while the others wait for it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use anywoli_tournament::standings::Standing;

use super::standings_of;
use crate::store::TournamentState;

/// Tournaments kept: the ones being read now, with room to spare.
const KEPT: usize = 256;

/// A tournament as stored at one version, with its standings.
pub struct Cached {
    pub state: TournamentState,
    pub standings: Vec<Standing>,
}

impl Cached {
    pub fn new(state: TournamentState) -> Cached {
        let standings = standings_of(&state);
        Cached { state, standings }
    }

    pub fn version(&self) -> i64 {
        self.state.tournament.version
    }
}

#[derive(Default)]
struct Slot {
    cached: Option<Arc<Cached>>,
    /// Held by the one reader loading a newer version.
    loading: Arc<tokio::sync::Mutex<()>>,
}

#[derive(Default)]
pub struct StateCache {
    slots: Mutex<HashMap<String, Slot>>,
}

impl StateCache {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Slot>> {
        self.slots.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The copy of `id` at `version` or later, if held.
    pub fn get(&self, id: &str, version: i64) -> Option<Arc<Cached>> {
        self.lock()
            .get(id)
            .and_then(|s| s.cached.clone())
            .filter(|c| c.version() >= version)
    }

    /// The lock that one loader of `id` holds.
    pub fn loading(&self, id: &str) -> Arc<tokio::sync::Mutex<()>> {
        let mut slots = self.lock();
        if !slots.contains_key(id) && slots.len() >= KEPT {
            // The least recent version is the likeliest to be finished and unread.
            if let Some(old) = slots
                .iter()
                .min_by_key(|(_, s)| {
                    s.cached
                        .as_ref()
                        .map_or(i64::MIN, |c| c.state.tournament.created)
                })
                .map(|(k, _)| k.clone())
            {
                slots.remove(&old);
            }
        }
        slots.entry(id.to_string()).or_default().loading.clone()
    }

    /// Keeps `c` unless a newer copy is held.
    pub fn put(&self, id: &str, c: Arc<Cached>) {
        let mut slots = self.lock();
        let slot = slots.entry(id.to_string()).or_default();
        if slot
            .cached
            .as_ref()
            .is_none_or(|old| old.version() < c.version())
        {
            slot.cached = Some(c);
        }
    }
}
