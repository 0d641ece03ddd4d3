//! Partitioned tables (`PARTITION BY RANGE | LIST | HASH | KEY`).
//!
//! A partitioned table is one stored table whose every index starts with a hidden
//! column holding the row's partition id (`layout`), so:
//! - partitions need no file, buffer or memory of their own (seed 003: MySQL's
//!   per-partition buffers made a one-row query on a 1,000-partition table cost
//!   191 MB);
//! - a read limited to some partitions (pruning, `t PARTITION (p)`) is a range
//!   restriction of the index it reads;
//! - every DDL the engine does on tables (ALTER in place or by copy, ADD INDEX,
//!   crash safety) works on partitioned tables unchanged.
//!
//! Partition management that moves rows (repartitioning, REORGANIZE, COALESCE,
//! ADD PARTITION of HASH/KEY) is a table copy whose rows are routed anew; DROP and
//! TRUNCATE PARTITION delete the partition's rows (`Storage::drop_partitions`).

mod cursor;
pub mod layout;
pub mod router;
mod table;

pub use router::{PartitionRouter, RouterFactory, RouterSlot};
pub use table::PartitionedTable;
