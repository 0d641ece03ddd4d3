//! The boundary between the SQL layer and the storage engines.
//!
//! The SQL layer sees tables ([`Table`]), cursors over an index range ([`Cursor`]) and
//! transactions ([`crate::Txn`], begun from [`crate::Storage::begin`]). Rows are
//! `Vec<Value>` indexed by column ordinal of the table's [`TableDef`]; storage encodes
//! keys and rows itself and maintains every secondary index.
//!
//! # Durability
//! A change is durable once [`crate::Txn::commit`] returns `Ok` (at the level set by
//! `flush_log_at_trx_commit`: 1 = its log is on stable storage; 2 = written to the OS,
//! synced within a second; 0 = synced within a second). MEMORY tables are never
//! durable: their contents vanish at restart, their definitions do not.
//! DDL (create/drop database, table, index) is durable when it returns and commits
//! any open transaction first, as MySQL's implicit commit does.
//!
//! # Visibility
//! A consistent read ([`LockMode::Consistent`]) sees the transaction's read view:
//! under REPEATABLE READ the view taken at the transaction's first read; under READ
//! COMMITTED a fresh view per statement ([`crate::Txn::new_statement`]); under READ
//! UNCOMMITTED the latest version. It never waits for a lock. Locking reads and
//! writes see the latest committed version and lock the rows they return; a row
//! changed by another active transaction makes them wait (up to the transaction's
//! lock wait timeout, errno 1205) or fail at once on deadlock (errno 1213). Under
//! REPEATABLE READ with snapshot isolation on (the default), a locking read or write
//! of a row whose latest version was committed after the read view was taken fails
//! with errno 1020.
//!
//! A statement that fails part-way leaves none of its changes behind: the SQL layer
//! takes a [`crate::Txn::savepoint`] before each statement and rolls back to it on
//! error.

use crate::error::StorageError;
use basalt_common::{Row, TableDef, Value};
use std::ops::Bound;
use std::sync::Arc;

pub type Result<T, E = StorageError> = std::result::Result<T, E>;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum IsolationLevel {
    ReadUncommitted,
    ReadCommitted,
    #[default]
    RepeatableRead,
    Serializable,
}

impl IsolationLevel {
    /// The value `@@transaction_isolation` shows.
    pub fn name(self) -> &'static str {
        match self {
            IsolationLevel::ReadUncommitted => "READ-UNCOMMITTED",
            IsolationLevel::ReadCommitted => "READ-COMMITTED",
            IsolationLevel::RepeatableRead => "REPEATABLE-READ",
            IsolationLevel::Serializable => "SERIALIZABLE",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        let n = name.trim().to_ascii_uppercase().replace([' ', '_'], "-");
        Some(match n.as_str() {
            "READ-UNCOMMITTED" => IsolationLevel::ReadUncommitted,
            "READ-COMMITTED" => IsolationLevel::ReadCommitted,
            "REPEATABLE-READ" => IsolationLevel::RepeatableRead,
            "SERIALIZABLE" => IsolationLevel::Serializable,
            _ => return None,
        })
    }
}

/// How a transaction behaves; fixed when it begins.
#[derive(Clone, Debug)]
pub struct TxnOptions {
    pub isolation: IsolationLevel,
    pub read_only: bool,
    /// Errno 1020 on write/locking-read of a row changed after the snapshot
    /// (MariaDB's `innodb_snapshot_isolation`).
    pub snapshot_isolation: bool,
    /// `innodb_lock_wait_timeout`.
    pub lock_wait_timeout: std::time::Duration,
    /// Take the read view now (`START TRANSACTION WITH CONSISTENT SNAPSHOT`).
    pub consistent_snapshot: bool,
    /// How long a wait for a table's metadata lock (a DDL on it) lasts before
    /// errno 1205 (`lock_wait_timeout`).
    pub metadata_lock_wait_timeout: std::time::Duration,
}

impl Default for TxnOptions {
    fn default() -> Self {
        TxnOptions {
            isolation: IsolationLevel::RepeatableRead,
            read_only: false,
            snapshot_isolation: true,
            lock_wait_timeout: std::time::Duration::from_secs(50),
            consistent_snapshot: false,
            metadata_lock_wait_timeout: std::time::Duration::from_secs(86400),
        }
    }
}

/// What a read does about row locks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LockMode {
    /// Non-locking consistent read from the read view.
    #[default]
    Consistent,
    /// `FOR SHARE` / `LOCK IN SHARE MODE`.
    Shared,
    /// `FOR UPDATE`, and the rows UPDATE and DELETE change.
    Exclusive,
}

/// What a locking read does when a row is locked by another transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum WaitPolicy {
    #[default]
    Wait,
    NoWait,
    SkipLocked,
}

/// A range over an index's key columns, compared as key prefixes: a bound with fewer
/// values than the index has columns covers every key that starts with them. So
/// `lower = Included([100])`, `upper = Included([100])` on index (j, k) selects every
/// entry with j = 100; `Excluded([100])` as a lower bound starts after all of them.
/// NULL sorts before every other value.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyRange {
    pub lower: Bound<Vec<Value>>,
    pub upper: Bound<Vec<Value>>,
}

impl KeyRange {
    pub fn all() -> Self {
        KeyRange {
            lower: Bound::Unbounded,
            upper: Bound::Unbounded,
        }
    }

    pub fn eq(key: Vec<Value>) -> Self {
        KeyRange {
            lower: Bound::Included(key.clone()),
            upper: Bound::Included(key),
        }
    }
}

