//! Filling a new, empty secondary index from the table's rows: every entry is
//! sorted ([`crate::extsort`]: in memory up to a budget, then in runs spilled to the
//! store's scratch directory and merged), and the tree is built bottom-up from the
//! sorted stream ([`crate::store::Store::bulk_load`]; for durable tables
//! [`crate::btree::Tree::bulk_load`], unlogged). Used by ALTER TABLE ... ADD INDEX
//! (`index_build`, rows from a read view while writers go on) and CREATE INDEX
//! (`ddl`, committed rows with writers held out).
//!
//! A UNIQUE index refuses a key that two rows share: their entries are adjacent in
//! the merged stream, because the encoding of key parts is prefix-free and the
//! primary key follows them. Keys with a NULL part never clash.

use super::copy::RowVisitor;
use super::record::{build_sec, SecHeader};
use super::write::sec_entry;
use super::{IndexLayout, Schema, TableCore};
use crate::api::Result;
use crate::error::StorageError;
use crate::extsort::{Merge, Sorter, DEFAULT_BUDGET};
use crate::store::EntrySource;

/// The `aux` word of a sorted entry whose key may repeat (not UNIQUE, or NULLs);
/// otherwise it holds the length of the key parts.
const NO_UNIQUE: u32 = u32::MAX;

/// Environment variable that sets the bytes of entries an index fill sorts in
/// memory before spilling runs (default [`DEFAULT_BUDGET`]; tests set a small one
/// to exercise spilling).
pub const SORT_BUDGET_ENV: &str = "BASALT_INDEX_SORT_BUFFER";

fn sort_budget() -> usize {
    std::env::var(SORT_BUDGET_ENV)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_BUDGET)
}

/// The merged entries of a fill, stopping at a UNIQUE key met twice.
struct FillSource {
    merge: Merge,
    prev_unique: Option<Vec<u8>>,
    /// The primary key of the second row of a duplicate.
    dup: Option<Vec<u8>>,
}

impl EntrySource for FillSource {
    fn next_entry(&mut self) -> Result<Option<(&[u8], &[u8])>> {
        let Some(e) = self.merge.next_entry()? else {
            return Ok(None);
        };
        if e.aux != NO_UNIQUE {
            let (sk, pk) = e.key().split_at(e.aux as usize);
            if self.prev_unique.as_deref() == Some(sk) {
                self.dup = Some(pk.to_vec());
                return Err(StorageError::Invalid(
                    "duplicate key in a unique index".into(),
                ));
            }
            let prev = self.prev_unique.get_or_insert_with(Vec::new);
            prev.clear();
            prev.extend_from_slice(sk);
        }
        Ok(Some((e.key(), e.value())))
    }
}

/// Where a fill gets its rows: it calls the visitor with each row.
pub(super) type RowSource<'a> = dyn FnMut(&mut RowVisitor<'_>) -> Result<()> + 'a;

impl TableCore {
    /// Fills the empty tree of index `layout` of `schema` with the entries of the
    /// rows `rows` visits. Returns the primary key of a row whose UNIQUE key an
    /// earlier row has too (the tree then holds part of the entries: the caller
    /// drops it), or None when the index is complete.
    pub(super) fn sort_and_load(
        &self,
        schema: &Schema,
        layout: &IndexLayout,
        rows: &mut RowSource<'_>,
    ) -> Result<Option<Vec<u8>>> {
        let tree = layout.def.id;
        let prefix = format!("index-{}-{tree}", schema.def.id);
        let mut sorter = Sorter::new(sort_budget(), self.store.scratch(), &prefix);
        let unique = layout.def.is_unique();
        rows(&mut |pk, trx, row| {
            let (key, payload) = sec_entry(schema, layout, &row, pk);
            let nulls = layout.def.columns.iter().any(|c| row[c.column].is_null());
            let header = SecHeader {
                created: trx,
                deleted: 0,
                multi: false,
            };
            let aux = if unique && !nulls {
                (key.len() - pk.len()) as u32
            } else {
                NO_UNIQUE
            };
            sorter.push(&key, &build_sec(header, &payload), aux)
        })?;
        let mut source = FillSource {
            merge: sorter.finish()?,
            prev_unique: None,
            dup: None,
        };
        match self.store.bulk_load(tree, &mut source) {
            Err(_) if source.dup.is_some() => Ok(source.dup.take()),
            Err(e) => Err(e),
            Ok(()) => Ok(None),
        }
    }
}
