//! Gap locks: how far Basalt follows InnoDB's next-key locking, and how a gap lock
//! and an insert into that gap are kept from crossing.
//!
//! # What is locked (REPEATABLE READ and SERIALIZABLE only; READ COMMITTED and
//! READ UNCOMMITTED take no gap locks, as InnoDB)
//! - A locking range scan (`FOR UPDATE`, `FOR SHARE`, the rows UPDATE and DELETE
//!   visit, plain reads under SERIALIZABLE) takes a next-key lock on every index entry
//!   it visits, delete-marked ones included: the row's record lock plus a gap lock on
//!   the gap before the entry, in the index the scan uses. When the range ends it also
//!   locks the gap before the first entry past the range (or the tree's supremum). So
//!   no other transaction can insert a row the scan would have returned: locking
//!   reads see no phantoms, and `SELECT ... FOR UPDATE` then `INSERT` is safe.
//! - An equality lookup on every column of a unique index (or the primary key) that
//!   finds a live row locks only that row. If it finds none, it locks the gap where
//!   the key would be (gap locks are compatible, so two sessions can both lock the
//!   same missing key and then deadlock on inserting it, exactly as in InnoDB).
//! - Every insert of a new index entry checks the gap it falls into (the gap before
//!   its successor, InnoDB's insert intention) and waits while another transaction
//!   holds a gap lock there. Inserting over a delete-marked entry with the same key
//!   is a change of that entry and meets its record lock instead.
//!
//! Not done: InnoDB's FIFO lock queue (a waiter retries when the holder it sleeps
//! on ends), lock inheritance when purge removes an entry (purge instead keeps an
//! entry while a gap lock is anchored on it, and a rolled-back insert leaves a
//! delete-marked entry for purge when a gap lock is anchored on it), and the shared
//! lock InnoDB keeps on a duplicate found in a unique secondary index (a duplicate
//! primary key does leave a shared record lock on the existing row).
//!
//! # The gate
//! A gap is defined by the entries around it, so registering a gap lock and checking
//! that the gap still is what the scan saw must not interleave with an insert that
//! checked the gap and is about to add an entry. Each table has a [`GapGate`]: an
//! insert (and a purge or rollback removing an entry) passes it shared; registering
//! a gap lock passes it exclusively. Tables without gap locks pay two atomic
//! counter updates per insert and no latch: an insert announces itself in
//! `in_flight`, and takes the latch only if `gaps` is non-zero; a scan raises `gaps`
//! first and waits for `in_flight` to drain before it latches. With sequentially
//! consistent atomics, either the insert sees `gaps` raised (and latches), or the
//! scan sees the insert in flight (and waits for it to finish, so the scan's check
//! sees the new entry).
//!
//! Invariants:
//! - `gaps` >= the number of gap locks held on this table's trees.
//! - A gap lock is registered, and its gap checked, under the exclusive latch; a new
//!   entry is added either under the shared latch after its gap was checked, or
//!   while counted in `in_flight` with no gap lock registered on the table.

