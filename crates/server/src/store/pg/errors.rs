//! What a PostgreSQL error means to the store: a refusal worth trying again later (the
//! server restarting, a lost connection, a full disk) or a failure. Both the connections
//! (`pg/mod.rs`) and their TLS set-up (`pg/tls.rs`) ask it.

use crate::store::StoreError;

/// `text`, as a change that may work later ([`StoreError::Unavailable`]) or not.
pub(in crate::store) fn classify(e: &postgres::Error, text: String) -> StoreError {
    let transient = match e.as_db_error() {
        Some(db) => {
            let code = db.code().code();
            // 08: connection exceptions; 57P0x: the server shutting down or starting; 25006:
            // a read-only transaction (the database in maintenance); 53: insufficient
            // resources (a full disk, too many connections, out of memory); 40001 and 40P01:
            // a serialization failure or a deadlock with another instance's batch (two
            // instances changing the same games in another order as games move between them),
            // which PostgreSQL rolled back whole and which may simply be tried again.
            code.starts_with("08")
                || code.starts_with("57P0")
                || code.starts_with("53")
                || code == "25006"
                || code == "40001"
                || code == "40P01"
        }
        // No answer from the server: the connection is gone (it is made again next time).
        None => {
            e.is_closed() || std::error::Error::source(e).is_some_and(|s| s.is::<std::io::Error>())
        }
    };
    if transient {
        StoreError::Unavailable(text)
    } else {
        StoreError::Failed(text)
    }
}
