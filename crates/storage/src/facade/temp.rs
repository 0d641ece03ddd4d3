//! Temporary tables (`CREATE TEMPORARY TABLE`): tables that belong to one session
//! and that no catalog names.
//!
//! # Storage
//! A temporary table is the shared table layer (MVCC, row locks, secondary indexes,
//! unique checks) over a MEMORY store, whatever `ENGINE=` it was declared with (the
//! definition keeps the declared engine, which `SHOW CREATE TABLE` prints). Why the
//! memory store and not the durable engine without its log:
//! - nothing about it is ever written: no WAL record, no page, no fsync, no
//!   `catalog.json` change, so a commit that touched only temporary tables returns
//!   without waiting for the log, and ordinary commits never wait behind them;
//! - a crash or restart cannot leave anything behind (there is no file to clean up);
//! - dropping it (DROP, disconnect) frees its memory at once.
//!
//! Its rows live in memory for as long as the table exists; `max_heap_table_size`
//! does not bound them (as it does not bound Basalt's MEMORY tables).
//!
//! # Transactions
//! DML on a temporary table goes through the session's transaction like DML on any
//! table: versions, undo and ROLLBACK work as for InnoDB's temporary tables. Its
//! changes are never logged (the store does not log), so they are lost with the
//! process, which is what a temporary table promises.
//!
//! # Invariants
//! - A temporary table's id is at least [`TEMP_ID_BASE`], disjoint from catalog ids,
//!   so its row lock keys never meet a base table's. [`is_temp_id`] tells them apart.
//! - Only its owning session reaches it, so DDL on it (truncate, ALTER's copy,
//!   index builds) waits for no other transaction; the SQL layer ends the session's
//!   own transaction first where MariaDB commits implicitly. DROP does not wait at
//!   all: the table is marked dropped (purge skips its garbage) and freed when the
//!   last transaction that holds it ends.

use super::alter::{fill, AlterSpec, Convert};
use super::Storage;
use crate::api::{Result, Table};
use crate::error::StorageError;
use crate::table::{TableCore, TableHandle};
use basalt_common::{EngineKind, IndexDef, TableDef};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The first id handed to a temporary table.
pub const TEMP_ID_BASE: u64 = 1 << 62;

static NEXT_TEMP_ID: AtomicU64 = AtomicU64::new(TEMP_ID_BASE);

/// Whether a table id belongs to a temporary table.
#[inline]
pub fn is_temp_id(id: u64) -> bool {
    id >= TEMP_ID_BASE
}

/// How long DDL on a temporary table waits for its own session's transaction (it
/// has ended when the DDL runs, so this is never reached in practice).
const TEMP_DDL_WAIT: Duration = Duration::from_secs(5);

/// One temporary table. Dropping the value drops the table.
pub struct TempTable {
    core: Arc<TableCore>,
    handle: Arc<dyn Table>,
}

impl TempTable {
    fn new(core: Arc<TableCore>) -> TempTable {
        let handle: Arc<dyn Table> = Arc::new(TableHandle(core.clone()));
        TempTable { core, handle }
    }

    /// The table, as statements use it.
    pub fn table(&self) -> &Arc<dyn Table> {
        &self.handle
    }

    pub fn def(&self) -> Arc<TableDef> {
        self.core.def()
    }

    /// Renames the table (RENAME TABLE, ALTER TABLE ... RENAME): nothing stored
    /// names it.
    pub fn rename(&self, db: &str, name: &str) {
        let mut def = (*self.core.def()).clone();
        def.schema = db.to_string();
        def.name = name.to_string();
        self.core.set_def(Arc::new(def));
    }
}

impl Drop for TempTable {
    fn drop(&mut self) {
        self.core.mark_dropped();
    }
}

/// Index ids from 1, as `create_table` assigns them.
fn number_indexes(def: &mut TableDef) {
    for (i, ix) in def.indexes.iter_mut().enumerate() {
        ix.id = i as u32 + 1;
    }
    def.next_index_id = def.indexes.len() as u32 + 1;
}

impl Storage {
    /// Creates a temporary table of `def`; `def.id` and index ids are assigned
    /// here. The name may be that of a base table, and its database need not
    /// exist (as in MariaDB).
    pub fn create_temp_table(&self, mut def: TableDef) -> Result<TempTable> {
        def.id = NEXT_TEMP_ID.fetch_add(1, Ordering::Relaxed);
        number_indexes(&mut def);
        Ok(TempTable::new(self.temp_core(def)?))
    }

    fn temp_core(&self, def: TableDef) -> Result<Arc<TableCore>> {
        let store = self.engines.get(EngineKind::Memory).create_store(&def)?;
        Ok(TableCore::new(Arc::new(def), store, self.mgr.clone()))
    }

    /// Empties a temporary table and resets its AUTO_INCREMENT counter.
    pub fn truncate_temp(&self, t: &TempTable) -> Result<()> {
        t.core.with_exclusive(TEMP_DDL_WAIT, || {
            t.core.store().clear()?;
            t.core.reset_after_truncate();
            Ok(())
        })
    }

    /// Adds an index to a temporary table and fills it (CREATE INDEX).
    pub fn create_temp_index(&self, t: &TempTable, mut index: IndexDef) -> Result<()> {
        let core = &t.core;
        core.with_exclusive(TEMP_DDL_WAIT, || {
            let mut def = (*core.def()).clone();
            index.id = def.next_index_id;
            def.next_index_id += 1;
            def.indexes.push(index);
            core.build_index(Arc::new(def))
        })
    }

    /// Drops an index of a temporary table (DROP INDEX).
    pub fn drop_temp_index(&self, t: &TempTable, index: &str) -> Result<()> {
        let core = &t.core;
        let id = core.with_exclusive(TEMP_DDL_WAIT, || {
            let mut def = (*core.def()).clone();
            let Some(pos) = def
                .indexes
                .iter()
                .position(|i| i.name.eq_ignore_ascii_case(index))
            else {
                return Err(StorageError::Invalid(format!("no index {index}")));
            };
            let id = def.indexes.remove(pos).id;
            core.set_def(Arc::new(def));
            Ok(id)
        })?;
        core.store().drop_tree(id)
    }

    /// ALTER TABLE of a temporary table: in place (the definition replaced), or a
    /// copy of its rows, converted, into a new temporary table that the caller
    /// puts in the old one's place. Returns the new table when there is one.
    pub fn alter_temp<E: From<StorageError>>(
        &self,
        t: &TempTable,
        spec: AlterSpec,
        convert: &mut Convert<'_, E>,
    ) -> std::result::Result<Option<TempTable>, E> {
        let old = &t.core;
        let old_def = old.def();
        if !spec.copy {
            let mut def = spec.def;
            def.id = old_def.id;
            if let Some(n) = spec.auto_increment {
                def.auto_increment_start = n;
            }
            old.set_def(Arc::new(def));
            if let Some(n) = spec.auto_increment {
                old.set_auto_increment(n)?;
            }
            return Ok(None);
        }
        let mut def = spec.def;
        def.id = NEXT_TEMP_ID.fetch_add(1, Ordering::Relaxed);
        number_indexes(&mut def);
        let counter = spec
            .auto_increment
            .unwrap_or_else(|| old.peek_auto_increment());
        def.auto_increment_start = spec.auto_increment.unwrap_or(old_def.auto_increment_start);
        let new = TempTable::new(self.temp_core(def)?);
        fill(old, &new.core, None, spec.duplicates.as_deref(), convert)?;
        new.core.set_auto_increment(counter)?;
        Ok(Some(new))
    }
}
