//! Cursors over a partitioned table: one partition's cursor with its rows made
//! logical, and the merge of several partitions' cursors in key order.

use super::layout;
use crate::api::{Cursor, Fetched, Result};
use crate::keycodec;
use crate::txn::Txn;
use basalt_common::{IndexDef, TableDef};
use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::sync::Arc;

/// A stored cursor whose rows lose the partition column; with `only`, rows of
/// other partitions are left out.
pub(crate) struct MappedCursor {
    inner: Box<dyn Cursor>,
    only: Option<Vec<u32>>,
}

impl MappedCursor {
    pub fn new(inner: Box<dyn Cursor>, only: Option<Vec<u32>>) -> Self {
        MappedCursor { inner, only }
    }
}

impl Cursor for MappedCursor {
    fn next(&mut self, txn: &mut Txn) -> Result<Option<Fetched>> {
        loop {
            let Some(f) = self.inner.next(txn)? else {
                return Ok(None);
            };
            if let Some(only) = &self.only {
                if !layout::row_partition(&f.row).is_some_and(|p| only.contains(&p)) {
                    continue;
                }
            }
            return Ok(Some(Fetched {
                handle: f.handle,
                row: layout::logical_row(f.row),
            }));
        }
    }

    fn expect_rows(&mut self, rows: usize) {
        self.inner.expect_rows(rows)
    }
}

/// The next row of one partition, ordered by its logical index key.
struct Head {
    key: Vec<u8>,
    part: usize,
    row: Fetched,
    reverse: bool,
}

impl PartialEq for Head {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Head {}
impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Head {
    /// The heap pops the greatest: the smallest key first (the greatest when
    /// reading in reverse), ties by partition order.
    fn cmp(&self, other: &Self) -> Ordering {
        let by_key = self.key.cmp(&other.key);
        let by_key = if self.reverse {
            by_key
        } else {
            by_key.reverse()
        };
        by_key.then_with(|| other.part.cmp(&self.part))
    }
}

/// Several partitions' cursors read as one, in the index's key order.
pub(crate) struct MergedCursor {
    parts: Vec<Box<dyn Cursor>>,
    heap: BinaryHeap<Head>,
    started: bool,
    index: IndexDef,
    def: Arc<TableDef>,
    reverse: bool,
}

impl MergedCursor {
    pub fn new(
        parts: Vec<Box<dyn Cursor>>,
        index: IndexDef,
        def: Arc<TableDef>,
        reverse: bool,
    ) -> Self {
        MergedCursor {
            parts,
            heap: BinaryHeap::new(),
            started: false,
            index,
            def,
            reverse,
        }
    }

    /// Reads partition `part`'s next row into the heap.
    fn advance(&mut self, txn: &mut Txn, part: usize) -> Result<()> {
        if let Some(f) = self.parts[part].next(txn)? {
            let row = layout::logical_row(f.row);
            let mut key = Vec::with_capacity(32);
            keycodec::encode_index_key(&mut key, &self.index, &self.def.columns, &row);
            if self.index.id != self.def.indexes[0].id {
                let pk = &self.def.indexes[0];
                keycodec::encode_index_key(&mut key, pk, &self.def.columns, &row);
            }
            self.heap.push(Head {
                key,
                part,
                row: Fetched {
                    handle: f.handle,
                    row,
                },
                reverse: self.reverse,
            });
        }
        Ok(())
    }
}

impl Cursor for MergedCursor {
    fn next(&mut self, txn: &mut Txn) -> Result<Option<Fetched>> {
        if !self.started {
            self.started = true;
            for p in 0..self.parts.len() {
                self.advance(txn, p)?;
            }
        }
        let Some(head) = self.heap.pop() else {
            return Ok(None);
        };
        self.advance(txn, head.part)?;
        Ok(Some(head.row))
    }

    fn expect_rows(&mut self, rows: usize) {
        for p in &mut self.parts {
            p.expect_rows(rows);
        }
    }
}
