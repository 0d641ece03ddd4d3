//! [`PartitionedTable`]: the [`Table`] the SQL layer holds for a partitioned
//! table. It translates between the logical rows and definition the SQL layer
//! sees and the stored ones (see `layout`), routes each written row to its
//! partition, and reads a range of an index partition by partition.

use super::cursor::{MappedCursor, MergedCursor};
use super::layout;
use super::router::{PartitionRouter, RouterSlot};
use crate::api::*;
use crate::error::StorageError;
use crate::table::{TableCore, TableCursor};
use crate::txn::Txn;
use basalt_common::{Row, TableDef, Value};
use parking_lot::Mutex;
use std::ops::Bound;
use std::sync::Arc;

/// The logical definition and router of one stored definition.
#[derive(Clone)]
pub(crate) struct View {
    stored: Arc<TableDef>,
    pub logical: Arc<TableDef>,
    pub router: Arc<dyn PartitionRouter>,
}

/// Partition ids a handle is limited to.
#[derive(Clone)]
struct Limit {
    ids: Arc<[u32]>,
    /// `t PARTITION (...)`: writes outside the set are refused.
    explicit: bool,
}

pub struct PartitionedTable {
    core: Arc<TableCore>,
    slot: Arc<RouterSlot>,
    view: Arc<Mutex<Option<View>>>,
    limit: Option<Limit>,
}

impl PartitionedTable {
    pub(crate) fn new(core: Arc<TableCore>, slot: Arc<RouterSlot>) -> Self {
        PartitionedTable {
            core,
            slot,
            view: Arc::new(Mutex::new(None)),
            limit: None,
        }
    }

    /// The current view, rebuilt when a DDL replaced the stored definition.
    pub(crate) fn view(&self) -> Result<View> {
        let stored = self.core.def();
        let mut cached = self.view.lock();
        if let Some(v) = &*cached {
            if Arc::ptr_eq(&v.stored, &stored) {
                return Ok(v.clone());
            }
        }
        let logical = Arc::new(layout::logical_def(&stored));
        let router = self.slot.router(&logical)?;
        let v = View {
            stored,
            logical,
            router,
        };
        *cached = Some(v.clone());
        Ok(v)
    }

    /// Partition ids in partition order, as limited by this handle.
    fn visible_ids(&self, view: &View) -> Vec<u32> {
        let spec = view.logical.partitioning.as_ref();
        let all = spec.map(|s| s.parts.iter().map(|p| p.id).collect::<Vec<_>>());
        let all = all.unwrap_or_default();
        match &self.limit {
            Some(l) => all.into_iter().filter(|id| l.ids.contains(id)).collect(),
            None => all,
        }
    }

    fn writable(&self, pid: u32) -> Result<()> {
        match &self.limit {
            Some(l) if l.explicit && !l.ids.contains(&pid) => {
                Err(StorageError::RowOutsidePartitionSet)
            }
            _ => Ok(()),
        }
    }

    fn readable(&self, pid: u32) -> bool {
        self.limit.as_ref().is_none_or(|l| l.ids.contains(&pid))
    }

    /// The partition of a row with only the primary key's columns known.
    fn route_key(&self, view: &View, pk: &[Value]) -> Result<u32> {
        let mut row = vec![Value::Null; view.logical.columns.len()];
        for (c, v) in view.logical.primary().columns.iter().zip(pk) {
            row[c.column] = v.clone();
        }
        view.router.route(&row)
    }

    /// The single partition a range of `index` can hold rows of, when the range
    /// fixes every column the partitioning reads; `Some(None)` when no partition
    /// takes those values.
    fn pruned_to(&self, view: &View, index_id: u32, range: &KeyRange) -> Option<Option<u32>> {
        let (Bound::Included(lo), Bound::Included(hi)) = (&range.lower, &range.upper) else {
            return None;
        };
        if lo != hi {
            return None;
        }
        let ix = view.logical.index_by_id(index_id)?;
        let fixed: Vec<usize> = ix.columns.iter().take(lo.len()).map(|c| c.column).collect();
        if ix
            .columns
            .iter()
            .take(lo.len())
            .any(|c| c.prefix_len.is_some())
            || !view.router.columns().iter().all(|c| fixed.contains(c))
        {
            return None;
        }
        let mut row = vec![Value::Null; view.logical.columns.len()];
        for (c, v) in fixed.iter().zip(lo) {
            row[*c] = v.clone();
        }
        Some(view.router.route(&row).ok())
    }

    fn capture(&self, txn: &mut Txn, view: &View, old: Option<&Row>, new: Option<&Row>) {
        if txn.capturing() {
            txn.capture_row(&view.logical, old, new);
        }
    }

