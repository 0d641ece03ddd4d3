//! CREATE INDEX and truncation (run under the table's exclusive metadata lock).

use super::write::dup_error;
use super::{Schema, TableCore};
use crate::api::Result;
use crate::keycodec;
use basalt_common::TableDef;
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

    /// Fills the new index from the committed rows (see `bulk_fill`).
    fn fill_index(&self, schema: &Schema, layout: &super::IndexLayout) -> Result<()> {
        let Some(pk) = self.sort_and_load(schema, layout, &mut |f| self.for_each_committed(f))?
        else {
            return Ok(());
        };
        let rec = self
            .store
            .get(schema.primary_tree(), &pk)?
            .ok_or_else(|| self.corrupt("a row vanished under an index build"))?;
        let row = self.decode(schema, &rec, None)?;
        Err(dup_error(schema, layout, &row))
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
