//! Status counters kept per session, summed for SHOW GLOBAL STATUS.
//!
//! Each session owns a [`Counters`] block: the session's thread is its only
//! writer, so a bump is a relaxed load and store on memory no other thread
//! writes (no locked instruction, no shared cache line), which is what keeps
//! the counters always on at no measurable cost. Readers (SHOW GLOBAL STATUS,
//! the metrics endpoint) load the live blocks with relaxed loads while they
//! change; a sum may miss a bump in flight, as MariaDB's does.
//!
//! The [`StatusHub`] holds the live blocks and the totals of ended sessions:
//! a global value is those totals plus every live session's count. FLUSH STATUS
//! zeroes the flushing session's block and the ended sessions' totals, as
//! MariaDB's does (other sessions keep theirs).

pub mod com;
pub mod digests;
pub mod latency;
pub mod objects;
pub mod userstat;

use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

macro_rules! counters {
    ($($id:ident = $name:literal,)*) => {
        /// One status counter (its name is [`Stat::name`]).
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(u16)]
        pub enum Stat {
            $($id,)*
        }

        /// Counter names, indexed by [`Stat`].
        pub const NAMES: &[&str] = &[$($name,)*];

        /// Every counter, in [`NAMES`]' order.
        pub const ALL: &[Stat] = &[$(Stat::$id,)*];
    };
}

include!("list.rs");

/// How many counters a block has.
pub const COUNT: usize = NAMES.len();

impl Stat {
    pub fn name(self) -> &'static str {
        NAMES[self as usize]
    }

    /// The counter whose SHOW STATUS name is `name` (exact case).
    pub fn by_name(name: &str) -> Option<Stat> {
        let i = NAMES.iter().position(|n| *n == name)?;
        Some(ALL[i])
    }

    /// Counters SHOW SESSION STATUS shows the global value of, as MariaDB
    /// (the engine's row counts; `Queries`, which MariaDB takes from the
    /// server-wide query id; the table-lock counts, global in MariaDB).
    pub fn global_only(self) -> bool {
        self.name().starts_with("Innodb_")
            || matches!(
                self,
                Stat::Queries | Stat::TableLocksImmediate | Stat::TableLocksWaited
            )
    }
}

/// One session's counters.
pub struct Counters {
    v: [AtomicU64; COUNT],
    /// The last join run read its first table by key ranges (a sort of its
    /// rows is a `Sort_range`, else a `Sort_scan`).
    ranged: AtomicBool,
    /// Time spent running statements, in microseconds (USER_STATISTICS'
    /// BUSY_TIME).
    busy_us: AtomicU64,
    /// The client session's account and address (none for internal sessions).
    who: std::sync::OnceLock<userstat::Who>,
    /// The session's connection id.
    thread: u64,
}

impl Default for Counters {
    fn default() -> Self {
        Counters {
            v: std::array::from_fn(|_| AtomicU64::new(0)),
            ranged: AtomicBool::new(false),
            busy_us: AtomicU64::new(0),
            who: std::sync::OnceLock::new(),
            thread: 0,
        }
    }
}

impl Counters {
    /// Notes how the last join read its first table.
    #[inline]
    pub fn set_ranged_read(&self, ranged: bool) {
        self.ranged.store(ranged, Relaxed);
    }

    /// Whether the last join read its first table by key ranges.
    pub fn ranged_read(&self) -> bool {
        self.ranged.load(Relaxed)
    }

    /// Adds one (the owning session's thread only).
    #[inline]
    pub fn bump(&self, s: Stat) {
        self.add(s, 1);
    }

    /// Adds `n` (the owning session's thread only).
    #[inline]
    pub fn add(&self, s: Stat, n: u64) {
        let c = &self.v[s as usize];
        c.store(c.load(Relaxed).wrapping_add(n), Relaxed);
    }

    /// A statement ran for `us` microseconds (the owning session's thread only).
    #[inline]
    pub fn add_busy(&self, us: u64) {
        self.busy_us
            .store(self.busy_us.load(Relaxed).wrapping_add(us), Relaxed);
    }

