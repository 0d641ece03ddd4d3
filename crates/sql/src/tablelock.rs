//! Table locks (`LOCK TABLES`) and the global read lock (`FLUSH TABLES WITH READ
//! LOCK`), shared by every session.
//!
//! Semantics (MariaDB's, for what other sessions see):
//! - a READ lock on a table lets other sessions read it; their writes wait;
//! - a WRITE lock makes other sessions' reads and writes of the table wait;
//! - the global read lock makes every write statement of other sessions wait, and
//!   the COMMIT of their transactions that changed rows; it is granted once no
//!   other session holds a WRITE table lock or is running a write statement;
//! - waits end after `lock_wait_timeout` seconds with 1205, or with 1317 on KILL.
//!
//! What the holding session itself may do is checked by the session
//! (`session::locks`), not here.
//!
//! Cost when no session holds a lock: a read statement does one atomic load; a
//! write statement two atomic read-modify-writes (its entry in `in_flight`, which
//! is what the global read lock waits for). The registry mutex is only taken while
//! some session holds a lock.
//!
//! Invariant closing the race between a writer and a global read lock being
//! taken: a writer announces itself in `in_flight` *before* it reads `holders`;
//! the global read lock is announced in `holders` *before* it waits for
//! `in_flight` to drain (both sequentially consistent). So either the writer sees
//! the lock and backs off to wait, or the lock sees the writer and waits for it.

use basalt_common::MySqlError;
use parking_lot::{Condvar, Mutex};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Read,
    Write,
}

/// `(database, table)`, lower-cased.
pub type Key = (String, String);

pub fn key(db: &str, table: &str) -> Key {
    (db.to_ascii_lowercase(), table.to_ascii_lowercase())
}

#[derive(Default)]
struct Holders {
    readers: HashMap<u64, usize>,
    writer: Option<u64>,
}

#[derive(Default)]
struct State {
    tables: HashMap<Key, Holders>,
    global_read: HashSet<u64>,
}

impl State {
    fn blocks_access(&self, conn: u64, k: &Key, write: bool) -> bool {
        match self.tables.get(k) {
            None => false,
            Some(h) => {
                h.writer.is_some_and(|w| w != conn)
                    || (write && h.readers.keys().any(|r| *r != conn))
            }
        }
    }

    fn global_read_by_other(&self, conn: u64) -> bool {
        self.global_read.iter().any(|c| *c != conn)
    }

    fn grantable(&self, conn: u64, wants: &[(Key, Mode)]) -> bool {
        wants.iter().all(|(k, m)| match m {
            Mode::Read => self
                .tables
                .get(k)
                .is_none_or(|h| h.writer.is_none_or(|w| w == conn)),
            Mode::Write => !self.blocks_access(conn, k, true) && !self.global_read_by_other(conn),
        })
    }

    fn other_writer_locks(&self, conn: u64) -> bool {
        self.tables
            .values()
            .any(|h| h.writer.is_some_and(|w| w != conn))
    }
}

/// Shards of the in-flight writer count (by connection id), so concurrent writers
/// do not contend on one cache line.
const SHARDS: usize = 16;

#[repr(align(64))]
#[derive(Default)]
struct Shard(AtomicUsize);

pub struct TableLocks {
    /// Sessions holding a table lock or the global read lock (or taking one).
    holders: AtomicUsize,
    /// Write statements running now, sharded.
    in_flight: [Shard; SHARDS],
    state: Mutex<State>,
    changed: Condvar,
}

/// How long to wait, and the flag that KILL QUERY sets.
pub struct Wait<'a> {
    pub timeout: Duration,
    pub interrupt: &'a AtomicBool,
}

/// A statement admitted by [`TableLocks::fast`] or [`TableLocks::enter`]; give it
/// back to [`TableLocks::leave`] when the statement (and its commit) is over.
#[must_use]
#[derive(Debug, Default)]
pub struct Entered {
    /// The in-flight shard a write statement counted itself in.
    shard: Option<usize>,
}

