//! Which partition a row belongs to. Partitioning functions are SQL expressions
//! (`YEAR(d)`, `TO_DAYS(d)`, ...), so the SQL layer computes them: it installs a
//! [`RouterFactory`] on the storage once at start ([`crate::Storage::set_partition_routers`]),
//! and each partitioned table asks it for the [`PartitionRouter`] of its current
//! definition.

use crate::api::Result;
use crate::error::StorageError;
use basalt_common::{TableDef, Value};
use parking_lot::RwLock;
use std::ops::Bound;
use std::sync::Arc;

/// Routes the rows of one table definition.
pub trait PartitionRouter: Send + Sync {
    /// The id (`PartitionDef::id`) of the partition that holds `row`, a row of the
    /// table's (logical) definition. For a primary key lookup only the primary
    /// key's columns are set (they include every column the partitioning reads).
    /// Fails with [`StorageError::NoPartitionForValue`] when no partition takes it.
    fn route(&self, row: &[Value]) -> Result<u32>;

    /// The column ordinals the partitioning function reads.
    fn columns(&self) -> &[usize];

    /// The partitions that can hold rows whose column `column` (the only one the
    /// function reads, or the first of RANGE COLUMNS) lies between `lower` and
    /// `upper`, in partition order; `None` when the partitioning cannot tell
    /// (HASH, KEY, functions that do not keep order).
    fn prune_range(
        &self,
        _column: usize,
        _lower: Bound<&Value>,
        _upper: Bound<&Value>,
    ) -> Option<Vec<u32>> {
        None
    }
}

/// Makes the router of a partitioned table's definition.
pub trait RouterFactory: Send + Sync {
    fn router(&self, def: &TableDef) -> Result<Arc<dyn PartitionRouter>>;
}

/// The factory the SQL layer installed (shared by every partitioned table).
#[derive(Default)]
pub struct RouterSlot(RwLock<Option<Arc<dyn RouterFactory>>>);

impl RouterSlot {
    pub fn set(&self, factory: Arc<dyn RouterFactory>) {
        *self.0.write() = Some(factory);
    }

    pub fn router(&self, def: &TableDef) -> Result<Arc<dyn PartitionRouter>> {
        match &*self.0.read() {
            Some(f) => f.router(def),
            None => Err(StorageError::Invalid(
                "partitioned tables need the SQL layer's partition router".into(),
            )),
        }
    }
}
