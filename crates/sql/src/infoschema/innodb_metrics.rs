//! information_schema.INNODB_METRICS: the InnoDB metrics Basalt's engine has a
//! value for, under MariaDB 10.11's names, all enabled since the server started.
//! Basalt keeps no running minimum or maximum of a value: a counter's MAX_COUNT
//! is its count (counters only grow), and a value's MAX_COUNT / MIN_COUNT are NULL.

use crate::result::s;
use crate::session::ctx::SessionCtx;
use basalt_common::{DateTime, Row, Value};

/// (name, subsystem, type, comment, SHOW STATUS name it reads).
const METRICS: &[(&str, &str, &str, &str, &str)] = &[
    (
        "lock_deadlocks",
        "lock",
        "value",
        "Number of deadlocks",
        "Innodb_deadlocks",
    ),
    (
        "lock_timeouts",
        "lock",
        "value",
        "Number of lock timeouts",
        "Innodb_row_lock_timeouts",
    ),
    (
        "lock_row_lock_current_waits",
        "lock",
        "value",
        "Number of row locks currently being waited for (innodb_row_lock_current_waits)",
        "Innodb_row_lock_current_waits",
    ),
    (
        "lock_row_lock_waits",
        "lock",
        "status_counter",
        "Number of times a row lock had to be waited for (innodb_row_lock_waits)",
        "Innodb_row_lock_waits",
    ),
    (
        "lock_row_lock_time",
        "lock",
        "status_counter",
        "Time spent in acquiring row locks, in milliseconds (innodb_row_lock_time)",
        "Innodb_row_lock_time",
    ),
    (
        "lock_row_lock_time_max",
        "lock",
        "value",
        "The maximum time to acquire a row lock, in milliseconds (innodb_row_lock_time_max)",
        "Innodb_row_lock_time_max",
    ),
    (
        "lock_row_lock_time_avg",
        "lock",
        "value",
        "The average time to acquire a row lock, in milliseconds (innodb_row_lock_time_avg)",
        "Innodb_row_lock_time_avg",
    ),
    (
        "buffer_pool_size",
        "server",
        "value",
        "Server buffer pool size (all buffer pools) in bytes",
        "buffer_pool_size",
    ),
    (
        "buffer_pool_reads",
        "buffer",
        "status_counter",
        "Number of reads directly from disk (innodb_buffer_pool_reads)",
        "Innodb_buffer_pool_reads",
    ),
    (
        "buffer_pool_read_requests",
        "buffer",
        "status_counter",
        "Number of logical read requests (innodb_buffer_pool_read_requests)",
        "Innodb_buffer_pool_read_requests",
    ),
    (
        "buffer_pool_pages_total",
        "buffer",
        "value",
        "Total buffer pool size in pages (innodb_buffer_pool_pages_total)",
        "Innodb_buffer_pool_pages_total",
    ),
    (
        "buffer_pool_pages_data",
        "buffer",
        "value",
        "Buffer pages containing data (innodb_buffer_pool_pages_data)",
        "Innodb_buffer_pool_pages_data",
    ),
    (
        "buffer_pool_bytes_data",
        "buffer",
        "value",
        "Buffer bytes containing data (innodb_buffer_pool_bytes_data)",
        "Innodb_buffer_pool_bytes_data",
    ),
    (
        "buffer_pool_pages_dirty",
        "buffer",
        "value",
        "Buffer pages currently dirty (innodb_buffer_pool_pages_dirty)",
        "Innodb_buffer_pool_pages_dirty",
    ),
    (
        "buffer_pool_bytes_dirty",
        "buffer",
        "value",
        "Buffer bytes currently dirty (innodb_buffer_pool_bytes_dirty)",
        "Innodb_buffer_pool_bytes_dirty",
    ),
    (
        "buffer_pool_pages_free",
        "buffer",
        "value",
        "Buffer pages currently free (innodb_buffer_pool_pages_free)",
        "Innodb_buffer_pool_pages_free",
    ),
    (
        "buffer_pages_written",
        "buffer",
        "status_counter",
        "Number of pages written (innodb_pages_written)",
        "Innodb_buffer_pool_pages_flushed",
    ),
    (
        "buffer_pages_read",
        "buffer",
        "status_counter",
        "Number of pages read (innodb_pages_read)",
        "Innodb_buffer_pool_reads",
    ),
    (
        "buffer_data_reads",
        "buffer",
        "status_counter",
        "Amount of data read in bytes (innodb_data_reads)",
        "Innodb_data_read",
    ),
    (
        "buffer_data_written",
        "buffer",
        "status_counter",
        "Amount of data written in bytes (innodb_data_written)",
        "Innodb_data_written",
    ),
    (
        "os_data_reads",
        "os",
        "status_counter",
        "Number of reads initiated (innodb_data_reads)",
        "Innodb_data_reads",
    ),
    (
        "os_data_writes",
        "os",
        "status_counter",
        "Number of writes initiated (innodb_data_writes)",
        "Innodb_data_writes",
    ),
    (
        "os_data_fsyncs",
        "os",
        "status_counter",
        "Number of fsync() calls (innodb_data_fsyncs)",
        "Innodb_data_fsyncs",
    ),
    (
        "os_log_bytes_written",
        "os",
        "status_counter",
        "Bytes of log written (innodb_os_log_written)",
        "Innodb_os_log_written",
    ),
    (
        "os_log_fsyncs",
        "os",
        "status_counter",
        "Number of fsync log writes (innodb_os_log_fsyncs)",
        "Innodb_os_log_fsyncs",
    ),
    (
        "trx_rseg_history_len",
        "transaction",
        "value",
        "Length of the TRX_RSEG_HISTORY list",
        "Innodb_history_list_length",
    ),
    (
        "log_lsn_last_flush",
        "recovery",
        "value",
        "LSN of Last flush",
        "Innodb_lsn_flushed",
    ),
    (
        "log_lsn_last_checkpoint",
        "recovery",
        "value",
        "LSN at last checkpoint",
        "Innodb_lsn_last_checkpoint",
    ),
    (
        "log_lsn_current",
        "recovery",
        "value",
        "Current LSN value",
        "Innodb_lsn_current",
    ),
    (
        "log_lsn_checkpoint_age",
        "recovery",
        "value",
        "Current LSN value minus LSN at last checkpoint",
        "Innodb_checkpoint_age",
    ),
    (
        "log_writes",
        "recovery",
        "status_counter",
        "Number of log writes (innodb_log_writes)",
        "Innodb_log_writes",
    ),
    (
        "innodb_page_size",
        "server",
        "value",
        "InnoDB page size in bytes (innodb_page_size)",
        "Innodb_page_size",
    ),
    (
        "dml_reads",
        "dml",
        "status_counter",
        "Number of rows read",
        "Innodb_rows_read",
    ),
    (
        "dml_inserts",
        "dml",
        "status_counter",
        "Number of rows inserted",
        "Innodb_rows_inserted",
    ),
    (
        "dml_deletes",
        "dml",
        "status_counter",
        "Number of rows deleted",
        "Innodb_rows_deleted",
    ),
    (
        "dml_updates",
        "dml",
        "status_counter",
        "Number of rows updated",
        "Innodb_rows_updated",
    ),
];

