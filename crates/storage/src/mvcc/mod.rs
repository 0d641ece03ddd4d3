//! Multi-version concurrency control: transaction ids, read views, waiting for
//! transactions, deadlock detection and purge.
//!
//! The scheme is InnoDB's. Every record version carries the id of the transaction that
//! wrote it and a pointer to the version it replaced (in the [`versions`] store).
//! A transaction gets an id at its first write or lock; a read view records which ids
//! were still active when it was taken, so a version is visible to the view iff its
//! writer is the view's own transaction, or committed before the view was taken
//! ([`ReadView::sees`]).
//!
//! A record written by a transaction that is still active is implicitly locked by it;
//! explicit row locks (locking reads) live in the [`locks`] table. A transaction that
//! meets a lock waits for the holder to finish ([`TxnManager::wait_for`]). Each waiter
//! waits for one transaction at a time, so the waits-for graph is followed from the
//! holder and a cycle back to the waiter is a deadlock, detected at once.
//!
//! Purge: when a transaction ends, the versions it superseded and the entries it
//! delete-marked become garbage once every open read view sees its outcome. Ends are
//! numbered by `end_seq`; a view remembers the sequence at its creation; garbage of
//! end `s` is purged once the oldest open view was created at or after `s`.

pub mod locks;
pub mod trx_info;
pub mod versions;

use crate::api::Result;
use crate::error::StorageError;
use parking_lot::{Condvar, Mutex, RwLock};
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Shared state of an active transaction that others may wait on.
pub struct TxnSlot {
    pub id: u64,
    done: Mutex<bool>,
    cond: Condvar,
    /// What INNODB_TRX shows of it.
    pub info: trx_info::SlotInfo,
}

/// A consistent-read snapshot.
#[derive(Debug)]
pub struct ReadView {
    /// The owning transaction's id; set when a read-only transaction gets an id
    /// after taking its view, so it sees its own later changes (as InnoDB does).
    creator: AtomicU64,
    /// Ids at or above this were not yet assigned when the view was taken.
    low_limit: u64,
    /// Ids below this had all ended when the view was taken.
    up_limit: u64,
    /// Ids active when the view was taken (sorted), excluding the creator.
    active: Vec<u64>,
    /// `end_seq` when the view was taken (for purge).
    pub created_seq: u64,
    /// A view that sees every version (READ UNCOMMITTED).
    sees_all: bool,
}

impl ReadView {
    pub fn sees(&self, trx: u64) -> bool {
        if self.sees_all || trx < self.up_limit || trx == self.creator.load(Ordering::Relaxed) {
            return true;
        }
        trx < self.low_limit && self.active.binary_search(&trx).is_err()
    }

    /// Whether the view sees every transaction with an id below `id` as ended, or
    /// was taken after `id` was handed out (then every transaction that ended
    /// before `id` existed is seen too).
    pub fn sees_all_before(&self, id: u64) -> bool {
        self.sees_all || self.up_limit >= id || self.low_limit > id
    }

    pub fn set_creator(&self, id: u64) {
        self.creator.store(id, Ordering::Relaxed);
    }

    pub fn sees_all(&self) -> bool {
        self.sees_all
    }
}

/// Work for purge: what a finished transaction left behind.
pub struct Garbage {
    pub end_seq: u64,
    pub versions: Vec<u64>,
    pub dead: Vec<DeadEntry>,
}

/// A delete-marked entry that purge removes if it is still marked by `trx`.
pub struct DeadEntry {
    pub table: Arc<dyn PurgeTarget>,
    pub tree: u32,
    pub key: Vec<u8>,
    pub trx: u64,
}

/// A table that purge can clean.
pub trait PurgeTarget: Send + Sync {
    /// Removes the entry if it is still delete-marked by `trx`; false if it must
    /// stay for now (a gap lock is anchored on it) and purge should retry later.
    fn purge_entry(&self, tree: u32, key: &[u8], trx: u64) -> bool;
    /// False once the table was dropped (its garbage is skipped).
    fn alive(&self) -> bool;
    /// Recomputes statistics if enough rows changed; false when it is too soon
    /// after the last time (the request stays queued).
    fn maybe_analyze(&self) -> bool {
        true
    }
}

