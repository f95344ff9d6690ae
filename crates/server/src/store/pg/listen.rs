//! How the instances sharing a database hear each other: each batch's changes announced with
//! `NOTIFY` in its transaction (`PgConn::announce`), and a thread per store that listens on a
//! connection of its own, making it again when it is lost.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use postgres::fallible_iterator::FallibleIterator;
use postgres::Client;

use super::tls::Target;
use super::CHANNEL;
use crate::store::{Changed, Heard, StoreError, StoreResult};

/// PostgreSQL's limit on a notification's payload is 8000 bytes; a batch's ids are split
/// below it.
const PAYLOAD_MAX: usize = 7900;

/// The announcements of a batch's changes: this instance's name, then one change a line
/// ([`Heard::line`]), split so that each stays under PostgreSQL's payload limit.
pub(in crate::store) fn payloads(instance: &str, lines: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = instance.to_string();
    for id in lines {
        if cur.len() + 1 + id.len() > PAYLOAD_MAX && cur.len() > instance.len() {
            out.push(std::mem::replace(&mut cur, instance.to_string()));
        }
        cur.push('\n');
        cur.push_str(id);
    }
    out.push(cur);
    out
}

/// What an announcement says, unless it came from `me`.
pub(in crate::store) fn heard(payload: &str, me: &str) -> Option<Vec<Heard>> {
    let mut lines = payload.lines();
    let from = lines.next()?;
    if from == me {
        return None;
    }
    Some(lines.filter_map(Heard::parse).collect())
}

/// How long the listener waits between attempts to reconnect, at most.
const RELISTEN_MAX: Duration = Duration::from_secs(5);

/// Listens for the other instances' announcements on a connection of its own, on a thread of
/// its own, until `closing`. A lost connection is made again (waiting 0.1 s, doubling up to
/// [`RELISTEN_MAX`]), after which `on` hears [`Changed::Missed`]: announcements made
/// meanwhile are gone. The first connection is made before this returns, so that a server
/// that cannot listen says so at start.
pub(in crate::store) fn listen(
    config: Target,
    instance: String,
    lobby: String,
    closing: Arc<AtomicBool>,
    on: Box<dyn Fn(Changed) + Send>,
) -> StoreResult<()> {
    let (first_tx, first_rx) = std::sync::mpsc::sync_channel(1);
    std::thread::Builder::new()
        .name("anywoli-store-listen".to_string())
        .spawn(move || {
            let mut client = match listening(&config, &lobby) {
                Ok(c) => {
                    let _ = first_tx.send(Ok(()));
                    c
                }
                Err(e) => {
                    let _ = first_tx.send(Err(e));
                    return;
                }
            };
            let mut wait = Duration::from_millis(100);
            loop {
                if let Err(e) = hear(&mut client, &instance, &lobby, &closing, &*on) {
                    tracing::warn!(
                        "lost the PostgreSQL connection that hears other instances: {e}"
                    );
                }
                drop(client);
                client = loop {
                    if closing.load(Ordering::Relaxed) {
                        return;
                    }
                    std::thread::sleep(wait);
                    match listening(&config, &lobby) {
                        Ok(c) => break c,
                        Err(e) => {
                            tracing::warn!("cannot listen to other instances yet: {e}");
                            wait = (wait * 2).min(RELISTEN_MAX);
                        }
                    }
                };
                wait = Duration::from_millis(100);
                on(Changed::Missed);
            }
        })
        .map_err(|e| StoreError::Failed(format!("cannot start the listener thread: {e}")))?;
    first_rx
        .recv()
        .map_err(|_| StoreError::Failed("the listener thread stopped".to_string()))?
}

fn listening(config: &Target, lobby: &str) -> StoreResult<Client> {
    let mut c = config.connect()?;
    c.batch_execute(&format!("LISTEN {CHANNEL}; LISTEN {lobby}"))?;
    Ok(c)
}

/// Passes on announcements as they come until the store closes (`Ok`) or the connection
/// fails.
fn hear(
    client: &mut Client,
    me: &str,
    lobby: &str,
    closing: &AtomicBool,
    on: &dyn Fn(Changed),
) -> StoreResult<()> {
    while !closing.load(Ordering::Relaxed) {
        {
            let mut notes = client.notifications();
            // Wakes at least twice a second to look at `closing`.
            let mut iter = notes.timeout_iter(Duration::from_millis(500));
            while let Some(note) = iter.next()? {
                if note.channel() == lobby {
                    // The lobby knows its own messages by the instance named in them.
                    on(Changed::Lobby(note.payload().to_string()));
                } else if let Some(games) = heard(note.payload(), me) {
                    on(Changed::Games(games));
                }
            }
        }
        if client.is_closed() {
            return Err(StoreError::Failed("the connection closed".to_string()));
        }
    }
    Ok(())
}
