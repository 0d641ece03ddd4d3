//! B+trees of byte keys and byte values in a table file, with optimistic lock coupling
//! (Leis et al., "The ART of Practical Synchronization", 2016).
//!
//! A [`TableFile`] holds any number of trees (one per index); a [`Tree`] maps keys
//! (memcomparable byte strings, at most [`MAX_KEY`] bytes) to values of up to
//! [`MAX_VALUE`] bytes. Values that do not fit in a leaf cell live in overflow chains.
//!
//! # Concurrency
//! - Readers take no latches. They descend from the root recording each node's version
//!   (see [`crate::pool`]), fetch the child, and re-validate the parent, so every
//!   pointer they follow was valid when they followed it; what they read in a leaf is
//!   used only after validating its version. Any failed validation restarts the
//!   operation (scans restart from the last key they returned).
//! - A writer descends the same way and upgrades only the leaf's version to an
//!   exclusive latch. If the change fits in the leaf, that is the only latch.
//! - A split latches exactly the nodes it changes: the leaf, its right neighbour
//!   (whose left link now points to the new node), the parent, and further ancestors
//!   only while they must split too. It never reads a sibling it does not change, and
//!   it takes no tree-wide lock. A parent whose version moved since the descent is
//!   found again from the root while the child stays latched (the child still covers
//!   the key).
//!
//! # Why there is no deadlock
//! Readers hold nothing. A thread holding latches waits (blocking latch, or a descent
//! spinning on a latched node) only in this order: the leaf's right neighbour while it
//! holds nothing above level 0, then ancestors strictly above every node it holds.
//! Merges and root collapses never wait for a latch (try-latches; they give up), and
//! eviction only try-latches its victims. So every wait goes to a node above, or to
//! the right at level 0 of, everything the waiter holds, and a holder never waits for
//! a lower node: no cycle.
//! - The root's logical page never changes: a root split moves the root's contents into
//!   two new children and turns the root into their parent, in place.
//! - `modify` calls its closure exactly once, under the leaf's exclusive latch, and the
//!   logging callback once, after every fallible step except the change itself, so
//!   the log record precedes the change and always describes it.
//!
//! # Deletes
//! A leaf left less than a quarter full by a delete is merged with a sibling under the
//! same parent (the right one, or the left one for a last child) when the two fit in
//! three quarters of a page, or always when it is empty; the emptied node's page is
//! freed. An underfull parent merges the same way with its sibling (pulling the
//! separator down), and a root left with a single child absorbs it (the tree gets
//! shorter). Merges are best effort: they use try-latches only and give up on
//! contention, so a lightly filled (or, rarely, empty) leaf can remain; lookups and
//! scans handle empty leaves.
//!
//! # Checkpoints
//! Every write operation holds the file's gate shared (see [`crate::pool::Gate`]),
//! so a checkpoint cut sees no operation half done.
//!
//! Invariants (checked by [`Tree::check`]):
//! - keys within a node are strictly increasing; every key under child i of an inner
//!   node is >= separator i - 1 and < separator i;
//! - all leaves are at level 0 and a node's children are one level below it;
//! - the leaves, in key order, form a doubly linked list through their sibling links,
//!   ending in NO_PAGE at both ends;
//! - an overflow chain has exactly the pages its length needs, all stamped with the
//!   chain id in the leaf cell.

mod admin;
mod bulk;
mod merge;
mod read;
mod write;

pub use crate::page::node::MAX_KEY;
pub use admin::TreeCheck;
pub use bulk::FILL;

use crate::api::Result;
use crate::error::StorageError;
use crate::io::FileSystem;
use crate::pool::{Backoff, BufferPool, Cut, CutStats, PageFile, TreeInfo};
use crate::store::{Entry, Modify, TreeId};
use std::ops::Bound;
use std::path::Path;
use std::sync::Arc;

/// Largest value a tree stores.
pub const MAX_VALUE: usize = 1 << 30;

/// What a `modify` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Nothing changed (the closure returned `Keep`, or `Delete` of an absent key).
    Kept,
    Inserted,
    Updated,
    Deleted,
}