impl Default for TableLocks {
    fn default() -> Self {
        TableLocks {
            holders: AtomicUsize::new(0),
            in_flight: Default::default(),
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
        }
    }
}

impl TableLocks {
    fn shard(conn: u64) -> usize {
        (conn as usize) % SHARDS
    }

    fn writers_in_flight(&self) -> usize {
        self.in_flight
            .iter()
            .map(|s| s.0.load(Ordering::SeqCst))
            .sum()
    }

    /// Admits a statement without the registry when no session holds a lock
    /// (the common case); `None` means [`TableLocks::enter`] must decide.
    #[inline]
    pub fn fast(&self, conn: u64, write: bool) -> Option<Entered> {
        if !write {
            return (self.holders.load(Ordering::SeqCst) == 0).then(Entered::default);
        }
        let i = Self::shard(conn);
        self.in_flight[i].0.fetch_add(1, Ordering::SeqCst);
        if self.holders.load(Ordering::SeqCst) == 0 {
            return Some(Entered { shard: Some(i) });
        }
        self.in_flight[i].0.fetch_sub(1, Ordering::SeqCst);
        None
    }

    /// Ends what [`TableLocks::fast`] / [`TableLocks::enter`] admitted.
    #[inline]
    pub fn leave(&self, e: Entered) {
        if let Some(i) = e.shard {
            self.in_flight[i].0.fetch_sub(1, Ordering::SeqCst);
            if self.holders.load(Ordering::SeqCst) > 0 {
                let _g = self.state.lock();
                self.changed.notify_all();
            }
        }
    }

    /// Waits on the condition variable until `ready` holds; 1205 / 1317 otherwise.
    fn wait_until(
        &self,
        st: &mut parking_lot::MutexGuard<'_, State>,
        w: &Wait<'_>,
        mut ready: impl FnMut(&State) -> bool,
    ) -> Result<(), MySqlError> {
        let deadline = Instant::now() + w.timeout;
        while !ready(st) {
            if w.interrupt.load(Ordering::Relaxed) {
                return Err(MySqlError::query_interrupted());
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(MySqlError::lock_wait_timeout());
            }
            // Wake up now and then to notice KILL QUERY.
            let slice = (deadline - now).min(Duration::from_millis(100));
            basalt_common::wait::lock_waiting(|| self.changed.wait_for(st, slice));
        }
        Ok(())
    }

    /// LOCK TABLES for `conn` (which holds no table lock: the caller released
    /// them first).
    pub fn lock_tables(
        &self,
        conn: u64,
        wants: &[(Key, Mode)],
        w: &Wait<'_>,
    ) -> Result<(), MySqlError> {
        self.holders.fetch_add(1, Ordering::SeqCst);
        let mut st = self.state.lock();
        if let Err(e) = self.wait_until(&mut st, w, |s| s.grantable(conn, wants)) {
            drop(st);
            self.holders.fetch_sub(1, Ordering::SeqCst);
            return Err(e);
        }
        for (k, m) in wants {
            let h = st.tables.entry(k.clone()).or_default();
            match m {
                Mode::Read => *h.readers.entry(conn).or_default() += 1,
                Mode::Write => h.writer = Some(conn),
            }
        }
        Ok(())
    }

    /// FLUSH TABLES WITH READ LOCK for `conn`.
    pub fn lock_global_read(&self, conn: u64, w: &Wait<'_>) -> Result<(), MySqlError> {
        self.holders.fetch_add(1, Ordering::SeqCst);
        let mut st = self.state.lock();
        let r = self.wait_until(&mut st, w, |s| {
            !s.other_writer_locks(conn) && self.writers_in_flight() == 0
        });
        if let Err(e) = r {
            drop(st);
            self.holders.fetch_sub(1, Ordering::SeqCst);
            self.changed.notify_all();
            return Err(e);
        }
        st.global_read.insert(conn);
        Ok(())
    }

