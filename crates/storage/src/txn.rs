//! Transactions: the undo log, held locks, read views and the commit sequence.
//!
//! A [`Txn`] is owned by one session. It gets an id at its first write or lock. Every
//! change it makes to a tree is recorded in its undo log so that a statement
//! ([`Txn::rollback_to`]) or the whole transaction can be undone; undoing restores the
//! exact previous entry bytes. Commit order: (1) the commit record is appended to
//! the log (durable tables only; a full disk fails here and the transaction rolls
//! back), (2) its locks are released, (3) the transaction leaves the active set,
//! becoming visible to new views and waking its waiters, (4) its garbage is queued
//! for purge, (5) the commit waits until its record is durable and only then is it
//! acknowledged. Releasing locks before the log sync is InnoDB's order too: a hot row
//! is held for the statement's work, not for an fsync. It is safe for writers: a
//! transaction that read or overwrote this one's changes commits later in the log, so
//! it can never be durable without this one. A failed log sync after step 1 poisons
//! the log (the server stops and recovers), so a commit whose record was appended
//! never ends in a rollback. As in InnoDB, a plain reader can see a commit in the
//! instant before its sync; a crash in that instant loses it with its
//! unacknowledged commit.

use crate::api::{Result, TxnOptions};
use crate::binlog::Capture;
use crate::error::StorageError;
use crate::mvcc::locks::{LockKey, LockKind};
use crate::mvcc::trx_info::WaitPlace;
use crate::mvcc::{DeadEntry, Garbage, ReadView, TxnManager, TxnSlot};
use crate::store::{Modify, WriteCtx};
use crate::table::TableCore;
use crate::IsolationLevel;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Makes commits durable; implemented by the durable engine's log.
pub trait CommitLog: Send + Sync {
    /// Appends a commit record for `txn_id`; returns the position to wait for. An
    /// error means nothing was appended (the transaction is rolled back).
    fn commit(&self, txn_id: u64) -> Result<u64>;
    /// Returns once the commit record ending at `pos` is durable at the configured
    /// level. An error means the log is poisoned and the commit is not acknowledged.
    fn wait_commit(&self, pos: u64) -> Result<()>;
    /// Appends an abort record (after the rollback's own changes were logged).
    fn abort(&self, txn_id: u64) -> Result<()>;
    /// Appends the commit of a transaction with captured changes for the binary log:
    /// a commit record carrying its events when `logged` (it changed durable tables),
    /// otherwise a record with the events alone. Without a binary log it is
    /// [`CommitLog::commit`] (or nothing to append: `Ok(0)`).
    fn commit_binlog(&self, txn_id: u64, logged: bool, capture: &Capture) -> Result<u64>;
    /// The binlog commit ending at `pos` was acknowledged.
    /// `killed`: the committing session's interrupt flag (a wait for the
    /// commit ends once it is set).
    fn binlog_acknowledged(&self, pos: u64, killed: Option<&AtomicBool>);
}

/// One undo log record: the entry `key` of `tree` held `prev` before the change.
pub(crate) struct UndoRec {
    pub table: Arc<TableCore>,
    pub tree: u32,
    pub key: Vec<u8>,
    pub prev: UndoPrev,
    /// Row-count change to revert.
    pub rows_delta: i64,
}

pub(crate) enum UndoPrev {
    /// The entry did not exist.
    Absent,
    /// The previous bytes are in the version store under this pointer.
    Version(u64),
    /// The previous bytes, kept here (secondary index entries).
    Bytes(Vec<u8>),
}

