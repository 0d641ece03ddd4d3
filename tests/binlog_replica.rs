//! A MariaDB 10.11 replica following the primary under test with
//! `MASTER_USE_GTID=slave_pos`: from an empty start through DDL, every column type, a
//! multi-statement and a rolled-back transaction, a 20,000-row transaction and a
//! primary restart; and provisioned from `mariadb-dump --single-transaction
//! --master-data=2 --gtid --hex-blob` taken while a writer commits. After each phase the replica's
//! `@@gtid_slave_pos` must reach the primary's `@@gtid_binlog_pos` (bounded wait) and
//! every table must hold the same rows on both.
//!
//! Each check runs against a MariaDB primary (the oracle) and a Basalt primary.

use basalt_tests::binlog::{
    assert_same_contents, connect, contents, follow, run_bounded, start_replica, wait_caught_up,
    Primary, PrimaryKind,
};
use basalt_tests::binlog_workload::{base_workload, Workload, DB};
use basalt_tests::mariadb::{self, MariaDb};
use basalt_tests::{mariadb_cli, which};
use mysql::prelude::*;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

const CATCH_UP: Duration = Duration::from_secs(60);

fn same(what: &str, primary: &Primary, replica: &MariaDb) {
    wait_caught_up(replica, primary, CATCH_UP);
    assert_same_contents(
        what,
        &contents(&primary.url(), DB),
        &contents(&replica.url(), DB),
    );
}

/// One transaction inserting `rows` rows into a new table `big`, 1,000 per statement.
fn big_transaction(c: &mut mysql::Conn, rows: usize) {
    c.query_drop(
        "CREATE TABLE big (id INT NOT NULL PRIMARY KEY, v VARCHAR(40) NOT NULL, d DOUBLE)",
    )
    .expect("create big");
    c.query_drop("BEGIN").expect("begin");
    for chunk in (0..rows).collect::<Vec<_>>().chunks(1000) {
        let values: Vec<String> = chunk
            .iter()
            .map(|i| format!("({i}, 'row {i} of the big transaction', {i}.25)"))
            .collect();
        c.query_drop(format!("INSERT INTO big VALUES {}", values.join(",")))
            .expect("insert into big");
    }
    c.query_drop("COMMIT").expect("commit big");
}

fn follow_check(kind: PrimaryKind) {
    if !mariadb::available() {
        eprintln!("skipped: mariadb-server not installed");
        return;
    }
    let mut primary = Primary::start(kind, 1);
    let replica = start_replica(2);
    follow(&replica, primary.port());
    let mut w = Workload::new(primary.conn());
    base_workload(&mut w);
    same("after the base workload", &primary, &replica);
    // The replica registered itself (COM_REGISTER_SLAVE).
    let hosts: Vec<(u32, String, u32, u32)> =
        w.conn.query("SHOW SLAVE HOSTS").expect("show slave hosts");
    assert_eq!(hosts.len(), 1, "{hosts:?}");
    assert_eq!((hosts[0].0, hosts[0].3), (2, 1), "{hosts:?}");

    big_transaction(&mut w.conn, 20_000);
    same("after a 20,000-row transaction", &primary, &replica);

    drop(w);
    primary.restart();
    let mut c = primary.conn();
    c.query_drop(format!("USE {DB}")).expect("use");
    c.query_drop("UPDATE big SET v = 'after the restart' WHERE id % 7 = 0")
        .expect("update after restart");
    c.query_drop("DELETE FROM big WHERE id >= 19000")
        .expect("delete after restart");
    c.query_drop("CREATE TABLE later (id INT PRIMARY KEY, t TEXT)")
        .expect("DDL after restart");
    c.query_drop("INSERT INTO later VALUES (1, 'one'), (2, NULL)")
        .expect("insert after restart");
    same("after a primary restart", &primary, &replica);
}

/// Inserts rows into `stream` until `stop` (at most 5,000), one autocommit each.
fn writer(url: String, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<usize> {
    std::thread::spawn(move || {
        let mut c = connect(&url);
        let mut n = 0;
        while !stop.load(Ordering::Relaxed) && n < 5000 {
            c.query_drop(format!("INSERT INTO {DB}.stream (v) VALUES ('w{n}')"))
                .expect("writer insert");
            n += 1;
        }
        n
    })
}

fn provision_check(kind: PrimaryKind) {
    if !mariadb::available() || which("mariadb-dump").is_none() {
        eprintln!("skipped: mariadb-server / mariadb-dump not installed");
        return;
    }
    let primary = Primary::start(kind, 1);
    let mut w = Workload::new(primary.conn());
    base_workload(&mut w);
    w.exec("CREATE TABLE stream (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(20))");
    let stop = Arc::new(AtomicBool::new(false));
    let handle = writer(primary.url(), stop.clone());
    std::thread::sleep(Duration::from_millis(200));
    let mut cmd = Command::new("mariadb-dump");
    cmd.args([
        "-h127.0.0.1",
        "-uroot",
        "--skip-ssl",
        "--single-transaction",
        "--master-data=2",
        "--gtid",
        "--hex-blob",
        "--databases",
        DB,
    ])
    .arg(format!("-P{}", primary.port()));
    let (code, dump, err) = run_bounded(&mut cmd, Duration::from_secs(60));
    std::thread::sleep(Duration::from_millis(200));
    stop.store(true, Ordering::Relaxed);
    let written = handle.join().expect("writer thread");
    assert_eq!(code, 0, "mariadb-dump failed: {err}");
    let dump = String::from_utf8(dump).expect("the dump is UTF-8");
    let gtid_line = dump
        .lines()
        .find(|l| l.starts_with("-- SET GLOBAL gtid_slave_pos="))
        .unwrap_or_else(|| panic!("--master-data=2 --gtid records gtid_slave_pos: {dump}"));
    assert!(written > 0, "the writer committed during the dump");

    let replica = start_replica(3);
    let (code, _, err) = mariadb_cli(replica.port, &[], &dump);
    assert_eq!(code, 0, "loading the dump into the replica: {err}");
    let set = gtid_line.trim_start_matches("-- ");
    let (code, _, err) = mariadb_cli(replica.port, &["-e", set], "");
    assert_eq!(code, 0, "{set}: {err}");
    follow(&replica, primary.port());
    same("a replica provisioned from a dump", &primary, &replica);
}

#[test]
#[ignore = "needs mariadb-server"]
fn a_mariadb_replica_follows_a_mariadb_primary() {
    follow_check(PrimaryKind::MariaDb);
}

#[test]
#[ignore = "needs mariadb-server"]
fn a_mariadb_replica_follows_a_basalt_primary() {
    follow_check(PrimaryKind::Basalt);
}

#[test]
#[ignore = "needs mariadb-server"]
fn a_replica_provisioned_from_a_dump_of_a_mariadb_primary() {
    provision_check(PrimaryKind::MariaDb);
}

#[test]
#[ignore = "needs mariadb-server"]
fn a_replica_provisioned_from_a_dump_of_a_basalt_primary() {
    provision_check(PrimaryKind::Basalt);
}