/// A scan of one index.
#[derive(Clone, Debug)]
pub struct ScanRequest {
    /// `IndexDef::id`; the clustered index is `TableDef::indexes[0].id`.
    pub index_id: u32,
    pub range: KeyRange,
    /// Descending key order.
    pub reverse: bool,
    /// Column ordinals the caller will read. When every one is part of the index
    /// (key columns or primary key columns), a secondary index scan does not visit
    /// the clustered index; the other columns of returned rows are NULL.
    pub columns: Vec<usize>,
    pub lock: LockMode,
    pub wait: WaitPolicy,
}

/// Identifies a row for a later update or delete: its encoded clustered key.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RowHandle(pub Vec<u8>);

/// A row as read: its handle and its values (full table width).
#[derive(Clone, Debug, PartialEq)]
pub struct Fetched {
    pub handle: RowHandle,
    pub row: Row,
}

/// Planner statistics, kept in memory and updated as rows change; reading them
/// touches no page.
#[derive(Clone, Debug, Default)]
pub struct TableStats {
    /// Estimated number of rows.
    pub rows: u64,
    /// Per index id: estimated distinct values of each key prefix
    /// (`distinct[0]` for the first column, `distinct[1]` for the first two, ...).
    pub indexes: Vec<IndexStats>,
    /// Approximate bytes of data (for `SHOW TABLE STATUS`).
    pub data_bytes: u64,
}

#[derive(Clone, Debug, Default)]
pub struct IndexStats {
    pub index_id: u32,
    pub distinct: Vec<u64>,
}

/// One table, shared by every session. All methods are safe to call concurrently.
pub trait Table: Send + Sync {
    /// The current definition (DDL on indexes replaces it).
    fn def(&self) -> Arc<TableDef>;

    fn stats(&self) -> TableStats;

    /// The estimated share (0..=1) of index `index_id`'s entries inside `range`, a
    /// range on its first key part only, from an in-memory sample of keys (no
    /// page is read); `None` when there is no sample to go by.
    fn range_fraction(&self, _index_id: u32, _range: &KeyRange) -> Option<f64> {
        None
    }

    /// Inserts a complete row (AUTO_INCREMENT already filled in by the caller).
    /// Fails with [`StorageError::DuplicateKey`] on a primary or unique key clash.
    fn insert(&self, txn: &mut crate::Txn, row: Row) -> Result<RowHandle>;

    /// Reads the row with this primary key (the short path for `pk = const`).
    fn get(
        &self,
        txn: &mut crate::Txn,
        pk: &[Value],
        lock: LockMode,
        wait: WaitPolicy,
    ) -> Result<Option<Fetched>>;

    /// Consistent read by primary key that decodes only `columns` (others are NULL):
    /// the short path of `SELECT cols FROM t WHERE pk = const`.
    fn get_columns(
        &self,
        txn: &mut crate::Txn,
        pk: &[Value],
        columns: &[usize],
    ) -> Result<Option<Fetched>>;

    /// Opens a cursor over an index range.
    fn scan(&self, txn: &mut crate::Txn, req: ScanRequest) -> Result<Box<dyn Cursor>>;

    /// Replaces the row `handle` (read with an exclusive lock in this transaction,
    /// values `old`) by `new`; returns the new handle (it changes when the primary
    /// key does).
    fn update(
        &self,
        txn: &mut crate::Txn,
        handle: &RowHandle,
        old: &Row,
        new: Row,
    ) -> Result<RowHandle>;

    /// Deletes the row `handle` with values `old`.
    fn delete(&self, txn: &mut crate::Txn, handle: &RowHandle, old: &Row) -> Result<()>;

    /// Reserves `count` consecutive AUTO_INCREMENT values and returns the first.
    /// Values are never handed out twice, even if the transaction rolls back.
    fn reserve_auto_increment(&self, count: u64) -> Result<u64>;

    /// Tells the counter that `value` was stored explicitly, so later automatic
    /// values are above it.
    fn observe_auto_increment(&self, value: u64);

    /// The next value the counter would hand out (`SHOW CREATE TABLE`).
    fn peek_auto_increment(&self) -> u64;

    /// For a partitioned table: the same table limited to the partitions `ids`
    /// (`PartitionDef::id`). Reads see only their rows. With `explicit` (the
    /// `t PARTITION (p, ...)` syntax) a row written outside them fails with
    /// [`StorageError::RowOutsidePartitionSet`]; without it (pruning) writes go
    /// wherever their rows belong. `None` for a table that is not partitioned.
    fn partition_view(&self, _ids: &[u32], _explicit: bool) -> Option<Arc<dyn Table>> {
        None
    }

    /// For a partitioned table: the ids of the partitions a read of `index_id`
    /// over `range` visits (after pruning by the range and any view limit), in
    /// partition order. `None` for a table that is not partitioned.
    fn partitions_read(&self, _index_id: u32, _range: &KeyRange) -> Option<Vec<u32>> {
        None
    }

    /// For a partitioned table: the estimated number of rows of partition `id`.
    fn partition_rows(&self, _id: u32) -> Option<u64> {
        None
    }
}

/// A position in an index range. Rows come in key order (or reverse).
pub trait Cursor: Send {
    fn next(&mut self, txn: &mut crate::Txn) -> Result<Option<Fetched>>;

    /// Tells the cursor, before its first `next`, that the caller expects to read
    /// about `rows` rows (a LIMIT), so it can size its first read from the store.
    /// Only a hint: the cursor still returns every row of its range when asked.
    fn expect_rows(&mut self, _rows: usize) {}
}