    /// Takes one back (a statement counted before it turned out unparsable).
    #[inline]
    pub fn unbump(&self, s: Stat) {
        let c = &self.v[s as usize];
        c.store(c.load(Relaxed).saturating_sub(1), Relaxed);
    }

    pub fn get(&self, s: Stat) -> u64 {
        self.v[s as usize].load(Relaxed)
    }

    fn reset(&self) {
        for c in self.v.iter() {
            c.store(0, Relaxed);
        }
    }

    fn add_into(&self, totals: &mut [u64]) {
        for (t, c) in totals.iter_mut().zip(self.v.iter()) {
            *t = t.wrapping_add(c.load(Relaxed));
        }
    }
}

/// The live sessions' counters and the totals of ended ones.
#[derive(Default)]
pub struct StatusHub {
    inner: Mutex<Hub>,
    /// Per-table and per-index counts (TABLE_STATISTICS, INDEX_STATISTICS).
    pub objects: objects::ObjectHub,
    /// Ended sessions' counts per user and per client (USER_STATISTICS,
    /// CLIENT_STATISTICS).
    accounts: userstat::Accounts,
    /// Statement digests and events (performance_schema).
    pub digests: digests::DigestHub,
}

#[derive(Default)]
struct Hub {
    live: Vec<Option<Arc<Counters>>>,
    free: Vec<usize>,
    ended: Vec<u64>,
    /// When FLUSH STATUS last ran (`Uptime_since_flush_status`).
    flushed_at: Option<std::time::Instant>,
}

/// A session's place in the hub: its counters stay counted after it ends.
pub struct Slot {
    hub: Arc<StatusHub>,
    index: usize,
    pub counters: Arc<Counters>,
    object_index: usize,
    pub objects: Arc<objects::SessionObjects>,
    digest_index: usize,
    pub digests: Arc<digests::SessionDigests>,
}

impl StatusHub {
    /// Registers a new session's counters.
    pub fn join(self: &Arc<Self>, thread: u64) -> Slot {
        let counters = Arc::new(Counters {
            thread,
            ..Counters::default()
        });
        let mut h = self.inner.lock();
        let index = match h.free.pop() {
            Some(i) => {
                h.live[i] = Some(counters.clone());
                i
            }
            None => {
                h.live.push(Some(counters.clone()));
                h.live.len() - 1
            }
        };
        drop(h);
        let (object_index, objects) = self.objects.join();
        let (digest_index, digests) = self.digests.join(thread);
        Slot {
            hub: self.clone(),
            index,
            counters,
            object_index,
            objects,
            digest_index,
            digests,
        }
    }

    /// Every counter's global value, indexed by [`Stat`].
    pub fn totals(&self) -> Vec<u64> {
        let h = self.inner.lock();
        let mut t = h.ended.clone();
        t.resize(COUNT, 0);
        for c in h.live.iter().flatten() {
            c.add_into(&mut t);
        }
        t
    }

    /// One counter's global value.
    pub fn total(&self, s: Stat) -> u64 {
        let h = self.inner.lock();
        let ended = h.ended.get(s as usize).copied().unwrap_or(0);
        h.live
            .iter()
            .flatten()
            .fold(ended, |n, c| n.wrapping_add(c.get(s)))
    }

    /// Each live client session's connection id, user, client host and
    /// counters (performance_schema's per-thread and per-account tables).
    pub fn session_counts(&self) -> Vec<(u64, String, String, Vec<u64>)> {
        self.with_client_sessions(|live| {
            live.map(|(who, c)| {
                let mut v = vec![0; COUNT];
                c.add_into(&mut v);
                (c.thread, who.user.clone(), who.client.clone(), v)
            })
            .collect()
        })
    }

    /// FLUSH STATUS from the session owning `own`.
    pub fn flush(&self, own: &Counters) {
        own.reset();
        let mut h = self.inner.lock();
        h.ended.clear();
        h.flushed_at = Some(std::time::Instant::now());
    }

