//! The slow query log (`slow_query_log`, `slow_query_log_file`,
//! `long_query_time`, `log_queries_not_using_indexes`, `min_examined_row_limit`,
//! `log_slow_admin_statements`, `log_slow_verbosity=query_plan`) in MariaDB's
//! file format, which `pt-query-digest` and `mariadb-dumpslow` read:
//!
//! ```text
//! # Time: 261205 23:09:48
//! # User@Host: root[root] @  [127.0.0.1]
//! # Thread_id: 11  Schema: d  QC_hit: No
//! # Query_time: 0.000100  Lock_time: 0.000000  Rows_sent: 1  Rows_examined: 0
//! # Rows_affected: 0  Bytes_sent: 58
//! use `d`;
//! SET timestamp=1796512188;
//! select 1;
//! ```
//!
//! `# Time:` is written when the second changed since the previous entry and
//! `use` when the schema differs from the previous entry's, as MariaDB does.
//! The file starts with the general log's header each time it is opened.
//! Under `log_output=TABLE` each entry is also a row of `mysql.slow_log`.
//! A write that fails (a full disk) turns the log off with one line in the
//! error log; the statement goes on.
//!
//! Cost when off: the statement's duration is measured anyway (for
//! `Slow_queries`); nothing else. Entries are written under a mutex, one
//! `write` each, only for statements that qualify.

use crate::general_log::{LogIdentity, Outputs};
use crate::log_file::{Appended, LogFile};
use crate::log_tables::LogRows;
use basalt_common::{Time, Value};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

pub struct SlowLog {
    /// `slow_query_log` is ON and `log_output` names FILE or TABLE.
    on: AtomicBool,
    /// ... and names TABLE.
    table: AtomicBool,
    file: LogFile<LastEntry>,
    rows: LogRows,
}

/// What the previous entry in the file printed, so that `# Time:` and `use`
/// are written only on a change.
#[derive(Default)]
struct LastEntry {
    time: String,
    db: Option<String>,
}

/// What `log_slow_verbosity=query_plan` adds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlanNotes {
    pub full_scan: bool,
    pub full_join: bool,
    pub filesort: bool,
    pub filesort_on_disk: bool,
    pub merge_passes: u64,
    pub priority_queue: bool,
}

/// One statement's entry.
pub struct Entry<'a> {
    pub user: &'a str,
    pub priv_user: &'a str,
    pub host: &'a str,
    pub thread_id: u64,
    pub db: Option<&'a str>,
    pub query_time: Duration,
    pub lock_time: Duration,
    pub rows_sent: u64,
    pub rows_examined: u64,
    pub rows_affected: u64,
    pub bytes_sent: u64,
    pub plan: Option<PlanNotes>,
    /// Seconds since the epoch when the statement started, with microseconds.
    pub started: Duration,
    /// The table's `server_id`, `last_insert_id` and `insert_id` columns.
    pub server_id: u64,
    pub last_insert_id: i64,
    pub insert_id: i64,
    pub text: &'a str,
}

impl SlowLog {
    pub fn new(identity: &LogIdentity, path: PathBuf) -> Self {
        SlowLog {
            on: AtomicBool::new(false),
            table: AtomicBool::new(false),
            file: LogFile::new(path, identity.header()),
            rows: LogRows::default(),
        }
    }

    #[inline]
    pub fn enabled(&self) -> bool {
        self.on.load(Ordering::Relaxed)
    }

    /// `mysql.slow_log`'s rows.
    pub fn rows(&self) -> &LogRows {
        &self.rows
    }

    /// Applies `slow_query_log`, `log_output` and `slow_query_log_file`: opens
    /// (with the header) or closes the file. `Err` is the message for a file
    /// that cannot be opened; the previous state is then kept.
    pub fn configure(&self, on: bool, out: Outputs, path: &Path) -> Result<(), String> {
        crate::general_log::configure(&self.file, on && out.file, path)?;
        self.table.store(on && out.table, Ordering::Relaxed);
        self.on
            .store(on && (out.file || out.table), Ordering::Relaxed);
        Ok(())
    }

