//! Accounts and grants in the catalog. The storage layer keeps them as an opaque
//! document the SQL layer encodes (see `basalt-acl`); each change replaces
//! `catalog.json` atomically like every other DDL, so a crash leaves the old or the
//! new set of accounts, never a mix.

use super::Storage;
use crate::api::Result;
use std::sync::Arc;

impl Storage {
    /// The accounts document, or `None` in a data directory that never had one.
    pub fn accounts(&self) -> Option<Arc<serde_json::Value>> {
        self.catalog.read().accounts.clone()
    }

    /// Replaces the accounts document durably.
    pub fn set_accounts(&self, doc: serde_json::Value) -> Result<()> {
        let _ddl = self.ddl.lock();
        self.catalog.write().accounts = Some(Arc::new(doc));
        self.persist()
    }
}