    /// When FLUSH STATUS last ran, if it did.
    pub fn flushed_at(&self) -> Option<std::time::Instant> {
        self.inner.lock().flushed_at
    }

    /// USER_STATISTICS (`Kind::User`) or CLIENT_STATISTICS rows by name.
    pub fn account_rows(
        &self,
        kind: userstat::Kind,
    ) -> std::collections::BTreeMap<String, userstat::Totals> {
        self.with_client_sessions(|live| self.accounts.rows(kind, live))
    }

    /// FLUSH USER_STATISTICS / CLIENT_STATISTICS.
    pub fn flush_accounts(&self, kind: userstat::Kind) {
        self.with_client_sessions(|live| self.accounts.flush(kind, live));
    }

    /// Runs `f` over the live client sessions (tagged at login) and their
    /// counters, under the hub's lock.
    fn with_client_sessions<T>(
        &self,
        f: impl for<'a> FnOnce(&mut dyn Iterator<Item = (&'a userstat::Who, &'a Counters)>) -> T,
    ) -> T {
        let h = self.inner.lock();
        let mut live = h
            .live
            .iter()
            .flatten()
            .filter_map(|c| Some((c.who.get()?, &**c)));
        f(&mut live)
    }
}

impl Slot {
    /// Tags a client session with its account and address (at login).
    pub fn identify(&self, user: &str, client: &str) {
        let who = userstat::Who::new(user, client);
        if self.counters.who.set(who).is_ok() {
            if let Some(who) = self.counters.who.get() {
                self.hub.accounts.login(who);
            }
        }
    }

    /// The session's connection uses TLS.
    pub fn mark_ssl(&self) {
        if let Some(who) = self.counters.who.get() {
            if !who.ssl.swap(true, Relaxed) {
                self.hub.accounts.ssl(who);
            }
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.hub.objects.leave(self.object_index);
        self.hub.digests.leave(self.digest_index);
        let mut h = self.hub.inner.lock();
        if h.ended.is_empty() {
            h.ended.resize(COUNT, 0);
        }
        let mut ended = std::mem::take(&mut h.ended);
        self.counters.add_into(&mut ended);
        h.ended = ended;
        if let Some(who) = self.counters.who.get() {
            self.hub.accounts.leave(who, &self.counters);
        }
        h.live[self.index] = None;
        h.free.push(self.index);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_sorted_and_found() {
        let mut sorted = NAMES.to_vec();
        sorted.sort_by_key(|n| n.to_ascii_lowercase());
        assert_eq!(sorted, NAMES);
        assert_eq!(Stat::by_name("Com_select"), Some(Stat::ComSelect));
        assert_eq!(Stat::ComSelect.name(), "Com_select");
        assert_eq!(Stat::by_name("Questions"), Some(Stat::Questions));
        assert_eq!(Stat::by_name("Nope"), None);
        assert!(Stat::InnodbRowsRead.global_only());
        assert!(!Stat::HandlerWrite.global_only());
    }

    #[test]
    fn totals_keep_ended_sessions_until_flushed() {
        let hub = Arc::new(StatusHub::default());
        let a = hub.join(1);
        let b = hub.join(1);
        a.counters.add(Stat::ComSelect, 3);
        b.counters.bump(Stat::ComSelect);
        assert_eq!(hub.total(Stat::ComSelect), 4);
        drop(b);
        assert_eq!(hub.totals()[Stat::ComSelect as usize], 4);
        let c = hub.join(1);
        c.counters.bump(Stat::ComInsert);
        assert_eq!(hub.total(Stat::ComInsert), 1);
        hub.flush(&a.counters);
        assert_eq!(hub.total(Stat::ComSelect), 0);
        assert_eq!(hub.total(Stat::ComInsert), 1);
        a.counters.unbump(Stat::ComSelect);
        assert_eq!(a.counters.get(Stat::ComSelect), 0);
    }
}