    /// Closes and reopens the file (FLUSH LOGS / FLUSH SLOW LOGS).
    pub fn reopen(&self) -> Result<(), String> {
        self.file.reopen().map_err(|e| e.to_string())
    }

    /// Writes the entry. False when the file could not be written: the log is
    /// then off (one line in the error log says why) and the caller turns
    /// `slow_query_log` OFF.
    pub fn write(&self, e: &Entry<'_>) -> bool {
        if !self.enabled() {
            return true;
        }
        if self.table.load(Ordering::Relaxed) {
            self.rows.push(table_row(e));
        }
        let now = crate::general_log::time_column();
        let appended = self.file.append(|last, text| {
            if last.time != now {
                text.push_str(&format!("# Time: {now}\n"));
                last.time = now;
            }
            format_entry(text, e);
            if let Some(db) = e.db {
                if last.db.as_deref() != Some(db) {
                    text.push_str(&format!("use `{}`;\n", db.replace('`', "``")));
                    last.db = Some(db.to_string());
                }
            }
            text.push_str(&format!("SET timestamp={};\n", e.started.as_secs()));
            text.push_str(e.text);
            if !e.text.trim_end().ends_with(';') {
                text.push(';');
            }
            text.push('\n');
        });
        if let Appended::Failed(err) = appended {
            crate::general_log::stopped("slow query log", &self.file, &err);
            self.on.store(false, Ordering::Relaxed);
            self.table.store(false, Ordering::Relaxed);
            return false;
        }
        true
    }
}

/// The entry as a row of `mysql.slow_log`.
fn table_row(e: &Entry<'_>) -> Vec<Value> {
    let start = basalt_common::DateTime::from_unix_seconds(
        e.started.as_secs() as i64,
        e.started.subsec_micros(),
    );
    vec![
        Value::DateTime(start),
        Value::str(&crate::log_tables::user_host(e.user, e.priv_user, e.host)),
        Value::Time(time_of(e.query_time)),
        Value::Time(time_of(e.lock_time)),
        Value::UInt(e.rows_sent),
        Value::UInt(e.rows_examined),
        Value::str(e.db.unwrap_or("")),
        Value::Int(e.last_insert_id),
        Value::Int(e.insert_id),
        Value::UInt(e.server_id),
        Value::str(e.text),
        Value::UInt(e.thread_id),
        Value::UInt(e.rows_affected),
    ]
}

/// A duration as a TIME(6) value (MariaDB caps TIME at 838:59:59).
fn time_of(d: Duration) -> Time {
    let secs = d.as_secs().min(838 * 3600 + 59 * 60 + 59);
    Time {
        negative: false,
        hours: (secs / 3600) as u16,
        minute: (secs / 60 % 60) as u8,
        second: (secs % 60) as u8,
        micro: d.subsec_micros(),
    }
}

/// The `#` lines of an entry, after `# Time:`.
fn format_entry(out: &mut String, e: &Entry<'_>) {
    out.push_str(&format!(
        "# User@Host: {}\n",
        crate::log_tables::user_host(e.user, e.priv_user, e.host)
    ));
    out.push_str(&format!(
        "# Thread_id: {}  Schema: {}  QC_hit: No\n",
        e.thread_id,
        e.db.unwrap_or("")
    ));
    out.push_str(&format!(
        "# Query_time: {:.6}  Lock_time: {:.6}  Rows_sent: {}  Rows_examined: {}\n",
        e.query_time.as_secs_f64(),
        e.lock_time.as_secs_f64(),
        e.rows_sent,
        e.rows_examined
    ));
    out.push_str(&format!(
        "# Rows_affected: {}  Bytes_sent: {}\n",
        e.rows_affected, e.bytes_sent
    ));
    if let Some(p) = e.plan {
        let yn = |b: bool| if b { "Yes" } else { "No" };
        out.push_str(&format!(
            "# Full_scan: {}  Full_join: {}  Tmp_table: No  Tmp_table_on_disk: No\n",
            yn(p.full_scan),
            yn(p.full_join)
        ));
        out.push_str(&format!(
            "# Filesort: {}  Filesort_on_disk: {}  Merge_passes: {}  Priority_queue: {}\n",
            yn(p.filesort),
            yn(p.filesort_on_disk),
            p.merge_passes,
            yn(p.priority_queue)
        ));
    }
}

