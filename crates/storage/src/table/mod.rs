//! The table layer: rows, secondary indexes, MVCC and row locks over a [`Store`].
//!
//! Both engines share this code; they differ only in the store underneath (memory
//! trees, or durable B+trees with a WAL). Entry formats are in [`record`]; reads
//! (visibility, cursors, locking reads) in `read`; writes (insert, update, delete,
//! unique checks) in `write`; statistics in `stats`.
//!
//! Invariants:
//! - The clustered tree holds exactly one entry per primary key; its newest version is
//!   the entry, older versions are in the version store behind undo pointers.
//! - A row has, in each secondary index, a live entry (deleted = 0) for the key of its
//!   newest version, and entries whose [created, deleted) lifetime covers the key of
//!   any older version some view may still read (purge removes the rest).
//! - Writers modify a row only while holding its lock: implicitly (their id in the
//!   record, still active) or explicitly (lock table); a writer meeting another
//!   active transaction's lock waits for it to end.
//! - Schema changes (CREATE/DROP INDEX, TRUNCATE, ALTER) take the table's metadata
//!   lock exclusively; transactions that read or wrote the table hold it shared until
//!   they end (see [`MdlState`]).

mod bulk_fill;
mod capture;
mod check;
mod copy;
mod cursor;
mod ddl;
mod gap;
mod index_build;
mod read;
pub mod record;
mod stats;
mod sweep;
mod write;

use crate::api::*;
use crate::error::StorageError;
use crate::mvcc::locks::LockKind;
use crate::mvcc::{PurgeTarget, TxnManager};
use crate::store::Store;
use crate::txn::Txn;
use basalt_common::{ColumnDef, IndexDef, Row, TableDef, Value};
use parking_lot::{Condvar, Mutex, RwLock};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use check::CheckReport;
pub use cursor::TableCursor;

/// Derived layout of one index.
pub(crate) struct IndexLayout {
    pub def: IndexDef,
    /// Column ordinals stored in secondary entries: key columns, then primary key
    /// columns not among them.
    pub covered: Vec<usize>,
    pub covered_cols: Vec<ColumnDef>,
}

/// A table definition with its derived layouts; replaced as a whole by DDL.
pub(crate) struct Schema {
    pub def: Arc<TableDef>,
    pub indexes: Vec<IndexLayout>,
}

impl Schema {
    fn new(def: Arc<TableDef>) -> Arc<Schema> {
        let pk: Vec<usize> = def.primary().column_ordinals().collect();
        let indexes = def
            .indexes
            .iter()
            .map(|ix| {
                let mut covered: Vec<usize> = ix.column_ordinals().collect();
                for c in &pk {
                    if !covered.contains(c) {
                        covered.push(*c);
                    }
                }
                let covered_cols = covered.iter().map(|&c| def.columns[c].clone()).collect();
                IndexLayout {
                    def: ix.clone(),
                    covered,
                    covered_cols,
                }
            })
            .collect();
        Arc::new(Schema { def, indexes })
    }

    pub fn primary_tree(&self) -> u32 {
        self.def.indexes[0].id
    }

    pub fn layout(&self, index_id: u32) -> Option<(usize, &IndexLayout)> {
        self.indexes
            .iter()
            .enumerate()
            .find(|(_, l)| l.def.id == index_id)
    }
}

/// The table's metadata lock. Transactions hold it shared while they last: as
/// readers once they read the table, as writers once they change it. DDL takes it
/// in two steps: first it blocks writes (waits for writer transactions to end and
/// keeps new ones out, readers go on), then, for the short switch of definitions,
/// it waits for reader transactions too and keeps everyone out. A DDL waiting for
/// a step queues the transactions that step would exclude, so it cannot starve.
#[derive(Default)]
struct MdlState {
    readers: usize,
    writers: usize,
    /// Held by a DDL: writer transactions wait.
    no_write: bool,
    /// Held by a DDL: every transaction waits.
    exclusive: bool,
    no_write_waiting: usize,
    exclusive_waiting: usize,
}

