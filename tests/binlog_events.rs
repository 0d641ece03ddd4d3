//! The binary log's events for sequences and for `binlog_row_image=MINIMAL` inserts,
//! differential against MariaDB: one script runs on a MariaDB primary (the oracle)
//! and on a Basalt primary, both logs are decoded with `mariadb-binlog --verbose
//! --base64-output=decode-rows`, and the events (kind and length, in order, from the
//! first rows group on) and the decoded rows must be equal.
//!
//! Then a MariaDB replica follows a Basalt primary whose sequence hands out values
//! (NEXTVAL past the cache, SETVAL, in and out of transactions): the replica's
//! sequence row equals the primary's, and NEXTVAL on the replica (a failover)
//! continues past every value the primary handed out.
//!
//! The script avoids what is known to differ: MariaDB logs all the reservations
//! of one statement in one group (Basalt: one group each, since each is durable
//! before its value is returned) and maps the sequence table once per NEXTVAL call.

use basalt_tests::binlog::{
    connect, follow, run_bounded, start_replica, wait_caught_up, Primary, PrimaryKind,
};
use basalt_tests::mariadb;
use basalt_tests::which;
use mysql::prelude::*;
use std::process::Command;
use std::time::Duration;

const SCRIPT: &[&str] = &[
    "CREATE DATABASE ev",
    "USE ev",
    "SET timestamp = 1700000000",
    "CREATE SEQUENCE s CACHE 3",
    "CREATE TABLE t (a INT PRIMARY KEY, b INT, c INT DEFAULT 7, \
     d INT AUTO_INCREMENT UNIQUE KEY)",
    "CREATE TABLE g (a INT PRIMARY KEY, b INT, ts TIMESTAMP DEFAULT CURRENT_TIMESTAMP, \
     e INT DEFAULT (a + 1), v INT AS (a * 2) VIRTUAL, s INT AS (a * 3) STORED, \
     n INT NOT NULL DEFAULT 0, x TEXT)",
    "FLUSH BINARY LOGS",
    // Sequences under FULL.
    "SELECT NEXTVAL(s)",
    "SELECT NEXTVAL(s), NEXTVAL(s)",
    "SELECT NEXTVAL(s)",
    "SELECT SETVAL(s, 100)",
    "BEGIN",
    "INSERT INTO t (a) VALUES (1)",
    "SELECT NEXTVAL(s)",
    "COMMIT",
    // MINIMAL: inserts log the columns given and those the server fills in.
    "SET SESSION binlog_row_image = 'MINIMAL'",
    "SELECT NEXTVAL(s)",
    "SELECT SETVAL(s, 200)",
    "INSERT INTO t (a, b) VALUES (3, 3)",
    "INSERT INTO t (b, a) VALUES (4, 4), (5, 5)",
    "INSERT INTO t VALUES (6, 6, 6, 6)",
    "INSERT INTO t (a, d) VALUES (7, NULL)",
    "INSERT INTO t (a, c) VALUES (8, DEFAULT)",
    "INSERT INTO t SET a = 9",
    "INSERT INTO t (a) SELECT 10",
    "INSERT INTO g (a) VALUES (1)",
    "INSERT INTO g (a, b, x) VALUES (2, 2, 'text')",
    "BEGIN",
    "INSERT INTO t (a) VALUES (11)",
    "INSERT INTO g (a, n) VALUES (3, 3)",
    "COMMIT",
    // NOBLOB: the non-BLOB columns and those given.
    "SET SESSION binlog_row_image = 'NOBLOB'",
    "INSERT INTO g (a) VALUES (4)",
    "INSERT INTO g (a, x) VALUES (5, 'five')",
    "SELECT NEXTVAL(s)",
];

/// The decoded log of `file`: for each event its kind and length (from the
/// `end_log_pos` of consecutive events), and the `###` row lines.
fn decoded(file: &std::path::Path) -> Vec<String> {
    let mut cmd = Command::new("mariadb-binlog");
    cmd.args(["--verbose", "--base64-output=decode-rows"])
        .arg(file)
        .env("TZ", "UTC");
    let (code, out, err) = run_bounded(&mut cmd, Duration::from_secs(30));
    assert_eq!(code, 0, "mariadb-binlog {file:?}: {err}");
    let text = String::from_utf8_lossy(&out).into_owned();
    let mut lines = Vec::new();
    let mut prev_end: Option<u64> = None;
    for l in text.lines() {
        if l.starts_with("###") || l.starts_with("#Q>") {
            lines.push(l.to_string());
            continue;
        }
        let Some(i) = l.find("end_log_pos ") else {
            continue;
        };
        let rest = &l[i + "end_log_pos ".len()..];
        let end: u64 = rest
            .split_whitespace()
            .next()
            .and_then(|n| n.parse().ok())
            .expect("end_log_pos is a number");
        // The kind: the word after the checksum (`CRC32 0x... \tKind`).
        let kind = rest
            .split('\t')
            .nth(1)
            .and_then(|k| k.split_whitespace().next())
            .unwrap_or("?")
            .trim_end_matches(':')
            .to_string();
        let len = prev_end.map_or(0, |p| end - p);
        prev_end = Some(end);
        if kind == "Start" || kind == "Gtid" || kind == "Binlog" || kind == "Rotate" {
            continue;
        }
        lines.push(format!("{kind} {len}"));
    }
    lines
}