/// A transaction. Dropping it without commit rolls it back.
pub struct Txn {
    pub(crate) mgr: Arc<TxnManager>,
    log: Option<Arc<dyn CommitLog>>,
    opts: TxnOptions,
    slot: Option<Arc<TxnSlot>>,
    view: Option<Arc<ReadView>>,
    undo: Vec<UndoRec>,
    locks: Vec<(Arc<TableCore>, LockKey, LockKind)>,
    /// Tables whose metadata lock this transaction holds, and whether as a writer
    /// (a table read and then written is held both ways).
    /// The first one is kept inline: most transactions use one table, and a
    /// statement in autocommit mode then allocates nothing for it.
    mdl_first: Option<(Arc<TableCore>, bool)>,
    /// One autocommit statement: its reads take no metadata lock (see
    /// [`Txn::set_single_statement`]).
    single_statement: bool,
    /// The current statement met a table an ALTER TABLE replaced after the
    /// statement was planned (see [`Txn::met_replaced_table`]).
    met_replaced: bool,
    mdl: Vec<(Arc<TableCore>, bool)>,
    versions: Vec<u64>,
    dead: Vec<DeadEntry>,
    pub(crate) ctx: WriteCtx,
    interrupt: Option<Arc<AtomicBool>>,
    /// The owning connection's id (0 when none).
    thread: u64,
    /// Rows changed (clustered entries), for INNODB_TRX.
    rows_modified: u64,
    finished: bool,
    /// Row changes for the binary log (see [`crate::binlog`]).
    capture: Option<Box<Capture>>,
}

/// A position in a transaction to roll back to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Savepoint {
    undo: usize,
    captured: usize,
}

impl Txn {
    pub(crate) fn new(
        mgr: Arc<TxnManager>,
        log: Option<Arc<dyn CommitLog>>,
        opts: TxnOptions,
    ) -> Txn {
        let mut txn = Txn {
            mgr,
            log,
            opts,
            slot: None,
            view: None,
            undo: Vec::new(),
            locks: Vec::new(),
            mdl_first: None,
            single_statement: false,
            met_replaced: false,
            mdl: Vec::new(),
            versions: Vec::new(),
            dead: Vec::new(),
            ctx: WriteCtx::default(),
            interrupt: None,
            thread: 0,
            rows_modified: 0,
            finished: false,
            capture: None,
        };
        if txn.opts.consistent_snapshot && txn.opts.isolation == IsolationLevel::RepeatableRead {
            txn.view();
        }
        txn
    }

    /// Transaction id, 0 until the transaction first writes or locks.
    pub fn id(&self) -> u64 {
        self.slot.as_ref().map_or(0, |s| s.id)
    }

    pub fn options(&self) -> &TxnOptions {
        &self.opts
    }

    pub fn has_writes(&self) -> bool {
        !self.undo.is_empty()
    }

    /// Marks the start of a statement (READ COMMITTED takes a fresh view per statement).
    pub fn new_statement(&mut self) {
        self.met_replaced = false;
        if self.opts.isolation != IsolationLevel::RepeatableRead
            && self.opts.isolation != IsolationLevel::Serializable
        {
            self.drop_view();
        }
    }

    pub fn savepoint(&self) -> Savepoint {
        Savepoint {
            undo: self.undo.len(),
            captured: self.capture.as_ref().map_or(0, |c| c.len()),
        }
    }

    /// Undoes every change made after `sp` (locks stay held, as InnoDB does).
    pub fn rollback_to(&mut self, sp: &Savepoint) -> Result<()> {
        if let Some(c) = self.capture.as_mut() {
            c.truncate(sp.captured);
        }
        while self.undo.len() > sp.undo {
            let rec = self.undo.pop().expect("length checked");
            if matches!(rec.prev, UndoPrev::Version(_)) || rec.rows_delta != 0 {
                self.rows_modified = self.rows_modified.saturating_sub(1);
            }
            self.apply_undo(rec)?;
        }
        if let Some(s) = &self.slot {
            s.info.set_rows_modified(self.rows_modified);
        }
        Ok(())
    }

