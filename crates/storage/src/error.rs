//! Storage errors, and how each reaches a client as a MySQL error.

use basalt_common::MySqlError;

#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    #[error("duplicate entry '{entry}' for key '{key}'")]
    DuplicateKey { entry: String, key: String },
    #[error("lock wait timeout")]
    LockWaitTimeout,
    #[error("lock not available (NOWAIT)")]
    LockNowait,
    #[error("deadlock")]
    Deadlock,
    #[error("record of {table} changed after the snapshot")]
    SnapshotConflict { table: String },
    #[error("read-only transaction")]
    ReadOnlyTransaction,
    /// A write to a read-only table (information_schema, the `mysql` grant and
    /// log tables): errno 1036.
    #[error("table {0} is read only")]
    ReadOnlyTable(String),
    #[error("interrupted")]
    Interrupted,
    /// A write to a table whose engine cannot take it (the SEQUENCE engine's
    /// tables): errno 1031. `table` is the quoted `db`.`name`.
    #[error("engine {engine} of {table} cannot do this")]
    EngineLacksOption { engine: String, table: String },
    #[error("database {0} exists")]
    DatabaseExists(String),
    #[error("unknown database {0}")]
    NoSuchDatabase(String),
    #[error("table {0} exists")]
    TableExists(String),
    #[error("table {db}.{table} does not exist")]
    NoSuchTable { db: String, table: String },
    #[error("corrupt page {page} in {file}: {detail}")]
    Corrupt {
        file: String,
        page: u64,
        detail: String,
    },
    #[error("disk full: {0}")]
    DiskFull(String),
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// The engine hit an unrecoverable condition (failed fsync) and stops accepting
    /// writes until the process restarts and recovers from the log.
    #[error("storage engine halted: {0}")]
    Halted(String),
    /// The statement was planned against a table that a DDL has since replaced or
    /// dropped (errno 1412; an autocommit statement is planned and run again).
    #[error("table definition has changed")]
    TableChanged,
    /// A row whose partitioning value no partition takes (errno 1526; the value
    /// as MariaDB prints it).
    #[error("table has no partition for value {0}")]
    NoPartitionForValue(String),
    /// A row written through `t PARTITION (...)` that belongs to another
    /// partition (errno 1748).
    #[error("row outside the given partition set")]
    RowOutsidePartitionSet,
    #[error("{0}")]
    Invalid(String),
    /// An error of a table the SQL layer implements (performance_schema's
    /// writable setup tables), as the client gets it.
    #[error("{0}")]
    Sql(MySqlError),
}

impl StorageError {
    /// True for errors after which the whole transaction must be rolled back
    /// rather than only the statement: deadlock victims, and snapshot isolation
    /// conflicts (errno 1020; MariaDB rolls the transaction back, MDEV-35235).
    pub fn rolls_back_transaction(&self) -> bool {
        matches!(
            self,
            StorageError::Deadlock | StorageError::SnapshotConflict { .. }
        )
    }
}

impl From<StorageError> for MySqlError {
    fn from(e: StorageError) -> Self {
        match e {
            StorageError::DuplicateKey { entry, key } => MySqlError::dup_entry(&entry, &key),
            StorageError::LockWaitTimeout | StorageError::LockNowait => {
                MySqlError::lock_wait_timeout()
            }
            StorageError::Deadlock => MySqlError::deadlock(),
            StorageError::SnapshotConflict { table } => MySqlError::checkread(&table),
            StorageError::ReadOnlyTransaction => MySqlError::read_only_transaction(),
            StorageError::ReadOnlyTable(t) => {
                MySqlError::new(1036, "HY000", format!("Table '{t}' is read only"))
            }
            StorageError::Interrupted => MySqlError::query_interrupted(),
            StorageError::EngineLacksOption { engine, table } => MySqlError::new(
                1031,
                "HY000",
                format!("Storage engine {engine} of the table {table} doesn't have this option"),
            ),
            StorageError::DatabaseExists(db) => MySqlError::db_create_exists(&db),
            StorageError::NoSuchDatabase(db) => MySqlError::bad_db(&db),
            StorageError::TableExists(t) => MySqlError::table_exists(&t),
            StorageError::NoSuchTable { db, table } => MySqlError::no_such_table(&db, &table),
            StorageError::Corrupt { file, page, detail } => {
                MySqlError::table_corrupt(&format!("page {page} of {file}: {detail}"))
            }
            StorageError::DiskFull(d) => MySqlError::disk_full(&d),
            StorageError::Io(err) => {
                if err.raw_os_error() == Some(libc::ENOSPC) {
                    MySqlError::disk_full(&err.to_string())
                } else {
                    MySqlError::engine_io(err.raw_os_error().unwrap_or(-1), &err.to_string())
                }
            }
            StorageError::Halted(d) => MySqlError::engine_io(-1, &d),
            StorageError::TableChanged => MySqlError::new(
                1412,
                "HY000",
                "Table definition has changed, please retry transaction",
            ),
            StorageError::NoPartitionForValue(v) => MySqlError::new(
                1526,
                "HY000",
                format!("Table has no partition for value {v}"),
            ),
            StorageError::RowOutsidePartitionSet => MySqlError::new(
                1748,
                "HY000",
                "Found a row not matching the given partition set",
            ),
            StorageError::Invalid(d) => MySqlError::internal(d),
            StorageError::Sql(e) => e,
        }
    }
}
