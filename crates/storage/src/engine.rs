//! The engines behind the catalog. Each provides the [`Store`] of a table; the table
//! layer on top (MVCC, locks, indexes) is shared.
//!
//! - MEMORY: [`MemStore`] per table; contents vanish at restart.
//! - Basalt (durable, `ENGINE=InnoDB`): tables are kept by [`MemStore`] as well until
//!   the durable B+tree store is wired in; the README says so plainly.

use crate::api::Result;
use crate::memstore::MemStore;
use crate::mvcc::TxnManager;
use crate::store::Store;
use crate::table::TableCore;
use crate::txn::CommitLog;
use crate::StorageConfig;
use basalt_common::{EngineKind, TableDef};
use std::sync::Arc;

pub(crate) trait TableEngine: Send + Sync {
    /// A store for a new table, with one empty tree per index.
    fn create_store(&self, def: &TableDef) -> Result<Arc<dyn Store>>;
    /// The store of an existing table at start-up.
    fn open_store(&self, def: &TableDef) -> Result<Arc<dyn Store>>;
    /// Frees everything the table used.
    fn drop_store(&self, def: &TableDef) -> Result<()>;
    fn truncate_store(&self, _def: &TableDef, store: &Arc<dyn Store>) -> Result<()> {
        store.clear()
    }
    /// Makes a just-finished index change durable.
    fn after_ddl(&self, _def: &TableDef, _store: &Arc<dyn Store>) -> Result<()> {
        Ok(())
    }
}

pub(crate) struct MemoryEngine;

impl TableEngine for MemoryEngine {
    fn create_store(&self, def: &TableDef) -> Result<Arc<dyn Store>> {
        let store = MemStore::default();
        for ix in &def.indexes {
            store.create_tree(ix.id)?;
        }
        Ok(Arc::new(store))
    }

    fn open_store(&self, def: &TableDef) -> Result<Arc<dyn Store>> {
        self.create_store(def)
    }

    fn drop_store(&self, _def: &TableDef) -> Result<()> {
        Ok(())
    }
}

pub(crate) struct EngineSet {
    memory: MemoryEngine,
}

impl EngineSet {
    /// Opens the engines; returns them and the first transaction id to use.
    pub fn open(_config: &StorageConfig, _tables: &[TableDef]) -> Result<(EngineSet, u64)> {
        Ok((
            EngineSet {
                memory: MemoryEngine,
            },
            1,
        ))
    }

    pub fn get(&self, kind: EngineKind) -> &dyn TableEngine {
        match kind {
            EngineKind::Memory | EngineKind::Basalt => &self.memory,
        }
    }

    pub fn commit_log(&self) -> Option<Arc<dyn CommitLog>> {
        None
    }

    /// Replays the log into the opened tables (durable engine).
    pub fn recover(
        &self,
        _mgr: &Arc<TxnManager>,
        _lookup: &dyn Fn(u64) -> Option<Arc<TableCore>>,
    ) -> Result<()> {
        Ok(())
    }

    pub fn status(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }

    pub fn shutdown(&self) -> Result<()> {
        Ok(())
    }
}
