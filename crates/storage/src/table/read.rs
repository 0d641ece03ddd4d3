//! Reads: version visibility, point reads, locking reads and index cursors.

use super::record::{parse_rec, parse_sec};
use super::{IndexLayout, Schema, TableCore};
use crate::api::*;
use crate::error::StorageError;
use crate::keycodec;
use crate::mvcc::locks::{Acquire, LockKey};
use crate::mvcc::ReadView;
use crate::rowcodec;
use crate::store::Entry;
use crate::txn::Txn;
use crate::IsolationLevel;
use basalt_common::{Row, Value};
use std::collections::VecDeque;
use std::ops::Bound;
use std::sync::Arc;

/// Result of a locking read of one row.
pub(crate) enum Locked {
    /// The latest committed record bytes (not delete-marked).
    Row(Vec<u8>),
    /// The row does not exist (or is delete-marked).
    Missing,
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
        let schema = self.schema();
        if schema.def.has_hidden_pk() {
            return Err(StorageError::Invalid("table has no primary key".into()));
        }
        let key = keycodec::encode_prefix(&schema.def.indexes[0], &schema.def.columns, pk);
        let rec = match self.read_row(txn, &schema, &key, effective_lock(txn, lock), wait)? {
            Some(rec) => rec,
            None => return Ok(None),
        };
        let wanted = columns.map(|cols| wanted_mask(schema.def.columns.len(), cols));
        let row = self.decode(&schema, &rec, wanted.as_deref())?;
        Ok(Some(Fetched {
            handle: RowHandle(key),
            row,
        }))
    }

    /// Reads the record `key` of the clustered index as `lock` requires.
    fn read_row(
        self: &Arc<Self>,
        txn: &mut Txn,
        schema: &Schema,
        key: &[u8],
        lock: LockMode,
        wait: WaitPolicy,
    ) -> Result<Option<Vec<u8>>> {
        if lock == LockMode::Consistent {
            let Some(rec) = self.store.get(schema.primary_tree(), key)? else {
                return Ok(None);
            };
            let view = txn.view();
            return self.visible_version(rec, &view);
        }
        match self.lock_and_read(txn, schema, key, lock, wait)? {
            Locked::Row(rec) => Ok(Some(rec)),
            Locked::Missing | Locked::Skipped => Ok(None),
        }
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
        let lk = LockKey {
            table: schema.def.id,
            key: key.to_vec(),
        };
        let exclusive = lock == LockMode::Exclusive;
        loop {
            txn.check_interrupt()?;
            match self.mgr.locks.try_lock(&lk, me, exclusive) {
                Acquire::Granted => {
                    self.explicit_lock_taken();
                    txn.push_lock(self.clone(), lk.clone());
                }
                Acquire::AlreadyHeld => {}
                Acquire::Conflict(holder) => {
                    if self.on_conflict(txn, holder, wait)? {
                        return Ok(Locked::Skipped);
                    }
                    continue;
                }
            }
            let Some(rec) = self.store.get(schema.primary_tree(), key)? else {
                return Ok(Locked::Missing);
            };
            let h = parse_rec(&rec).ok_or_else(|| self.corrupt("short record"))?;
            if h.trx != me && self.mgr.is_active(h.trx) {
                if self.on_conflict(txn, h.trx, wait)? {
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

    /// Handles a lock held by `holder`: waits (false), or reports skip (true) / error.
    pub(crate) fn on_conflict(&self, txn: &Txn, holder: u64, wait: WaitPolicy) -> Result<bool> {
        match wait {
            WaitPolicy::Wait => txn.wait_for(holder).map(|_| false),
            WaitPolicy::NoWait => Err(StorageError::LockNowait),
            WaitPolicy::SkipLocked => Ok(true),
        }
    }

    /// Snapshot isolation: under REPEATABLE READ a locking read or write of a version
    /// the transaction's view does not see fails (errno 1020).
    pub(crate) fn check_snapshot(&self, txn: &Txn, trx: u64) -> Result<()> {
        let opts = txn.options();
        if !opts.snapshot_isolation || opts.isolation != IsolationLevel::RepeatableRead {
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
fn effective_lock(txn: &Txn, lock: LockMode) -> LockMode {
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

/// A cursor over one index range, reading the store in growing batches.
pub struct TableCursor {
    core: Arc<TableCore>,
    schema: Arc<Schema>,
    index_pos: usize,
    lower: Bound<Vec<u8>>,
    upper: Bound<Vec<u8>>,
    reverse: bool,
    covering: bool,
    wanted: Option<Vec<bool>>,
    lock: LockMode,
    wait: WaitPolicy,
    batch: VecDeque<Entry>,
    batch_size: usize,
    exhausted: bool,
}

/// Encoded (lower, upper) bounds of a scan.
type ByteBounds = (Bound<Vec<u8>>, Bound<Vec<u8>>);

fn encode_bounds(schema: &Schema, layout: &IndexLayout, range: &KeyRange) -> Option<ByteBounds> {
    let enc = |vals: &Vec<Value>| keycodec::encode_prefix(&layout.def, &schema.def.columns, vals);
    let lower = match &range.lower {
        Bound::Unbounded => Bound::Unbounded,
        Bound::Included(v) => Bound::Included(enc(v)),
        Bound::Excluded(v) => Bound::Included(keycodec::prefix_successor(&enc(v))?),
    };
    let upper = match &range.upper {
        Bound::Unbounded => Bound::Unbounded,
        Bound::Excluded(v) => Bound::Excluded(enc(v)),
        Bound::Included(v) => match keycodec::prefix_successor(&enc(v)) {
            Some(s) => Bound::Excluded(s),
            None => Bound::Unbounded,
        },
    };
    Some((lower, upper))
}

fn as_ref(b: &Bound<Vec<u8>>) -> Bound<&[u8]> {
    match b {
        Bound::Unbounded => Bound::Unbounded,
        Bound::Included(v) => Bound::Included(v),
        Bound::Excluded(v) => Bound::Excluded(v),
    }
}

impl TableCursor {
    pub(crate) fn open(core: Arc<TableCore>, txn: &mut Txn, req: ScanRequest) -> Result<Self> {
        let schema = core.schema();
        let (index_pos, layout) = schema
            .layout(req.index_id)
            .ok_or_else(|| StorageError::Invalid(format!("no index with id {}", req.index_id)))?;
        let (lower, upper, exhausted) = match encode_bounds(&schema, layout, &req.range) {
            Some((l, u)) => (l, u, false),
            None => (Bound::Unbounded, Bound::Unbounded, true),
        };
        let covering = index_pos > 0 && req.columns.iter().all(|c| layout.covered.contains(c));
        let wanted = Some(wanted_mask(schema.def.columns.len(), &req.columns));
        let lock = effective_lock(txn, req.lock);
        if lock == LockMode::Consistent {
            txn.view();
        }
        Ok(TableCursor {
            index_pos,
            lower,
            upper,
            reverse: req.reverse,
            covering,
            wanted,
            lock,
            wait: req.wait,
            batch: VecDeque::new(),
            batch_size: 8,
            exhausted,
            schema,
            core,
        })
    }

    fn refill(&mut self) -> Result<()> {
        let tree = self.schema.indexes[self.index_pos].def.id;
        let mut out = Vec::with_capacity(self.batch_size);
        self.core.store.scan(
            tree,
            as_ref(&self.lower),
            as_ref(&self.upper),
            self.reverse,
            self.batch_size,
            &mut out,
        )?;
        if out.len() < self.batch_size {
            self.exhausted = true;
        }
        if let Some((last, _)) = out.last() {
            let resume = Bound::Excluded(last.clone());
            if self.reverse {
                self.upper = resume;
            } else {
                self.lower = resume;
            }
        }
        self.batch_size = (self.batch_size * 4).min(1024);
        self.batch.extend(out);
        Ok(())
    }

    fn primary_entry(
        &self,
        txn: &mut Txn,
        key: Vec<u8>,
        value: Vec<u8>,
    ) -> Result<Option<Fetched>> {
        let rec = if self.lock == LockMode::Consistent {
            let view = txn.view();
            self.core.visible_version(value, &view)?
        } else {
            match self
                .core
                .lock_and_read(txn, &self.schema, &key, self.lock, self.wait)?
            {
                super::read::Locked::Row(r) => Some(r),
                _ => None,
            }
        };
        let Some(rec) = rec else { return Ok(None) };
        let row = self
            .core
            .decode(&self.schema, &rec, self.wanted.as_deref())?;
        Ok(Some(Fetched {
            handle: RowHandle(key),
            row,
        }))
    }

    fn secondary_entry(
        &self,
        txn: &mut Txn,
        key: Vec<u8>,
        value: Vec<u8>,
    ) -> Result<Option<Fetched>> {
        let layout = &self.schema.indexes[self.index_pos];
        let columns = &self.schema.def.columns;
        let sk_len = keycodec::parts_len(&key, &layout.def, columns, layout.def.columns.len());
        let h = parse_sec(&value).ok_or_else(|| self.core.corrupt("short index entry"))?;
        let pk = key[sk_len..].to_vec();
        if self.lock == LockMode::Consistent && !h.multi {
            let view = txn.view();
            let live = view.sees(h.created) && (h.deleted == 0 || !view.sees(h.deleted));
            if !live {
                return Ok(None);
            }
            if self.covering {
                return self.covered_row(pk, &value).map(Some);
            }
        }
        let rec = if self.lock == LockMode::Consistent {
            let Some(rec) = self.core.store.get(self.schema.primary_tree(), &pk)? else {
                return Ok(None);
            };
            let view = txn.view();
            self.core.visible_version(rec, &view)?
        } else {
            match self
                .core
                .lock_and_read(txn, &self.schema, &pk, self.lock, self.wait)?
            {
                super::read::Locked::Row(r) => Some(r),
                _ => None,
            }
        };
        let Some(rec) = rec else { return Ok(None) };
        let row = self.core.decode(&self.schema, &rec, None)?;
        // The version read must still carry this entry's key.
        let mut sk = Vec::with_capacity(sk_len);
        keycodec::encode_index_key(&mut sk, &layout.def, columns, &row);
        if sk != key[..sk_len] {
            return Ok(None);
        }
        Ok(Some(Fetched {
            handle: RowHandle(pk),
            row,
        }))
    }

    fn covered_row(&self, pk: Vec<u8>, value: &[u8]) -> Result<Fetched> {
        let layout = &self.schema.indexes[self.index_pos];
        let vals =
            rowcodec::decode_row(&value[super::record::HEADER..], &layout.covered_cols, None)
                .map_err(|_| self.core.corrupt("undecodable index entry"))?;
        let mut row = vec![Value::Null; self.schema.def.columns.len()];
        for (&ord, v) in layout.covered.iter().zip(vals) {
            row[ord] = v;
        }
        Ok(Fetched {
            handle: RowHandle(pk),
            row,
        })
    }
}

impl Cursor for TableCursor {
    fn next(&mut self, txn: &mut Txn) -> Result<Option<Fetched>> {
        loop {
            let Some((key, value)) = self.batch.pop_front() else {
                if self.exhausted {
                    return Ok(None);
                }
                txn.check_interrupt()?;
                self.refill()?;
                continue;
            };
            let got = if self.index_pos == 0 {
                self.primary_entry(txn, key, value)?
            } else {
                self.secondary_entry(txn, key, value)?
            };
            if got.is_some() {
                return Ok(got);
            }
        }
    }
}