use super::record::{build_rec, build_sec, parse_rec, parse_sec, HEADER};
use super::TableCore;
use crate::api::Result;
use crate::mvcc::locks::{LockKey, LockKind};
use crate::mvcc::trx_info::WaitPlace;
use crate::store::{Modify, WriteCtx};
use crate::txn::Txn;
use crate::IsolationLevel;
use parking_lot::{RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::ops::Bound;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// A key range read as empty: (lower, upper) bounds.
pub(crate) type EmptyRange<'a> = (Bound<&'a [u8]>, Bound<&'a [u8]>);

#[derive(Default)]
pub(crate) struct GapGate {
    /// Gap locks held on this table (plus scans about to register one).
    gaps: AtomicUsize,
    /// Inserts running without the latch.
    in_flight: AtomicUsize,
    latch: RwLock<()>,
}

/// Permission to add or remove an entry; see the module docs.
pub(crate) enum Pass<'a> {
    /// No gap locks existed: counted in `in_flight` until dropped.
    Fast(&'a AtomicUsize),
    /// Gap locks exist: the caller checked (or must check) the gap under this latch.
    Latched { _guard: RwLockReadGuard<'a, ()> },
}

impl Pass<'_> {
    pub fn latched(&self) -> bool {
        matches!(self, Pass::Latched { .. })
    }
}

impl Drop for Pass<'_> {
    fn drop(&mut self) {
        if let Pass::Fast(n) = self {
            n.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

impl GapGate {
    pub fn enter(&self) -> Pass<'_> {
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        if self.gaps.load(Ordering::SeqCst) == 0 {
            return Pass::Fast(&self.in_flight);
        }
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
        Pass::Latched {
            _guard: self.latch.read(),
        }
    }

    /// Announces a gap lock and latches exclusively once unlatched inserts are done.
    fn exclusive(&self) -> RwLockWriteGuard<'_, ()> {
        self.gaps.fetch_add(1, Ordering::SeqCst);
        let mut spins = 0u32;
        while self.in_flight.load(Ordering::SeqCst) != 0 {
            spins += 1;
            if spins < 100 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
        self.latch.write()
    }

    pub fn released(&self) {
        self.gaps.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Where a gap lock is anchored: the gap before an entry, or after the last one.
pub(crate) enum Anchor<'a> {
    Before(&'a [u8]),
    Supremum,
}

impl TableCore {
    /// Locking reads of this transaction take gap locks.
    pub(crate) fn uses_gap_locks(txn: &Txn) -> bool {
        matches!(
            txn.options().isolation,
            IsolationLevel::RepeatableRead | IsolationLevel::Serializable
        )
    }

    fn anchor_key(&self, tree: u32, anchor: &Anchor<'_>) -> LockKey {
        let table = self.schema().def.id;
        match anchor {
            Anchor::Before(k) => LockKey::new(table, tree, k),
            Anchor::Supremum => LockKey::supremum(table, tree),
        }
    }

    /// Registers `txn`'s gap lock at `anchor` in `tree`, then checks under the same
    /// latch that `tree` has no entry within `empty` (the part of the gap the caller
    /// read as empty). Returns false if it has one: the caller must read again.
    pub(crate) fn lock_gap(
        self: &Arc<Self>,
        txn: &mut Txn,
        tree: u32,
        anchor: Anchor<'_>,
        empty: Option<EmptyRange<'_>>,
    ) -> Result<bool> {
        let me = txn.ensure_id()?;
        let key = self.anchor_key(tree, &anchor);
        let guard = self.gap_gate.exclusive();
        let newly = self.mgr.locks.lock_gap(&key, me);
        let mut out = Vec::new();
        let scanned = match empty {
            Some((lo, hi)) => self.store.scan(tree, lo, hi, false, 1, &mut out),
            None => Ok(()),
        };
        drop(guard);
        if newly {
            txn.push_lock(self.clone(), key, LockKind::Gap);
        } else {
            self.gap_gate.released();
        }
        scanned.map(|_| out.is_empty())
    }

    /// Enters the gate to add the new entry `key` to `tree`: while gap locks exist,
    /// first waits until no other transaction holds the gap `key` falls into.
    pub(crate) fn insert_pass(&self, txn: &Txn, tree: u32, key: &[u8]) -> Result<Pass<'_>> {
        loop {
            match self.try_insert_pass(txn.id(), tree, key)? {
                Ok(pass) => return Ok(pass),
                Err(holder) => txn.wait_for(
                    holder,
                    WaitPlace {
                        table: self.def().id,
                        tree,
                    },
                )?,
            }
        }
    }

    /// Enters the gate to add `key`, or names the transaction holding its gap (the
    /// caller waits for it holding nothing, then retries).
    pub(crate) fn try_insert_pass(
        &self,
        me: u64,
        tree: u32,
        key: &[u8],
    ) -> Result<std::result::Result<Pass<'_>, u64>> {
        let pass = self.gap_gate.enter();
        if pass.latched() {
            if let Some(holder) = self.insert_blocker(me, tree, key)? {
                return Ok(Err(holder));
            }
        }
        Ok(Ok(pass))
    }

    /// The transaction holding the gap that a new entry `key` would fall into.
    fn insert_blocker(&self, me: u64, tree: u32, key: &[u8]) -> Result<Option<u64>> {
        let mut out = Vec::new();
        self.store.scan(
            tree,
            Bound::Included(key),
            Bound::Unbounded,
            false,
            1,
            &mut out,
        )?;
        let anchor = match out.first() {
            // The entry exists: writing it is a change of that entry, not an insert.
            Some((k, _)) if k.as_slice() == key => return Ok(None),
            Some((k, _)) => Anchor::Before(k),
            None => Anchor::Supremum,
        };
        Ok(self
            .mgr
            .locks
            .gap_holder(&self.anchor_key(tree, &anchor), me))
    }

    /// The first entry of `tree` within (`from`, ∞), as a gap anchor.
    pub(crate) fn successor(&self, tree: u32, from: Bound<&[u8]>) -> Result<Option<Vec<u8>>> {
        let mut out = Vec::new();
        self.store
            .scan(tree, from, Bound::Unbounded, false, 1, &mut out)?;
        Ok(out.pop().map(|(k, _)| k))
    }

    /// Removes an entry `tx` added (rolling back its insert). When a gap lock is
    /// anchored on it, it stays as a delete-marked entry for purge instead, so the
    /// gap it bounds keeps its lock.
    pub(crate) fn undo_insert(
        &self,
        ctx: &mut WriteCtx,
        tree: u32,
        key: &[u8],
        tx: u64,
    ) -> Result<bool> {
        let pass = self.gap_gate.enter();
        let keep = pass.latched()
            && self
                .mgr
                .locks
                .has_gap(&self.anchor_key(tree, &Anchor::Before(key)));
        let primary = tree == self.schema().primary_tree();
        let mut f = |cur: Option<&[u8]>| match cur {
            Some(c) if keep && primary => match parse_rec(c) {
                Some(_) => Modify::Put(build_rec(tx, 0, true, &c[HEADER..])),
                None => Modify::Delete,
            },
            Some(c) if keep => match parse_sec(c) {
                Some(h) => Modify::Put(build_sec(
                    super::record::SecHeader { deleted: tx, ..h },
                    &c[HEADER..],
                )),
                None => Modify::Delete,
            },
            _ => Modify::Delete,
        };
        self.store.modify(ctx, tree, key, &mut f)?;
        Ok(keep)
    }

    /// Removes an entry still delete-marked by `trx` (purge, once every view sees
    /// `trx`'s outcome). Not logged: a purge lost in a crash is redone later.
    /// Returns false, leaving it, while a gap lock is anchored on it.
    pub(crate) fn purge(&self, tree: u32, key: &[u8], trx: u64) -> bool {
        let pass = self.gap_gate.enter();
        if pass.latched()
            && self
                .mgr
                .locks
                .has_gap(&self.anchor_key(tree, &Anchor::Before(key)))
        {
            return false;
        }
        let schema = self.schema();
        let primary = tree == schema.primary_tree();
        if !primary && !schema.indexes.iter().any(|l| l.def.id == tree) {
            // The key was dropped (DROP INDEX) with its tree.
            return true;
        }
        let mut ctx = WriteCtx::default();
        let mut f = |cur: Option<&[u8]>| {
            let dead = match cur {
                Some(c) if primary => parse_rec(c).is_some_and(|h| h.deleted && h.trx == trx),
                Some(c) => parse_sec(c).is_some_and(|h| h.deleted == trx),
                None => false,
            };
            if dead {
                Modify::Delete
            } else {
                Modify::Keep
            }
        };
        if let Err(e) = self.store.modify(&mut ctx, tree, key, &mut f) {
            tracing::warn!(error = %e, "purge of a delete-marked entry failed");
        }
        true
    }
}
