//! The MEMORY engine's store: one ordered map per tree, each under its own
//! reader-writer lock. Nothing is logged or written to disk.

use crate::api::Result;
use crate::store::{Entry, Modify, Store, TreeId, WriteCtx};
use parking_lot::RwLock;
use std::collections::{BTreeMap, HashMap};
use std::ops::Bound;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

type Tree = Arc<RwLock<BTreeMap<Vec<u8>, Vec<u8>>>>;

#[derive(Default)]
pub struct MemStore {
    trees: RwLock<HashMap<TreeId, Tree>>,
    bytes: AtomicI64,
}

impl MemStore {
    fn tree(&self, id: TreeId) -> Result<Tree> {
        self.trees
            .read()
            .get(&id)
            .cloned()
            .ok_or_else(|| crate::StorageError::Invalid(format!("no tree {id}")))
    }
}

impl Store for MemStore {
    fn create_tree(&self, tree: TreeId) -> Result<()> {
        self.trees.write().entry(tree).or_default();
        Ok(())
    }

    fn drop_tree(&self, tree: TreeId) -> Result<()> {
        if let Some(t) = self.trees.write().remove(&tree) {
            let freed: usize = t.read().iter().map(|(k, v)| k.len() + v.len()).sum();
            self.bytes.fetch_sub(freed as i64, Ordering::Relaxed);
        }
        Ok(())
    }

    fn clear(&self) -> Result<()> {
        for t in self.trees.read().values() {
            t.write().clear();
        }
        self.bytes.store(0, Ordering::Relaxed);
        Ok(())
    }

    fn get(&self, tree: TreeId, key: &[u8]) -> Result<Option<Vec<u8>>> {
        Ok(self.tree(tree)?.read().get(key).cloned())
    }

    fn modify(
        &self,
        _ctx: &mut WriteCtx,
        tree: TreeId,
        key: &[u8],
        f: &mut dyn FnMut(Option<&[u8]>) -> Modify,
    ) -> Result<()> {
        let t = self.tree(tree)?;
        let mut map = t.write();
        match f(map.get(key).map(|v| &v[..])) {
            Modify::Keep => {}
            Modify::Put(v) => {
                let add = (key.len() + v.len()) as i64;
                let old = map.insert(key.to_vec(), v);
                let sub = old.map_or(0, |o| (key.len() + o.len()) as i64);
                self.bytes.fetch_add(add - sub, Ordering::Relaxed);
            }
            Modify::Delete => {
                if let Some(o) = map.remove(key) {
                    self.bytes
                        .fetch_sub((key.len() + o.len()) as i64, Ordering::Relaxed);
                }
            }
        }
        Ok(())
    }

    fn scan(
        &self,
        tree: TreeId,
        lower: Bound<&[u8]>,
        upper: Bound<&[u8]>,
        reverse: bool,
        max: usize,
        out: &mut Vec<Entry>,
    ) -> Result<()> {
        if let (Bound::Included(l) | Bound::Excluded(l), Bound::Included(u) | Bound::Excluded(u)) =
            (lower, upper)
        {
            if l > u
                || (l == u
                    && !(matches!(lower, Bound::Included(_))
                        && matches!(upper, Bound::Included(_))))
            {
                return Ok(());
            }
        }
        let t = self.tree(tree)?;
        let map = t.read();
        let range = map.range::<[u8], _>((lower, upper));
        let take = |(k, v): (&Vec<u8>, &Vec<u8>)| (k.clone(), v.clone());
        if reverse {
            out.extend(range.rev().take(max).map(take));
        } else {
            out.extend(range.take(max).map(take));
        }
        Ok(())
    }

    /// Counts its way through the keys in batches (the map has no positions),
    /// releasing the lock between batches.
    fn sample_keys(&self, tree: TreeId, n: usize) -> Result<Vec<Vec<u8>>> {
        const BATCH: usize = 4096;
        let t = self.tree(tree)?;
        let len = t.read().len();
        if len == 0 || n == 0 {
            return Ok(Vec::new());
        }
        let mut wanted = (0..n)
            .map(|i| ((((i as f64 + 0.5) * len as f64) / n as f64) as usize).min(len - 1))
            .peekable();
        let (mut out, mut at, mut last) = (Vec::with_capacity(n), 0usize, None::<Vec<u8>>);
        while wanted.peek().is_some() {
            let map = t.read();
            let lower = last.as_deref().map_or(Bound::Unbounded, Bound::Excluded);
            let mut batch = map.range::<[u8], _>((lower, Bound::Unbounded)).take(BATCH);
            let (mut got, mut end) = (0, None);
            for (k, _) in batch.by_ref() {
                while wanted.next_if(|&w| w <= at).is_some() {
                    out.push(k.clone());
                }
                at += 1;
                got += 1;
                end = Some(k);
            }
            last = end.cloned();
            if got < BATCH {
                break;
            }
        }
        out.dedup();
        Ok(out)
    }

    fn size_bytes(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed).max(0) as u64
    }
}
