//! The stored form of a partitioned table's definition.
//!
//! The SQL layer sees the table as declared (its *logical* definition). The
//! engine stores it with a hidden first column, [`PARTITION_COLUMN`], holding each
//! row's partition id, and every index starts with that column, except the
//! clustered index of a table without a primary key (rows are keyed by the hidden
//! row id; a scan of it filters by the column). So logical column `i` is stored
//! column `i + 1`, and a partition is a key prefix of every index.

use basalt_common::partition::PARTITION_COLUMN;
use basalt_common::types::{DataType, IntKind};
use basalt_common::{ColumnDef, IndexColumn, IndexDef, TableDef, Value};

/// Whether `def` (as stored) is a partitioned table's.
pub fn is_stored_partitioned(def: &TableDef) -> bool {
    def.partitioning.is_some()
        && def
            .columns
            .first()
            .is_some_and(|c| c.name == PARTITION_COLUMN)
}

fn partition_column() -> ColumnDef {
    let mut c = ColumnDef::new(
        PARTITION_COLUMN,
        DataType::Int {
            kind: IntKind::Int,
            unsigned: true,
            width: 0,
            zerofill: false,
        },
    );
    c.nullable = false;
    c
}

/// Whether stored index `ix` of a table starts with the partition column.
pub fn index_prefixed(ix: &IndexDef) -> bool {
    ix.columns.first().is_some_and(|c| c.column == 0)
}

/// The stored form of a logical index: ordinals shifted past the partition
/// column, which leads (a hidden-row-id clustered index stays keyless).
pub fn stored_index(ix: &IndexDef) -> IndexDef {
    let mut out = ix.clone();
    if ix.columns.is_empty() {
        return out;
    }
    out.columns = std::iter::once(IndexColumn {
        column: 0,
        prefix_len: None,
        descending: false,
    })
    .chain(ix.columns.iter().map(|c| IndexColumn {
        column: c.column + 1,
        ..c.clone()
    }))
    .collect();
    out
}

fn logical_index(ix: &IndexDef) -> IndexDef {
    let mut out = ix.clone();
    out.columns = ix
        .columns
        .iter()
        .filter(|c| c.column != 0)
        .map(|c| IndexColumn {
            column: c.column - 1,
            ..c.clone()
        })
        .collect();
    out
}

/// The stored definition of a logical partitioned definition.
pub fn stored_def(logical: &TableDef) -> TableDef {
    let mut def = logical.clone();
    def.columns = std::iter::once(partition_column())
        .chain(logical.columns.iter().cloned())
        .collect();
    def.indexes = logical.indexes.iter().map(stored_index).collect();
    def
}

/// The logical definition of a stored partitioned definition.
pub fn logical_def(stored: &TableDef) -> TableDef {
    let mut def = stored.clone();
    def.columns.remove(0);
    def.indexes = stored.indexes.iter().map(logical_index).collect();
    def
}

/// A stored row from a logical row and its partition id.
pub fn stored_row(pid: u32, row: &[Value]) -> Vec<Value> {
    let mut out = Vec::with_capacity(row.len() + 1);
    out.push(Value::UInt(pid as u64));
    out.extend_from_slice(row);
    out
}

/// The logical row of a stored row.
pub fn logical_row(mut row: Vec<Value>) -> Vec<Value> {
    if !row.is_empty() {
        row.remove(0);
    }
    row
}

/// The partition id a stored row carries.
pub fn row_partition(row: &[Value]) -> Option<u32> {
    match row.first()? {
        Value::UInt(v) => Some(*v as u32),
        Value::Int(v) => Some(*v as u32),
        _ => None,
    }
}
