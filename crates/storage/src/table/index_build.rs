//! An index added to a table while writers go on (ALTER TABLE ... ADD INDEX,
//! LOCK=NONE): the entries are built from a read view of the rows, then the rows
//! writers changed meanwhile (recorded by change capture, see `capture`) are
//! replayed in rounds at fresh views until, with writers held out for the last
//! round, the index agrees with the committed rows; only then does the table's
//! definition name it, so no reader uses it half built and no writer maintains it
//! before. The steps are driven by `facade::alter_online`.
//!
//! The fill sorts the entries of every row the view sees and builds the tree
//! bottom-up from them (see `bulk_fill`).
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
use crate::mvcc::ReadView;
use crate::store::{Modify, WriteCtx};
use basalt_common::{Row, TableDef};
use std::collections::HashMap;
use std::sync::Arc;

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
    /// covers (see `bulk_fill`).
    fn index_fill(&self, build: &IndexBuild, v0: &ReadView) -> Result<()> {
        let layout = &build.schema.indexes[build.at];
        let mut wanted = vec![false; build.schema.def.columns.len()];
        for &c in &layout.covered {
            wanted[c] = true;
        }
        let dup = self.sort_and_load(&build.schema, layout, &mut |f| {
            self.for_each_visible(Some(v0), Some(&wanted), f)
        })?;
        match dup {
            Some(pk) => Err(self.index_dup(build, &pk, v0)),
            None => Ok(()),
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
