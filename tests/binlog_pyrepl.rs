//! python-mysql-replication (PyPI `mysql-replication`) streaming the primary's binary
//! log: tests/binlog/pyrepl.py reads the row events (`only_events` Write/Update/
//! DeleteRowsEvent) with their column names (from `binlog_row_metadata=FULL`) and
//! prints them as JSON lines, which must equal the workload's changes.
//!
//! Each check runs against a MariaDB primary (the oracle) and a Basalt primary.

use basalt_tests::binlog::PrimaryKind;
use basalt_tests::binlog_workload::check_cdc_client;
use basalt_tests::mariadb;
use std::process::Command;

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
    check_cdc_client(
        kind,
        "python3",
        "tests/binlog/pyrepl.py",
        "python-mysql-replication",
    );
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
