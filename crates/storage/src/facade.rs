//! Interface of the catalog and transactions (implementation in progress).
#![allow(unused_variables, dead_code)]

use crate::api::*;
use crate::io::FileSystem;
use basalt_common::{Collation, IndexDef, TableDef};
use std::path::PathBuf;
use std::sync::Arc;

/// How the storage layer is set up at start.
#[derive(Clone)]
pub struct StorageConfig {
    pub datadir: PathBuf,
    /// Bytes of page cache for durable tables.
    pub buffer_pool_size: u64,
    /// 1: fsync at commit; 2: write at commit, fsync each second; 0: both each second.
    pub flush_log_at_trx_commit: u8,
    pub fs: Arc<dyn FileSystem>,
}

/// The catalog (databases, tables) and the engines behind it.
pub struct Storage;

/// A transaction. Dropping it without commit rolls it back.
pub struct Txn;

/// A position in a transaction to roll back to.
pub struct Savepoint(usize);

impl Storage {
    pub fn open(config: StorageConfig) -> Result<Arc<Storage>> { todo!() }
    pub fn begin(self: &Arc<Self>, opts: TxnOptions) -> Txn { todo!() }
    /// Database names, sorted.
    pub fn databases(&self) -> Vec<String> { todo!() }
    pub fn database_exists(&self, name: &str) -> bool { todo!() }
    /// The default collation of a database (`SHOW CREATE DATABASE`).
    pub fn database_collation(&self, name: &str) -> Option<Collation> { todo!() }
    pub fn create_database(&self, name: &str, collation: Collation) -> Result<()> { todo!() }
    /// Drops the database and every table in it; returns how many tables were dropped.
    pub fn drop_database(&self, name: &str) -> Result<usize> { todo!() }
    /// Table names of a database, sorted.
    pub fn tables(&self, db: &str) -> Result<Vec<String>> { todo!() }
    pub fn table(&self, db: &str, name: &str) -> Option<Arc<dyn Table>> { todo!() }
    /// Creates a table; `def.id` and index ids are assigned here.
    pub fn create_table(&self, def: TableDef) -> Result<Arc<dyn Table>> { todo!() }
    pub fn drop_table(&self, db: &str, name: &str) -> Result<()> { todo!() }
    pub fn truncate_table(&self, db: &str, name: &str) -> Result<()> { todo!() }
    /// Adds an index (id assigned here) and fills it from the table's rows; fails
    /// with a duplicate-key error if a UNIQUE index meets two equal keys.
    pub fn create_index(&self, db: &str, table: &str, index: IndexDef) -> Result<()> { todo!() }
    pub fn drop_index(&self, db: &str, table: &str, index: &str) -> Result<()> { todo!() }
    /// Bumped by every DDL; plan caches compare it to know their plans are current.
    pub fn schema_version(&self) -> u64 { todo!() }
    /// Counters for `SHOW GLOBAL STATUS` (name, value).
    pub fn status(&self) -> Vec<(&'static str, u64)> { todo!() }
}

impl Txn {
    /// Transaction id, 0 until the transaction first writes.
    pub fn id(&self) -> u64 { todo!() }
    pub fn options(&self) -> &TxnOptions { todo!() }
    pub fn has_writes(&self) -> bool { todo!() }
    /// Marks the start of a statement (READ COMMITTED takes a fresh view per statement).
    pub fn new_statement(&mut self) { todo!() }
    pub fn savepoint(&self) -> Savepoint { todo!() }
    /// Undoes every change made after `sp` (locks stay held, as InnoDB does).
    pub fn rollback_to(&mut self, sp: &Savepoint) -> Result<()> { todo!() }
    pub fn commit(self) -> Result<()> { todo!() }
    pub fn rollback(self) -> Result<()> { todo!() }
    /// A flag that, once set (KILL QUERY), makes waits and scans end with `Interrupted`.
    pub fn set_interrupt(&mut self, flag: Arc<std::sync::atomic::AtomicBool>) { todo!() }
}
