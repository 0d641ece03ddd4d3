//! Binary-log end-to-end support: "the primary under test" (a MariaDB or a Basalt
//! server with binary logging on, behind one interface so a test body runs against
//! either), a MariaDB replica following it, bounded waits for a replica to catch up,
//! and whole-database content snapshots to compare two servers.
//!
//! Invariants the tests rely on:
//! - a [`Primary`] listens on the same loopback port for its whole life, restarts
//!   included, so a replica reconnects by itself;
//! - its binary log files are `<datadir>/<name>` for each name `SHOW BINARY LOGS`
//!   lists (MariaDB: `mariadb-bin.NNNNNN`; Basalt: `basalt-bin.NNNNNN`);
//! - every wait is bounded and panics with the replica's own status when it expires.

use super::mariadb::MariaDb;
use super::{cell, free_port, Basalt};
use mysql::prelude::*;
use mysql::{Conn, Opts};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Which server plays the primary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrimaryKind {
    MariaDb,
    Basalt,
}

enum Server {
    MariaDb(MariaDb),
    Basalt(BasaltNode),
}

/// A basaltd on loopback with its own data directory (removed when dropped) and
/// `--server-id`, for replication topologies.
pub struct BasaltNode {
    pub server: Basalt,
    _dir: tempfile::TempDir,
}

impl BasaltNode {
    /// Starts one with server id `server_id` and the flags `extra`.
    pub fn start(server_id: u32, extra: &[&str]) -> BasaltNode {
        let dir = tempfile::tempdir().expect("tempdir for basaltd");
        let port = free_port().to_string();
        let id = format!("--server-id={server_id}");
        let mut args = vec!["--port", port.as_str(), "--bind-address", "127.0.0.1"];
        args.push(id.as_str());
        args.extend_from_slice(extra);
        let server = Basalt::launch_bare(&dir.path().join("data"), &args);
        BasaltNode { server, _dir: dir }
    }

    pub fn url(&self) -> String {
        self.server.url()
    }

    pub fn conn(&self) -> Conn {
        connect(&self.url())
    }
}

/// A primary with `--log-bin`, `--server-id`, row format and full row metadata.
pub struct Primary {
    pub kind: PrimaryKind,
    server: Server,
}

impl Primary {
    /// Starts a primary of `kind` with server id `server_id`.
    pub fn start(kind: PrimaryKind, server_id: u32) -> Primary {
        let server = match kind {
            PrimaryKind::MariaDb => Server::MariaDb(MariaDb::start_binlog(server_id, &[])),
            PrimaryKind::Basalt => Server::Basalt(BasaltNode::start(server_id, &["--log-bin"])),
        };
        Primary { kind, server }
    }

    pub fn port(&self) -> u16 {
        match &self.server {
            Server::MariaDb(m) => m.port,
            Server::Basalt(n) => n.server.port,
        }
    }

    /// A TCP URL for the `mysql` crate.
    pub fn url(&self) -> String {
        format!(
            "mysql://root@127.0.0.1:{}/?prefer_socket=false",
            self.port()
        )
    }

    pub fn conn(&self) -> Conn {
        connect(&self.url())
    }

    pub fn datadir(&self) -> PathBuf {
        match &self.server {
            Server::MariaDb(m) => m.datadir(),
            Server::Basalt(n) => n.server.datadir.clone(),
        }
    }

    /// The names `SHOW BINARY LOGS` lists, oldest first.
    pub fn binlog_names(&self) -> Vec<String> {
        let rows: Vec<mysql::Row> = self
            .conn()
            .query("SHOW BINARY LOGS")
            .expect("SHOW BINARY LOGS");
        rows.iter()
            .map(|r| cell(r.as_ref(0).expect("Log_name column")).expect("Log_name is not NULL"))
            .collect()
    }

    /// The binary log files on disk, oldest first.
    pub fn binlog_files(&self) -> Vec<PathBuf> {
        let dir = self.datadir();
        self.binlog_names().iter().map(|n| dir.join(n)).collect()
    }