    fn open_part(
        &self,
        txn: &mut Txn,
        req: &ScanRequest,
        pid: Option<u32>,
    ) -> Result<Box<dyn Cursor>> {
        let mut r = req.clone();
        r.columns = std::iter::once(0)
            .chain(req.columns.iter().map(|c| c + 1))
            .collect();
        if let Some(pid) = pid {
            let p = Value::UInt(pid as u64);
            let with = |b: &Bound<Vec<Value>>| match b {
                Bound::Unbounded => Bound::Included(vec![p.clone()]),
                Bound::Included(v) => Bound::Included(layout::stored_row(pid, v)),
                Bound::Excluded(v) => Bound::Excluded(layout::stored_row(pid, v)),
            };
            r.range = KeyRange {
                lower: with(&req.range.lower),
                upper: with(&req.range.upper),
            };
        }
        Ok(Box::new(TableCursor::open(self.core.clone(), txn, r)?))
    }
}

impl Table for PartitionedTable {
    fn def(&self) -> Arc<TableDef> {
        match self.view() {
            Ok(v) => v.logical,
            Err(_) => Arc::new(layout::logical_def(&self.core.def())),
        }
    }

    fn stats(&self) -> TableStats {
        let mut st = self.core.stats();
        let stored = self.core.def();
        for ix in &mut st.indexes {
            if stored
                .index_by_id(ix.index_id)
                .is_some_and(layout::index_prefixed)
                && !ix.distinct.is_empty()
            {
                ix.distinct.remove(0);
            }
        }
        st
    }

    fn range_fraction(&self, index_id: u32, range: &KeyRange) -> Option<f64> {
        let stored = self.core.def();
        if stored
            .index_by_id(index_id)
            .is_some_and(layout::index_prefixed)
        {
            return None;
        }
        self.core.range_fraction(index_id, range)
    }

    fn insert(&self, txn: &mut Txn, row: Row) -> Result<RowHandle> {
        let view = self.view()?;
        let pid = view.router.route(&row)?;
        self.writable(pid)?;
        let handle = self.core.insert(txn, layout::stored_row(pid, &row))?;
        self.capture(txn, &view, None, Some(&row));
        Ok(handle)
    }

    fn get(
        &self,
        txn: &mut Txn,
        pk: &[Value],
        lock: LockMode,
        wait: WaitPolicy,
    ) -> Result<Option<Fetched>> {
        let view = self.view()?;
        let Ok(pid) = self.route_key(&view, pk) else {
            return Ok(None);
        };
        if !self.readable(pid) {
            return Ok(None);
        }
        let got = self
            .core
            .get(txn, &layout::stored_row(pid, pk), lock, wait, None)?;
        Ok(got.map(logical_fetched))
    }

    fn get_columns(
        &self,
        txn: &mut Txn,
        pk: &[Value],
        columns: &[usize],
    ) -> Result<Option<Fetched>> {
        let view = self.view()?;
        let Ok(pid) = self.route_key(&view, pk) else {
            return Ok(None);
        };
        if !self.readable(pid) {
            return Ok(None);
        }
        let cols: Vec<usize> = std::iter::once(0)
            .chain(columns.iter().map(|c| c + 1))
            .collect();
        let got = self.core.get(
            txn,
            &layout::stored_row(pid, pk),
            LockMode::Consistent,
            WaitPolicy::Wait,
            Some(&cols),
        )?;
        Ok(got.map(logical_fetched))
    }

    fn scan(&self, txn: &mut Txn, req: ScanRequest) -> Result<Box<dyn Cursor>> {
        let view = self.view()?;
        let stored = view.stored.clone();
        let ix = stored
            .index_by_id(req.index_id)
            .ok_or_else(|| StorageError::Invalid(format!("no index with id {}", req.index_id)))?;
        if !layout::index_prefixed(ix) {
            // The clustered index of a table without a primary key: one scan,
            // rows of other partitions left out.
            let ids = self.visible_ids(&view);
            let inner = self.open_part(txn, &req, None)?;
            return Ok(Box::new(MappedCursor::new(inner, Some(ids))));
        }
        let ids = self.partitions_for(&view, req.index_id, &req.range);
        let mut parts = Vec::with_capacity(ids.len());
        for pid in &ids {
            parts.push(self.open_part(txn, &req, Some(*pid))?);
        }
        if parts.len() == 1 {
            let only = parts.pop().expect("one cursor");
            return Ok(Box::new(MappedCursor::new(only, None)));
        }
        let key = view
            .logical
            .index_by_id(req.index_id)
            .cloned()
            .ok_or_else(|| StorageError::Invalid("index without logical form".into()))?;
        Ok(Box::new(MergedCursor::new(
            parts,
            key,
            view.logical.clone(),
            req.reverse,
        )))
    }