pub fn rows(cx: &SessionCtx) -> Vec<Row> {
    let status = crate::show::status_numbers(cx);
    let get = |k: &str| match k {
        "buffer_pool_size" => status
            .get("Innodb_buffer_pool_pages_total")
            .map(|p| p * status.get("Innodb_page_size").copied().unwrap_or(16384)),
        _ => status.get(k).copied(),
    };
    let elapsed = cx.engine.started.elapsed().as_secs();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let enabled = Value::DateTime(cx.local(DateTime::from_unix_seconds(
        now.saturating_sub(elapsed) as i64,
        0,
    )));
    METRICS
        .iter()
        .filter_map(|&(name, sub, kind, comment, from)| {
            let count = get(from)? as i64;
            let counter = kind != "value";
            let max = if counter {
                Value::Int(count)
            } else {
                Value::Null
            };
            let avg = if counter && elapsed > 0 {
                Value::Double(count as f64 / elapsed as f64)
            } else {
                Value::Null
            };
            Some(vec![
                s(name),
                s(sub),
                Value::Int(count),
                max.clone(),
                Value::Null,
                avg,
                Value::Int(count),
                max,
                Value::Null,
                Value::Null,
                enabled.clone(),
                Value::Null,
                Value::Int(elapsed as i64),
                Value::Null,
                Value::Int(1),
                s(kind),
                s(comment),
            ])
        })
        .collect()
}
