//! An index added to a table while writers go on (ALTER TABLE ... ADD INDEX,
//! LOCK=NONE): the entries are built from a read view of the rows, then the rows
//! writers changed meanwhile (recorded by change capture, see `capture`) are
//! replayed in rounds at fresh views until, with writers held out for the last
//! round, the index agrees with the committed rows; only then does the table's
//! definition name it, so no reader uses it half built and no writer maintains it
//! before. The steps are driven by `facade::alter_online`.
//!
//! The fill sorts the entries of every row the view sees ([`crate::extsort`]: in
//! memory up to a budget, then in runs spilled to the store's scratch directory and
//! merged) and builds the tree bottom-up from the sorted stream
//! ([`crate::btree::Tree::bulk_load`] for durable tables); a UNIQUE index refuses a
//! key that two rows share as the merge meets them side by side.
//!
//! The entries are written outside any transaction (not logged), as a table
//! copy's are; the caller checkpoints the file before the catalog names the index,
//! and a crash before that leaves a tree no definition names, which the next start
//! drops.

use super::record::{build_sec, SecHeader};
use super::write::{dup_error, sec_entry};
use super::{Schema, TableCore};
use crate::api::Result;
use crate::error::StorageError;
use crate::extsort::{Merge, Sorter, DEFAULT_BUDGET};
use crate::mvcc::ReadView;
use crate::store::{EntrySource, Modify, WriteCtx};
use basalt_common::{Row, TableDef};
use std::collections::HashMap;
use std::sync::Arc;

/// The `aux` word of a sorted entry whose key may repeat (not UNIQUE, or NULLs).
const NO_UNIQUE: u32 = u32::MAX;

/// Environment variable that sets the bytes of entries an index build sorts in
/// memory before spilling runs (tests use a small one to exercise spilling).
pub const SORT_BUDGET_ENV: &str = "BASALT_INDEX_SORT_BUFFER";

fn sort_budget() -> usize {
    std::env::var(SORT_BUDGET_ENV)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_BUDGET)
}

/// The sorted entries of a fill, in key order, refusing a UNIQUE key met twice:
/// equal key parts are adjacent, since the encoding of key parts is prefix-free and
/// the primary key follows them.
struct FillSource {
    merge: Merge,
    prev_unique: Option<Vec<u8>>,
    /// The primary key of a row whose key was a duplicate.
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

/// An index being built: the definition that will name it, and the entry each
/// replayed row has in it now.
pub(crate) struct IndexBuild {
    schema: Arc<Schema>,
    /// Position of the new index in `schema.indexes`.
    at: usize,
    placed: HashMap<Vec<u8>, Option<Vec<u8>>>,
}

impl IndexBuild {
    pub fn def(&self) -> &Arc<TableDef> {
        &self.schema.def
    }

    fn tree(&self) -> u32 {
        self.schema.indexes[self.at].def.id
    }
}

impl TableCore {
    /// Creates the tree of index `id` of `def` (the table's definition plus that
    /// index) and fills it with the rows `v0` sees.
    pub(crate) fn index_build_start(
        &self,
        def: Arc<TableDef>,
        id: u32,
        v0: &ReadView,
    ) -> Result<IndexBuild> {
        let schema = Schema::new(def);
        let at = schema
            .indexes
            .iter()
            .position(|l| l.def.id == id)
            .ok_or_else(|| StorageError::Invalid("no index to build".into()))?;
        let build = IndexBuild {
            schema,
            at,
            placed: HashMap::new(),
        };
        self.store.create_tree(build.tree())?;
        if let Err(e) = self.index_fill(&build, v0) {
            self.index_build_abort(&build);
            return Err(e);
        }
        Ok(build)
    }

