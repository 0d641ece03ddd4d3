//! Explicit row and gap locks.
//!
//! Writes lock implicitly: a record whose writer is still active is locked by that
//! writer. Explicit locks are only needed when a transaction locks a row it has not
//! (yet) written (locking reads, the rows UPDATE and DELETE visit), and for gaps.
//!
//! A lock names one entry of one index tree ([`LockKey`]); the gap "before" an entry
//! is the open interval between it and the entry preceding it in that tree, and each
//! tree has a supremum key standing for the gap after its last entry. Modes:
//! - record locks, shared or exclusive: a row has either one exclusive holder or any
//!   number of shared holders; a transaction may upgrade its own shared lock when it
//!   is the only holder (there is no queue of waiting requests: a waiter retries
//!   when the holder it waits for ends);
//! - gap locks: any number of holders, never in conflict with each other; they only
//!   stop other transactions from inserting into the gap ([`LockTable::gap_holder`],
//!   InnoDB's insert intention). A next-key lock is a record lock plus the gap lock
//!   on the same key.
//!
//! A table counts its explicit record locks and gap locks, so writers consult this
//! table only while some exist.

use parking_lot::Mutex;
use std::collections::HashMap;
use std::hash::BuildHasher;

const SHARDS: usize = 64;

/// Marks a [`LockKey::tree`] as the supremum of the tree in its low bits.
const SUPREMUM: u32 = 1 << 31;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LockKey {
    pub table: u64,
    pub tree: u32,
    pub key: Vec<u8>,
}

impl LockKey {
    pub fn new(table: u64, tree: u32, key: &[u8]) -> LockKey {
        LockKey {
            table,
            tree,
            key: key.to_vec(),
        }
    }

    /// The key standing for the gap after the last entry of `tree`.
    pub fn supremum(table: u64, tree: u32) -> LockKey {
        LockKey {
            table,
            tree: tree | SUPREMUM,
            key: Vec::new(),
        }
    }

    /// The index tree this key is in (for a lock wait's report).
    pub fn place(&self) -> super::trx_info::WaitPlace {
        super::trx_info::WaitPlace {
            table: self.table,
            tree: self.tree & !SUPREMUM,
        }
    }

    /// Approximate heap and inline bytes of this key.
    fn bytes(&self) -> usize {
        std::mem::size_of::<LockKey>() + self.key.capacity()
    }
}

#[derive(Default, Debug)]
struct Entry {
    exclusive: Option<u64>,
    shared: Vec<u64>,
    gap: Vec<u64>,
}

impl Entry {
    fn is_empty(&self) -> bool {
        self.exclusive.is_none() && self.shared.is_empty() && self.gap.is_empty()
    }

    fn bytes(&self) -> usize {
        std::mem::size_of::<Entry>() + 8 * (self.shared.capacity() + self.gap.capacity())
    }
}

/// Outcome of [`LockTable::try_lock`].
#[derive(Debug, PartialEq, Eq)]
pub enum Acquire {
    /// Newly granted: the caller must remember to release it.
    Granted,
    /// Already held in a sufficient mode.
    AlreadyHeld,
    /// Held in a conflicting mode by these other transactions (never empty).
    Conflict(Vec<u64>),
}

/// The kind of an explicit lock a transaction remembers to release.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockKind {
    Record,
    Gap,
}

type Shard = Mutex<HashMap<LockKey, Entry, foldhash::fast::RandomState>>;

pub struct LockTable {
    shards: Vec<Shard>,
    hasher: foldhash::fast::RandomState,
}

impl Default for LockTable {
    fn default() -> Self {
        LockTable {
            shards: (0..SHARDS)
                .map(|_| Mutex::new(HashMap::default()))
                .collect(),
            hasher: Default::default(),
        }
    }
}

impl LockTable {
    fn shard(&self, key: &LockKey) -> &Shard {
        &self.shards[(self.hasher.hash_one(key) as usize) % SHARDS]
    }

