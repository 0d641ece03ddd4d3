//! Reads: version visibility, point reads and locking reads of one row (index
//! cursors are in `cursor`).

use super::gap::Anchor;
use super::record::parse_rec;
use super::{Schema, TableCore};
use crate::api::*;
use crate::error::StorageError;
use crate::keycodec;
use crate::mvcc::locks::{Acquire, LockKey, LockKind};
use crate::mvcc::trx_info::WaitPlace;
use crate::mvcc::ReadView;
use crate::rowcodec;
use crate::txn::Txn;
use crate::IsolationLevel;
use basalt_common::{Row, Value};
use std::ops::Bound;
use std::sync::Arc;

/// Result of a locking read of one row.
pub(crate) enum Locked {
    /// The latest committed record bytes (not delete-marked).
    Row(Vec<u8>),
    /// The row is delete-marked.
    Missing,
    /// The clustered index has no entry for the key; `newly`: the record lock on
    /// the key was granted by this call.
    Absent { newly: bool },
    /// Locked by someone else and the wait policy is SKIP LOCKED.
    Skipped,
}

impl TableCore {
    pub(crate) fn corrupt(&self, detail: &str) -> StorageError {
        StorageError::Corrupt {
            file: self.def().qualified_name(),
            page: 0,
            detail: detail.to_string(),
        }
    }

    /// Follows the version chain from `rec` to the version `view` sees; returns it
    /// unless it is absent or delete-marked.
    pub(crate) fn visible_version(&self, rec: Vec<u8>, view: &ReadView) -> Result<Option<Vec<u8>>> {
        let mut cur = rec;
        loop {
            let h = parse_rec(&cur).ok_or_else(|| self.corrupt("short record"))?;
            if view.sees(h.trx) {
                return Ok((!h.deleted).then_some(cur));
            }
            if h.undo == 0 {
                return Ok(None);
            }
            match self.mgr.versions.get(h.undo) {
                Some(Some(prev)) => cur = prev,
                Some(None) | None => return Ok(None),
            }
        }
    }

    pub(crate) fn decode(
        &self,
        schema: &Schema,
        rec: &[u8],
        wanted: Option<&[bool]>,
    ) -> Result<Row> {
        rowcodec::decode_row(&rec[super::record::HEADER..], &schema.def.columns, wanted)
            .map_err(|_| self.corrupt("undecodable row"))
    }

    /// Point read by primary key values.
    pub(crate) fn get(
        self: &Arc<Self>,
        txn: &mut Txn,
        pk: &[Value],
        lock: LockMode,
        wait: WaitPolicy,
        columns: Option<&[usize]>,
    ) -> Result<Option<Fetched>> {
        // A locking read is the first step of a write: it holds the table as a
        // writer from the start (as MariaDB's SELECT ... FOR UPDATE and UPDATE take
        // MDL_SHARED_WRITE), so it never waits for an ALTER as a reader upgrading.
        txn.hold_table(self, lock != LockMode::Consistent)?;
        let schema = self.schema();
        if schema.def.has_hidden_pk() {
            return Err(StorageError::Invalid("table has no primary key".into()));
        }
        let key = keycodec::encode_prefix(&schema.def.indexes[0], &schema.def.columns, pk);
        let lock = effective_lock(txn, lock);
        let rec = if lock == LockMode::Consistent {
            // The snapshot starts at the first consistent read even when the row is
            // not there, or a later read of the key could see a newer insert.
            let view = txn.view();
            txn.check_rebuilt(self)?;
            let Some(rec) = self.store.get(schema.primary_tree(), &key)? else {
                return Ok(None);
            };
            self.visible_version(rec, &view)?
        } else {
            self.locking_get(txn, &schema, &key, lock, wait)?
        };
        let Some(rec) = rec else { return Ok(None) };
        let wanted = columns.map(|cols| wanted_mask(schema.def.columns.len(), cols));
        let row = self.decode(&schema, &rec, wanted.as_deref())?;
        Ok(Some(Fetched {
            handle: RowHandle(key),
            row,
        }))
    }

    /// A locking read of one primary key. A row that is not there leaves, under
    /// REPEATABLE READ, a gap lock where it would be instead of a record lock on a
    /// key without an entry (see `gap`).
    fn locking_get(
        self: &Arc<Self>,
        txn: &mut Txn,
        schema: &Schema,
        key: &[u8],
        lock: LockMode,
        wait: WaitPolicy,
    ) -> Result<Option<Vec<u8>>> {
        let tree = schema.primary_tree();
        let gaps = Self::uses_gap_locks(txn);
        loop {
            match self.lock_and_read(txn, schema, key, lock, wait)? {
                Locked::Row(rec) => return Ok(Some(rec)),
                Locked::Skipped => return Ok(None),
                Locked::Missing => {
                    if gaps {
                        // Delete-marked: a next-key lock on it.
                        self.lock_gap(txn, tree, Anchor::Before(key), None)?;
                    }
                    return Ok(None);
                }
                Locked::Absent { newly } => {
                    if newly {
                        txn.unlock_record(&LockKey::new(schema.def.id, tree, key));
                    }
                    if !gaps || self.gap_for_missing(txn, tree, key)? {
                        return Ok(None);
                    }
                    // An entry for the key appeared meanwhile: read again.
                }
            }
        }
    }