    fn apply_undo(&mut self, rec: UndoRec) -> Result<()> {
        if let UndoPrev::Absent = rec.prev {
            rec.table.add_rows(-rec.rows_delta);
            let me = self.id();
            if rec
                .table
                .undo_insert(&mut self.ctx, rec.tree, &rec.key, me)?
            {
                self.dead.push(DeadEntry {
                    table: rec.table.clone(),
                    tree: rec.tree,
                    key: rec.key,
                    trx: me,
                });
            }
            return Ok(());
        }
        let prev = match rec.prev {
            UndoPrev::Absent => None,
            UndoPrev::Version(ptr) => match self.mgr.versions.get(ptr) {
                Some(v) => v,
                None => {
                    return Err(StorageError::Invalid(format!(
                        "undo version {ptr} missing for rollback"
                    )))
                }
            },
            UndoPrev::Bytes(b) => Some(b),
        };
        rec.table.add_rows(-rec.rows_delta);
        let mut prev = Some(prev);
        rec.table
            .store()
            .modify(
                &mut self.ctx,
                rec.tree,
                &rec.key,
                &mut |_| match prev.take().flatten() {
                    Some(bytes) => Modify::Put(bytes),
                    None => Modify::Delete,
                },
            )
    }

    pub fn commit(mut self) -> Result<()> {
        let capture = self.capture.take().filter(|c| c.has_rows());
        if !self.ctx.logged && capture.is_none() {
            self.finish();
            return Ok(());
        }
        let Some(log) = self.log.clone() else {
            self.finish();
            return Ok(());
        };
        let started = std::time::Instant::now();
        let appended = match &capture {
            Some(c) => log.commit_binlog(self.id(), self.ctx.logged, c),
            None => log.commit(self.id()),
        };
        let pos = match appended {
            Ok(pos) => pos,
            Err(e) => {
                // Nothing appended: undo in memory so no one sees it, then report.
                let _ = self.rollback_inner();
                return Err(e);
            }
        };
        // Locks go before the sync (see the module docs).
        self.finish();
        log.wait_commit(pos)?;
        if capture.is_some() {
            log.binlog_acknowledged(pos, self.interrupt.as_deref());
        }
        crate::metrics::record_micros(&crate::metrics::COMMIT_LATENCY, started.elapsed());
        Ok(())
    }

    /// Starts capturing this transaction's row changes for the binary log (replacing
    /// any capture it had).
    pub fn set_capture(&mut self, capture: Capture) {
        self.capture = Some(Box::new(capture));
    }

    /// Whether row changes are being captured.
    pub fn capturing(&self) -> bool {
        self.capture.is_some()
    }

    /// Announces the statement whose row changes follow (written before its first
    /// captured row).
    pub fn capture_statement(&mut self, sql: Arc<str>, db: Arc<str>, when: u32) {
        if let Some(c) = self.capture.as_mut() {
            c.statement(sql, db, when);
        }
    }

    /// The running statement's inserts into table `table_id` give values to the
    /// columns flagged in `written` only (see [`crate::binlog`]).
    pub fn capture_write_set(&mut self, table_id: u64, written: Arc<[bool]>) {
        if let Some(c) = self.capture.as_mut() {
            c.write_set(table_id, written);
        }
    }

    /// Pauses (`true`) or resumes capture; pauses nest (foreign key cascades, which a
    /// replica's engine repeats on its own).
    pub fn pause_capture(&mut self, on: bool) {
        if let Some(c) = self.capture.as_mut() {
            c.pause(on);
        }
    }

    /// Records a row change made through [`crate::Table`].
    pub(crate) fn capture_row(
        &mut self,
        table: &Arc<basalt_common::TableDef>,
        before: Option<&basalt_common::Row>,
        after: Option<&basalt_common::Row>,
    ) {
        if let Some(c) = self.capture.as_mut() {
            c.row(table.clone(), before.cloned(), after.cloned());
        }
    }

    pub fn rollback(mut self) -> Result<()> {
        self.rollback_inner()
    }

    fn rollback_inner(&mut self) -> Result<()> {
        let result = self.rollback_to(&Savepoint {
            undo: 0,
            captured: 0,
        });
        if self.ctx.logged {
            if let Some(log) = self.log.clone() {
                let _ = log.abort(self.id());
            }
        }
        self.finish();
        result
    }