    /// `SHOW MASTER STATUS`: (file, position).
    pub fn master_status(&self) -> (String, u64) {
        let row: mysql::Row = self
            .conn()
            .query_first("SHOW MASTER STATUS")
            .expect("SHOW MASTER STATUS")
            .expect("binary logging is on (SHOW MASTER STATUS has a row)");
        let file = cell(row.as_ref(0).expect("File")).expect("File is not NULL");
        let pos = cell(row.as_ref(1).expect("Position")).expect("Position is not NULL");
        (file, pos.parse().expect("Position is a number"))
    }

    /// `@@gtid_binlog_pos`.
    pub fn gtid_binlog_pos(&self) -> String {
        let v: Option<String> = self
            .conn()
            .query_first("SELECT @@gtid_binlog_pos")
            .expect("@@gtid_binlog_pos");
        v.unwrap_or_default()
    }

    /// A clean shutdown and start on the same data directory and port.
    pub fn restart(&mut self) {
        match &mut self.server {
            Server::MariaDb(m) => m.restart(),
            Server::Basalt(n) => n.server.restart(false),
        }
    }
}

/// A MariaDB replica (no binary log of its own) with server id `server_id`.
pub fn start_replica(server_id: u32) -> MariaDb {
    let id = format!("--server-id={server_id}");
    MariaDb::start(&[id.as_str(), "--skip-slave-start"])
}

/// `CHANGE MASTER TO` the primary on `primary_port` with `MASTER_USE_GTID=slave_pos`
/// (retrying every second while it is away), then `START SLAVE`.
pub fn follow(replica: &MariaDb, primary_port: u16) {
    let mut c = connect(&replica.url());
    c.query_drop(format!(
        "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={primary_port}, \
         MASTER_USER='root', MASTER_PASSWORD='', MASTER_CONNECT_RETRY=1, \
         MASTER_USE_GTID=slave_pos"
    ))
    .expect("CHANGE MASTER TO");
    c.query_drop("START SLAVE").expect("START SLAVE");
}

/// `SHOW SLAVE STATUS` as column name -> value.
pub fn slave_status(replica: &MariaDb) -> BTreeMap<String, String> {
    slave_status_at(&replica.url())
}

/// `SHOW SLAVE STATUS` of the server at `url` as column name -> value (empty when
/// it has no primary configured).
pub fn slave_status_at(url: &str) -> BTreeMap<String, String> {
    let mut c = connect(url);
    let row: Option<mysql::Row> = c
        .query_first("SHOW SLAVE STATUS")
        .expect("SHOW SLAVE STATUS");
    let Some(row) = row else {
        return BTreeMap::new();
    };
    row.columns_ref()
        .iter()
        .enumerate()
        .map(|(i, col)| {
            let v = row.as_ref(i).and_then(cell).unwrap_or_default();
            (col.name_str().into_owned(), v)
        })
        .collect()
}

/// Waits (at most `limit`) until the replica's `@@gtid_slave_pos` equals the
/// primary's `@@gtid_binlog_pos`; panics with the replica's status otherwise.
pub fn wait_caught_up(replica: &MariaDb, primary: &Primary, limit: Duration) {
    wait_caught_up_at(&replica.url(), primary, limit)
}

