//! The writer's own changes, of the connection rather than of any aggregate: read-only mode,
//! a setting that runs between batches, and a message for the other instances' lobbies
//! (PostgreSQL's `NOTIFY`), which commits with its batch.

use super::Change;
use crate::store::{Conn, StoreResult};

/// Refuses every write from now on (`true`), or allows them again.
pub(in crate::store) struct SetReadOnly(pub(in crate::store) bool);

impl Change for SetReadOnly {
    type Out = ();

    /// `PRAGMA query_only` is a setting of the connection, not a change in a transaction: it
    /// runs between batches, so the changes sent before it are committed under the old
    /// setting and those sent after it run under the new one.
    fn between_batches(&self) -> bool {
        true
    }

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<()> {
        c.set_read_only(self.0)
    }
}

/// A message for the other instances' lobbies, told once its batch commits.
pub(in crate::store) struct Publish {
    pub(in crate::store) channel: String,
    pub(in crate::store) payload: String,
}

impl Change for Publish {
    type Out = ();

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<()> {
        c.notify(&self.channel, &self.payload)
    }
}
