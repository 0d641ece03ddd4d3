//! `@vlasky/zongji` (npm; binlog change data capture for Node.js) streaming the
//! primary's binary log: tests/binlog/zongji.js receives the row events (tablemap,
//! writerows, updaterows, deleterows) with their column names (from `binlog_row_metadata=FULL`) and
//! prints them as JSON lines, which must equal the workload's changes.
//!
//! Each check runs against a MariaDB primary (the oracle) and a Basalt primary.

use basalt_tests::binlog::PrimaryKind;
use basalt_tests::binlog_workload::check_cdc_client;
use basalt_tests::mariadb;
use basalt_tests::workspace_root;

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
    check_cdc_client(kind, "node", "tests/binlog/zongji.js", "zongji");
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