impl MdlState {
    fn admits_reader(&self) -> bool {
        !self.exclusive && self.exclusive_waiting == 0
    }

    fn admits_writer(&self) -> bool {
        self.admits_reader() && !self.no_write && self.no_write_waiting == 0
    }
}

pub struct TableCore {
    schema: RwLock<Arc<Schema>>,
    store: Arc<dyn Store>,
    pub(crate) mgr: Arc<TxnManager>,
    auto_inc: AtomicU64,
    row_id: AtomicU64,
    rows: AtomicI64,
    changes: AtomicU64,
    stats: RwLock<Vec<IndexStats>>,
    /// Per index id: every n-th key's first key part, in key order (see
    /// `stats::HISTOGRAM`).
    histograms: RwLock<std::collections::HashMap<u32, Arc<Vec<Vec<u8>>>>>,
    explicit_locks: AtomicUsize,
    gap_gate: gap::GapGate,
    mdl: Mutex<MdlState>,
    mdl_cond: Condvar,
    unique_stripes: Vec<Mutex<()>>,
    dropped: AtomicBool,
    /// For a table built by ALTER TABLE's copy: the next transaction id when the
    /// copy started (0 otherwise; see `Txn::check_rebuilt`).
    rebuilt_at: AtomicU64,
    analyze_queued: AtomicBool,
    /// When statistics were last computed.
    analyzed_at: Mutex<Option<std::time::Instant>>,
    /// Held by an analyze pass: two passes (ANALYZE TABLE and the background
    /// refresh) never interleave, so an older pass cannot overwrite a newer one.
    analyzing: Mutex<()>,
    /// Keys changed while an online ALTER TABLE copies the table.
    capture: capture::ChangeCapture,
    me: std::sync::Weak<TableCore>,
}

impl TableCore {
    pub fn new(def: Arc<TableDef>, store: Arc<dyn Store>, mgr: Arc<TxnManager>) -> Arc<Self> {
        let start = def.auto_increment_start.max(1);
        Arc::new_cyclic(|me| TableCore {
            schema: RwLock::new(Schema::new(def)),
            store,
            mgr,
            auto_inc: AtomicU64::new(start),
            row_id: AtomicU64::new(1),
            rows: AtomicI64::new(0),
            changes: AtomicU64::new(0),
            stats: RwLock::new(Vec::new()),
            histograms: RwLock::new(std::collections::HashMap::new()),
            explicit_locks: AtomicUsize::new(0),
            gap_gate: Default::default(),
            mdl: Mutex::new(MdlState::default()),
            mdl_cond: Condvar::new(),
            unique_stripes: (0..256).map(|_| Mutex::new(())).collect(),
            dropped: AtomicBool::new(false),
            rebuilt_at: AtomicU64::new(0),
            analyze_queued: AtomicBool::new(false),
            analyzed_at: Mutex::new(None),
            analyzing: Mutex::new(()),
            capture: Default::default(),
            me: me.clone(),
        })
    }

    pub(crate) fn schema(&self) -> Arc<Schema> {
        self.schema.read().clone()
    }

    pub fn def(&self) -> Arc<TableDef> {
        self.schema.read().def.clone()
    }

    pub(crate) fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    pub(crate) fn add_rows(&self, delta: i64) {
        if delta != 0 {
            self.rows.fetch_add(delta, Ordering::Relaxed);
            self.note_changes(delta.unsigned_abs());
        }
    }

    pub(crate) fn explicit_lock_taken(&self) {
        self.explicit_locks.fetch_add(1, Ordering::SeqCst);
    }

    /// A transaction gave back a lock it took on this table.
    pub(crate) fn explicit_lock_released(&self, kind: LockKind) {
        match kind {
            LockKind::Record => {
                self.explicit_locks.fetch_sub(1, Ordering::SeqCst);
            }
            LockKind::Gap => self.gap_gate.released(),
        }
    }

    pub(crate) fn has_explicit_locks(&self) -> bool {
        self.explicit_locks.load(Ordering::SeqCst) > 0
    }

