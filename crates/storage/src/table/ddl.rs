//! Index builds and truncation (run under the table's exclusive metadata lock).

use super::record::{build_sec, SecHeader};
use super::{Schema, TableCore};
use crate::api::Result;
use crate::error::StorageError;
use crate::keycodec;
use crate::rowcodec;
use crate::store::{Modify, WriteCtx};
use basalt_common::{TableDef, Value};
use std::ops::Bound;
use std::sync::atomic::Ordering;
use std::sync::Arc;

impl TableCore {
    /// Builds the last index of `def` from the table's rows and switches to `def`.
    /// No transaction writes the table meanwhile, so every record is committed.
    pub(crate) fn build_index(&self, def: Arc<TableDef>) -> Result<()> {
        let schema = Schema::new(def.clone());
        let layout = schema.indexes.last().expect("an index was just added");
        let tree = layout.def.id;
        self.store.create_tree(tree)?;
        let r = self.fill_index(&schema, layout);
        if let Err(e) = r {
            self.store.drop_tree(tree)?;
            return Err(e);
        }
        self.set_def(def);
        self.analyze()
    }

    fn fill_index(&self, schema: &Schema, layout: &super::IndexLayout) -> Result<()> {
        let tree = layout.def.id;
        let unique = layout.def.is_unique();
        let mut ctx = WriteCtx::default();
        self.for_each_committed(&mut |pk, trx, row| {
            let mut key = Vec::new();
            keycodec::encode_index_key(&mut key, &layout.def, &schema.def.columns, &row);
            let has_null = layout.def.columns.iter().any(|c| row[c.column].is_null());
            if unique && !has_null && self.key_taken(tree, &key)? {
                return Err(dup(layout, &row));
            }
            key.extend_from_slice(pk);
            let vals: Vec<Value> = layout.covered.iter().map(|&c| row[c].clone()).collect();
            let mut payload = Vec::new();
            rowcodec::encode_row(&mut payload, &layout.covered_cols, &vals);
            let entry = build_sec(
                SecHeader {
                    created: trx,
                    deleted: 0,
                    multi: false,
                },
                &payload,
            );
            let mut entry = Some(entry);
            self.store.modify(&mut ctx, tree, &key, &mut |_| {
                Modify::Put(entry.take().expect("closure runs once"))
            })
        })
    }

    pub(super) fn key_taken(&self, tree: u32, sk: &[u8]) -> Result<bool> {
        let upper = keycodec::prefix_successor(sk);
        let upper = upper.as_deref().map_or(Bound::Unbounded, Bound::Excluded);
        let mut out = Vec::new();
        self.store
            .scan(tree, Bound::Included(sk), upper, false, 1, &mut out)?;
        Ok(!out.is_empty())
    }

    /// Resets counters after the store was emptied.
    pub(crate) fn reset_after_truncate(&self) {
        self.rows.store(0, Ordering::Relaxed);
        let start = self.def().auto_increment_start.max(1);
        self.auto_inc.store(start, Ordering::SeqCst);
        self.row_id.store(1, Ordering::SeqCst);
        *self.stats.write() = Vec::new();
    }
}

fn dup(layout: &super::IndexLayout, row: &[Value]) -> StorageError {
    let entry: Vec<String> = layout
        .def
        .columns
        .iter()
        .map(|c| row[c.column].display_lossy())
        .collect();
    StorageError::DuplicateKey {
        entry: entry.join("-"),
        key: layout.def.name.clone(),
    }
}
