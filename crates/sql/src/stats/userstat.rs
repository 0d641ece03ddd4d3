//! Per-account and per-client statistics (information_schema USER_STATISTICS
//! and CLIENT_STATISTICS, MariaDB's `userstat` tables), always collected.
//!
//! They are views of the status counters the sessions already keep: a client
//! session is tagged with its user and client address when it logs in
//! ([`Who`]), and a reader groups the live sessions' counters by those, plus the
//! totals of ended sessions, which a session adds to its user's and its
//! client's entries when it ends. Nothing is counted twice on the statement
//! path: the only addition there is the session's busy time, one relaxed
//! store. FLUSH USER_STATISTICS (CLIENT_STATISTICS) empties the ended totals
//! and moves every live session's baseline for that table to its current
//! counts, so both start again from zero as MariaDB's do.

use super::{Counters, Stat, COUNT};
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::Instant;

/// Which of the two tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    User = 0,
    Client = 1,
}

/// A client session's account and address, set once at login.
pub struct Who {
    pub user: String,
    pub client: String,
    pub ssl: AtomicBool,
    /// Per table: the counts and busy time when it was last flushed, and when.
    base: [Mutex<Base>; 2],
}

#[derive(Clone)]
struct Base {
    counts: Vec<u64>,
    busy_us: u64,
    since: Instant,
}

impl Who {
    pub fn new(user: &str, client: &str) -> Who {
        let base = Base {
            counts: vec![0; COUNT],
            busy_us: 0,
            since: Instant::now(),
        };
        Who {
            user: user.to_string(),
            client: client.to_string(),
            ssl: AtomicBool::new(false),
            base: [Mutex::new(base.clone()), Mutex::new(base)],
        }
    }

    fn key(&self, kind: Kind) -> &str {
        match kind {
            Kind::User => &self.user,
            Kind::Client => &self.client,
        }
    }
}

/// One row's counts.
#[derive(Clone, Debug, PartialEq)]
pub struct Totals {
    pub counts: Vec<u64>,
    pub connections: u64,
    pub ssl_connections: u64,
    /// Sessions connected now.
    pub concurrent: u64,
    pub connected_secs: u64,
    pub busy_us: u64,
}

impl Default for Totals {
    fn default() -> Self {
        Totals {
            counts: vec![0; COUNT],
            connections: 0,
            ssl_connections: 0,
            concurrent: 0,
            connected_secs: 0,
            busy_us: 0,
        }
    }
}

impl Totals {
    pub fn get(&self, s: Stat) -> u64 {
        self.counts[s as usize]
    }

    /// Adds a session's counts since `base`.
    fn add_session(&mut self, c: &Counters, base: &Base) {
        for (i, t) in self.counts.iter_mut().enumerate() {
            let now = c.v[i].load(Relaxed);
            *t = t.wrapping_add(now.saturating_sub(base.counts[i]));
        }
        self.busy_us += c.busy_us.load(Relaxed).saturating_sub(base.busy_us);
        self.connected_secs += base.since.elapsed().as_secs();
    }
}

/// The ended sessions' totals and the logins, per user and per client.
#[derive(Default)]
pub struct Accounts {
    maps: Mutex<[BTreeMap<String, Totals>; 2]>,
}

impl Accounts {
    /// A session of `who` logged in.
    pub(super) fn login(&self, who: &Who) {
        let mut maps = self.maps.lock();
        for kind in [Kind::User, Kind::Client] {
            let t = maps[kind as usize]
                .entry(who.key(kind).to_string())
                .or_default();
            t.connections += 1;
        }
    }

    /// The session was found to use TLS (after its login was counted).
    pub(super) fn ssl(&self, who: &Who) {
        let mut maps = self.maps.lock();
        for kind in [Kind::User, Kind::Client] {
            let t = maps[kind as usize]
                .entry(who.key(kind).to_string())
                .or_default();
            t.ssl_connections += 1;
        }
    }

    /// A session ends: its counts join its user's and client's totals.
    pub(super) fn leave(&self, who: &Who, c: &Counters) {
        let mut maps = self.maps.lock();
        for kind in [Kind::User, Kind::Client] {
            let base = who.base[kind as usize].lock();
            let t = maps[kind as usize]
                .entry(who.key(kind).to_string())
                .or_default();
            t.add_session(c, &base);
        }
    }

    /// The rows of one table: the ended totals plus the live sessions'.
    pub(super) fn rows<'a>(
        &self,
        kind: Kind,
        live: impl Iterator<Item = (&'a Who, &'a Counters)>,
    ) -> BTreeMap<String, Totals> {
        let mut out = self.maps.lock()[kind as usize].clone();
        for (who, c) in live {
            let base = who.base[kind as usize].lock();
            let t = out.entry(who.key(kind).to_string()).or_default();
            t.add_session(c, &base);
            t.concurrent += 1;
        }
        out
    }

    /// FLUSH USER_STATISTICS / CLIENT_STATISTICS.
    pub(super) fn flush<'a>(
        &self,
        kind: Kind,
        live: impl Iterator<Item = (&'a Who, &'a Counters)>,
    ) {
        self.maps.lock()[kind as usize].clear();
        for (who, c) in live {
            let mut base = who.base[kind as usize].lock();
            base.counts = c.v.iter().map(|v| v.load(Relaxed)).collect();
            base.busy_us = c.busy_us.load(Relaxed);
            base.since = Instant::now();
        }
    }
}

/// Statements that change data (MariaDB's UPDATE_COMMANDS).
const UPDATES: &[Stat] = &[
    Stat::ComInsert,
    Stat::ComInsertSelect,
    Stat::ComUpdate,
    Stat::ComUpdateMulti,
    Stat::ComDelete,
    Stat::ComDeleteMulti,
    Stat::ComReplace,
    Stat::ComReplaceSelect,
    Stat::ComLoad,
];

/// (SELECT_COMMANDS, UPDATE_COMMANDS, OTHER_COMMANDS) of a row: the other
/// commands are the rest of the statements the sessions ran.
pub fn commands(t: &Totals) -> (u64, u64, u64) {
    let select = t.get(Stat::ComSelect);
    let update: u64 = UPDATES.iter().map(|s| t.get(*s)).sum();
    let other = t.get(Stat::Questions).saturating_sub(select + update);
    (select, update, other)
}