/// 1231 for a `slow_query_log_file` that cannot be opened.
pub fn bad_file(value: &str) -> basalt_common::MySqlError {
    basalt_common::MySqlError::wrong_value_for_var("slow_query_log_file", value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_in_mariadb_format() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("host-slow.log");
        let log = SlowLog::new(&Default::default(), path.clone());
        let mut e = Entry {
            user: "root",
            priv_user: "root",
            host: "127.0.0.1",
            thread_id: 11,
            db: Some("d"),
            query_time: Duration::from_micros(100),
            lock_time: Duration::ZERO,
            rows_sent: 1,
            rows_examined: 0,
            rows_affected: 0,
            bytes_sent: 58,
            plan: None,
            started: Duration::from_secs(1796512188),
            server_id: 1,
            last_insert_id: 0,
            insert_id: 0,
            text: "select 1",
        };
        log.write(&e);
        log.configure(true, Outputs::parse("FILE"), &path)
            .expect("open");
        log.write(&e);
        e.plan = Some(PlanNotes {
            full_scan: true,
            ..Default::default()
        });
        e.text = "select 2;";
        log.write(&e);
        let text = std::fs::read_to_string(&path).expect("read");
        let body = text.split_once("Argument\n").expect("header").1;
        let want = "# User@Host: root[root] @  [127.0.0.1]\n\
# Thread_id: 11  Schema: d  QC_hit: No\n\
# Query_time: 0.000100  Lock_time: 0.000000  Rows_sent: 1  Rows_examined: 0\n\
# Rows_affected: 0  Bytes_sent: 58\n\
use `d`;\n\
SET timestamp=1796512188;\n\
select 1;\n";
        assert!(body.starts_with("# Time: "), "{body}");
        let rest = body.split_once('\n').expect("time line").1;
        assert!(rest.starts_with(want), "{rest}");
        let second = &rest[want.len()..];
        let second = second
            .strip_prefix(&second[..second.find("# User@Host").expect("entry")])
            .expect("prefix");
        assert!(second.contains(
            "# Full_scan: Yes  Full_join: No  Tmp_table: No  Tmp_table_on_disk: No\n\
# Filesort: No  Filesort_on_disk: No  Merge_passes: 0  Priority_queue: No\n\
SET timestamp=1796512188;\nselect 2;\n"
        ));
        assert!(!second.contains("use `d`"));
    }

    #[test]
    fn table_rows_and_a_full_disk_stops_the_log() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("slow.log");
        let log = SlowLog::new(&Default::default(), path.clone());
        let e = Entry {
            user: "u",
            priv_user: "u",
            host: "localhost",
            thread_id: 5,
            db: None,
            query_time: Duration::from_millis(1500),
            lock_time: Duration::from_micros(250),
            rows_sent: 2,
            rows_examined: 3,
            rows_affected: 0,
            bytes_sent: 10,
            plan: None,
            started: Duration::from_secs(1796512188),
            server_id: 1,
            last_insert_id: 0,
            insert_id: 7,
            text: "insert into t values ()",
        };
        log.configure(true, Outputs::parse("TABLE,FILE"), &path)
            .expect("open");
        assert!(log.write(&e));
        let rows = log.rows().snapshot();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0][1], Value::str("u[u] @ localhost []"));
        assert_eq!(
            rows[0][2],
            Value::Time(Time {
                negative: false,
                hours: 0,
                minute: 0,
                second: 1,
                micro: 500_000
            })
        );
        assert_eq!(rows[0][6], Value::str(""), "no schema: empty db");
        assert_eq!(rows[0][8], Value::Int(7));
        log.file.inject(Box::new(crate::log_file::FullDisk));
        assert!(!log.write(&e), "the write fails: the log stops");
        assert!(!log.enabled());
        assert_eq!(log.rows().snapshot().len(), 2, "the row went in first");
        assert!(log.write(&e), "off: nothing to do, no second error");
        let text = std::fs::read_to_string(&path).expect("read");
        assert_eq!(text.matches("insert into t values ();").count(), 1);
    }
}
