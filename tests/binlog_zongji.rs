//! `@vlasky/zongji` (npm; binlog change data capture for Node.js) streaming the
//! primary's binary log: tests/binlog/zongji.js receives the row events (tablemap,
//! writerows, updaterows, deleterows) with their column names (from `binlog_row_metadata=FULL`) and
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

fn zongji_installed() -> bool {
    let module =
        workspace_root().join("tests/binlog/node/node_modules/@vlasky/zongji/package.json");
    module.is_file() && basalt_tests::which("node").is_some()
}

fn check(kind: PrimaryKind) {
    if !mariadb::available() || !zongji_installed() {
        eprintln!(
            "skipped: mariadb-server or node with @vlasky/zongji (tests/binlog/node) missing"
        );
        return;
    }
    let primary = Primary::start(kind, 1);
    let mut w = Workload::new(primary.conn());
    base_workload(&mut w);
    let script = workspace_root().join("tests/binlog/zongji.js");
    let mut cmd = Command::new("node");
    cmd.arg(&script)
        .arg(primary.port().to_string())
        .arg(w.changes.len().to_string())
        .env("TZ", "UTC");
    let (code, out, err) = run_bounded(&mut cmd, Duration::from_secs(60));
    let out = String::from_utf8(out).expect("JSON lines are UTF-8");
    assert_eq!(code, 0, "zongji.js failed: {err}\n{out}");
    let got = parse_json_lines(&out);
    assert_changes("zongji", &got, &w.changes, canon_json);
}

#[test]
#[ignore = "needs mariadb-server"]
fn zongji_reads_a_mariadb_primary() {
    check(PrimaryKind::MariaDb);
}

#[test]
#[ignore = "needs mariadb-server"]
fn zongji_reads_a_basalt_primary() {
    check(PrimaryKind::Basalt);
}
