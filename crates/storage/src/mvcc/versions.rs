//! The version store: before-images of rows, reachable from newer record versions
//! through their undo pointers.
//!
//! Invariants:
//! - A version is inserted before the record pointing at it becomes visible (the
//!   insert happens inside the store's `modify` closure, under the entry latch).
//! - A version is removed only by purge, once every open read view sees the
//!   transaction that superseded it, so no reader can still need it.

use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

const SHARDS: usize = 64;

/// Previous record bytes (header included), or `None` when the row did not exist.
pub type VersionBytes = Option<Vec<u8>>;

pub struct VersionStore {
    next: AtomicU64,
    shards: Vec<Mutex<HashMap<u64, VersionBytes>>>,
    bytes: AtomicUsize,
    count: AtomicUsize,
}

impl Default for VersionStore {
    fn default() -> Self {
        VersionStore {
            next: AtomicU64::new(1),
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
            bytes: AtomicUsize::new(0),
            count: AtomicUsize::new(0),
        }
    }
}

impl VersionStore {
    /// Reserves a fresh, never-used pointer (never 0).
    pub fn allocate(&self) -> u64 {
        self.next.fetch_add(1, Ordering::Relaxed)
    }

    fn shard(&self, ptr: u64) -> &Mutex<HashMap<u64, VersionBytes>> {
        &self.shards[(ptr as usize) % SHARDS]
    }

    pub fn insert(&self, ptr: u64, version: VersionBytes) {
        let size = version.as_ref().map_or(0, |v| v.len()) + 32;
        self.bytes.fetch_add(size, Ordering::Relaxed);
        self.count.fetch_add(1, Ordering::Relaxed);
        self.shard(ptr).lock().insert(ptr, version);
    }

    /// The version behind `ptr`; the outer `None` means it is unknown (purged or
    /// from before a restart).
    pub fn get(&self, ptr: u64) -> Option<VersionBytes> {
        self.shard(ptr).lock().get(&ptr).cloned()
    }

    pub fn remove(&self, ptr: u64) {
        if let Some(v) = self.shard(ptr).lock().remove(&ptr) {
            let size = v.as_ref().map_or(0, |v| v.len()) + 32;
            self.bytes.fetch_sub(size, Ordering::Relaxed);
            self.count.fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// (number of versions held, approximate bytes).
    pub fn usage(&self) -> (usize, usize) {
        (
            self.count.load(Ordering::Relaxed),
            self.bytes.load(Ordering::Relaxed),
        )
    }
}