    /// Requests a record lock.
    pub fn try_lock(&self, key: &LockKey, trx: u64, exclusive: bool) -> Acquire {
        let mut shard = self.shard(key).lock();
        let e = shard.entry(key.clone()).or_default();
        if let Some(x) = e.exclusive {
            return if x == trx {
                Acquire::AlreadyHeld
            } else {
                Acquire::Conflict(vec![x])
            };
        }
        if exclusive {
            let others: Vec<u64> = e.shared.iter().copied().filter(|&s| s != trx).collect();
            if !others.is_empty() {
                return Acquire::Conflict(others);
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

    /// Takes a gap lock (always compatible); true if newly granted.
    pub fn lock_gap(&self, key: &LockKey, trx: u64) -> bool {
        let mut shard = self.shard(key).lock();
        let e = shard.entry(key.clone()).or_default();
        if e.gap.contains(&trx) {
            return false;
        }
        e.gap.push(trx);
        true
    }

    /// A transaction other than `trx` holding the gap before `key` (insert intention).
    pub fn gap_holder(&self, key: &LockKey, trx: u64) -> Option<u64> {
        let shard = self.shard(key).lock();
        shard.get(key)?.gap.iter().copied().find(|&g| g != trx)
    }

    /// True if anyone holds the gap before `key` (purge keeps such entries).
    pub fn has_gap(&self, key: &LockKey) -> bool {
        let shard = self.shard(key).lock();
        shard.get(key).is_some_and(|e| !e.gap.is_empty())
    }

    /// The transaction (other than `trx`) holding a record lock on `key` that
    /// conflicts with a write by `trx`, if any.
    pub fn write_conflict(&self, key: &LockKey, trx: u64) -> Option<u64> {
        let shard = self.shard(key).lock();
        let e = shard.get(key)?;
        match e.exclusive {
            Some(x) if x != trx => Some(x),
            Some(_) => None,
            None => e.shared.iter().copied().find(|&s| s != trx),
        }
    }

    /// Releases `trx`'s lock of `kind` on `key`.
    pub fn release(&self, key: &LockKey, trx: u64, kind: LockKind) {
        let mut shard = self.shard(key).lock();
        if let Some(e) = shard.get_mut(key) {
            match kind {
                LockKind::Record => {
                    if e.exclusive == Some(trx) {
                        e.exclusive = None;
                    }
                    e.shared.retain(|&s| s != trx);
                }
                LockKind::Gap => e.gap.retain(|&g| g != trx),
            }
            if e.is_empty() {
                shard.remove(key);
            }
        }
    }

    /// Number of keys with at least one lock (for status output).
    pub fn locked_rows(&self) -> usize {
        self.shards.iter().map(|s| s.lock().len()).sum()
    }

    /// Approximate bytes held by the table's entries (keys, holder lists and the
    /// hash tables' slots).
    pub fn memory_bytes(&self) -> usize {
        self.shards
            .iter()
            .map(|s| {
                let s = s.lock();
                let slots = s.capacity() * (std::mem::size_of::<(LockKey, Entry)>() + 1);
                slots
                    + s.iter()
                        .map(|(k, e)| {
                            k.bytes() + e.bytes() - std::mem::size_of::<(LockKey, Entry)>()
                        })
                        .sum::<usize>()
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(b: u8) -> LockKey {
        LockKey::new(1, 1, &[b])
    }

    #[test]
    fn shared_and_exclusive() {
        let t = LockTable::default();
        let k = k(1);
        assert_eq!(t.try_lock(&k, 1, false), Acquire::Granted);
        assert_eq!(t.try_lock(&k, 2, false), Acquire::Granted);
        assert_eq!(t.try_lock(&k, 3, true), Acquire::Conflict(vec![1, 2]));
        t.release(&k, 1, LockKind::Record);
        assert_eq!(t.try_lock(&k, 2, true), Acquire::AlreadyHeld);
        assert_eq!(t.write_conflict(&k, 3), Some(2));
        assert_eq!(t.write_conflict(&k, 2), None);
        t.release(&k, 2, LockKind::Record);
        assert_eq!(t.locked_rows(), 0);
    }

    #[test]
    fn gaps_are_compatible_and_block_inserts() {
        let t = LockTable::default();
        let g = k(5);
        assert!(t.lock_gap(&g, 1));
        assert!(t.lock_gap(&g, 2));
        assert!(!t.lock_gap(&g, 2));
        assert_eq!(t.gap_holder(&g, 1), Some(2));
        assert_eq!(t.gap_holder(&g, 3), Some(1));
        // A gap lock is not a record lock.
        assert_eq!(t.write_conflict(&g, 3), None);
        assert_eq!(t.try_lock(&g, 3, true), Acquire::Granted);
        t.release(&g, 1, LockKind::Gap);
        t.release(&g, 2, LockKind::Gap);
        assert_eq!(t.gap_holder(&g, 3), None);
        assert!(!t.has_gap(&g));
        t.release(&g, 3, LockKind::Record);
        assert_eq!(t.locked_rows(), 0);
        let sup = LockKey::supremum(1, 1);
        assert_ne!(sup, LockKey::new(1, 1, &[]));
    }
}