pub struct TxnManager {
    next_id: AtomicU64,
    active: RwLock<BTreeMap<u64, Arc<TxnSlot>>>,
    /// Smallest active id (or next id when none): ids below are known ended.
    min_active: AtomicU64,
    end_seq: AtomicU64,
    views: Mutex<BTreeMap<u64, usize>>,
    waits: Mutex<HashMap<u64, WaitInfo, foldhash::fast::RandomState>>,
    pub versions: versions::VersionStore,
    pub locks: locks::LockTable,
    purge_queue: Mutex<Vec<Garbage>>,
    /// Entries whose removal had to wait for gap locks anchored on them.
    deferred: Mutex<Vec<DeadEntry>>,
    /// Held for a whole purge pass, so a pass that returns 0 has seen every item
    /// another pass had taken off the queue finish.
    purge_pass: Mutex<()>,
    analyze_queue: Mutex<Vec<std::sync::Weak<dyn PurgeTarget>>>,
    purge_wake: Condvar,
    shutdown: AtomicBool,
    pub stats: MvccStats,
}

/// One waiting transaction, in the waits-for graph.
struct WaitInfo {
    /// Every transaction whose lock it needs.
    holders: Vec<u64>,
    /// The one it sleeps on.
    on: u64,
    since: Instant,
    /// Address of its interrupt flag (identifies the session for the process list).
    flag: usize,
    /// The index tree whose entry it needs.
    place: trx_info::WaitPlace,
}

#[derive(Default)]
pub struct MvccStats {
    /// Total time spent in waits-for searches that found a deadlock.
    pub deadlock_check_ns: AtomicU64,
    pub lock_waits: AtomicU64,
    /// Milliseconds spent in lock waits, in all and in the longest.
    pub lock_wait_ms: AtomicU64,
    pub lock_wait_max_ms: AtomicU64,
    pub deadlocks: AtomicU64,
    pub lock_timeouts: AtomicU64,
    pub purged_versions: AtomicU64,
}

impl TxnManager {
    /// `first_id`: the first transaction id to hand out (above every id on disk).
    pub fn new(first_id: u64) -> Arc<Self> {
        let first_id = first_id.max(1);
        Arc::new(TxnManager {
            next_id: AtomicU64::new(first_id),
            active: RwLock::new(BTreeMap::new()),
            min_active: AtomicU64::new(first_id),
            end_seq: AtomicU64::new(1),
            views: Mutex::new(BTreeMap::new()),
            waits: Mutex::new(HashMap::default()),
            versions: Default::default(),
            locks: Default::default(),
            purge_queue: Mutex::new(Vec::new()),
            deferred: Mutex::new(Vec::new()),
            purge_pass: Mutex::new(()),
            analyze_queue: Mutex::new(Vec::new()),
            purge_wake: Condvar::new(),
            shutdown: AtomicBool::new(false),
            stats: Default::default(),
        })
    }

    /// The next id that would be assigned (persisted by checkpoints).
    pub fn next_id(&self) -> u64 {
        self.next_id.load(Ordering::SeqCst)
    }

    /// Makes sure later ids are above `id` (recovery saw it in the log).
    pub fn bump_next_id(&self, id: u64) {
        self.next_id.fetch_max(id + 1, Ordering::SeqCst);
        self.recompute_min(&self.active.read());
    }

    /// Registers a new active transaction.
    pub fn begin(&self) -> Arc<TxnSlot> {
        let mut active = self.active.write();
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let slot = Arc::new(TxnSlot {
            id,
            done: Mutex::new(false),
            cond: Condvar::new(),
            info: Default::default(),
        });
        active.insert(id, slot.clone());
        self.recompute_min(&active);
        slot
    }

    fn recompute_min(&self, active: &BTreeMap<u64, Arc<TxnSlot>>) {
        let min = active
            .keys()
            .next()
            .copied()
            .unwrap_or_else(|| self.next_id.load(Ordering::SeqCst));
        self.min_active.store(min, Ordering::SeqCst);
    }

    /// True if `trx` is a transaction that has not ended.
    pub fn is_active(&self, trx: u64) -> bool {
        if trx < self.min_active.load(Ordering::SeqCst) {
            return false;
        }
        self.active.read().contains_key(&trx)
    }