    /// Ends the transaction in memory: visibility, waiters, locks, purge.
    fn finish(&mut self) {
        if self.finished {
            return;
        }
        self.finished = true;
        self.drop_view();
        let Some(slot) = self.slot.clone() else {
            self.release_mdl();
            return;
        };
        // Locks go first: a waiter woken by `end` must find them free, or it would
        // retry at once against a holder that is no longer active (a busy loop
        // until this thread runs again). One that takes a lock before `end` finds
        // this transaction's rows still its own and sleeps until `end`.
        let me = self.id();
        for (table, key, kind) in self.locks.drain(..) {
            self.mgr.locks.release(&key, me, kind);
            table.explicit_lock_released(kind);
        }
        let end_seq = self.mgr.end(&slot);
        self.release_mdl();
        self.undo.clear();
        self.mgr.defer_purge(Garbage {
            end_seq,
            versions: std::mem::take(&mut self.versions),
            dead: std::mem::take(&mut self.dead),
        });
    }

    /// A flag that, once set (KILL QUERY), makes waits and scans end with `Interrupted`.
    pub fn set_interrupt(&mut self, flag: Arc<AtomicBool>) {
        self.interrupt = Some(flag);
    }

    pub fn check_interrupt(&self) -> Result<()> {
        match &self.interrupt {
            Some(f) if f.load(Ordering::Relaxed) => Err(StorageError::Interrupted),
            _ => Ok(()),
        }
    }

    /// The read view for consistent reads, taken on first use.
    pub(crate) fn view(&mut self) -> Arc<ReadView> {
        if let Some(v) = &self.view {
            return v.clone();
        }
        let sees_all = self.opts.isolation == IsolationLevel::ReadUncommitted;
        let v = self.mgr.take_view(self.id(), sees_all);
        self.view = Some(v.clone());
        v
    }

    pub(crate) fn current_view(&self) -> Option<&Arc<ReadView>> {
        self.view.as_ref()
    }

    fn drop_view(&mut self) {
        if let Some(v) = self.view.take() {
            self.mgr.release_view(&v);
        }
    }

    /// Assigns an id if the transaction has none (first write or lock).
    pub(crate) fn ensure_id(&mut self) -> Result<u64> {
        if let Some(s) = &self.slot {
            return Ok(s.id);
        }
        if self.finished {
            return Err(StorageError::Invalid("transaction already ended".into()));
        }
        let slot = self.mgr.begin();
        slot.info.start(self.thread, self.opts.isolation);
        let id = slot.id;
        self.ctx.txn_id = id;
        self.slot = Some(slot);
        if let Some(v) = &self.view {
            v.set_creator(id);
        }
        Ok(id)
    }

    /// Prepares to write `table`: read-only check, id, metadata lock.
    pub(crate) fn begin_write(&mut self, table: &Arc<TableCore>) -> Result<u64> {
        if self.opts.read_only {
            return Err(StorageError::ReadOnlyTransaction);
        }
        let id = self.ensure_id()?;
        self.hold_table(table, true)?;
        Ok(id)
    }

    /// Marks the transaction as one autocommit statement. Its consistent reads then
    /// take no metadata lock: a DDL does not wait for them, and one that replaces
    /// the table meanwhile leaves them reading the old table's rows, which is what
    /// their read view (taken before the switch) sees. Its writes still hold the
    /// table. This keeps the lock off the path of every autocommit SELECT.
    pub fn set_single_statement(&mut self) {
        self.single_statement = true;
    }

    /// Takes `table`'s metadata lock shared for the rest of the transaction (as a
    /// reader, or as a writer), so no DDL changes the table under it.
    pub(crate) fn hold_table(&mut self, table: &Arc<TableCore>, write: bool) -> Result<()> {
        if !write && self.single_statement {
            return Ok(());
        }
        let held = |(t, w): &(Arc<TableCore>, bool)| (*w || !write) && Arc::ptr_eq(t, table);
        if self.mdl_first.as_ref().is_some_and(held) || self.mdl.iter().any(held) {
            return Ok(());
        }
        table.mdl_acquire_shared(self, write)?;
        if write && table.is_dropped() {
            // Planned before a DDL replaced or dropped the table: writing the old
            // one would lose the change.
            table.mdl_release(write);
            self.met_replaced = true;
            return Err(StorageError::TableChanged);
        }
        if self.mdl_first.is_none() {
            self.mdl_first = Some((table.clone(), write));
        } else {
            self.mdl.push((table.clone(), write));
        }
        Ok(())
    }

