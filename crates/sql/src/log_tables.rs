//! The rows of `mysql.general_log` and `mysql.slow_log` under
//! `log_output=TABLE`: appended by the logs, read by SELECT (a copy of the
//! rows at the time of the read), emptied by TRUNCATE TABLE.
//!
//! MariaDB keeps these tables in CSV files; Basalt keeps their rows in memory,
//! so they start empty at each server start. A logged statement pays one push
//! under a mutex that readers hold only to copy the rows (never while the
//! reader's statement runs).

use basalt_common::Row;
use parking_lot::Mutex;

#[derive(Default)]
pub struct LogRows {
    rows: Mutex<Vec<Row>>,
}

impl LogRows {
    pub fn push(&self, row: Row) {
        self.rows.lock().push(row);
    }

    /// The rows now.
    pub fn snapshot(&self) -> Vec<Row> {
        self.rows.lock().clone()
    }

    /// TRUNCATE TABLE.
    pub fn clear(&self) {
        let old = std::mem::take(&mut *self.rows.lock());
        drop(old);
    }
}

/// MariaDB's `user_host` column and the slow log's `# User@Host:` value:
/// `user[priv_user] @ host [ip]`. Basalt resolves no names, so a TCP client
/// shows its address as the ip, a socket client `localhost`.
pub fn user_host(user: &str, priv_user: &str, host: &str) -> String {
    let (host, ip) = if host == "localhost" {
        ("localhost", "")
    } else {
        ("", host)
    };
    format!("{user}[{priv_user}] @ {host} [{ip}]")
}
