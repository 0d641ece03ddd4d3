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
//! `log_output=TABLE` appends rows to `mysql.general_log` (see
//! [`crate::log_tables`]); `log_output=NONE` keeps the log enabled but writes
//! nothing, as MariaDB does. A write that fails (a full disk) turns the log off
//! with one line in the error log; the command goes on.

use crate::log_file::{Appended, LogFile};
use crate::log_tables::LogRows;
use basalt_common::{MySqlError, Value};
use std::path::Path;
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

impl LogIdentity {
    /// The three lines MariaDB writes each time it opens the general or slow log.
    pub fn header(&self) -> String {
        format!(
            "{}, Version: {} ({}). started with:\nTcp port: {}  Unix socket: {}\nTime\t\t    Id Command\tArgument\n",
            self.program, self.version, self.comment, self.port, self.socket
        )
    }
}

/// Where `log_output` sends entries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outputs {
    pub file: bool,
    pub table: bool,
}

impl Outputs {
    /// From `log_output`'s value (`FILE`, `TABLE`, `FILE,TABLE`, `NONE`; NONE
    /// with others still means nothing, as in MariaDB).
    pub fn parse(log_output: &str) -> Outputs {
        let has = |w: &str| {
            log_output
                .split(',')
                .any(|p| p.trim().eq_ignore_ascii_case(w))
        };
        let none = has("NONE");
        Outputs {
            file: has("FILE") && !none,
            table: has("TABLE") && !none,
        }
    }
}

/// `log_output` in canonical form: MariaDB's SET of `NONE`, `FILE`, `TABLE`,
/// the members present in that order; `None` for an unknown member or an
/// empty value.
pub fn canonical_output(text: &str) -> Option<String> {
    const MEMBERS: [&str; 3] = ["NONE", "FILE", "TABLE"];
    let mut mask = 0;
    for part in text.split(',').map(str::trim) {
        let i = MEMBERS.iter().position(|m| m.eq_ignore_ascii_case(part))?;
        mask |= 1 << i;
    }
    output_members(mask)
}

/// The `log_output` value of a member bitmask (1 NONE, 2 FILE, 4 TABLE).
pub fn output_members(mask: usize) -> Option<String> {
    const MEMBERS: [&str; 3] = ["NONE", "FILE", "TABLE"];
    if !(1..8).contains(&mask) {
        return None;
    }
    let parts: Vec<&str> = (0..3)
        .filter(|i| mask & (1 << i) != 0)
        .map(|i| MEMBERS[i])
        .collect();
    Some(parts.join(","))
}

/// Who sent a command, for the table's `user_host` and `server_id` (asked
/// only when the log writes to its table).
pub type Who<'a> = &'a dyn Fn() -> (String, u64);

pub struct GeneralLog {
    /// `general_log` is ON and `log_output` names FILE or TABLE.
    on: AtomicBool,
    /// ... and names TABLE.
    table: AtomicBool,
    /// The time column of the previous entry (`YYMMDD HH:MM:SS`) is the state.
    file: LogFile<String>,
    rows: LogRows,
}

impl GeneralLog {
    pub fn new(identity: &LogIdentity, path: std::path::PathBuf) -> Self {
        GeneralLog {
            on: AtomicBool::new(false),
            table: AtomicBool::new(false),
            file: LogFile::new(path, identity.header()),
            rows: LogRows::default(),
        }
    }

    /// True when entries are being written.
    #[inline]
    pub fn enabled(&self) -> bool {
        self.on.load(Ordering::Relaxed)
    }

    /// `mysql.general_log`'s rows.
    pub fn rows(&self) -> &LogRows {
        &self.rows
    }

    /// Applies `general_log`, `log_output` and `general_log_file`: opens (with the
    /// header) or closes the file. `Err` is the message for a file that cannot be
    /// opened; the previous state is then kept.
    pub fn configure(&self, on: bool, out: Outputs, path: &Path) -> Result<(), String> {
        configure(&self.file, on && out.file, path)?;
        self.table.store(on && out.table, Ordering::Relaxed);
        self.on
            .store(on && (out.file || out.table), Ordering::Relaxed);
        Ok(())
    }