    /// Fills the new index with the rows `v0` sees, decoding only the columns it
    /// covers: the entries are sorted (spilling to the store's scratch directory past
    /// the budget) and the tree is built bottom-up from them ([`crate::store::Store::bulk_load`]).
    fn index_fill(&self, build: &IndexBuild, v0: &ReadView) -> Result<()> {
        let layout = &build.schema.indexes[build.at];
        let mut wanted = vec![false; build.schema.def.columns.len()];
        for &c in &layout.covered {
            wanted[c] = true;
        }
        let prefix = format!("index-{}-{}", build.schema.def.id, build.tree());
        let mut sorter = Sorter::new(sort_budget(), self.store.scratch(), &prefix);
        self.for_each_visible(Some(v0), Some(&wanted), &mut |pk, trx, row| {
            let (key, payload) = sec_entry(&build.schema, layout, &row, pk);
            let nulls = layout.def.columns.iter().any(|c| row[c.column].is_null());
            let header = SecHeader {
                created: trx,
                deleted: 0,
                multi: false,
            };
            let aux = if layout.def.is_unique() && !nulls {
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
        match self.store.bulk_load(build.tree(), &mut source) {
            Err(_) if source.dup.is_some() => {
                let pk = source.dup.take().expect("checked");
                Err(self.index_dup(build, &pk, v0))
            }
            r => r,
        }
    }

    /// The duplicate-key error for the row with primary key `pk`.
    fn index_dup(&self, build: &IndexBuild, pk: &[u8], v0: &ReadView) -> StorageError {
        match self.visible_row(pk, v0) {
            Ok(Some((_, row))) => dup_error(&build.schema, &build.schema.indexes[build.at], &row),
            Ok(None) => self.corrupt("a row vanished under an index build"),
            Err(e) => e,
        }
    }

    /// One round: takes the recorded keys, removes their entries, then enters each
    /// as `view` sees it. Keys whose writer `view` does not see yet are recorded
    /// again. `v0` is the view the index was filled at.
    pub(crate) fn index_build_round(
        &self,
        build: &mut IndexBuild,
        v0: &ReadView,
        view: &ReadView,
    ) -> Result<()> {
        let keys = self.take_captured();
        let mut ctx = WriteCtx::default();
        for pk in keys.keys() {
            let prev = match build.placed.get(pk) {
                Some(p) => p.clone(),
                None => self.visible_row(pk, v0)?.map(|(_, row)| {
                    sec_entry(&build.schema, &build.schema.indexes[build.at], &row, pk).0
                }),
            };
            if let Some(key) = prev {
                self.store
                    .modify(&mut ctx, build.tree(), &key, &mut |_| Modify::Delete)?;
            }
        }
        for (pk, writer) in keys {
            if !view.sees(writer) {
                self.recapture(pk.clone(), writer);
            }
            let entry = match self.visible_row(&pk, view)? {
                Some((trx, row)) => Some(self.index_put(build, &mut ctx, &pk, trx, &row)?),
                None => None,
            };
            build.placed.insert(pk, entry);
        }
        Ok(())
    }

    /// Enters `row` (primary key `pk`, written by `trx`); returns the entry's key.
    /// A UNIQUE index that already holds the key fails with the duplicate error.
    fn index_put(
        &self,
        build: &IndexBuild,
        ctx: &mut WriteCtx,
        pk: &[u8],
        trx: u64,
        row: &Row,
    ) -> Result<Vec<u8>> {
        let layout = &build.schema.indexes[build.at];
        let (key, payload) = sec_entry(&build.schema, layout, row, pk);
        let has_null = layout.def.columns.iter().any(|c| row[c.column].is_null());
        if layout.def.is_unique()
            && !has_null
            && self.key_taken(build.tree(), &key[..key.len() - pk.len()])?
        {
            return Err(dup_error(&build.schema, layout, row));
        }
        let header = SecHeader {
            created: trx,
            deleted: 0,
            multi: false,
        };
        let mut entry = Some(build_sec(header, &payload));
        self.store.modify(ctx, build.tree(), &key, &mut |_| {
            Modify::Put(entry.take().expect("the closure runs once"))
        })?;
        Ok(key)
    }

    /// Makes the definition name the built index (writers held out).
    pub(crate) fn index_build_finish(&self, build: IndexBuild) -> Result<()> {
        self.set_def(build.schema.def.clone());
        self.analyze()
    }

    /// Frees the tree of a build that failed.
    pub(crate) fn index_build_abort(&self, build: &IndexBuild) {
        if let Err(e) = self.store.drop_tree(build.tree()) {
            tracing::warn!(error = %e, "freeing the tree of a failed index build failed");
        }
    }
}
