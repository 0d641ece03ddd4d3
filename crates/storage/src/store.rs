//! Ordered key-value trees: what the table layer (MVCC, locks, secondary indexes) is
//! built on, and what each engine provides.
//!
//! A table's data is a set of trees, one per index, named by `IndexDef::id`. Keys are
//! memcomparable byte strings (see `keycodec`); values are opaque to the store. The
//! MEMORY engine keeps trees in memory; the durable engine keeps them in B+trees in
//! the table's file and logs every change to the WAL.
//!
//! Concurrency: every method may be called from many threads. `modify` is atomic per
//! key: the closure sees the current value and its decision is applied before any
//! other change to that key. The closure runs under a latch, so it must be quick and
//! must never block or call back into the store.

use crate::api::Result;
use std::ops::Bound;

/// Names one tree (one index) of a table.
pub type TreeId = u32;

/// The decision of a [`Store::modify`] closure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Modify {
    /// Leave the entry as it is.
    Keep,
    /// Insert or replace the value.
    Put(Vec<u8>),
    /// Remove the entry (no-op when absent).
    Delete,
}

/// Who is changing a store, for logging: the durable engine writes one redo/undo
/// record per change tagged with `txn_id`, and sets `logged` so that commit knows
/// the transaction has log to make durable.
#[derive(Debug, Default)]
pub struct WriteCtx {
    pub txn_id: u64,
    pub logged: bool,
}

/// One entry returned by a scan.
pub type Entry = (Vec<u8>, Vec<u8>);

/// Entries in strictly ascending key order, lent one at a time, for
/// [`Store::bulk_load`].
pub trait EntrySource {
    /// The next entry, or None at the end.
    fn next_entry(&mut self) -> Result<Option<(&[u8], &[u8])>>;
}

/// A directory where a sort larger than its memory budget writes its runs, on the
/// store's file system (see [`crate::extsort`]).
#[derive(Clone)]
pub struct Scratch {
    pub fs: std::sync::Arc<dyn crate::io::FileSystem>,
    pub dir: std::path::PathBuf,
}

pub trait Store: Send + Sync {
    /// Creates an empty tree (CREATE TABLE, CREATE INDEX).
    fn create_tree(&self, tree: TreeId) -> Result<()>;
    /// Drops a tree and frees its space (DROP INDEX).
    fn drop_tree(&self, tree: TreeId) -> Result<()>;
    /// Removes every entry of every tree (TRUNCATE TABLE).
    fn clear(&self) -> Result<()>;

    fn get(&self, tree: TreeId, key: &[u8]) -> Result<Option<Vec<u8>>>;

    /// Atomically reads the entry `key` and applies the closure's decision.
    fn modify(
        &self,
        ctx: &mut WriteCtx,
        tree: TreeId,
        key: &[u8],
        f: &mut dyn FnMut(Option<&[u8]>) -> Modify,
    ) -> Result<()>;

    /// Appends to `out` up to `max` entries within the bounds, in ascending key order
    /// (descending when `reverse`). Callers continue a scan by calling again with the
    /// last key returned as an excluded bound.
    fn scan(
        &self,
        tree: TreeId,
        lower: Bound<&[u8]>,
        upper: Bound<&[u8]>,
        reverse: bool,
        max: usize,
        out: &mut Vec<Entry>,
    ) -> Result<()>;

    /// About `n` keys of `tree` at evenly spaced positions, ascending and distinct
    /// (fewer when the tree has fewer entries): where statistics start their
    /// reads and the histogram's sample of a large index.
    fn sample_keys(&self, tree: TreeId, n: usize) -> Result<Vec<Vec<u8>>>;

    /// Fills the empty tree `tree` with `source`'s entries, unlogged (an index build:
    /// nothing else uses the tree yet, and the caller makes the result durable). On
    /// failure the tree may hold some of the entries; the caller drops it.
    fn bulk_load(&self, tree: TreeId, source: &mut dyn EntrySource) -> Result<()> {
        let mut ctx = WriteCtx::default();
        while let Some((k, v)) = source.next_entry()? {
            let mut value = Some(v.to_vec());
            self.modify(&mut ctx, tree, k, &mut |_| {
                Modify::Put(value.take().expect("modify runs its closure once"))
            })?;
        }
        Ok(())
    }

    /// Where sorts for this store may spill; None keeps them in memory (a store
    /// that is all in memory anyway).
    fn scratch(&self) -> Option<Scratch> {
        None
    }

    /// Approximate bytes used (for `SHOW TABLE STATUS`).
    fn size_bytes(&self) -> u64;

    /// Checks the stored pages (checksums, page numbers) and every tree's
    /// structure (CHECK TABLE). Stores without pages have nothing to check.
    fn verify(&self) -> Result<()> {
        Ok(())
    }
}