    /// Closes and reopens the file (FLUSH LOGS), so a rotated file is replaced.
    pub fn reopen(&self) -> Result<(), String> {
        self.file.reopen().map_err(|e| e.to_string())
    }

    /// Writes one entry: `command` is MariaDB's name (`Connect`, `Query`, `Init DB`,
    /// `Prepare`, `Execute`, `Close stmt`, `Reset stmt`, `Field List`, `Quit`, ...).
    /// False when the file could not be written: the log is then off (one line
    /// in the error log says why) and the caller turns `general_log` OFF.
    pub fn write(&self, thread_id: u64, command: &str, argument: &str, who: Who<'_>) -> bool {
        if !self.enabled() {
            return true;
        }
        if self.table.load(Ordering::Relaxed) {
            let (user_host, server_id) = who();
            self.rows.push(vec![
                Value::DateTime(crate::value::temporal::now()),
                Value::str(&user_host),
                Value::UInt(thread_id),
                Value::UInt(server_id),
                Value::str(command),
                Value::str(argument),
            ]);
        }
        let now = time_column();
        let appended = self.file.append(|last_time, line| {
            if *last_time == now {
                line.push('\t');
            } else {
                line.push_str(&now);
                *last_time = now;
            }
            line.push_str(&format!("\t{thread_id:>6} {command}\t{argument}\n"));
        });
        if let Appended::Failed(e) = appended {
            stopped("general query log", &self.file, &e);
            self.on.store(false, Ordering::Relaxed);
            self.table.store(false, Ordering::Relaxed);
            return false;
        }
        true
    }
}

/// Opens `file` at `path` when `want` (unless open there already), else closes it.
pub(crate) fn configure(
    file: &LogFile<impl Default>,
    want: bool,
    path: &Path,
) -> Result<(), String> {
    if want {
        file.ensure_open(path).map_err(|e| e.to_string())
    } else {
        file.close();
        Ok(())
    }
}

/// The one error-log line of a log stopped by a failed write (MariaDB's
/// ER_ERROR_ON_WRITE text).
pub(crate) fn stopped(what: &str, file: &LogFile<impl Default>, e: &std::io::Error) {
    let text = e.to_string();
    let text = text.split(" (os error").next().unwrap_or_default();
    tracing::error!(
        "Error writing file '{}' (errno: {} \"{text}\"); the {what} is turned off",
        file.path().display(),
        e.raw_os_error().unwrap_or(0),
    );
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
        let log = GeneralLog::new(&id, path.clone());
        let who: Who<'_> = &|| ("root[root] @  [127.0.0.1]".into(), 1);
        let file = Outputs::parse("FILE");
        log.write(1, "Query", "not logged: off", who);
        log.configure(true, file, &path).expect("open");
        log.write(7, "Connect", "root@127.0.0.1 on d using TCP/IP", who);
        log.write(7, "Query", "select 1", who);
        log.write(7, "Quit", "", who);
        log.configure(false, file, &path).expect("close");
        log.write(7, "Query", "not logged: closed", who);
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

    #[test]
    fn table_rows_and_a_full_disk_stops_the_log_not_the_caller() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("host.log");
        let log = GeneralLog::new(&LogIdentity::default(), path.clone());
        let who: Who<'_> = &|| ("root[root] @ localhost []".into(), 7);
        log.configure(true, Outputs::parse("FILE,TABLE"), &path)
            .expect("open");
        assert!(log.write(3, "Query", "select 1", who));
        let rows = log.rows().snapshot();
        assert_eq!(rows.len(), 1);
        assert_eq!(
            rows[0][1..],
            [
                Value::str("root[root] @ localhost []"),
                Value::UInt(3),
                Value::UInt(7),
                Value::str("Query"),
                Value::str("select 1"),
            ]
        );
        log.file.inject(Box::new(crate::log_file::FullDisk));
        assert!(!log.write(3, "Query", "select 2", who), "the log stops");
        assert!(!log.enabled());
        assert!(log.write(3, "Query", "select 3", who), "off: nothing to do");
        assert_eq!(log.rows().snapshot().len(), 2);
        log.rows().clear();
        assert!(log.rows().snapshot().is_empty());
        let text = std::fs::read_to_string(&path).expect("read");
        assert!(text.contains("select 1") && !text.contains("select 2"));
    }
}
