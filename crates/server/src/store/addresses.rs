//! The client addresses accounts sign up and log in from (issue 38, "shared-address links"):
//! for moderators only, to see which accounts one person may be holding. Kept small on
//! purpose (docs/community.md, "Shared addresses"): per account at most [`ADDRESSES_KEPT`]
//! addresses (an IPv4 address, or the /64 an IPv6 address is in), first and last seen, and an
//! address not seen for [`ADDRESS_RETENTION_MS`] is forgotten.

use super::sql::{FromRow, Row, Sql};
use super::writer::Change;
use super::StoreResult;
use super::{Conn, Store};

/// The table, the same text in both backends.
pub(super) const ADDRESS_TABLES: &str = "
CREATE TABLE IF NOT EXISTS account_addresses (
    account TEXT NOT NULL REFERENCES accounts (name),
    address TEXT NOT NULL,
    first_seen BIGINT NOT NULL,
    last_seen BIGINT NOT NULL,
    PRIMARY KEY (account, address)
);
CREATE INDEX IF NOT EXISTS account_addresses_by_address ON account_addresses (address);
CREATE INDEX IF NOT EXISTS account_addresses_by_last ON account_addresses (last_seen);
";

/// Addresses kept per account: the most recently seen.
pub const ADDRESSES_KEPT: i64 = 20;
/// An address not seen for this long is forgotten: 90 days.
pub const ADDRESS_RETENTION_MS: i64 = 90 * 24 * 3600 * 1000;
/// Other accounts one answer lists as sharing an account's addresses.
pub const SHARED_LISTED: i64 = 100;

/// One address an account was seen from.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct AddressRow {
    pub address: String,
    pub first_seen: i64,
    pub last_seen: i64,
}

impl FromRow for AddressRow {
    fn from_row(r: &Row) -> StoreResult<AddressRow> {
        Ok(AddressRow {
            address: r.text("address")?,
            first_seen: r.int("first_seen")?,
            last_seen: r.int("last_seen")?,
        })
    }
}

/// Another account seen from one of an account's addresses.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SharedRow {
    /// The other account.
    pub name: String,
    /// The address both were seen from.
    pub address: String,
    /// When the other account was first and last seen from it.
    pub first_seen: i64,
    pub last_seen: i64,
}

impl FromRow for SharedRow {
    fn from_row(r: &Row) -> StoreResult<SharedRow> {
        Ok(SharedRow {
            name: r.text("name")?,
            address: r.text("address")?,
            first_seen: r.int("first_seen")?,
            last_seen: r.int("last_seen")?,
        })
    }
}

/// `account` was seen from `address` at `at`: the row is made or its last sight moved on;
/// beyond [`ADDRESSES_KEPT`] the account's stalest go, and every account's addresses older
/// than the retention go too (the sign-ups and logins that write here are rate-limited, so
/// the prune costs little).
struct SeenFrom {
    account: String,
    address: String,
    at: i64,
}

impl Change for SeenFrom {
    type Out = ();

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<()> {
        let db = c.sql();
        db.execute(
            "INSERT INTO account_addresses (account, address, first_seen, last_seen)
             VALUES ($1, $2, $3, $3)
             ON CONFLICT (account, address) DO UPDATE SET last_seen = excluded.last_seen",
            &[
                (&self.account).into(),
                (&self.address).into(),
                self.at.into(),
            ],
        )?;
        db.execute(
            "DELETE FROM account_addresses WHERE account = $1 AND address NOT IN (
                SELECT address FROM account_addresses WHERE account = $1
                ORDER BY last_seen DESC, address LIMIT $2)",
            &[(&self.account).into(), ADDRESSES_KEPT.into()],
        )?;
        prune(db, self.at)
    }
}

fn prune(db: &mut dyn Sql, now: i64) -> StoreResult<()> {
    db.execute(
        "DELETE FROM account_addresses WHERE last_seen < $1",
        &[(now - ADDRESS_RETENTION_MS).into()],
    )?;
    Ok(())
}

/// Client addresses of accounts.
impl Store {
    /// Records that `account` (its name as stored) signed up or logged in from `address` (as
    /// [`crate::rate_limit::client_key`] groups it) at `at`.
    pub fn seen_from(&self, account: &str, address: &str, at: i64) -> StoreResult<()> {
        self.writer.call(SeenFrom {
            account: account.to_string(),
            address: address.to_string(),
            at,
        })
    }

    /// `account`'s own addresses, the most recently seen first.
    pub fn addresses(&self, account: &str) -> StoreResult<Vec<AddressRow>> {
        self.readers.sql(|db| {
            db.rows(
                "SELECT address, first_seen, last_seen FROM account_addresses
                 WHERE account = $1 ORDER BY last_seen DESC, address",
                &[account.into()],
            )
        })
    }

    /// The other accounts seen from `account`'s addresses, the most recently seen first.
    pub fn shared_address(&self, account: &str) -> StoreResult<Vec<SharedRow>> {
        self.readers.sql(|db| shared(db, account))
    }
}

/// See [`Store::shared_address`]; also a report's evidence.
pub(super) fn shared(db: &mut dyn Sql, account: &str) -> StoreResult<Vec<SharedRow>> {
    db.rows(
        "SELECT o.account AS name, o.address AS address, o.first_seen AS first_seen,
                o.last_seen AS last_seen
         FROM account_addresses m JOIN account_addresses o
           ON o.address = m.address AND o.account != m.account
         WHERE m.account = $1
         ORDER BY o.last_seen DESC, o.account, o.address LIMIT $2",
        &[account.into(), SHARED_LISTED.into()],
    )
}