    /// Marks the table dropped: purge skips its garbage.
    pub fn mark_dropped(&self) {
        self.dropped.store(true, Ordering::SeqCst);
    }

    /// Shared metadata lock for a transaction that reads (`write` false) or writes
    /// this table, waiting up to its lock wait timeout for a DDL to finish.
    pub(crate) fn mdl_acquire_shared(&self, txn: &Txn, write: bool) -> Result<()> {
        let admitted = |st: &MdlState| {
            if write {
                st.admits_writer()
            } else {
                st.admits_reader()
            }
        };
        let mut st = self.mdl.lock();
        if !admitted(&st) {
            // The clock is read only when there is something to wait for: this
            // runs for every statement that reads a table.
            let deadline = Instant::now() + txn.options().metadata_lock_wait_timeout;
            while !admitted(&st) {
                txn.check_interrupt()?;
                if self.mdl_cond.wait_until(&mut st, deadline).timed_out() {
                    return Err(StorageError::LockWaitTimeout);
                }
            }
        }
        if write {
            st.writers += 1;
        } else {
            st.readers += 1;
        }
        Ok(())
    }

    pub(crate) fn mdl_release(&self, write: bool) {
        let mut st = self.mdl.lock();
        if write {
            st.writers -= 1;
        } else {
            st.readers -= 1;
        }
        if (st.writers == 0 && st.no_write_waiting > 0)
            || (st.readers == 0 && st.exclusive_waiting > 0)
        {
            self.mdl_cond.notify_all();
        }
    }

    /// DDL step one: waits (until `deadline`) for writer transactions to end and
    /// keeps new ones out. Readers go on.
    pub(crate) fn mdl_block_writes(&self, deadline: Instant) -> Result<()> {
        let mut st = self.mdl.lock();
        st.no_write_waiting += 1;
        while st.writers > 0 || st.no_write || st.exclusive {
            if self.mdl_cond.wait_until(&mut st, deadline).timed_out() {
                st.no_write_waiting -= 1;
                self.mdl_cond.notify_all();
                return Err(StorageError::LockWaitTimeout);
            }
        }
        st.no_write_waiting -= 1;
        st.no_write = true;
        Ok(())
    }

    /// DDL step two (after step one): waits for reader transactions to end too.
    /// On timeout the write block stays; [`Self::mdl_end_ddl`] lifts both.
    pub(crate) fn mdl_upgrade(&self, deadline: Instant) -> Result<()> {
        let mut st = self.mdl.lock();
        st.exclusive_waiting += 1;
        while st.readers > 0 {
            if self.mdl_cond.wait_until(&mut st, deadline).timed_out() {
                st.exclusive_waiting -= 1;
                self.mdl_cond.notify_all();
                return Err(StorageError::LockWaitTimeout);
            }
        }
        st.exclusive_waiting -= 1;
        st.exclusive = true;
        Ok(())
    }

    /// Ends a DDL's hold (either step).
    pub(crate) fn mdl_end_ddl(&self) {
        let mut st = self.mdl.lock();
        st.no_write = false;
        st.exclusive = false;
        self.mdl_cond.notify_all();
    }

    /// Runs `f` holding the metadata lock exclusively (no transaction that used
    /// the table is open).
    pub(crate) fn with_exclusive<T>(
        &self,
        timeout: Duration,
        f: impl FnOnce() -> Result<T>,
    ) -> Result<T> {
        let deadline = Instant::now() + timeout;
        self.mdl_block_writes(deadline)?;
        if let Err(e) = self.mdl_upgrade(deadline) {
            self.mdl_end_ddl();
            return Err(e);
        }
        let r = f();
        self.mdl_end_ddl();
        r
    }

    /// Replaces the definition (after DDL on indexes).
    pub(crate) fn set_def(&self, def: Arc<TableDef>) {
        *self.schema.write() = Schema::new(def);
    }

