//! python-mysql-replication (PyPI `mysql-replication`) streaming the primary's binary
//! log: tests/binlog/pyrepl.py reads the row events (`only_events` Write/Update/
//! DeleteRowsEvent) with their column names (from `binlog_row_metadata=FULL`) and
//! prints them as JSON lines, which must equal the workload's changes.
//!
//! Each check runs against a MariaDB primary (the oracle) and a Basalt primary.

use basalt_tests::binlog::{run_bounded, Primary, PrimaryKind};
use basalt_tests::binlog_workload::{
    assert_changes, base_workload, canon_json, parse_json_lines, Workload,
};
use basalt_tests::mariadb;
use basalt_tests::workspace_root;
use std::process::Command;
use std::time::Duration;

fn pyrepl_installed() -> bool {
    Command::new("python3")
        .args(["-c", "import pymysqlreplication"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

fn check(kind: PrimaryKind) {
    if !mariadb::available() || !pyrepl_installed() {
        eprintln!("skipped: mariadb-server or python3 with mysql-replication missing");
        return;
    }
    let primary = Primary::start(kind, 1);
    let mut w = Workload::new(primary.conn());
    base_workload(&mut w);
    let script = workspace_root().join("tests/binlog/pyrepl.py");
    let mut cmd = Command::new("python3");
    cmd.arg(&script)
        .arg(primary.port().to_string())
        .arg(w.changes.len().to_string())
        .env("TZ", "UTC");
    let (code, out, err) = run_bounded(&mut cmd, Duration::from_secs(60));
    let out = String::from_utf8(out).expect("JSON lines are UTF-8");
    assert_eq!(code, 0, "pyrepl.py failed: {err}\n{out}");
    let got = parse_json_lines(&out);
    assert_changes("python-mysql-replication", &got, &w.changes, canon_json);
}

#[test]
#[ignore = "needs mariadb-server"]
fn python_mysql_replication_reads_a_mariadb_primary() {
    check(PrimaryKind::MariaDb);
}

#[test]
#[ignore = "needs mariadb-server"]
fn python_mysql_replication_reads_a_basalt_primary() {
    check(PrimaryKind::Basalt);
}
