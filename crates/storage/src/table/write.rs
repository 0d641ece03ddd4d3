//! Writes: insert, update and delete of rows with their secondary index entries,
//! uniqueness checks, and purge of delete-marked entries.
//!
//! Each row operation runs under a transaction savepoint of its own, so a failure
//! half-way (a unique clash in the third index) leaves nothing of that row behind.
//! Unique secondary keys are checked and inserted under a striped mutex over the key,
//! so two transactions cannot both find a key free and both insert it.

use super::record::{build_rec, build_sec, parse_rec, parse_sec, SecHeader, HEADER};
use super::{IndexLayout, Schema, TableCore};
use crate::api::*;
use crate::error::StorageError;
use crate::keycodec;
use crate::mvcc::locks::{Acquire, LockKey, LockKind};
use crate::mvcc::trx_info::WaitPlace;
use crate::mvcc::DeadEntry;
use crate::rowcodec;
use crate::store::Modify;
use crate::txn::{Txn, UndoPrev, UndoRec};
use basalt_common::{Row, Value};
use std::ops::Bound;
use std::sync::Arc;

/// What a clustered write does.
enum Op<'a> {
    Insert(&'a [u8]),
    Update(&'a [u8]),
    Delete,
}

/// What the `modify` closure found.
enum Outcome {
    Done(UndoPrev),
    Wait(u64),
    Duplicate,
    Missing,
    Snapshot,
    Corrupt,
}

/// A row built for another definition of the table than the current one (a
/// statement planned before an instant ADD / DROP COLUMN changed the column
/// count) is refused with [`StorageError::TableChanged`], so the statement is
/// planned again: written as it is, the record would claim columns it does not
/// hold (unreadable) or lose the new column's value.
fn fits(schema: &Schema, row: &Row) -> Result<()> {
    if row.len() != schema.def.columns.len() {
        return Err(crate::error::StorageError::TableChanged);
    }
    Ok(())
}

impl TableCore {
    pub(crate) fn insert(self: &Arc<Self>, txn: &mut Txn, row: Row) -> Result<RowHandle> {
        let me = txn.begin_write(self)?;
        let schema = self.schema();
        fits(&schema, &row)?;
        let sp = txn.savepoint();
        let r = self.insert_row(txn, me, &schema, &row);
        if r.is_err() {
            txn.rollback_to(&sp)?;
        }
        r
    }

    fn insert_row(
        self: &Arc<Self>,
        txn: &mut Txn,
        me: u64,
        schema: &Schema,
        row: &Row,
    ) -> Result<RowHandle> {
        let key = if schema.def.has_hidden_pk() {
            let mut k = Vec::with_capacity(9);
            let id = Value::UInt(self.next_row_id());
            keycodec::encode_part(
                &mut k,
                &id,
                &basalt_common::DataType::Int {
                    kind: basalt_common::IntKind::Big,
                    unsigned: true,
                    width: 0,
                    zerofill: false,
                },
                None,
            );
            k
        } else {
            let mut k = Vec::with_capacity(16);
            keycodec::encode_index_key(&mut k, &schema.def.indexes[0], &schema.def.columns, row);
            k
        };
        let mut payload = Vec::with_capacity(32);
        rowcodec::encode_row(&mut payload, &schema.def.columns, row);
        self.write_clustered(txn, me, schema, &key, Op::Insert(&payload), row)?;
        for layout in &schema.indexes[1..] {
            self.insert_sec(txn, me, schema, layout, row, &key)?;
        }
        Ok(RowHandle(key))
    }

    pub(crate) fn update(
        self: &Arc<Self>,
        txn: &mut Txn,
        handle: &RowHandle,
        old: &Row,
        new: Row,
    ) -> Result<RowHandle> {
        let me = txn.begin_write(self)?;
        let schema = self.schema();
        fits(&schema, old)?;
        fits(&schema, &new)?;
        let sp = txn.savepoint();
        let r = self.update_row(txn, me, &schema, handle, old, new);
        if r.is_err() {
            txn.rollback_to(&sp)?;
        }
        r
    }

    fn update_row(
        self: &Arc<Self>,
        txn: &mut Txn,
        me: u64,
        schema: &Schema,
        handle: &RowHandle,
        old: &Row,
        new: Row,
    ) -> Result<RowHandle> {
        if !schema.def.has_hidden_pk() {
            let mut new_key = Vec::with_capacity(handle.0.len());
            keycodec::encode_index_key(
                &mut new_key,
                &schema.def.indexes[0],
                &schema.def.columns,
                &new,
            );
            if new_key != handle.0 {
                self.delete_row(txn, me, schema, handle, old)?;
                return self.insert_row(txn, me, schema, &new);
            }
        }
        let mut payload = Vec::with_capacity(32);
        rowcodec::encode_row(&mut payload, &schema.def.columns, &new);
        self.write_clustered(txn, me, schema, &handle.0, Op::Update(&payload), &new)?;
        for layout in &schema.indexes[1..] {
            let (old_key, old_val) = sec_entry(schema, layout, old, &handle.0);
            let (new_key, new_val) = sec_entry(schema, layout, &new, &handle.0);
            if old_key == new_key && old_val == new_val {
                continue;
            }
            self.delete_sec(txn, me, layout, old_key)?;
            self.insert_sec(txn, me, schema, layout, &new, &handle.0)?;
        }
        Ok(handle.clone())
    }

    pub(crate) fn delete(
        self: &Arc<Self>,
        txn: &mut Txn,
        handle: &RowHandle,
        old: &Row,
    ) -> Result<()> {
        let me = txn.begin_write(self)?;
        let schema = self.schema();
        fits(&schema, old)?;
        let sp = txn.savepoint();
        let r = self.delete_row(txn, me, &schema, handle, old);
        if r.is_err() {
            txn.rollback_to(&sp)?;
        }
        r
    }

    fn delete_row(
        self: &Arc<Self>,
        txn: &mut Txn,
        me: u64,
        schema: &Schema,
        handle: &RowHandle,
        old: &Row,
    ) -> Result<()> {
        self.write_clustered(txn, me, schema, &handle.0, Op::Delete, old)?;
        txn.push_dead(DeadEntry {
            table: self.clone(),
            tree: schema.primary_tree(),
            key: handle.0.clone(),
            trx: me,
        });
        for layout in &schema.indexes[1..] {
            let (key, _) = sec_entry(schema, layout, old, &handle.0);
            self.delete_sec(txn, me, layout, key)?;
        }
        Ok(())
    }

    /// Applies `op` to the clustered record `key`, waiting out other writers.
    fn write_clustered(
        self: &Arc<Self>,
        txn: &mut Txn,
        me: u64,
        schema: &Schema,
        key: &[u8],
        op: Op<'_>,
        row: &Row,
    ) -> Result<()> {
        let tree = schema.primary_tree();
        let lock_key = LockKey::new(schema.def.id, tree, key);
        loop {
            let view = txn.current_view().cloned();
            let snapshot = {
                let o = txn.options();
                o.snapshot_isolation && o.isolation == crate::IsolationLevel::RepeatableRead
            };
            let mut outcome = Outcome::Missing;
            let mut f = |cur: Option<&[u8]>| -> Modify {
                let (m, o) = self.decide(
                    me,
                    &lock_key,
                    cur,
                    &op,
                    view.as_deref().filter(|_| snapshot),
                );
                outcome = o;
                m
            };
            let pass = match op {
                Op::Insert(_) => Some(self.insert_pass(txn, tree, key)?),
                _ => None,
            };
            let r = self.store.modify(&mut txn.ctx, tree, key, &mut f);
            drop(pass);
            r?;
            match outcome {
                Outcome::Done(prev) => {
                    let rows_delta = match op {
                        Op::Insert(_) => 1,
                        Op::Delete => -1,
                        Op::Update(_) => 0,
                    };
                    self.add_rows(rows_delta);
                    if !matches!(op, Op::Insert(_)) {
                        self.note_changes(1);
                    }
                    txn.push_undo(UndoRec {
                        table: self.clone(),
                        tree,
                        key: key.to_vec(),
                        prev,
                        rows_delta,
                    });
                    self.capture_change(key, me);
                    return Ok(());
                }
                Outcome::Wait(holder) => txn.wait_for(holder, lock_key.place())?,
                Outcome::Duplicate => {
                    self.lock_duplicate(txn, me, &lock_key);
                    return Err(dup_error(schema, &schema.indexes[0], row));
                }
                Outcome::Missing => {
                    return Err(StorageError::Invalid("row to change vanished".into()))
                }
                Outcome::Snapshot => {
                    return Err(StorageError::SnapshotConflict {
                        table: schema.def.name.clone(),
                    })
                }
                Outcome::Corrupt => return Err(self.corrupt("short record")),
            }
        }
    }

    /// A duplicate primary key leaves a shared lock on the existing row, as InnoDB
    /// does, so it cannot vanish under the failed insert; best effort (no wait).
    fn lock_duplicate(self: &Arc<Self>, txn: &mut Txn, me: u64, key: &LockKey) {
        if self.mgr.locks.try_lock(key, me, false) == Acquire::Granted {
            self.explicit_lock_taken();
            txn.push_lock(self.clone(), key.clone(), LockKind::Record);
        }
    }

    /// The decision of a clustered write, taken under the entry latch.
    fn decide(
        &self,
        me: u64,
        lock_key: &LockKey,
        cur: Option<&[u8]>,
        op: &Op<'_>,
        view: Option<&crate::mvcc::ReadView>,
    ) -> (Modify, Outcome) {
        let header = match cur.map(parse_rec) {
            Some(None) => return (Modify::Keep, Outcome::Corrupt),
            Some(Some(h)) => Some(h),
            None => None,
        };
        if let Some(h) = header {
            // Snapshot isolation fails at once, even while the writer is active
            // (MariaDB does not wait to see whether it commits).
            let changes = !matches!(op, Op::Insert(_)) && !h.deleted;
            if changes && h.trx != me && view.is_some_and(|v| !v.sees(h.trx)) {
                return (Modify::Keep, Outcome::Snapshot);
            }
            if h.trx != me && self.mgr.is_active(h.trx) {
                return (Modify::Keep, Outcome::Wait(h.trx));
            }
        }
        if self.has_explicit_locks() {
            if let Some(holder) = self.mgr.locks.write_conflict(lock_key, me) {
                return (Modify::Keep, Outcome::Wait(holder));
            }
        }
        let keep_version = |bytes: &[u8]| {
            let ptr = self.mgr.versions.allocate();
            self.mgr.versions.insert(ptr, Some(bytes.to_vec()));
            ptr
        };
        match (op, header, cur) {
            (Op::Insert(p), None, _) => (
                Modify::Put(build_rec(me, 0, false, p)),
                Outcome::Done(UndoPrev::Absent),
            ),
            (Op::Insert(p), Some(h), Some(c)) if h.deleted => {
                let ptr = keep_version(c);
                (
                    Modify::Put(build_rec(me, ptr, false, p)),
                    Outcome::Done(UndoPrev::Version(ptr)),
                )
            }
            (Op::Insert(_), _, _) => (Modify::Keep, Outcome::Duplicate),
            (_, Some(h), Some(c)) if !h.deleted => {
                if h.trx != me && view.is_some_and(|v| !v.sees(h.trx)) {
                    return (Modify::Keep, Outcome::Snapshot);
                }
                let ptr = keep_version(c);
                let rec = match op {
                    Op::Update(p) => build_rec(me, ptr, false, p),
                    _ => build_rec(me, ptr, true, &c[HEADER..]),
                };
                (Modify::Put(rec), Outcome::Done(UndoPrev::Version(ptr)))
            }
            _ => (Modify::Keep, Outcome::Missing),
        }
    }

    /// Adds the entry of `row` to a secondary index, checking uniqueness.
    fn insert_sec(
        self: &Arc<Self>,
        txn: &mut Txn,
        me: u64,
        schema: &Schema,
        layout: &IndexLayout,
        row: &Row,
        pk: &[u8],
    ) -> Result<()> {
        let (key, payload) = sec_entry(schema, layout, row, pk);
        let sk_len = key.len() - pk.len();
        let place = WaitPlace {
            table: schema.def.id,
            tree: layout.def.id,
        };
        let check =
            layout.def.is_unique() && layout.def.columns.iter().all(|c| !row[c.column].is_null());
        loop {
            let stripe = check.then(|| self.unique_stripe(layout.def.id, &key[..sk_len]).lock());
            if check {
                match self.unique_conflict(me, layout.def.id, &key[..sk_len], pk)? {
                    Some(Conflict::Wait(holder)) => {
                        drop(stripe);
                        txn.wait_for(holder, place)?;
                        continue;
                    }
                    Some(Conflict::Duplicate) => return Err(dup_error(schema, layout, row)),
                    None => {}
                }
            }
            let mut prev = UndoPrev::Absent;
            let mut f = |cur: Option<&[u8]>| {
                let multi = cur.is_some();
                if let Some(c) = cur {
                    prev = UndoPrev::Bytes(c.to_vec());
                }
                let h = SecHeader {
                    created: me,
                    deleted: 0,
                    multi,
                };
                Modify::Put(build_sec(h, &payload))
            };
            let pass = match self.try_insert_pass(me, layout.def.id, &key)? {
                Ok(pass) => pass,
                Err(holder) => {
                    drop(stripe);
                    txn.wait_for(holder, place)?;
                    continue;
                }
            };
            let r = self.store.modify(&mut txn.ctx, layout.def.id, &key, &mut f);
            drop(pass);
            drop(stripe);
            r?;
            txn.push_undo(UndoRec {
                table: self.clone(),
                tree: layout.def.id,
                key,
                prev,
                rows_delta: 0,
            });
            return Ok(());
        }
    }

    /// Looks for another row's live entry with the same unique key.
    fn unique_conflict(
        &self,
        me: u64,
        tree: u32,
        sk: &[u8],
        pk: &[u8],
    ) -> Result<Option<Conflict>> {
        let upper = keycodec::prefix_successor(sk);
        let upper = upper.as_deref().map_or(Bound::Unbounded, Bound::Excluded);
        let mut lower = Bound::Included(sk.to_vec());
        loop {
            let mut out = Vec::new();
            let lb = match &lower {
                Bound::Included(v) => Bound::Included(&v[..]),
                Bound::Excluded(v) => Bound::Excluded(&v[..]),
                Bound::Unbounded => Bound::Unbounded,
            };
            self.store.scan(tree, lb, upper, false, 16, &mut out)?;
            let full = out.len() < 16;
            for (k, v) in &out {
                if &k[sk.len()..] == pk {
                    continue;
                }
                let h = parse_sec(v).ok_or_else(|| self.corrupt("short index entry"))?;
                if h.deleted == 0 {
                    if h.created != me && self.mgr.is_active(h.created) {
                        return Ok(Some(Conflict::Wait(h.created)));
                    }
                    return Ok(Some(Conflict::Duplicate));
                }
                if h.deleted != me && self.mgr.is_active(h.deleted) {
                    return Ok(Some(Conflict::Wait(h.deleted)));
                }
            }
            match out.pop() {
                Some((k, _)) if !full => lower = Bound::Excluded(k),
                _ => return Ok(None),
            }
        }
    }

    /// Delete-marks a secondary entry (purge removes it later).
    fn delete_sec(
        self: &Arc<Self>,
        txn: &mut Txn,
        me: u64,
        layout: &IndexLayout,
        key: Vec<u8>,
    ) -> Result<()> {
        let mut prev = None;
        let mut f = |cur: Option<&[u8]>| match cur.and_then(|c| parse_sec(c).map(|h| (c, h))) {
            Some((c, h)) => {
                prev = Some(c.to_vec());
                let h = SecHeader { deleted: me, ..h };
                Modify::Put(build_sec(h, &c[HEADER..]))
            }
            None => Modify::Keep,
        };
        self.store
            .modify(&mut txn.ctx, layout.def.id, &key, &mut f)?;
        let Some(prev) = prev else {
            return Err(self.corrupt("secondary index entry missing"));
        };
        txn.push_undo(UndoRec {
            table: self.clone(),
            tree: layout.def.id,
            key: key.clone(),
            prev: UndoPrev::Bytes(prev),
            rows_delta: 0,
        });
        txn.push_dead(DeadEntry {
            table: self.clone(),
            tree: layout.def.id,
            key,
            trx: me,
        });
        Ok(())
    }
}

enum Conflict {
    Wait(u64),
    Duplicate,
}

/// The key (index parts ++ clustered key) and value payload of a secondary entry.
pub(super) fn sec_entry(
    schema: &Schema,
    layout: &IndexLayout,
    row: &Row,
    pk: &[u8],
) -> (Vec<u8>, Vec<u8>) {
    let mut key = Vec::with_capacity(pk.len() + 16);
    keycodec::encode_index_key(&mut key, &layout.def, &schema.def.columns, row);
    key.extend_from_slice(pk);
    let vals: Vec<Value> = layout.covered.iter().map(|&c| row[c].clone()).collect();
    let mut payload = Vec::with_capacity(16);
    rowcodec::encode_row(&mut payload, &layout.covered_cols, &vals);
    (key, payload)
}

/// MariaDB's duplicate-key error: the key's values joined by '-'.
pub(super) fn dup_error(schema: &Schema, layout: &IndexLayout, row: &Row) -> StorageError {
    // A partitioned table's indexes start with the hidden partition column.
    let hidden = usize::from(schema.def.partitioning.is_some());
    let entry: Vec<String> = layout
        .def
        .columns
        .iter()
        .filter(|c| c.column >= hidden)
        .map(|c| {
            let v = row[c.column].display_lossy();
            match c.prefix_len {
                Some(n) => v.chars().take(n as usize).collect(),
                None => v,
            }
        })
        .collect();
    StorageError::DuplicateKey {
        entry: entry.join("-"),
        key: layout.def.name.clone(),
    }
}