    fn unique_stripe(&self, index_id: u32, key: &[u8]) -> &Mutex<()> {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ index_id as u64;
        for &b in key {
            h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
        &self.unique_stripes[(h as usize) % self.unique_stripes.len()]
    }

    pub fn reserve_auto_increment(&self, count: u64) -> u64 {
        self.auto_inc.fetch_add(count.max(1), Ordering::SeqCst)
    }

    pub fn observe_auto_increment(&self, value: u64) {
        self.auto_inc
            .fetch_max(value.saturating_add(1), Ordering::SeqCst);
    }

    pub fn peek_auto_increment(&self) -> u64 {
        self.auto_inc.load(Ordering::SeqCst)
    }

    pub(crate) fn self_weak(&self) -> std::sync::Weak<dyn PurgeTarget> {
        self.me.clone()
    }

    fn next_row_id(&self) -> u64 {
        self.row_id.fetch_add(1, Ordering::SeqCst)
    }
}

impl PurgeTarget for TableCore {
    fn purge_entry(&self, tree: u32, key: &[u8], trx: u64) -> bool {
        self.purge(tree, key, trx)
    }

    fn alive(&self) -> bool {
        !self.dropped.load(Ordering::SeqCst)
    }

    fn maybe_analyze(&self) -> bool {
        if !self.analyze_due() {
            return false;
        }
        self.analyze_queued.store(false, Ordering::SeqCst);
        if let Err(e) = self.analyze() {
            tracing::warn!(error = %e, "statistics refresh failed");
        }
        true
    }
}

/// The [`Table`] handle the SQL layer holds.
pub struct TableHandle(pub Arc<TableCore>);

impl Table for TableHandle {
    fn def(&self) -> Arc<TableDef> {
        self.0.def()
    }

    fn stats(&self) -> TableStats {
        self.0.stats()
    }

    fn range_fraction(&self, index_id: u32, range: &crate::api::KeyRange) -> Option<f64> {
        self.0.range_fraction(index_id, range)
    }

    fn insert(&self, txn: &mut Txn, row: Row) -> Result<RowHandle> {
        if !txn.capturing() {
            return self.0.insert(txn, row);
        }
        let copy = row.clone();
        let handle = self.0.insert(txn, row)?;
        txn.capture_row(&self.0.def(), None, Some(&copy));
        Ok(handle)
    }

    fn get(
        &self,
        txn: &mut Txn,
        pk: &[Value],
        lock: LockMode,
        wait: WaitPolicy,
    ) -> Result<Option<Fetched>> {
        self.0.get(txn, pk, lock, wait, None)
    }

    fn get_columns(
        &self,
        txn: &mut Txn,
        pk: &[Value],
        columns: &[usize],
    ) -> Result<Option<Fetched>> {
        self.0.get(
            txn,
            pk,
            LockMode::Consistent,
            WaitPolicy::Wait,
            Some(columns),
        )
    }

    fn scan(&self, txn: &mut Txn, req: ScanRequest) -> Result<Box<dyn Cursor>> {
        Ok(Box::new(TableCursor::open(self.0.clone(), txn, req)?))
    }

    fn update(&self, txn: &mut Txn, handle: &RowHandle, old: &Row, new: Row) -> Result<RowHandle> {
        if !txn.capturing() {
            return self.0.update(txn, handle, old, new);
        }
        let copy = new.clone();
        let handle = self.0.update(txn, handle, old, new)?;
        txn.capture_row(&self.0.def(), Some(old), Some(&copy));
        Ok(handle)
    }

    fn delete(&self, txn: &mut Txn, handle: &RowHandle, old: &Row) -> Result<()> {
        self.0.delete(txn, handle, old)?;
        if txn.capturing() {
            txn.capture_row(&self.0.def(), Some(old), None);
        }
        Ok(())
    }

    fn reserve_auto_increment(&self, count: u64) -> Result<u64> {
        Ok(self.0.reserve_auto_increment(count))
    }

    fn observe_auto_increment(&self, value: u64) {
        self.0.observe_auto_increment(value)
    }

    fn peek_auto_increment(&self) -> u64 {
        self.0.peek_auto_increment()
    }
}