    /// Ends a transaction: it becomes visible to views taken from now on and its
    /// waiters wake. Returns the end sequence number for its garbage.
    pub fn end(&self, slot: &TxnSlot) -> u64 {
        {
            let mut active = self.active.write();
            active.remove(&slot.id);
            self.recompute_min(&active);
        }
        let seq = self.end_seq.fetch_add(1, Ordering::SeqCst) + 1;
        *slot.done.lock() = true;
        slot.cond.notify_all();
        seq
    }

    /// Takes a read view for transaction `creator` (0 if it has no id).
    pub fn take_view(&self, creator: u64, sees_all: bool) -> Arc<ReadView> {
        let mut views = self.views.lock();
        let created_seq = self.end_seq.load(Ordering::SeqCst);
        let (low_limit, active) = {
            let active = self.active.read();
            let ids: Vec<u64> = active.keys().copied().filter(|&id| id != creator).collect();
            (self.next_id.load(Ordering::SeqCst), ids)
        };
        let up_limit = active.first().copied().unwrap_or(low_limit);
        *views.entry(created_seq).or_insert(0) += 1;
        Arc::new(ReadView {
            creator: AtomicU64::new(creator),
            low_limit,
            up_limit,
            active,
            created_seq,
            sees_all,
        })
    }

    /// Unregisters a view taken by [`TxnManager::take_view`].
    pub fn release_view(&self, view: &ReadView) {
        let mut views = self.views.lock();
        if let Some(n) = views.get_mut(&view.created_seq) {
            *n -= 1;
            if *n == 0 {
                views.remove(&view.created_seq);
            }
        }
    }

    /// Waits until transaction `holders[0]` ends (the caller then retries and may
    /// meet the others). Fails with `Deadlock` if any holder (transitively) waits
    /// for `waiter`, `LockWaitTimeout` after `timeout`, or `Interrupted` when
    /// `interrupt` is set. While it waits, [`TxnManager::lock_wait_of`] reports it.
    pub fn wait_for(
        &self,
        waiter: u64,
        holders: &[u64],
        timeout: Duration,
        interrupt: Option<&Arc<AtomicBool>>,
    ) -> Result<()> {
        self.wait_at(waiter, holders, Default::default(), timeout, interrupt)
    }

    /// [`TxnManager::wait_for`] for an entry of `place` (shown in INNODB_LOCKS).
    pub fn wait_at(
        &self,
        waiter: u64,
        holders: &[u64],
        place: trx_info::WaitPlace,
        timeout: Duration,
        interrupt: Option<&Arc<AtomicBool>>,
    ) -> Result<()> {
        let slot = {
            let active = self.active.read();
            holders.iter().find_map(|h| active.get(h).cloned())
        };
        let Some(slot) = slot else {
            return Ok(());
        };
        self.stats.lock_waits.fetch_add(1, Ordering::Relaxed);
        let flag = interrupt.map_or(0, |f| Arc::as_ptr(f) as usize);
        self.add_wait_edges(waiter, holders, (slot.id, place), flag)?;
        let started = Instant::now();
        let result = basalt_common::wait::lock_waiting(|| {
            self.block_on(&slot, timeout, interrupt.map(|f| &**f))
        });
        self.waits.lock().remove(&waiter);
        let waited = started.elapsed();
        crate::metrics::record_micros(&crate::metrics::ROW_LOCK_WAIT, waited);
        let ms = waited.as_millis() as u64;
        self.stats.lock_wait_ms.fetch_add(ms, Ordering::Relaxed);
        self.stats.lock_wait_max_ms.fetch_max(ms, Ordering::Relaxed);
        result
    }

