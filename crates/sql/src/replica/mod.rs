//! The replica: a primary's binary log received, decoded and applied to Basalt's
//! own tables.
//!
//! - [`control`]: CHANGE MASTER, START / STOP / RESET SLAVE, SHOW SLAVE STATUS,
//!   `@@gtid_slave_pos`; [`master_info`] keeps the settings in `master.info`.
//! - `io_thread`: the connection to the primary, events decoded into the
//!   in-memory `relay` queue; `sql_thread`: applies them one transaction at a
//!   time, recording each GTID in [`gtid_pos`] (`mysql.gtid_slave_pos`) in the
//!   same transaction as its rows.
//! - [`filter`]: the `replicate_*` rules, changed while the SQL thread runs and
//!   kept in `replication-filters.info`.
//! - [`convert`]: a [`ColValue`](basalt_replication::replica::ColValue) of the
//!   primary's column into the [`basalt_common::Value`] of the local column.
//! - [`apply`]: a [`RowsEvent`](basalt_replication::replica::decode::RowsEvent)
//!   with its TABLE_MAP applied through [`basalt_storage::Table`]: WRITE inserts,
//!   UPDATE and DELETE find the row by the local primary key (or a unique key, or
//!   the first row equal on the columns present) and change it.
//!
//! As a replica's SQL thread does, the applier runs no triggers and checks no
//! foreign keys (it writes through the storage tables, below both), and its changes
//! go to this server's binary log only when asked (`log_slave_updates`).
//!
//! Errors carry MariaDB's codes and texts ([`ApplyError::to_mysql`]) and the form
//! MariaDB's SQL thread reports in `Last_SQL_Error`
//! ([`ApplyError::last_sql_error`]).

pub mod apply;
pub mod control;
pub mod convert;
mod ddl_tables;
pub mod filter;
pub mod gtid_pos;
mod io_thread;
pub mod master_info;
mod relay;
mod sql_thread;
mod status;
mod until;
mod wait;

#[cfg(test)]
mod golden_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_types;

pub use apply::{apply_rows, apply_rows_skipping, ApplyCounts, ApplyOptions};
pub use control::Replica;
pub use wait::GtidWait;

use basalt_common::MySqlError;
use basalt_replication::replica::decode::RowsKind;
use thiserror::Error;

/// 1032 `ER_KEY_NOT_FOUND`.
pub const ER_KEY_NOT_FOUND: u16 = 1032;
/// 1535 `ER_BINLOG_ROW_WRONG_TABLE_DEF`.
pub const ER_BINLOG_ROW_WRONG_TABLE_DEF: u16 = 1535;
/// 1677 `ER_SLAVE_CONVERSION_FAILED`.
pub const ER_SLAVE_CONVERSION_FAILED: u16 = 1677;

/// Why a rows event could not be applied.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ApplyError {
    /// 1677: a column's primary type is not the local one.
    #[error(
        "Column {ordinal} of table '{schema}.{table}' cannot be converted from type '{from}' to type '{to}'"
    )]
    Conversion {
        ordinal: usize,
        schema: String,
        table: String,
        from: String,
        to: String,
    },
    /// 1535: the local table cannot take the event's rows at all.
    #[error("Table definition on master and slave does not match: {0}")]
    TableDef(String),
    /// A row operation failed (1062, 1032, 1146, lock errors, ...).
    #[error("{}", .error.message)]
    Row {
        kind: RowsKind,
        schema: String,
        table: String,
        error: MySqlError,
        /// MariaDB's handler error name (`HA_ERR_FOUND_DUPP_KEY`), when there is one.
        handler: Option<&'static str>,
    },
}

impl ApplyError {
    /// The error as a client would see it (code, SQLSTATE, text).
    pub fn to_mysql(&self) -> MySqlError {
        match self {
            ApplyError::Conversion { .. } => {
                MySqlError::new(ER_SLAVE_CONVERSION_FAILED, "HY000", self.to_string())
            }
            ApplyError::TableDef(_) => {
                MySqlError::new(ER_BINLOG_ROW_WRONG_TABLE_DEF, "HY000", self.to_string())
            }
            ApplyError::Row { error, .. } => error.clone(),
        }
    }

    pub fn code(&self) -> u16 {
        self.to_mysql().code
    }

    /// Whether `slave_exec_mode=IDEMPOTENT` passes over this error (a row already
    /// there, or missing).
    pub fn idempotent_skips(&self) -> bool {
        matches!(
            self.code(),
            basalt_common::error::code::ER_DUP_ENTRY | ER_KEY_NOT_FOUND
        )
    }

    /// `Last_SQL_Error` as MariaDB's SQL thread words it for an event of the file
    /// `log` ending at `end_log_pos`: `Could not execute Write_rows_v1 event on table
    /// test.t; Duplicate entry '1' for key 'PRIMARY', Error_code: 1062; handler error
    /// HA_ERR_FOUND_DUPP_KEY; the event's master log mariadb-bin.000001, end_log_pos 539`.
    /// Errors that are not about a row are the message alone.
    pub fn last_sql_error(&self, log: &str, end_log_pos: u64) -> String {
        let ApplyError::Row {
            kind,
            schema,
            table,
            error,
            handler,
        } = self
        else {
            return self.to_string();
        };
        let event = match kind {
            RowsKind::Write => "Write_rows_v1",
            RowsKind::Update => "Update_rows_v1",
            RowsKind::Delete => "Delete_rows_v1",
        };
        format!(
            "Could not execute {event} event on table {schema}.{table}; {}, Error_code: {}; \
             handler error {}; the event's master log {log}, end_log_pos {end_log_pos}",
            error.message,
            error.code,
            handler.unwrap_or("<unknown>"),
        )
    }
}

/// 1032 for table `table`.
pub fn key_not_found(table: &str) -> MySqlError {
    MySqlError::new(
        ER_KEY_NOT_FOUND,
        "HY000",
        format!("Can't find record in '{table}'"),
    )
}