/// [`wait_caught_up`] for the replica at `url`.
pub fn wait_caught_up_at(url: &str, primary: &Primary, limit: Duration) {
    let want = primary.gtid_binlog_pos();
    assert!(!want.is_empty(), "the primary logged no GTID");
    let deadline = Instant::now() + limit;
    let mut c = connect(url);
    loop {
        let got: Option<String> = c
            .query_first("SELECT @@gtid_slave_pos")
            .expect("@@gtid_slave_pos");
        let got = got.unwrap_or_default();
        if got == want {
            return;
        }
        if Instant::now() > deadline {
            let st = slave_status_at(url);
            let keys = [
                "Slave_IO_Running",
                "Slave_SQL_Running",
                "Last_IO_Errno",
                "Last_IO_Error",
                "Last_SQL_Errno",
                "Last_SQL_Error",
                "Gtid_IO_Pos",
            ];
            let shown: Vec<String> = keys
                .iter()
                .map(|k| format!("{k}={}", st.get(*k).map(String::as_str).unwrap_or("?")))
                .collect();
            panic!(
                "replica did not reach the primary's gtid_binlog_pos {want:?} within {limit:?}: \
                 gtid_slave_pos {got:?}; {}",
                shown.join("; ")
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

pub fn connect(url: &str) -> Conn {
    let opts = Opts::from_url(url).expect("valid URL");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match Conn::new(opts.clone()) {
            Ok(c) => return c,
            Err(e) if Instant::now() < deadline => {
                eprintln!("connect {url}: {e} (retrying)");
                std::thread::sleep(Duration::from_millis(100));
            }
            Err(e) => panic!("connect {url}: {e}"),
        }
    }
}

/// Every base table of `db` (from information_schema), sorted.
pub fn tables(c: &mut Conn, db: &str) -> Vec<String> {
    c.exec(
        "SELECT table_name FROM information_schema.tables \
         WHERE table_schema = ? AND table_type = 'BASE TABLE' ORDER BY table_name",
        (db,),
    )
    .expect("list tables")
}

/// One table's rows as text cells, ordered by every column.
pub type Rows = Vec<Vec<Option<String>>>;

/// Every table of `db` with its rows (ordered by all columns), for comparing servers.
pub fn contents(url: &str, db: &str) -> BTreeMap<String, Rows> {
    let mut c = connect(url);
    let mut out = BTreeMap::new();
    for t in tables(&mut c, db) {
        let ncols: usize = c
            .exec_first(
                "SELECT COUNT(*) FROM information_schema.columns \
                 WHERE table_schema = ? AND table_name = ?",
                (db, &t),
            )
            .expect("count columns")
            .expect("a count");
        let order: Vec<String> = (1..=ncols).map(|i| i.to_string()).collect();
        let rows: Vec<mysql::Row> = c
            .query(format!(
                "SELECT * FROM `{db}`.`{t}` ORDER BY {}",
                order.join(",")
            ))
            .expect("select table");
        let rows = rows
            .iter()
            .map(|r| (0..r.len()).map(|i| r.as_ref(i).and_then(cell)).collect())
            .collect();
        out.insert(t, rows);
    }
    out
}

/// Panics, naming the first differing table and row, unless `a` and `b` hold the same
/// tables with the same rows.
pub fn assert_same_contents(what: &str, a: &BTreeMap<String, Rows>, b: &BTreeMap<String, Rows>) {
    let names_a: Vec<&String> = a.keys().collect();
    let names_b: Vec<&String> = b.keys().collect();
    assert_eq!(names_a, names_b, "{what}: the same tables");
    for (t, ra) in a {
        let rb = &b[t];
        for (i, (x, y)) in ra.iter().zip(rb.iter()).enumerate() {
            assert_eq!(x, y, "{what}: table {t} row {i} differs");
        }
        assert_eq!(ra.len(), rb.len(), "{what}: table {t} row count");
    }
}

/// Runs `cmd` with stdout and stderr captured, killing it after `limit`; returns
/// (exit code or -1 when killed, stdout, stderr).
pub fn run_bounded(cmd: &mut Command, limit: Duration) -> (i32, Vec<u8>, String) {
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {cmd:?}: {e}"));
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    let killer = std::thread::spawn(move || {
        if rx.recv_timeout(limit).is_err() {
            // SAFETY: kill(2) on our own child's pid. It has not been reaped unless
            // it exited in the instant between wait_with_output's reap and the send.
            unsafe {
                libc::kill(pid as i32, libc::SIGKILL);
            }
        }
    });
    let out = child.wait_with_output().expect("wait for child");
    let _ = tx.send(());
    let _ = killer.join();
    (
        out.status.code().unwrap_or(-1),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
