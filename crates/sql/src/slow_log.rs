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
//!
//! Cost when off: the statement's duration is measured anyway (for
//! `Slow_queries`); nothing else. Entries are written under a mutex, one
//! `write` each, only for statements that qualify.

use parking_lot::Mutex;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

pub struct SlowLog {
    /// `slow_query_log` is ON and `log_output` includes FILE.
    on: AtomicBool,
    inner: Mutex<Inner>,
    identity: crate::general_log::LogIdentity,
}

struct Inner {
    file: Option<File>,
    path: PathBuf,
    last_time: String,
    last_db: Option<String>,
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
    /// Seconds since the epoch when the statement started.
    pub timestamp: i64,
    pub text: &'a str,
}

impl SlowLog {
    pub fn new(identity: crate::general_log::LogIdentity, path: PathBuf) -> Self {
        SlowLog {
            on: AtomicBool::new(false),
            inner: Mutex::new(Inner {
                file: None,
                path,
                last_time: String::new(),
                last_db: None,
            }),
            identity,
        }
    }

    #[inline]
    pub fn enabled(&self) -> bool {
        self.on.load(Ordering::Relaxed)
    }

    /// Applies `slow_query_log`, `log_output` and `slow_query_log_file`: opens
    /// (with the header) or closes the file. `Err` is the message for a file
    /// that cannot be opened; the previous state is then kept.
    pub fn configure(&self, on: bool, to_file: bool, path: &Path) -> Result<(), String> {
        let mut inner = self.inner.lock();
        let want = on && to_file;
        if want && (inner.file.is_none() || inner.path != path) {
            inner.file = Some(crate::general_log::open(path, &self.identity)?);
            inner.last_time.clear();
            inner.last_db = None;
        } else if !want {
            inner.file = None;
        }
        inner.path = path.to_path_buf();
        self.on.store(want, Ordering::Relaxed);
        Ok(())
    }

    /// Closes and reopens the file (FLUSH LOGS / FLUSH SLOW LOGS).
    pub fn reopen(&self) -> Result<(), String> {
        let mut inner = self.inner.lock();
        if inner.file.is_some() {
            inner.file = Some(crate::general_log::open(&inner.path, &self.identity)?);
            inner.last_time.clear();
            inner.last_db = None;
        }
        Ok(())
    }

    pub fn write(&self, e: &Entry<'_>) {
        if !self.enabled() {
            return;
        }
        let now = crate::general_log::time_column();
        let mut inner = self.inner.lock();
        let mut text = String::with_capacity(256 + e.text.len());
        if inner.last_time != now {
            text.push_str(&format!("# Time: {now}\n"));
            inner.last_time = now;
        }
        format_entry(&mut text, e);
        if let Some(db) = e.db {
            if inner.last_db.as_deref() != Some(db) {
                text.push_str(&format!("use `{}`;\n", db.replace('`', "``")));
                inner.last_db = Some(db.to_string());
            }
        }
        text.push_str(&format!("SET timestamp={};\n", e.timestamp));
        text.push_str(e.text);
        if !e.text.trim_end().ends_with(';') {
            text.push(';');
        }
        text.push('\n');
        let Inner { file, path, .. } = &mut *inner;
        if let Some(f) = file.as_mut() {
            if let Err(err) = f.write_all(text.as_bytes()) {
                tracing::error!("slow query log: cannot write {}: {err}", path.display());
            }
        }
    }
}

/// The `#` lines of an entry, after `# Time:`.
fn format_entry(out: &mut String, e: &Entry<'_>) {
    // MariaDB: `user[priv_user] @ host [ip]`; Basalt resolves no names, so a
    // TCP client shows its address as the ip, a socket client as localhost.
    let (host, ip) = if e.host == "localhost" {
        ("localhost", "")
    } else {
        ("", e.host)
    };
    out.push_str(&format!(
        "# User@Host: {}[{}] @ {host} [{ip}]\n",
        e.user, e.priv_user
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
        let log = SlowLog::new(Default::default(), path.clone());
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
            timestamp: 1796512188,
            text: "select 1",
        };
        log.write(&e);
        log.configure(true, true, &path).expect("open");
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
}
