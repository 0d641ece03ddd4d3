//! The plan cache: plans keyed by (current database, literal-stripped text).
//!
//! An entry records the storage schema version it was planned against; a lookup
//! with another version is a miss (any DDL bumps the version, and table handles in
//! plans are replaced by DDL). Entries for texts that cannot be planned generically
//! are cached too, as `plan: None`, so the session goes straight to the full parse.
//! Sharded by key hash so concurrent sessions rarely touch the same lock.

use super::Plan;
use parking_lot::RwLock;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

const SHARDS: usize = 16;
const MAX_PER_SHARD: usize = 512;

pub struct CacheEntry {
    pub plan: Option<Arc<Plan>>,
    pub schema_version: u64,
    /// The statements' digest id (see `stats::digests`).
    pub digest: u32,
}

/// FxHash: plenty for keys that come from our own sessions, and much cheaper than
/// SipHash on the hot path.
#[derive(Default, Clone, Copy)]
pub struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(w))
                .wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

pub type Fx = BuildHasherDefault<FxHasher>;
type Entries = HashMap<String, Arc<CacheEntry>, Fx>;
/// scope → key → entry.
type Shard = HashMap<String, Entries, Fx>;

pub struct PlanCache {
    shards: Vec<RwLock<Shard>>,
    hits: AtomicU64,
    misses: AtomicU64,
}

impl Default for PlanCache {
    fn default() -> Self {
        Self::new()
    }
}

impl PlanCache {
    pub fn new() -> Self {
        PlanCache {
            shards: (0..SHARDS)
                .map(|_| RwLock::new(HashMap::default()))
                .collect(),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    fn shard(&self, key: &str) -> &RwLock<Shard> {
        let mut h = FxHasher::default();
        h.write(key.as_bytes());
        &self.shards[(h.finish() as usize) % SHARDS]
    }

    /// The entry for `key` in `scope`, if it was planned against `schema_version`.
    pub fn get(&self, scope: &str, key: &str, schema_version: u64) -> Option<Arc<CacheEntry>> {
        let e = self
            .shard(key)
            .read()
            .get(scope)
            .and_then(|m| m.get(key))
            .cloned();
        match e {
            Some(e) if e.schema_version == schema_version => {
                if e.plan.is_some() {
                    self.hits.fetch_add(1, Ordering::Relaxed);
                }
                Some(e)
            }
            _ => {
                self.misses.fetch_add(1, Ordering::Relaxed);
                None
            }
        }
    }

    pub fn insert(&self, scope: &str, key: &str, entry: CacheEntry) {
        let mut shard = self.shard(key).write();
        if shard.values().map(HashMap::len).sum::<usize>() >= MAX_PER_SHARD {
            shard.clear();
        }
        shard
            .entry(scope.to_string())
            .or_default()
            .insert(key.to_string(), Arc::new(entry));
    }

    pub fn clear(&self) {
        for s in &self.shards {
            s.write().clear();
        }
    }

    /// (lookups that found a reusable plan, lookups that missed).
    pub fn stats(&self) -> (u64, u64) {
        (
            self.hits.load(Ordering::Relaxed),
            self.misses.load(Ordering::Relaxed),
        )
    }

    pub fn len(&self) -> usize {
        self.shards
            .iter()
            .map(|s| s.read().values().map(HashMap::len).sum::<usize>())
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_mismatch_is_a_miss() {
        let c = PlanCache::new();
        c.insert(
            "db",
            "select ?i",
            CacheEntry {
                plan: None,
                schema_version: 3,
                digest: 0,
            },
        );
        assert!(c.get("db", "select ?i", 3).is_some());
        assert!(c.get("db", "select ?i", 4).is_none());
        assert!(c.get("other", "select ?i", 3).is_none());
        assert_eq!(c.len(), 1);
    }
}
