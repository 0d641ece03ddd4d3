//! Basalt's storage: the engine traits the SQL layer uses ([`api`]), the durable
//! transactional engine and the MEMORY engine behind them.

pub mod api;
pub mod binlog;
pub mod btree;
pub mod error;
pub mod extsort;
pub mod io;
pub mod page;
pub mod pool;
pub mod store;
pub mod wal;

mod catalog;
pub mod durable;
mod engine;
mod facade;
pub mod keycodec;
pub mod memstore;
pub mod metrics;
pub mod mvcc;
pub mod partition;
pub mod rowcodec;
pub mod table;
mod txn;

pub use api::*;
pub use catalog::{EventDef, RoutineDef, TriggerDef, ViewDef};
pub use error::StorageError;
pub use facade::{
    is_temp_id, AlterSpec, ChildRef, EventRun, ForeignKeyIndex, Storage, StorageConfig, TempTable,
    TriggerOrder, TEMP_ID_BASE,
};
pub use txn::{CommitLog, Savepoint, Txn};