    /// Records that `waiter` waits for `holders`, unless that closes a cycle in the
    /// waits-for graph (a depth-first search from the holders, under the graph's
    /// mutex, so two transactions closing the same cycle cannot both miss it).
    fn add_wait_edges(
        &self,
        waiter: u64,
        holders: &[u64],
        (on, place): (u64, trx_info::WaitPlace),
        flag: usize,
    ) -> Result<()> {
        let started = Instant::now();
        let mut waits = self.waits.lock();
        let mut stack: Vec<u64> = holders.to_vec();
        let mut seen: std::collections::HashSet<u64, foldhash::fast::RandomState> =
            Default::default();
        while let Some(cur) = stack.pop() {
            if cur == waiter {
                self.stats.deadlocks.fetch_add(1, Ordering::Relaxed);
                let us = started.elapsed().as_nanos() as u64;
                self.stats
                    .deadlock_check_ns
                    .fetch_add(us, Ordering::Relaxed);
                return Err(StorageError::Deadlock);
            }
            if !seen.insert(cur) {
                continue;
            }
            if let Some(w) = waits.get(&cur) {
                stack.extend(w.holders.iter().copied());
            }
        }
        waits.insert(
            waiter,
            WaitInfo {
                holders: holders.to_vec(),
                on,
                since: Instant::now(),
                flag,
                place,
            },
        );
        Ok(())
    }

    /// The lock wait of the transaction whose interrupt flag is `flag`, if it is
    /// waiting: (waiter id, id of the transaction it waits for, time waited).
    pub fn lock_wait_of(&self, flag: &Arc<AtomicBool>) -> Option<(u64, u64, Duration)> {
        let ptr = Arc::as_ptr(flag) as usize;
        let waits = self.waits.lock();
        waits
            .iter()
            .find(|(_, w)| w.flag == ptr)
            .map(|(&id, w)| (id, w.on, w.since.elapsed()))
    }

    /// Every current wait: (waiter, the holder it sleeps on).
    pub fn lock_waits(&self) -> Vec<(u64, u64)> {
        self.waits
            .lock()
            .iter()
            .map(|(&id, w)| (id, w.on))
            .collect()
    }

    fn block_on(
        &self,
        slot: &TxnSlot,
        timeout: Duration,
        interrupt: Option<&AtomicBool>,
    ) -> Result<()> {
        let deadline = Instant::now() + timeout;
        let mut done = slot.done.lock();
        while !*done {
            if interrupt.is_some_and(|f| f.load(Ordering::Relaxed)) {
                return Err(StorageError::Interrupted);
            }
            let now = Instant::now();
            if now >= deadline {
                self.stats.lock_timeouts.fetch_add(1, Ordering::Relaxed);
                return Err(StorageError::LockWaitTimeout);
            }
            let step = (deadline - now).min(Duration::from_millis(50));
            slot.cond.wait_for(&mut done, step);
        }
        Ok(())
    }

    /// Queues garbage for purge.
    pub fn defer_purge(&self, garbage: Garbage) {
        if garbage.versions.is_empty() && garbage.dead.is_empty() {
            return;
        }
        self.purge_queue.lock().push(garbage);
        self.purge_wake.notify_one();
    }

    /// Purges every queued item no open view still needs; returns how many.
    pub fn purge_step(&self) -> usize {
        let _pass = self.purge_pass.lock();
        let oldest = {
            let views = self.views.lock();
            views
                .keys()
                .next()
                .copied()
                .unwrap_or_else(|| self.end_seq.load(Ordering::SeqCst))
        };
        let ready: Vec<Garbage> = {
            let mut q = self.purge_queue.lock();
            let (ready, keep): (Vec<_>, Vec<_>) = q.drain(..).partition(|g| g.end_seq <= oldest);
            *q = keep;
            ready
        };
        let n = ready.len();
        let mut deferred = Vec::new();
        for g in ready {
            for ptr in g.versions {
                self.versions.remove(ptr);
                self.stats.purged_versions.fetch_add(1, Ordering::Relaxed);
            }
            for d in g.dead {
                if d.table.alive() && !d.table.purge_entry(d.tree, &d.key, d.trx) {
                    deferred.push(d);
                }
            }
        }
        if !deferred.is_empty() {
            self.deferred.lock().extend(deferred);
        }
        n
    }

    /// Retries entries whose removal waited for gap locks; returns how many went.
    pub fn retry_deferred(&self) -> usize {
        let _pass = self.purge_pass.lock();
        let items: Vec<DeadEntry> = std::mem::take(&mut *self.deferred.lock());
        let before = items.len();
        let keep: Vec<DeadEntry> = items
            .into_iter()
            .filter(|d| d.table.alive() && !d.table.purge_entry(d.tree, &d.key, d.trx))
            .collect();
        let done = before - keep.len();
        self.deferred.lock().extend(keep);
        done
    }