/// A change about to be applied, for the caller's log record.
#[derive(Debug)]
pub struct Change<'a> {
    pub tree: TreeId,
    pub key: &'a [u8],
    pub old: Option<&'a [u8]>,
    pub new: Option<&'a [u8]>,
}

/// A table file and its trees. Cheap to clone.
#[derive(Clone)]
pub struct TableFile {
    file: Arc<PageFile>,
}

/// One tree of a table file. Cheap to clone; all methods may be called concurrently.
#[derive(Clone)]
pub struct Tree {
    file: Arc<PageFile>,
    info: Arc<TreeInfo>,
}

/// Why an optimistic step did not complete.
pub(crate) enum Fail {
    /// A version moved under us: start again.
    Restart,
    Err(StorageError),
}

impl From<StorageError> for Fail {
    fn from(e: StorageError) -> Fail {
        Fail::Err(e)
    }
}

pub(crate) type Olc<T> = std::result::Result<T, Fail>;

/// Runs an optimistic operation until it completes.
fn retry<T>(mut op: impl FnMut() -> Olc<T>) -> Result<T> {
    let mut backoff = Backoff::new();
    for _ in 0..10_000_000u32 {
        match op() {
            Ok(t) => return Ok(t),
            Err(Fail::Err(e)) => return Err(e),
            Err(Fail::Restart) => backoff.snooze(),
        }
    }
    Err(StorageError::Invalid(
        "B+tree operation restarted too often".into(),
    ))
}

impl TableFile {
    /// Creates an empty table file at `path` with buffers in `pool`.
    pub fn create(pool: &Arc<BufferPool>, fs: &dyn FileSystem, path: &Path) -> Result<TableFile> {
        Ok(TableFile {
            file: PageFile::create(pool, fs, path)?,
        })
    }

    /// Opens a table file at its last complete checkpoint.
    pub fn open(pool: &Arc<BufferPool>, fs: &dyn FileSystem, path: &Path) -> Result<TableFile> {
        Ok(TableFile {
            file: PageFile::open(pool, fs, path)?,
        })
    }

    /// Opens a table file whose changes since its checkpoint will be replayed from a
    /// log that starts at `log_start` ([`PageFile::open_at`]).
    pub fn open_at(
        pool: &Arc<BufferPool>,
        fs: &dyn FileSystem,
        path: &Path,
        log_start: u64,
    ) -> Result<TableFile> {
        Ok(TableFile {
            file: PageFile::open_at(pool, fs, path, log_start)?,
        })
    }

    /// The page file underneath (checkpoint calls, statistics).
    pub fn pages(&self) -> &Arc<PageFile> {
        &self.file
    }

    /// Creates an empty tree.
    pub fn create_tree(&self, id: TreeId) -> Result<Tree> {
        admin::create(&self.file, id)
    }

    pub fn tree(&self, id: TreeId) -> Option<Tree> {
        self.file.tree(id).map(|info| Tree {
            file: self.file.clone(),
            info,
        })
    }

    pub fn tree_ids(&self) -> Vec<TreeId> {
        self.file.trees().iter().map(|t| t.id).collect()
    }

    /// Drops a tree and frees all its pages. No other operation on this tree may run
    /// concurrently (the caller holds the table's DDL lock).
    pub fn drop_tree(&self, id: TreeId) -> Result<()> {
        admin::drop(&self.file, id)
    }

    /// See [`PageFile::begin_cut`].
    pub fn begin_cut(&self, lsn_at_cut: impl FnOnce() -> u64) -> Result<Cut> {
        self.file.begin_cut(lsn_at_cut)
    }

    /// See [`PageFile::flush_cut`].
    pub fn flush_cut(&self, cut: Cut) -> Result<CutStats> {
        self.file.flush_cut(cut)
    }

    /// `begin_cut` and `flush_cut` in one call.
    pub fn checkpoint(&self, lsn_at_cut: impl FnOnce() -> u64) -> Result<CutStats> {
        self.file.checkpoint(lsn_at_cut)
    }

    /// The cut LSN of the last durable checkpoint.
    pub fn checkpoint_lsn(&self) -> u64 {
        self.file.checkpoint_lsn()
    }

