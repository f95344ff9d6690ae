//! The game reviews running on this instance (a service of the app, which `api/review.rs`
//! starts and reads): for each game, the moves judged so far and how many there are.

use std::collections::HashMap;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex, MutexGuard};

/// Reviews running on this instance: for each game, the moves judged so far and how many.
#[derive(Default)]
pub struct Running(Mutex<HashMap<String, (Arc<AtomicUsize>, usize)>>);

impl Running {
    pub(crate) fn lock(&self) -> MutexGuard<'_, HashMap<String, (Arc<AtomicUsize>, usize)>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}
