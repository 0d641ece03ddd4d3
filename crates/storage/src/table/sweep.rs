//! Purging the garbage a previous run left behind.
//!
//! Purge work lives in memory: the queue of what finished transactions delete-marked
//! ([`crate::mvcc::Garbage`]). A crash, or a stop before purge caught up, loses that
//! queue, and the delete-marked entries it named stay in the trees for good: nothing
//! would ever remove them, so their space is never reused and every crash leaks some
//! more. After such a start the sweep walks every tree of the table once and purges
//! each entry delete-marked by a transaction older than this run (id below `before`,
//! the first id this run hands out). Each such transaction ended before the start
//! (recovery undid the unfinished ones, so a delete-mark that survived was committed),
//! and every read view of this run sees its outcome, so no reader needs the entry.
//!
//! The sweep runs in the background beside normal work and takes no lock of its own:
//! removing an entry goes through the same check-and-delete as purge (the entry must
//! still be marked by that transaction), and entries a gap lock is anchored on are
//! handed to purge to retry, as purge does.

use super::record::{parse_rec, parse_sec};
use super::TableCore;
use crate::api::Result;
use crate::mvcc::DeadEntry;
use std::ops::Bound;
use std::sync::atomic::Ordering;

/// Entries read per scan call.
const BATCH: usize = 512;

impl TableCore {
    /// Purges every entry of every tree delete-marked by a transaction below
    /// `before`; returns how many went. Stops early when the table is dropped or the
    /// transaction manager stops.
    pub(crate) fn sweep_dead(&self, before: u64) -> Result<usize> {
        let schema = self.schema();
        let primary = schema.primary_tree();
        let mut purged = 0;
        for layout in &schema.indexes {
            let tree = layout.def.id;
            purged += self.sweep_tree(tree, tree == primary, before)?;
        }
        Ok(purged)
    }

    fn sweep_tree(&self, tree: u32, primary: bool, before: u64) -> Result<usize> {
        let mut lower: Option<Vec<u8>> = None;
        let mut purged = 0;
        loop {
            if self.dropped.load(Ordering::SeqCst) || self.mgr.stopping() {
                return Ok(purged);
            }
            let mut out = Vec::new();
            let lb = lower.as_deref().map_or(Bound::Unbounded, Bound::Excluded);
            self.store
                .scan(tree, lb, Bound::Unbounded, false, BATCH, &mut out)?;
            let done = out.len() < BATCH;
            lower = out.last().map(|(k, _)| k.clone());
            for (key, value) in out {
                let marked_by = if primary {
                    parse_rec(&value).filter(|h| h.deleted).map(|h| h.trx)
                } else {
                    parse_sec(&value).map(|h| h.deleted).filter(|&d| d != 0)
                };
                let Some(trx) = marked_by.filter(|&t| t < before) else {
                    continue;
                };
                if self.purge(tree, &key, trx) {
                    purged += 1;
                } else if let Some(me) = self.me.upgrade() {
                    self.mgr.defer_dead(DeadEntry {
                        table: me,
                        tree,
                        key,
                        trx,
                    });
                }
            }
            if done {
                return Ok(purged);
            }
        }
    }
}
