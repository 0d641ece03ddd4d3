//! Shared vocabulary of every Basalt layer: values, SQL types, collations, table
//! definitions, MySQL-coded errors, and the declared-wait hook. Nothing here does
//! I/O.

pub mod charset;
pub mod collation;
pub mod datetime;
pub mod decimal;
pub mod enumset;
pub mod error;
pub mod fixedbin;
pub mod foreign_key;
pub mod histogram;
pub mod partition;
pub mod sqlstate;
pub mod types;
pub mod value;
pub mod wait;

pub use collation::{Charset, Collation};
pub use datetime::{Date, DateTime, Time};
pub use decimal::Decimal;
pub use error::{MySqlError, Result};
pub use foreign_key::{FkAction, ForeignKeyDef};
pub use types::{
    CheckDef, ColumnDef, DataType, DefaultValue, EngineKind, Generated, IndexColumn, IndexDef,
    IndexKind, IntKind, LobKind, TableDef, TableId,
};
pub use value::{Row, Value};
pub mod column;
pub use column::{ColumnMeta, ColumnType};
