//! The plan cache: plans keyed by (current database, literal-stripped text).
//!
//! An entry records the storage schema version it was planned against; a lookup
//! with another version is a miss (any DDL bumps the version, and table handles in
//! plans are replaced by DDL). Entries for texts that cannot be planned generically
//! are cached too, as `plan: None`, so the session goes straight to the full parse.
//! Sharded by key hash so concurrent sessions rarely touch the same lock.

use super::Plan;
use parking_lot::RwLock;
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

const SHARDS: usize = 16;
const MAX_PER_SHARD: usize = 512;

pub struct CacheEntry {
    pub plan: Option<Arc<Plan>>,
    pub schema_version: u64,
}

pub struct PlanCache {
    shards: Vec<RwLock<HashMap<String, Arc<CacheEntry>>>>,
    hits: AtomicU64,
    misses: AtomicU64,
}

impl Default for PlanCache {
    fn default() -> Self {
        Self::new()
    }
}

fn full_key(db: Option<&str>, key: &str) -> String {
    let db = db.unwrap_or("");
    let mut k = String::with_capacity(db.len() + key.len() + 1);
    k.push_str(db);
    k.push('\0');
    k.push_str(key);
    k
}

impl PlanCache {
    pub fn new() -> Self {
        PlanCache {
            shards: (0..SHARDS).map(|_| RwLock::new(HashMap::new())).collect(),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    fn shard(&self, key: &str) -> &RwLock<HashMap<String, Arc<CacheEntry>>> {
        let mut h = DefaultHasher::new();
        key.hash(&mut h);
        &self.shards[(h.finish() as usize) % SHARDS]
    }

    /// The entry for `key`, if it was planned against `schema_version`.
    pub fn get(&self, db: Option<&str>, key: &str, schema_version: u64) -> Option<Arc<CacheEntry>> {
        let k = full_key(db, key);
        let e = self.shard(&k).read().get(&k).cloned();
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

    pub fn insert(&self, db: Option<&str>, key: &str, entry: CacheEntry) {
        let k = full_key(db, key);
        let mut shard = self.shard(&k).write();
        if shard.len() >= MAX_PER_SHARD {
            shard.clear();
        }
        shard.insert(k, Arc::new(entry));
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
        self.shards.iter().map(|s| s.read().len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_mismatch_is_a_miss() {
        let c = PlanCache::new();
        c.insert(
            Some("db"),
            "select ?i",
            CacheEntry {
                plan: None,
                schema_version: 3,
            },
        );
        assert!(c.get(Some("db"), "select ?i", 3).is_some());
        assert!(c.get(Some("db"), "select ?i", 4).is_none());
        assert!(c.get(Some("other"), "select ?i", 3).is_none());
        assert_eq!(c.len(), 1);
    }
}
