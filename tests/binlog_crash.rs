//! The binary log across kill -9: concurrent clients commit transactions while the
//! server is killed at varying moments; after each restart the binlog files, read
//! with `mariadb-binlog`, hold exactly the rows of the table: every committed
//! transaction once, none of an uncommitted one.

use basalt_tests::{which, Basalt};
use mysql::prelude::*;
use mysql::{Conn, Opts};
use std::collections::BTreeMap;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

fn connect(port: u16) -> Option<Conn> {
    let url = format!("mysql://root@127.0.0.1:{port}/test?prefer_socket=false");
    Conn::new(Opts::from_url(&url).ok()?).ok()
}

/// Transactions of 1 to 3 rows tagged with their transaction number, until the
/// server goes away or `stop`.
fn client(port: u16, id: u64, stop: Arc<AtomicBool>) {
    let Some(mut c) = connect(port) else { return };
    for n in 1..100_000u64 {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        let txn = id * 1_000_000 + n;
        let rows = 1 + n % 3;
        let r = (|| -> Result<(), mysql::Error> {
            c.query_drop("begin")?;
            for part in 0..rows {
                c.query_drop(format!("insert into t (txn, part) values ({txn}, {part})"))?;
            }
            c.query_drop("commit")
        })();
        if r.is_err() {
            return;
        }
    }
}

/// Rows per transaction number in the binlog files (`mariadb-binlog --verbose`).
fn logged(b: &Basalt) -> BTreeMap<i64, usize> {
    let mut names: Vec<String> = std::fs::read_dir(&b.datadir)
        .expect("datadir")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("basalt-bin.0"))
        .collect();
    names.sort();
    let mut cmd = Command::new("mariadb-binlog");
    cmd.args(["--verbose", "--base64-output=decode-rows"]);
    for n in &names {
        cmd.arg(b.datadir.join(n));
    }
    let out = cmd.output().expect("mariadb-binlog");
    assert!(
        out.status.success(),
        "mariadb-binlog: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut counts = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        if let Some(v) = line.strip_prefix("###   @2=") {
            let txn: i64 = v.trim().parse().expect("txn number");
            *counts.entry(txn).or_insert(0) += 1;
        }
    }
    counts
}

#[test]
fn sigkill_leaves_exactly_the_committed_transactions_in_the_binlog() {
    if which("mariadb-binlog").is_none() {
        eprintln!("skipped: mariadb-binlog not installed");
        return;
    }
    let mut b = Basalt::start_with(&["--log-bin", "--max-binlog-size=64K"]);
    let mut c = connect(b.port).expect("connect");
    c.query_drop("create table t (id int primary key auto_increment, txn bigint not null, part int not null)")
        .expect("create table");
    drop(c);
    for round in 0..4u64 {
        let stop = Arc::new(AtomicBool::new(false));
        let clients: Vec<_> = (0..6)
            .map(|i| {
                let (stop, port) = (stop.clone(), b.port);
                std::thread::spawn(move || client(port, round * 100 + i + 1, stop))
            })
            .collect();
        std::thread::sleep(Duration::from_millis(250 + 200 * round));
        b.kill9();
        stop.store(true, Ordering::Relaxed);
        for t in clients {
            t.join().expect("client thread");
        }
        b.restart(false);
        let mut c = connect(b.port).expect("connect after restart");
        let rows: Vec<(i64, i64)> = c
            .query("select txn, count(*) from t group by txn")
            .expect("read back");
        let stored: BTreeMap<i64, usize> = rows.iter().map(|(t, n)| (*t, *n as usize)).collect();
        let binlog = logged(&b);
        assert!(!stored.is_empty() || round == 0);
        assert_eq!(
            binlog.len(),
            stored.len(),
            "round {round}: transactions in the binlog and in the table differ"
        );
        assert_eq!(binlog, stored, "round {round}");
    }
}
