//! What the engine shows of its active transactions and lock waits
//! (information_schema INNODB_TRX / INNODB_LOCKS / INNODB_LOCK_WAITS and SHOW
//! ENGINE INNODB STATUS).
//!
//! A transaction is listed from its first write or lock, when it gets an id (the
//! moment InnoDB assigns its own ids). Its owner keeps the counts in its slot
//! with relaxed stores (no other thread writes them); readers take the active
//! map's read lock and the waits-for graph's mutex for a copy, never a lock a
//! statement holds while it runs.

use super::{TxnManager, WaitInfo};
use crate::api::IsolationLevel;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The owner-maintained part of an active transaction's slot.
#[derive(Default)]
pub struct SlotInfo {
    /// The session's connection id (0: an internal transaction).
    thread: AtomicU64,
    /// When the transaction got its id, in seconds since the epoch.
    started: AtomicU64,
    isolation: AtomicU8,
    rows_modified: AtomicU64,
    /// Explicit record and gap locks held.
    locks: AtomicU64,
}

impl SlotInfo {
    pub(crate) fn start(&self, thread: u64, isolation: IsolationLevel) {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        self.thread.store(thread, Ordering::Relaxed);
        self.started.store(now, Ordering::Relaxed);
        self.isolation.store(isolation as u8, Ordering::Relaxed);
    }

    pub(crate) fn set_rows_modified(&self, n: u64) {
        self.rows_modified.store(n, Ordering::Relaxed);
    }

    pub(crate) fn set_locks(&self, n: u64) {
        self.locks.store(n, Ordering::Relaxed);
    }
}

/// Where a waiting transaction waits: the index tree of a table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct WaitPlace {
    pub table: u64,
    pub tree: u32,
}

/// A lock wait, as INNODB_LOCK_WAITS shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockWait {
    pub waiter: u64,
    /// The transaction it sleeps on (it needs every one of `holders`).
    pub blocker: u64,
    pub holders: Vec<u64>,
    pub waited: Duration,
    pub place: WaitPlace,
}

/// An active transaction, as INNODB_TRX shows it.
#[derive(Clone, Debug)]
pub struct TrxInfo {
    pub id: u64,
    pub thread: u64,
    pub started: u64,
    pub isolation: IsolationLevel,
    pub rows_modified: u64,
    pub locks: u64,
    /// Its lock wait, if it waits.
    pub wait: Option<LockWait>,
}

fn isolation_of(v: u8) -> IsolationLevel {
    [
        IsolationLevel::ReadUncommitted,
        IsolationLevel::ReadCommitted,
        IsolationLevel::RepeatableRead,
        IsolationLevel::Serializable,
    ]
    .into_iter()
    .find(|l| *l as u8 == v)
    .unwrap_or(IsolationLevel::RepeatableRead)
}

fn wait_of(waiter: u64, w: &WaitInfo) -> LockWait {
    LockWait {
        waiter,
        blocker: w.on,
        holders: w.holders.clone(),
        waited: w.since.elapsed(),
        place: w.place,
    }
}

impl TxnManager {
    /// Every current lock wait.
    pub fn lock_wait_list(&self) -> Vec<LockWait> {
        let mut v: Vec<LockWait> = self
            .waits
            .lock()
            .iter()
            .map(|(&id, w)| wait_of(id, w))
            .collect();
        v.sort_by_key(|w| w.waiter);
        v
    }

    /// Every active transaction with an id, newest first (as InnoDB lists them).
    pub fn transactions(&self) -> Vec<TrxInfo> {
        let waits = self.lock_wait_list();
        let active = self.active.read();
        active
            .values()
            .rev()
            .map(|s| {
                let i = &s.info;
                TrxInfo {
                    id: s.id,
                    thread: i.thread.load(Ordering::Relaxed),
                    started: i.started.load(Ordering::Relaxed),
                    isolation: isolation_of(i.isolation.load(Ordering::Relaxed)),
                    rows_modified: i.rows_modified.load(Ordering::Relaxed),
                    locks: i.locks.load(Ordering::Relaxed),
                    wait: waits.iter().find(|w| w.waiter == s.id).cloned(),
                }
            })
            .collect()
    }
}

/// Transaction-system figures for SHOW ENGINE INNODB STATUS.
#[derive(Clone, Copy, Debug, Default)]
pub struct TrxCounters {
    /// The next transaction id to hand out.
    pub next_id: u64,
    /// Every id below this one has ended.
    pub min_active: u64,
    /// Read views open now.
    pub views: usize,
}

impl TxnManager {
    pub fn counters(&self) -> TrxCounters {
        TrxCounters {
            next_id: self.next_id.load(Ordering::Relaxed),
            min_active: self.min_active.load(Ordering::Relaxed),
            views: self.views.lock().values().sum(),
        }
    }
}
