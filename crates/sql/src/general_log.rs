//! The general query log (`general_log`, `general_log_file`, `log_output`,
//! `sql_log_off`): every command a client sends, one entry per command, in
//! MariaDB's file format, so tools that read MariaDB's log read this one:
//!
//! ```text
//! /path/basaltd, Version: 10.11.99-MariaDB-Basalt (Basalt). started with:
//! Tcp port: 3306  Unix socket:
//! Time<TAB><TAB>    Id Command<TAB>Argument
//! 261201  9:26:47<TAB>    51 Connect<TAB>root@127.0.0.1 on d using TCP/IP
//! <TAB><TAB>    51 Query<TAB>select 1
//! <TAB><TAB>    51 Quit<TAB>
//! ```
//!
//! The time column is printed when the second changed since the previous entry,
//! else two tabs. The header is written each time the file is opened (start-up
//! with the log on, `SET GLOBAL general_log = ON`, a new `general_log_file`).
//!
//! Cost when off: one relaxed atomic load per command. When on, entries are
//! written under a mutex, unbuffered, so the file is complete at every moment
//! (MariaDB's file log is not synced either: a crash may lose the tail).
//!
//! `log_output=TABLE` needs the `mysql.general_log` table, which does not exist:
//! it is refused. `log_output=NONE` keeps the log enabled but writes nothing, as
//! MariaDB does.

use basalt_common::MySqlError;
use parking_lot::Mutex;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// What the header names (MariaDB prints the binary, its version and the ports).
#[derive(Clone, Debug, Default)]
pub struct LogIdentity {
    pub program: String,
    pub version: String,
    pub comment: String,
    pub port: u16,
    pub socket: String,
}

pub struct GeneralLog {
    /// `general_log` is ON and `log_output` includes FILE.
    on: AtomicBool,
    inner: Mutex<Inner>,
    identity: LogIdentity,
}

struct Inner {
    file: Option<File>,
    path: PathBuf,
    /// The time column of the previous entry (`YYMMDD HH:MM:SS`).
    last_time: String,
}

impl GeneralLog {
    pub fn new(identity: LogIdentity, path: PathBuf) -> Self {
        GeneralLog {
            on: AtomicBool::new(false),
            inner: Mutex::new(Inner {
                file: None,
                path,
                last_time: String::new(),
            }),
            identity,
        }
    }

    /// True when entries are being written.
    #[inline]
    pub fn enabled(&self) -> bool {
        self.on.load(Ordering::Relaxed)
    }

    /// Applies `general_log`, `log_output` and `general_log_file`: opens (with the
    /// header) or closes the file. `Err` is the message for a file that cannot be
    /// opened; the previous state is then kept.
    pub fn configure(&self, on: bool, to_file: bool, path: &Path) -> Result<(), String> {
        let mut inner = self.inner.lock();
        let want = on && to_file;
        let reopen = want && (inner.file.is_none() || inner.path != path);
        if reopen {
            let file = open(path, &self.identity)?;
            inner.file = Some(file);
            inner.last_time.clear();
        } else if !want {
            inner.file = None;
        }
        inner.path = path.to_path_buf();
        self.on.store(want, Ordering::Relaxed);
        Ok(())
    }

    /// Closes and reopens the file (FLUSH LOGS), so a rotated file is replaced.
    pub fn reopen(&self) -> Result<(), String> {
        let mut inner = self.inner.lock();
        if inner.file.is_some() {
            let file = open(&inner.path, &self.identity)?;
            inner.file = Some(file);
            inner.last_time.clear();
        }
        Ok(())
    }

    /// Writes one entry: `command` is MariaDB's name (`Connect`, `Query`, `Init DB`,
    /// `Prepare`, `Execute`, `Close stmt`, `Reset stmt`, `Field List`, `Quit`, ...).
    pub fn write(&self, thread_id: u64, command: &str, argument: &str) {
        if !self.enabled() {
            return;
        }
        let now = time_column();
        let mut inner = self.inner.lock();
        let time = if inner.last_time == now {
            "\t".to_string()
        } else {
            inner.last_time = now.clone();
            now
        };
        let line = format!("{time}\t{thread_id:>6} {command}\t{argument}\n");
        if let Some(f) = inner.file.as_mut() {
            if let Err(e) = f.write_all(line.as_bytes()) {
                tracing::error!("general log: cannot write {}: {e}", inner.path.display());
            }
        }
    }
}

pub(crate) fn open(path: &Path, id: &LogIdentity) -> Result<File, String> {
    let mut f = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| e.to_string())?;
    let header = format!(
        "{}, Version: {} ({}). started with:\nTcp port: {}  Unix socket: {}\nTime\t\t    Id Command\tArgument\n",
        id.program, id.version, id.comment, id.port, id.socket
    );
    f.write_all(header.as_bytes()).map_err(|e| e.to_string())?;
    Ok(f)
}

/// `YYMMDD HH:MM:SS` with the hour padded by a space, as MariaDB prints it (the
/// server's clock, the one `NOW()` reads).
pub(crate) fn time_column() -> String {
    let t = crate::value::temporal::now();
    format!(
        "{:02}{:02}{:02} {:>2}:{:02}:{:02}",
        t.date.year % 100,
        t.date.month,
        t.date.day,
        t.hour,
        t.minute,
        t.second
    )
}

/// 1231 for a `general_log_file` that cannot be opened (MariaDB's answer).
pub fn bad_file(value: &str) -> MySqlError {
    MySqlError::wrong_value_for_var("general_log_file", value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_in_mariadb_format() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("host.log");
        let id = LogIdentity {
            program: "/usr/sbin/basaltd".into(),
            version: "10.11.99-MariaDB-Basalt".into(),
            comment: "Basalt".into(),
            port: 3306,
            socket: String::new(),
        };
        let log = GeneralLog::new(id, path.clone());
        log.write(1, "Query", "not logged: off");
        log.configure(true, true, &path).expect("open");
        log.write(7, "Connect", "root@127.0.0.1 on d using TCP/IP");
        log.write(7, "Query", "select 1");
        log.write(7, "Quit", "");
        log.configure(false, true, &path).expect("close");
        log.write(7, "Query", "not logged: closed");
        let text = std::fs::read_to_string(&path).expect("read");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "/usr/sbin/basaltd, Version: 10.11.99-MariaDB-Basalt (Basalt). started with:"
        );
        assert_eq!(lines[1], "Tcp port: 3306  Unix socket: ");
        assert_eq!(lines[2], "Time\t\t    Id Command\tArgument");
        assert!(lines[3].ends_with("\t     7 Connect\troot@127.0.0.1 on d using TCP/IP"));
        assert_eq!(
            lines[3].len(),
            "261201  9:26:47".len() + lines[3][15..].len()
        );
        assert!(lines[4..].iter().all(|l| !l.contains("not logged")));
        assert!(text.contains("     7 Query\tselect 1\n"));
        assert!(text.contains("     7 Quit\t\n"));
    }
}
