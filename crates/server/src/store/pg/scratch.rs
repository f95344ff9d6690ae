//! Tests' PostgreSQL stores: each in a schema of its own with a random name, dropped with the
//! store (or left in place, for tests that restart whole servers on one database).

use super::open;
use super::tls::Target;
use crate::store::{Store, StoreError, StoreResult};

/// A test's schema, dropped (with its tables) when the store that uses it is.
pub(in crate::store) struct DropSchema {
    config: Target,
    pub(in crate::store) name: String,
}

impl Drop for DropSchema {
    fn drop(&mut self) {
        let (config, name) = (self.config.clone(), self.name.clone());
        let _ = std::thread::spawn(move || {
            if let Ok(mut c) = config.connect() {
                let _ = c.batch_execute(&format!("DROP SCHEMA {name} CASCADE"));
            }
        })
        .join();
    }
}

/// Makes a new schema with a random name (on a thread of its own: see the module comment).
fn create_schema(config: &Target) -> StoreResult<String> {
    let mut b = [0u8; 8];
    getrandom::fill(&mut b).map_err(|e| StoreError::Failed(format!("no randomness: {e}")))?;
    let name: String = std::iter::once("anywoli_test_".to_string())
        .chain(b.iter().map(|x| format!("{x:02x}")))
        .collect();
    let (config, made) = (config.clone(), name.clone());
    std::thread::spawn(move || -> StoreResult<()> {
        let mut c = config.connect()?;
        Ok(c.batch_execute(&format!("CREATE SCHEMA {made}"))?)
    })
    .join()
    .map_err(|_| StoreError::Failed("creating a schema panicked".to_string()))??;
    Ok(name)
}

/// A new schema, the connection settings that work in it, and what drops it.
fn scratch_target(config: Target) -> StoreResult<(Target, DropSchema)> {
    let name = create_schema(&config)?;
    let scratch = DropSchema {
        config: config.clone(),
        name: name.clone(),
    };
    let mut config = config;
    config.config.options(&format!("-c search_path={name}"));
    // Names the store's connections, for a test that cuts them.
    config.config.application_name(&name);
    Ok((config, scratch))
}

/// Two stores on one new schema (tests of several instances), like two servers' on one
/// database; the schema goes with the first, so the second is to be dropped before it.
pub(in crate::store) fn open_scratch_pair(config: Target) -> StoreResult<(Store, Store)> {
    let (config, scratch) = scratch_target(config)?;
    let first = open(config.clone(), Some(scratch))?;
    Ok((first, open(config, None)?))
}

/// A store in a new schema of its own (tests), dropped with it.
pub(in crate::store) fn open_scratch(config: Target) -> StoreResult<Store> {
    let (config, scratch) = scratch_target(config)?;
    open(config, Some(scratch))
}

/// `url` with a new schema of its own as its search path (tests that start whole servers,
/// and restart them, on one database). The schema stays: the tests' database is throwaway.
pub(in crate::store) fn scratch_url(url: &str) -> StoreResult<String> {
    let config = Target::parse(url)?;
    let name = create_schema(&config)?;
    let sep = if url.contains('?') { '&' } else { '?' };
    Ok(format!("{url}{sep}options=-csearch_path%3D{name}"))
}