    fn update(&self, txn: &mut Txn, handle: &RowHandle, old: &Row, new: Row) -> Result<RowHandle> {
        let view = self.view()?;
        let from = view.router.route(old)?;
        let to = view.router.route(&new)?;
        self.writable(to)?;
        let old_stored = layout::stored_row(from, old);
        let handle = if from == to {
            self.core
                .update(txn, handle, &old_stored, layout::stored_row(to, &new))?
        } else {
            // A row whose partitioning value changed moves to its new partition.
            self.core.delete(txn, handle, &old_stored)?;
            self.core.insert(txn, layout::stored_row(to, &new))?
        };
        self.capture(txn, &view, Some(old), Some(&new));
        Ok(handle)
    }

    fn delete(&self, txn: &mut Txn, handle: &RowHandle, old: &Row) -> Result<()> {
        let view = self.view()?;
        let pid = view.router.route(old)?;
        self.core
            .delete(txn, handle, &layout::stored_row(pid, old))?;
        self.capture(txn, &view, Some(old), None);
        Ok(())
    }

    fn reserve_auto_increment(&self, count: u64) -> Result<u64> {
        Ok(self.core.reserve_auto_increment(count))
    }

    fn observe_auto_increment(&self, value: u64) {
        self.core.observe_auto_increment(value)
    }

    fn peek_auto_increment(&self) -> u64 {
        self.core.peek_auto_increment()
    }

    fn partition_view(&self, ids: &[u32], explicit: bool) -> Option<Arc<dyn Table>> {
        let ids: Vec<u32> = match &self.limit {
            Some(l) => ids.iter().copied().filter(|i| l.ids.contains(i)).collect(),
            None => ids.to_vec(),
        };
        let explicit = explicit || self.limit.as_ref().is_some_and(|l| l.explicit);
        Some(Arc::new(PartitionedTable {
            core: self.core.clone(),
            slot: self.slot.clone(),
            view: self.view.clone(),
            limit: Some(Limit {
                ids: ids.into(),
                explicit,
            }),
        }))
    }

    fn partitions_read(&self, index_id: u32, range: &KeyRange) -> Option<Vec<u32>> {
        let view = self.view().ok()?;
        Some(self.partitions_for(&view, index_id, range))
    }

    fn partition_rows(&self, id: u32) -> Option<u64> {
        let stored = self.core.def();
        let spec = stored.partitioning.as_ref()?;
        spec.part(id)?;
        let rows = self.core.stats().rows;
        let eq = KeyRange::eq(vec![Value::UInt(id as u64)]);
        let fraction = stored
            .indexes
            .iter()
            .filter(|ix| layout::index_prefixed(ix))
            .find_map(|ix| self.core.range_fraction(ix.id, &eq));
        Some(match fraction {
            Some(f) => (rows as f64 * f).round() as u64,
            None => rows / spec.parts.len().max(1) as u64,
        })
    }
}

impl PartitionedTable {
    /// The partitions a read of `index_id` over `range` visits.
    fn partitions_for(&self, view: &View, index_id: u32, range: &KeyRange) -> Vec<u32> {
        match self.pruned_to(view, index_id, range) {
            Some(Some(pid)) if self.readable(pid) => vec![pid],
            Some(_) => Vec::new(),
            None => match self.pruned_by_range(view, index_id, range) {
                Some(ids) => ids.into_iter().filter(|p| self.readable(*p)).collect(),
                None => self.visible_ids(view),
            },
        }
    }

    /// Pruning by the bounds `range` sets on the index's first column, when
    /// that is the column the partitioning orders rows by.
    fn pruned_by_range(&self, view: &View, index_id: u32, range: &KeyRange) -> Option<Vec<u32>> {
        let ix = view.logical.index_by_id(index_id)?;
        let first = ix.columns.first()?;
        if first.prefix_len.is_some() || view.router.columns().first() != Some(&first.column) {
            return None;
        }
        // A bound over more key parts still bounds the first one, inclusively.
        let on_first = |b: &Bound<Vec<Value>>| -> Bound<Value> {
            match b {
                Bound::Unbounded => Bound::Unbounded,
                Bound::Included(v) | Bound::Excluded(v) if v.len() > 1 => {
                    Bound::Included(v[0].clone())
                }
                Bound::Included(v) => v
                    .first()
                    .map_or(Bound::Unbounded, |x| Bound::Included(x.clone())),
                Bound::Excluded(v) => v
                    .first()
                    .map_or(Bound::Unbounded, |x| Bound::Excluded(x.clone())),
            }
        };
        let (lo, hi) = (on_first(&range.lower), on_first(&range.upper));
        if matches!((&lo, &hi), (Bound::Unbounded, Bound::Unbounded)) {
            return None;
        }
        view.router
            .prune_range(first.column, lo.as_ref(), hi.as_ref())
    }
}

fn logical_fetched(f: Fetched) -> Fetched {
    Fetched {
        handle: f.handle,
        row: layout::logical_row(f.row),
    }
}