    /// Releases the table locks of `conn` (`tables`) and / or its global read lock
    /// (`global`); `taken` is how many registrations (`lock_tables` /
    /// `lock_global_read` calls) this gives back.
    pub fn release(&self, conn: u64, tables: bool, global: bool, taken: usize) {
        let mut st = self.state.lock();
        if tables {
            st.tables.retain(|_, h| {
                h.readers.remove(&conn);
                if h.writer == Some(conn) {
                    h.writer = None;
                }
                !h.readers.is_empty() || h.writer.is_some()
            });
        }
        if global {
            st.global_read.remove(&conn);
        }
        self.holders.fetch_sub(taken, Ordering::SeqCst);
        self.changed.notify_all();
    }

    /// Waits until `conn` may read (`false`) or write each table of `access`
    /// without breaking another session's lock; for a write statement
    /// (`write_stmt`), also until no other session holds the global read lock.
    pub fn enter(
        &self,
        conn: u64,
        access: &[(Key, bool)],
        write_stmt: bool,
        w: &Wait<'_>,
    ) -> Result<Entered, MySqlError> {
        let mut st = self.state.lock();
        self.wait_until(&mut st, w, |s| {
            !(write_stmt && s.global_read_by_other(conn))
                && access.iter().all(|(k, wr)| !s.blocks_access(conn, k, *wr))
        })?;
        if !write_stmt {
            return Ok(Entered::default());
        }
        // Still under the mutex: a global read lock being granted sees it.
        let i = Self::shard(conn);
        self.in_flight[i].0.fetch_add(1, Ordering::SeqCst);
        Ok(Entered { shard: Some(i) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn wait(ms: u64) -> Wait<'static> {
        static NO: AtomicBool = AtomicBool::new(false);
        Wait {
            timeout: Duration::from_millis(ms),
            interrupt: &NO,
        }
    }

    fn admit(
        l: &TableLocks,
        conn: u64,
        access: &[(Key, bool)],
        write: bool,
        ms: u64,
    ) -> Result<Entered, MySqlError> {
        match l.fast(conn, write) {
            Some(e) => Ok(e),
            None => l.enter(conn, access, write, &wait(ms)),
        }
    }

    #[test]
    fn write_lock_blocks_other_readers_until_released() {
        let locks = Arc::new(TableLocks::default());
        let t = key("d", "t");
        locks
            .lock_tables(1, &[(t.clone(), Mode::Write)], &wait(10))
            .expect("granted");
        let read = [(t.clone(), false)];
        let e = admit(&locks, 2, &read, false, 50).expect_err("waits");
        assert_eq!(e.code, 1205);
        locks.leave(admit(&locks, 1, &read, false, 50).expect("holder reads"));
        let l2 = locks.clone();
        let h = std::thread::spawn(move || {
            let read = [(key("d", "t"), false)];
            admit(&l2, 2, &read, false, 5_000)
                .map(|e| l2.leave(e))
                .is_ok()
        });
        std::thread::sleep(Duration::from_millis(50));
        locks.release(1, true, false, 1);
        assert!(h.join().expect("thread"));
    }

    #[test]
    fn global_read_lock_waits_for_writers_and_blocks_new_ones() {
        let locks = TableLocks::default();
        let writer = admit(&locks, 1, &[], true, 10).expect("write");
        let e = locks.lock_global_read(2, &wait(50)).expect_err("waits");
        assert_eq!(e.code, 1205);
        locks.leave(writer);
        locks.lock_global_read(2, &wait(50)).expect("granted");
        assert_eq!(
            admit(&locks, 1, &[], true, 50).err().map(|e| e.code),
            Some(1205)
        );
        locks.leave(admit(&locks, 1, &[], false, 50).expect("reads go on"));
        locks.release(2, true, true, 1);
        locks.leave(admit(&locks, 1, &[], true, 50).expect("writes again"));
    }
}