    /// Bytes the file takes on disk.
    pub fn size_bytes(&self) -> u64 {
        self.file.size_bytes()
    }

    /// Checks every page of the last checkpoint (checksums, page numbers).
    pub fn verify(&self) -> Result<usize> {
        self.file.verify()
    }
}

impl Tree {
    pub fn id(&self) -> TreeId {
        self.info.id
    }

    /// Estimated number of entries (exact while no operation runs).
    pub fn len_estimate(&self) -> u64 {
        self.info.entries()
    }

    /// Estimated bytes of keys and values.
    pub fn bytes_estimate(&self) -> u64 {
        self.info.bytes()
    }

    pub fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        check_key(key)?;
        self.live()?;
        retry(|| self.try_get(key))
    }

    /// Atomically reads the entry `key`, lets `f` decide, calls `log` with the change
    /// (unless nothing changes) and applies it. `f` runs exactly once, under the leaf's
    /// exclusive latch: it must be quick and must not call into this file. If `log`
    /// fails nothing is changed and its error is returned.
    pub fn modify<F, L>(&self, key: &[u8], mut f: F, log: L) -> Result<Action>
    where
        F: FnMut(Option<&[u8]>) -> Modify,
        L: FnOnce(&Change<'_>) -> Result<()>,
    {
        check_key(key)?;
        self.live()?;
        let _gate = self.file.gate().enter();
        let mut log = Some(log);
        let mut called = false;
        retry(|| self.try_modify(key, &mut f, &mut called, &mut log))
    }

    /// Inserts or replaces; returns what happened.
    pub fn put(&self, key: &[u8], value: &[u8]) -> Result<Action> {
        if value.len() > MAX_VALUE {
            return Err(StorageError::Invalid(format!(
                "value of {} bytes exceeds {MAX_VALUE}",
                value.len()
            )));
        }
        let mut v = Some(value.to_vec());
        self.modify(
            key,
            |_| Modify::Put(v.take().expect("modify calls its closure once")),
            |_| Ok(()),
        )
    }

    /// Deletes; true when the key was present.
    pub fn delete(&self, key: &[u8]) -> Result<bool> {
        let a = self.modify(key, |_| Modify::Delete, |_| Ok(()))?;
        Ok(a == Action::Deleted)
    }

    /// About `n` keys at evenly spaced positions of the tree, ascending and
    /// distinct (fewer when the tree is small): one descent each.
    pub fn sample_keys(&self, n: usize) -> Result<Vec<Vec<u8>>> {
        self.live()?;
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let fraction = (i as f64 + 0.5) / n as f64;
            if let Some(k) = retry(|| self.try_key_at(fraction))? {
                out.push(k);
            }
        }
        out.sort();
        out.dedup();
        Ok(out)
    }

    /// Appends to `out` up to `max` entries within the bounds, ascending (descending
    /// when `reverse`). Continue a scan by calling again with the last key returned as
    /// an excluded bound.
    pub fn scan(
        &self,
        lower: Bound<&[u8]>,
        upper: Bound<&[u8]>,
        reverse: bool,
        max: usize,
        out: &mut Vec<Entry>,
    ) -> Result<()> {
        self.live()?;
        read::scan(self, lower, upper, reverse, max, out)
    }

    /// Removes every entry. No other operation on this tree may run concurrently.
    pub fn clear(&self) -> Result<()> {
        admin::clear(self)
    }

    /// Walks the whole tree and checks its invariants (module docs). Meant for tests
    /// and CHECK TABLE; results are exact only while no writer runs.
    pub fn check(&self) -> Result<TreeCheck> {
        admin::check(self)
    }

    fn live(&self) -> Result<()> {
        match self.dropped() {
            Some(Fail::Err(e)) => Err(e),
            _ => Ok(()),
        }
    }

    fn pool(&self) -> &BufferPool {
        self.file.pool()
    }

    fn root(&self) -> crate::page::PageNo {
        self.info.root
    }
}

fn check_key(key: &[u8]) -> Result<()> {
    if key.len() > MAX_KEY {
        return Err(StorageError::Invalid(format!(
            "key of {} bytes exceeds {MAX_KEY}",
            key.len()
        )));
    }
    Ok(())
}
