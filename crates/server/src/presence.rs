//! Who is online (issue 38): an account is online while it holds a lobby socket open on any
//! instance (the page keeps one open on every view for a logged-in reader, docs/community.md).
//!
//! Each instance counts its own sockets per account and keeps a lease in the store for each
//! account it holds: written when the account's first socket opens, renewed every
//! [`RENEW_EVERY`] until [`LEASE`] ahead, ended when its last socket closes. Every instance
//! reads the same leases, so the answer holds across instances, and an instance that dies
//! stops counting once its leases run out. One task per instance makes the writes, in the
//! order the sockets opened and closed, so that an end never overtakes its start.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use tokio::sync::mpsc;

use crate::store::Store;

/// How long a lease holds without being renewed: three renewals, so that one slow write does
/// not make anyone look offline.
pub const LEASE: Duration = Duration::from_secs(30);
/// How often an instance renews its leases.
pub const RENEW_EVERY: Duration = Duration::from_secs(10);

enum Note {
    Here(String),
    Gone(String),
}

/// This instance's count of sockets per account, kept by one task.
pub struct Presence {
    store: Arc<Store>,
    /// The task's inbox, made with the first socket (inside the runtime).
    notes: OnceLock<mpsc::UnboundedSender<Note>>,
}

/// One socket of an account: the account stays online while any such is held.
pub struct Here {
    name: String,
    notes: mpsc::UnboundedSender<Note>,
}

impl Drop for Here {
    fn drop(&mut self) {
        let _ = self.notes.send(Note::Gone(std::mem::take(&mut self.name)));
    }
}

impl Presence {
    pub fn new(store: Arc<Store>) -> Presence {
        Presence {
            store,
            notes: OnceLock::new(),
        }
    }

    /// `name` opened a socket here. Called within the runtime (a socket's task).
    pub fn here(&self, name: &str) -> Here {
        let notes = self
            .notes
            .get_or_init(|| {
                let (tx, rx) = mpsc::unbounded_channel();
                tokio::spawn(keep(self.store.clone(), rx));
                tx
            })
            .clone();
        let _ = notes.send(Note::Here(name.to_string()));
        Here {
            name: name.to_string(),
            notes,
        }
    }
}

/// The task: counts the sockets and writes the leases. Ends when the [`Presence`] goes (its
/// sender with it) and no socket is left.
async fn keep(store: Arc<Store>, mut notes: mpsc::UnboundedReceiver<Note>) {
    let mut counts: HashMap<String, usize> = HashMap::new();
    let mut tick = tokio::time::interval(RENEW_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let (here, gone) = tokio::select! {
            note = notes.recv() => match note {
                Some(Note::Here(n)) => {
                    let c = counts.entry(n.clone()).or_default();
                    *c += 1;
                    if *c > 1 { continue; }
                    (vec![n], vec![])
                }
                Some(Note::Gone(n)) => {
                    let Some(c) = counts.get_mut(&n) else { continue };
                    *c -= 1;
                    if *c > 0 { continue; }
                    counts.remove(&n);
                    (vec![], vec![n])
                }
                None => return,
            },
            _ = tick.tick() => {
                if counts.is_empty() { continue; }
                (counts.keys().cloned().collect(), vec![])
            }
        };
        let until = crate::dates::now_ms() + LEASE.as_millis() as i64;
        let store = store.clone();
        // A write that fails is retried by the next renewal; the lease says the rest.
        let r = tokio::task::spawn_blocking(move || store.renew_presence(here, gone, until)).await;
        if let Ok(Err(e)) = r {
            tracing::warn!(error = %e, "presence leases were not written");
        }
    }
}
