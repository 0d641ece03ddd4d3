//! Partitioning of a table (`PARTITION BY RANGE | LIST | HASH | KEY`), as the
//! catalog keeps it.
//!
//! Every partition has a stable id, never reused within its table. The durable
//! engine stores a partitioned table as one table whose every index starts with a
//! hidden column holding that id (see `basalt_storage::partition`), so a partition
//! is a key range of each index: pruning is a range restriction, and partitions
//! cost no memory of their own.

use crate::Value;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PartitionKind {
    Range,
    List,
    Hash,
    Key,
}

impl PartitionKind {
    /// The keyword MariaDB prints (`RANGE`, ...).
    pub fn keyword(self) -> &'static str {
        match self {
            PartitionKind::Range => "RANGE",
            PartitionKind::List => "LIST",
            PartitionKind::Hash => "HASH",
            PartitionKind::Key => "KEY",
        }
    }
}

/// One bound of `VALUES LESS THAN (...)` or one element of `VALUES IN (...)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum PartitionBound {
    MaxValue,
    /// An integer for RANGE / LIST over an expression; a value of the column's type
    /// for the COLUMNS forms; `Value::Null` in a LIST.
    Value(Value),
}

/// What a partition holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum PartitionValues {
    /// HASH and KEY partitions.
    None,
    /// RANGE: one bound per partitioning column (one for RANGE over an expression).
    LessThan(Vec<PartitionBound>),
    /// LIST: the value tuples (one value each unless LIST COLUMNS of several).
    In(Vec<Vec<PartitionBound>>),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PartitionDef {
    /// Stable id: the value of the hidden partition column of the partition's rows.
    pub id: u32,
    pub name: String,
    pub values: PartitionValues,
    pub comment: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PartitionSpec {
    pub kind: PartitionKind,
    /// `LINEAR HASH` / `LINEAR KEY`.
    pub linear: bool,
    /// `RANGE COLUMNS` / `LIST COLUMNS`.
    pub columns_form: bool,
    /// RANGE / LIST / HASH over an expression: the expression as MariaDB prints it
    /// (`` `a` ``, `` year(`d`) ``). Empty for the COLUMNS forms and KEY.
    pub expr: String,
    /// The COLUMNS forms and KEY: the column names (KEY with none means the
    /// primary key's columns).
    pub columns: Vec<String>,
    /// `KEY ALGORITHM = n`, when written.
    pub key_algorithm: Option<u8>,
    /// Whether the partitions were listed one by one (`(PARTITION p0 ..., ...)`);
    /// otherwise `PARTITIONS n` made them and SHOW CREATE TABLE prints that.
    pub listed: bool,
    pub parts: Vec<PartitionDef>,
    /// The id the next new partition gets.
    pub next_id: u32,
}

impl PartitionSpec {
    pub fn part(&self, id: u32) -> Option<&PartitionDef> {
        self.parts.iter().find(|p| p.id == id)
    }

    pub fn by_name(&self, name: &str) -> Option<&PartitionDef> {
        self.parts
            .iter()
            .find(|p| p.name.eq_ignore_ascii_case(name))
    }

    /// Position of partition `id` in `parts` (what HASH and KEY route by).
    pub fn position(&self, id: u32) -> Option<usize> {
        self.parts.iter().position(|p| p.id == id)
    }
}

/// The name of the hidden column that holds a row's partition id (ordinal 0 of a
/// partitioned table's stored definition). `#` cannot start a column a client
/// names without quoting, and a quoted one is refused (1166).
pub const PARTITION_COLUMN: &str = "#partition";