    /// 1412 when this transaction's read view predates the copy that built
    /// `table` (ALTER TABLE): the copy keeps only the newest version of each row,
    /// which such a view might not see, so MariaDB's answer (retry the
    /// transaction) replaces a wrong result. One autocommit statement is exempt:
    /// its view is taken at its first read.
    /// Whether the current statement failed (1412) because it was planned against
    /// a table an ALTER TABLE replaced while the statement waited for it: the
    /// statement changed nothing there and can be planned and run again, also
    /// inside a transaction, as MariaDB reopens a table after a metadata lock wait.
    pub fn met_replaced_table(&self) -> bool {
        self.met_replaced
    }

    pub(crate) fn check_rebuilt(&mut self, table: &TableCore) -> Result<()> {
        let at = table.rebuilt_at();
        if at == 0 || self.single_statement {
            return Ok(());
        }
        if self.view().sees_all_before(at) {
            Ok(())
        } else {
            Err(StorageError::TableChanged)
        }
    }

    fn release_mdl(&mut self) {
        for (table, write) in self.mdl_first.take().into_iter().chain(self.mdl.drain(..)) {
            table.mdl_release(write);
        }
    }

    /// Waits for transaction `holder` to end, honouring the wait timeout and KILL;
    /// `place` is the index tree whose entry it holds.
    pub(crate) fn wait_for(&self, holder: u64, place: WaitPlace) -> Result<()> {
        self.wait_for_any(&[holder], place)
    }

    /// Waits for the first of `holders` to end (all of them enter the waits-for
    /// graph, so a deadlock through any of them is found at once).
    pub(crate) fn wait_for_any(&self, holders: &[u64], place: WaitPlace) -> Result<()> {
        self.mgr.wait_at(
            self.id(),
            holders,
            place,
            self.opts.lock_wait_timeout,
            self.interrupt.as_ref(),
        )
    }

    pub(crate) fn push_undo(&mut self, rec: UndoRec) {
        // A clustered entry's change keeps its old version or changes the row
        // count; a secondary entry's does neither: INNODB_TRX counts rows.
        let row = matches!(rec.prev, UndoPrev::Version(_)) || rec.rows_delta != 0;
        if let UndoPrev::Version(ptr) = rec.prev {
            self.versions.push(ptr);
        }
        self.undo.push(rec);
        if row {
            self.rows_modified += 1;
            if let Some(s) = &self.slot {
                s.info.set_rows_modified(self.rows_modified);
            }
        }
    }

    /// Publishes the number of explicit locks held (INNODB_TRX).
    fn publish_locks(&self) {
        if let Some(s) = &self.slot {
            s.info.set_locks(self.locks.len() as u64);
        }
    }

    /// The connection whose transaction this is (INNODB_TRX's thread id).
    pub fn set_thread(&mut self, thread: u64) {
        self.thread = thread;
    }

    pub(crate) fn push_dead(&mut self, dead: DeadEntry) {
        self.dead.push(dead);
    }

    pub(crate) fn push_lock(&mut self, table: Arc<TableCore>, key: LockKey, kind: LockKind) {
        self.locks.push((table, key, kind));
        self.publish_locks();
    }

    /// Gives back a record lock this transaction just took on `key` (a locking
    /// read that found no row keeps a gap lock instead, as InnoDB does).
    pub(crate) fn unlock_record(&mut self, key: &LockKey) {
        let me = self.id();
        if let Some(pos) = self
            .locks
            .iter()
            .rposition(|(_, k, kind)| *kind == LockKind::Record && k == key)
        {
            let (table, key, kind) = self.locks.swap_remove(pos);
            self.mgr.locks.release(&key, me, kind);
            table.explicit_lock_released(kind);
            self.publish_locks();
        }
    }
}

impl Drop for Txn {
    fn drop(&mut self) {
        if !self.finished {
            if let Err(e) = self.rollback_inner() {
                tracing::error!(error = %e, "rollback of a dropped transaction failed");
            }
        }
    }
}