/// Runs the script on a primary of `kind`; returns the decoded second log file.
fn run_script(kind: PrimaryKind) -> Vec<String> {
    let primary = Primary::start(kind, 1);
    let mut c = primary.conn();
    for s in SCRIPT {
        c.query_drop(*s)
            .unwrap_or_else(|e| panic!("{kind:?}: {s}: {e}"));
    }
    let files = primary.binlog_files();
    assert!(files.len() >= 2, "{kind:?}: FLUSH BINARY LOGS made a file");
    decoded(&files[1])
}

#[test]
#[ignore = "needs mariadb-server"]
fn sequence_and_minimal_insert_events_match_mariadb() {
    if !mariadb::available() || which("mariadb-binlog").is_none() {
        eprintln!("skipped: mariadb-server / mariadb-binlog not installed");
        return;
    }
    let want = run_script(PrimaryKind::MariaDb);
    let got = run_script(PrimaryKind::Basalt);
    let writes = want.iter().filter(|l| l.starts_with("Write_rows")).count();
    assert!(
        writes >= 20,
        "the oracle's log has the script's rows: {want:?}"
    );
    if want != got {
        let diff: Vec<String> = want
            .iter()
            .zip(got.iter())
            .enumerate()
            .filter(|(_, (a, b))| a != b)
            .take(10)
            .map(|(i, (a, b))| format!("#{i}: MariaDB {a:?} / Basalt {b:?}"))
            .collect();
        panic!(
            "events differ ({} vs {} lines):\n{}\nMariaDB:\n{}\nBasalt:\n{}",
            want.len(),
            got.len(),
            diff.join("\n"),
            want.join("\n"),
            got.join("\n")
        );
    }
}

/// The sequence's row (every column) on the server at `url`.
fn sequence_row(url: &str) -> Vec<String> {
    let mut c = connect(url);
    let row: mysql::Row = c
        .query_first("SELECT * FROM ev.s")
        .expect("read the sequence")
        .expect("a sequence has a row");
    (0..row.len())
        .map(|i| format!("{:?}", row.as_ref(i).expect("column")))
        .collect()
}

#[test]
#[ignore = "needs mariadb-server"]
fn a_replica_continues_the_primarys_sequence() {
    if !mariadb::available() {
        eprintln!("skipped: mariadb-server not installed");
        return;
    }
    let primary = Primary::start(PrimaryKind::Basalt, 1);
    let replica = start_replica(2);
    follow(&replica, primary.port());
    let mut c = primary.conn();
    for s in [
        "CREATE DATABASE ev",
        "USE ev",
        "CREATE SEQUENCE s START WITH 10 INCREMENT BY 3 CACHE 4",
        "CREATE TABLE t (id BIGINT PRIMARY KEY, v VARCHAR(10))",
    ] {
        c.query_drop(s).unwrap_or_else(|e| panic!("{s}: {e}"));
    }
    let mut handed = Vec::new();
    for i in 0..10 {
        let v: i64 = c
            .query_first("SELECT NEXTVAL(s)")
            .expect("nextval")
            .expect("a value");
        handed.push(v);
        if i == 4 {
            // Inside a transaction, with the transaction's own row.
            c.query_drop("BEGIN").expect("begin");
            c.query_drop("INSERT INTO t VALUES (NEXTVAL(s), 'in txn')")
                .expect("insert with nextval");
            c.query_drop("COMMIT").expect("commit");
        }
    }
    let v: Option<i64> = c.query_first("SELECT SETVAL(s, 500)").expect("setval");
    assert_eq!(v, Some(500));
    let v: i64 = c
        .query_first("SELECT NEXTVAL(s)")
        .expect("nextval")
        .expect("a value");
    handed.push(v);
    let in_txn: i64 = c
        .query_first("SELECT id FROM t")
        .expect("read t")
        .expect("a row");
    handed.push(in_txn);
    wait_caught_up(&replica, &primary, Duration::from_secs(60));
    assert_eq!(
        sequence_row(&replica.url()),
        sequence_row(&primary.url()),
        "the replica's sequence row is the primary's"
    );
    let mut r = connect(&replica.url());
    let next: i64 = r
        .query_first("SELECT NEXTVAL(ev.s)")
        .expect("nextval on the replica")
        .expect("a value");
    let max = handed
        .iter()
        .copied()
        .max()
        .expect("values were handed out");
    assert!(
        next > max,
        "the replica's NEXTVAL {next} continues past the primary's values {handed:?}"
    );
}
