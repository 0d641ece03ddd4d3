//! The engines behind the catalog. Each provides the [`Store`] of a table; the table
//! layer on top (MVCC, locks, indexes) is shared.
//!
//! - MEMORY: [`MemStore`] per table; contents vanish at restart.
//! - Basalt (durable, `ENGINE=InnoDB`): [`crate::durable::DurableStore`], B+trees in
//!   table files with every change in the WAL.

use crate::api::Result;
use crate::durable::DurableEngine;
use crate::memstore::MemStore;
use crate::mvcc::TxnManager;
use crate::store::Store;
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
    durable: DurableEngine,
}

impl EngineSet {
    /// Opens the engines (recovering the durable one); returns them and the first
    /// transaction id to use.
    pub fn open(config: &StorageConfig, tables: &[TableDef]) -> Result<(EngineSet, u64)> {
        let (durable, first) = DurableEngine::open(config, tables)?;
        Ok((
            EngineSet {
                memory: MemoryEngine,
                durable,
            },
            first,
        ))
    }

    /// Starts background work (checkpoints) once the transaction manager exists.
    pub fn start(&self, mgr: &Arc<TxnManager>) -> Result<()> {
        self.durable.start(mgr)
    }

    pub fn get(&self, kind: EngineKind) -> &dyn TableEngine {
        match kind {
            // SEQUENCE tables are computed by the SQL layer and never created
            // here (CREATE TABLE does not take the engine).
            EngineKind::Memory | EngineKind::Sequence => &self.memory,
            EngineKind::Basalt => &self.durable,
        }
    }

    pub fn durable(&self) -> &DurableEngine {
        &self.durable
    }

    pub fn commit_log(&self) -> Option<Arc<dyn CommitLog>> {
        Some(self.durable.commit_log())
    }

    pub fn checkpoint(&self) -> Result<()> {
        self.durable.checkpoint()
    }

    pub fn checkpointer(&self) -> Arc<dyn Fn() -> Result<()> + Send + Sync> {
        self.durable.checkpointer()
    }

    pub fn status(&self) -> Vec<(&'static str, u64)> {
        self.durable.status()
    }

    /// Whether the previous run stopped cleanly with purge finished.
    pub fn previous_stop_clean(&self) -> bool {
        self.durable.previous_stop_clean()
    }

    pub fn shutdown(&self, purge_complete: bool) -> Result<()> {
        self.durable.shutdown(purge_complete)
    }
}
