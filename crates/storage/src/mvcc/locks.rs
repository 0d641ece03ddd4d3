//! Explicit row locks, taken by locking reads (`FOR SHARE`, `FOR UPDATE`, and the rows
//! UPDATE and DELETE visit).
//!
//! Writes lock implicitly: a record whose writer is still active is locked by that
//! writer. Explicit locks are only needed when a transaction locks a row it has not
//! (yet) written. A table counts its explicit locks, so writers consult this table
//! only while some exist.
//!
//! Invariant: a row has either one exclusive holder, or any number of shared holders.
//! A transaction may upgrade its own shared lock when it is the only holder.

use parking_lot::Mutex;
use std::collections::HashMap;
use std::hash::{BuildHasher, Hash};

const SHARDS: usize = 64;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LockKey {
    pub table: u64,
    pub key: Vec<u8>,
}

#[derive(Default, Debug)]
struct Entry {
    exclusive: Option<u64>,
    shared: Vec<u64>,
}

/// Outcome of [`LockTable::try_lock`].
#[derive(Debug, PartialEq, Eq)]
pub enum Acquire {
    /// Newly granted: the caller must remember to release it.
    Granted,
    /// Already held in a sufficient mode.
    AlreadyHeld,
    /// Held by this other transaction.
    Conflict(u64),
}

pub struct LockTable {
    shards: Vec<Mutex<HashMap<LockKey, Entry>>>,
    hasher: std::collections::hash_map::RandomState,
}

impl Default for LockTable {
    fn default() -> Self {
        LockTable {
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
            hasher: Default::default(),
        }
    }
}

impl LockTable {
    fn shard(&self, key: &LockKey) -> &Mutex<HashMap<LockKey, Entry>> {
        &self.shards[(self.hasher.hash_one(key) as usize) % SHARDS]
    }

    pub fn try_lock(&self, key: &LockKey, trx: u64, exclusive: bool) -> Acquire {
        let mut shard = self.shard(key).lock();
        let e = shard.entry(key.clone()).or_default();
        if let Some(x) = e.exclusive {
            return if x == trx {
                Acquire::AlreadyHeld
            } else {
                Acquire::Conflict(x)
            };
        }
        if exclusive {
            if let Some(&other) = e.shared.iter().find(|&&s| s != trx) {
                return Acquire::Conflict(other);
            }
            let upgrade = !e.shared.is_empty();
            e.shared.clear();
            e.exclusive = Some(trx);
            // An upgrade keeps the single registration the caller already has.
            return if upgrade {
                Acquire::AlreadyHeld
            } else {
                Acquire::Granted
            };
        }
        if e.shared.contains(&trx) {
            return Acquire::AlreadyHeld;
        }
        e.shared.push(trx);
        Acquire::Granted
    }

    /// The transaction (other than `trx`) holding a lock on `key` that conflicts
    /// with a write by `trx`, if any.
    pub fn write_conflict(&self, key: &LockKey, trx: u64) -> Option<u64> {
        let shard = self.shard(key).lock();
        let e = shard.get(key)?;
        match e.exclusive {
            Some(x) if x != trx => Some(x),
            Some(_) => None,
            None => e.shared.iter().copied().find(|&s| s != trx),
        }
    }

    pub fn release(&self, key: &LockKey, trx: u64) {
        let mut shard = self.shard(key).lock();
        if let Some(e) = shard.get_mut(key) {
            if e.exclusive == Some(trx) {
                e.exclusive = None;
            }
            e.shared.retain(|&s| s != trx);
            if e.exclusive.is_none() && e.shared.is_empty() {
                shard.remove(key);
            }
        }
    }

    /// Number of rows with at least one lock (for status output).
    pub fn locked_rows(&self) -> usize {
        self.shards.iter().map(|s| s.lock().len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_and_exclusive() {
        let t = LockTable::default();
        let k = LockKey {
            table: 1,
            key: vec![1],
        };
        assert_eq!(t.try_lock(&k, 1, false), Acquire::Granted);
        assert_eq!(t.try_lock(&k, 2, false), Acquire::Granted);
        assert_eq!(t.try_lock(&k, 3, true), Acquire::Conflict(1));
        t.release(&k, 1);
        assert_eq!(t.try_lock(&k, 2, true), Acquire::AlreadyHeld);
        assert_eq!(t.write_conflict(&k, 3), Some(2));
        assert_eq!(t.write_conflict(&k, 2), None);
        t.release(&k, 2);
        assert_eq!(t.locked_rows(), 0);
    }
}
