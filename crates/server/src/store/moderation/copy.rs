//! The moderators' tables copied from one store to another (`anywoli db migrate`): who is a
//! moderator and which accounts are closed, the moderation log, the reports, the marks and the
//! points they gave back, and the offences behind the waits before a next game. A host moving
//! to PostgreSQL keeps its moderators, its closed accounts stay closed and a marked player stays
//! marked. Not copied: reset tokens (they expire within hours; a new link is one command away)
//! and the addresses accounts were seen from (kept only where they were seen: community.md,
//! "Shared addresses").

use crate::store::sql::{Sql, Val};
use crate::store::writer::Change;
use crate::store::{Conn, Store, StoreResult};

/// Each table copied and its columns, in an order that writes what a row refers to first.
const TABLES: &[(&str, &[&str])] = &[
    ("account_standing", &["account", "role", "closed"]),
    (
        "mod_log",
        &[
            "id",
            "at",
            "moderator",
            "action",
            "target",
            "reason",
            "detail",
        ],
    ),
    (
        "reports",
        &[
            "id",
            "at",
            "reporter",
            "target",
            "reason",
            "text",
            "evidence",
            "status",
            "closed_by",
            "closed_at",
        ],
    ),
    ("account_marks", &["account", "kind", "at", "moderator"]),
    (
        "rating_refunds",
        &["game", "account", "points", "at", "marked"],
    ),
    ("play_offences", &["game", "account", "kind", "at"]),
];

/// Every row of the moderators' tables, for `anywoli db migrate`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModerationDump {
    /// Per table of [`TABLES`], in its order: the rows' values in its columns' order.
    tables: Vec<Vec<Vec<Val>>>,
}

impl ModerationDump {
    /// How many rows it holds.
    pub fn rows(&self) -> usize {
        self.tables.iter().map(Vec::len).sum()
    }
}

fn dump(db: &mut dyn Sql) -> StoreResult<ModerationDump> {
    let mut tables = Vec::with_capacity(TABLES.len());
    for (table, cols) in TABLES {
        let list = cols.join(", ");
        let rows = db.query(&format!("SELECT {list} FROM {table} ORDER BY {list}"), &[])?;
        tables.push(rows.into_iter().map(|r| r.vals).collect());
    }
    Ok(ModerationDump { tables })
}

/// Writes the rows not there yet: how many.
struct Import(ModerationDump);

impl Change for Import {
    type Out = u64;

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<u64> {
        let db = c.sql();
        let mut n = 0;
        for ((table, cols), rows) in TABLES.iter().zip(&self.0.tables) {
            let places: Vec<String> = (1..=cols.len()).map(|i| format!("${i}")).collect();
            let sql = format!(
                "INSERT INTO {table} ({}) VALUES ({}) ON CONFLICT DO NOTHING",
                cols.join(", "),
                places.join(", ")
            );
            for row in rows {
                n += db.execute(&sql, row)?;
            }
        }
        Ok(n)
    }
}

/// Copying the moderators' tables.
impl Store {
    /// Every row of the moderators' tables (`anywoli db migrate`).
    pub fn moderation_dump(&self) -> StoreResult<ModerationDump> {
        self.readers.sql(dump)
    }

    /// Writes the rows of `dump` not there yet (after the accounts they name): how many.
    pub fn import_moderation(&self, dump: ModerationDump) -> StoreResult<u64> {
        self.writer.call(Import(dump))
    }
}