    /// Locks the gap where the missing `key` would be; false if `key` has an
    /// entry by the time the lock is held.
    fn gap_for_missing(self: &Arc<Self>, txn: &mut Txn, tree: u32, key: &[u8]) -> Result<bool> {
        let next = self.successor(tree, Bound::Excluded(key))?;
        let anchor = next.as_deref().map_or(Anchor::Supremum, Anchor::Before);
        let upper = next.as_deref().map_or(Bound::Unbounded, Bound::Excluded);
        self.lock_gap(txn, tree, anchor, Some((Bound::Included(key), upper)))
    }

    /// Locks the row `key` (explicitly) and reads its latest committed version.
    pub(crate) fn lock_and_read(
        self: &Arc<Self>,
        txn: &mut Txn,
        schema: &Schema,
        key: &[u8],
        lock: LockMode,
        wait: WaitPolicy,
    ) -> Result<Locked> {
        let me = txn.ensure_id()?;
        let tree = schema.primary_tree();
        let lk = LockKey::new(schema.def.id, tree, key);
        let place = WaitPlace {
            table: schema.def.id,
            tree,
        };
        let exclusive = lock == LockMode::Exclusive;
        let early_snapshot = wait == WaitPolicy::Wait && self.snapshot_applies(txn);
        let mut newly = false;
        loop {
            txn.check_interrupt()?;
            if early_snapshot {
                self.snapshot_before_wait(txn, me, tree, key)?;
            }
            match self.mgr.locks.try_lock(&lk, me, exclusive) {
                Acquire::Granted => {
                    newly = true;
                    self.explicit_lock_taken();
                    txn.push_lock(self.clone(), lk.clone(), LockKind::Record);
                }
                Acquire::AlreadyHeld => {}
                Acquire::Conflict(holders) => {
                    if self.on_conflict(txn, &holders, (wait, place))? {
                        return Ok(Locked::Skipped);
                    }
                    continue;
                }
            }
            let Some(rec) = self.store.get(tree, key)? else {
                return Ok(Locked::Absent { newly });
            };
            let h = parse_rec(&rec).ok_or_else(|| self.corrupt("short record"))?;
            if h.trx != me && self.mgr.is_active(h.trx) {
                if self.on_conflict(txn, &[h.trx], (wait, place))? {
                    return Ok(Locked::Skipped);
                }
                continue;
            }
            self.check_snapshot(txn, h.trx)?;
            return Ok(if h.deleted {
                Locked::Missing
            } else {
                Locked::Row(rec)
            });
        }
    }

    /// Snapshot isolation fails before any wait, even while the writer of the
    /// latest version is active (MariaDB does not wait to see whether it commits).
    fn snapshot_before_wait(&self, txn: &Txn, me: u64, tree: u32, key: &[u8]) -> Result<()> {
        if let Some(rec) = self.store.get(tree, key)? {
            let h = parse_rec(&rec).ok_or_else(|| self.corrupt("short record"))?;
            if h.trx != me {
                self.check_snapshot(txn, h.trx)?;
            }
        }
        Ok(())
    }

    /// Handles a lock held by `holders`: waits (false), or reports skip (true) / error.
    pub(crate) fn on_conflict(
        &self,
        txn: &Txn,
        holders: &[u64],
        (wait, place): (WaitPolicy, WaitPlace),
    ) -> Result<bool> {
        match wait {
            WaitPolicy::Wait => txn.wait_for_any(holders, place).map(|_| false),
            WaitPolicy::NoWait => Err(StorageError::LockNowait),
            WaitPolicy::SkipLocked => Ok(true),
        }
    }

    /// Snapshot isolation is on for this transaction and it has a read view.
    pub(crate) fn snapshot_applies(&self, txn: &Txn) -> bool {
        let opts = txn.options();
        opts.snapshot_isolation
            && opts.isolation == IsolationLevel::RepeatableRead
            && txn.current_view().is_some()
    }

    /// Snapshot isolation: under REPEATABLE READ a locking read or write of a version
    /// the transaction's view does not see fails (errno 1020).
    pub(crate) fn check_snapshot(&self, txn: &Txn, trx: u64) -> Result<()> {
        if !self.snapshot_applies(txn) {
            return Ok(());
        }
        match txn.current_view() {
            Some(view) if !view.sees(trx) => Err(StorageError::SnapshotConflict {
                table: self.def().name.clone(),
            }),
            _ => Ok(()),
        }
    }
}

/// SERIALIZABLE turns plain reads inside a transaction into shared locking reads.
pub(crate) fn effective_lock(txn: &Txn, lock: LockMode) -> LockMode {
    if lock == LockMode::Consistent && txn.options().isolation == IsolationLevel::Serializable {
        LockMode::Shared
    } else {
        lock
    }
}

pub(crate) fn wanted_mask(width: usize, columns: &[usize]) -> Vec<bool> {
    let mut mask = vec![false; width];
    for &c in columns {
        if c < width {
            mask[c] = true;
        }
    }
    mask
}