    /// Asks the background thread to refresh a table's statistics.
    pub fn queue_analyze(&self, table: std::sync::Weak<dyn PurgeTarget>) {
        self.analyze_queue.lock().push(table);
        self.purge_wake.notify_one();
    }

    /// Runs the queued statistics refreshes that are due; returns how many ran.
    fn analyze_step(&self) -> usize {
        let queued: Vec<_> = std::mem::take(&mut *self.analyze_queue.lock());
        let mut ran = 0;
        let mut later = Vec::new();
        for w in queued {
            match w.upgrade() {
                Some(t) if t.alive() => {
                    if t.maybe_analyze() {
                        ran += 1;
                    } else {
                        later.push(w);
                    }
                }
                _ => {}
            }
        }
        self.analyze_queue.lock().extend(later);
        ran
    }

    /// Number of finished transactions whose garbage awaits purge, plus entries
    /// kept for gap locks (history length).
    pub fn history_length(&self) -> usize {
        self.purge_queue.lock().len() + self.deferred.lock().len()
    }

    /// Runs purge until [`TxnManager::stop_purge`]; meant for a background thread.
    pub fn purge_loop(&self) {
        while !self.shutdown.load(Ordering::Relaxed) {
            self.retry_deferred();
            if self.purge_step() + self.analyze_step() == 0 {
                let mut q = self.purge_queue.lock();
                self.purge_wake.wait_for(&mut q, Duration::from_millis(50));
            }
        }
    }

    /// Purges everything purgeable now, for a clean stop; true when nothing is left
    /// (no garbage, no transaction still active).
    pub fn drain_purge(&self) -> bool {
        loop {
            let done = self.retry_deferred() + self.purge_step();
            if self.history_length() == 0 && self.active_count() == 0 {
                return true;
            }
            if done == 0 {
                return false;
            }
        }
    }

    /// Hands purge an entry it must retry later (a gap lock is anchored on it).
    pub fn defer_dead(&self, entry: DeadEntry) {
        self.deferred.lock().push(entry);
        self.purge_wake.notify_one();
    }

    /// True once [`TxnManager::stop_purge`] was called.
    pub fn stopping(&self) -> bool {
        self.shutdown.load(Ordering::Relaxed)
    }

    pub fn stop_purge(&self) {
        self.shutdown.store(true, Ordering::Relaxed);
        self.purge_wake.notify_all();
    }

    /// Forgets queued garbage and analyze requests (the storage is going away; the
    /// queue's table references would otherwise keep it alive).
    pub fn discard_queues(&self) {
        self.purge_queue.lock().clear();
        self.deferred.lock().clear();
        self.analyze_queue.lock().clear();
    }

    pub fn active_count(&self) -> usize {
        self.active.read().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn view_visibility() {
        let m = TxnManager::new(1);
        let a = m.begin();
        let b = m.begin();
        m.end(&a);
        let v = m.take_view(0, false);
        assert!(v.sees(a.id));
        assert!(!v.sees(b.id));
        let c = m.begin();
        assert!(!v.sees(c.id));
        m.end(&b);
        assert!(!v.sees(b.id), "ended after the view");
        m.release_view(&v);
    }

    #[test]
    fn deadlock_is_detected() {
        let m = TxnManager::new(1);
        let a = m.begin();
        let b = m.begin();
        let m2 = m.clone();
        let (aid, bid) = (a.id, b.id);
        let t = std::thread::spawn(move || m2.wait_for(aid, &[bid], Duration::from_secs(5), None));
        // Let the first wait register.
        while m.waits.lock().is_empty() {
            std::thread::yield_now();
        }
        let r = m.wait_for(bid, &[aid], Duration::from_secs(5), None);
        assert!(matches!(r, Err(StorageError::Deadlock)));
        m.end(&b);
        assert!(t.join().expect("thread").is_ok());
    }

    #[test]
    fn wait_times_out() {
        let m = TxnManager::new(1);
        let a = m.begin();
        let b = m.begin();
        let r = m.wait_for(b.id, &[a.id], Duration::from_millis(50), None);
        assert!(matches!(r, Err(StorageError::LockWaitTimeout)));
    }
}
