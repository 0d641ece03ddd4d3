//! Durability of the real binary: concurrent clients commit single-row and
//! multi-row transactions, the test kills `basaltd` with SIGKILL at a random moment,
//! restarts it, and checks that every acknowledged commit is there and no partial
//! transaction is. Then a table many times the buffer pool, across a restart.

use basalt_tests::Basalt;
use mysql::prelude::*;
use mysql::{Conn, Opts};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn connect(port: u16) -> Option<Conn> {
    let url = format!("mysql://root@127.0.0.1:{port}/crash?prefer_socket=false");
    Conn::new(Opts::from_url(&url).ok()?).ok()
}

/// One client: transactions of 1 or 3 rows, each row tagged with its transaction.
/// Records a transaction as acknowledged only when COMMIT returned OK.
fn client(port: u16, id: u64, stop: Arc<AtomicBool>, acked: Arc<Mutex<BTreeSet<u64>>>) {
    let Some(mut c) = connect(port) else { return };
    let mut n = 0u64;
    while !stop.load(Ordering::Relaxed) && n < 100_000 {
        n += 1;
        let txn = id * 1_000_000 + n;
        let rows = if n.is_multiple_of(2) { 1 } else { 3 };
        let ok = (|| -> Result<(), mysql::Error> {
            c.query_drop("begin")?;
            for r in 0..rows {
                c.query_drop(format!(
                    "insert into t (txn, part, parts) values ({txn}, {r}, {rows})"
                ))?;
            }
            c.query_drop("commit")
        })();
        match ok {
            Ok(()) => {
                acked.lock().expect("lock").insert(txn);
            }
            Err(_) => return,
        }
    }
}

#[test]
fn sigkill_loses_no_acknowledged_commit() {
    let mut b = Basalt::start();
    let mut c = connect(b.port).unwrap_or_else(|| {
        let mut c = Conn::new(Opts::from_url(&b.url()).expect("url")).expect("connect");
        c.query_drop("create database crash").expect("create db");
        connect(b.port).expect("connect")
    });
    c.query_drop(
        "create table t (id int primary key auto_increment, txn bigint not null, \
         part int not null, parts int not null, key (txn))",
    )
    .expect("create table");
    drop(c);
    let rounds = 4;
    let mut all_acked = BTreeSet::new();
    for round in 0..rounds {
        let stop = Arc::new(AtomicBool::new(false));
        let acked = Arc::new(Mutex::new(BTreeSet::new()));
        let clients: Vec<_> = (0..8)
            .map(|i| {
                let (stop, acked) = (stop.clone(), acked.clone());
                let port = b.port;
                std::thread::spawn(move || client(port, round * 100 + i + 1, stop, acked))
            })
            .collect();
        // Kill at a "random" moment: vary it by round.
        std::thread::sleep(Duration::from_millis(300 + 250 * round));
        b.kill9();
        stop.store(true, Ordering::Relaxed);
        for t in clients {
            t.join().expect("client thread");
        }
        b.restart(false);
        all_acked.extend(acked.lock().expect("lock").iter().copied());
        let mut c = connect(b.port).expect("connect after restart");
        let rows: Vec<(u64, i64, i64)> = c
            .query("select txn, count(*), max(parts) from t group by txn")
            .expect("read back");
        let present: BTreeSet<u64> = rows.iter().map(|r| r.0).collect();
        for (txn, count, parts) in &rows {
            assert_eq!(count, parts, "round {round}: transaction {txn} is partial");
        }
        let lost: Vec<&u64> = all_acked.difference(&present).collect();
        assert!(
            lost.is_empty(),
            "round {round}: acknowledged commits lost: {lost:?}\n{}",
            b.log()
        );
        // The secondary index agrees with the table.
        let via_index: i64 = c
            .query_first("select count(*) from t force index (txn) where txn > 0")
            .expect("q")
            .expect("row");
        let total: i64 = c
            .query_first("select count(*) from t")
            .expect("q")
            .expect("row");
        assert_eq!(via_index, total, "round {round}");
        assert!(!all_acked.is_empty() || round == 0);
    }
}

#[test]
fn table_many_times_the_buffer_pool_survives_restart() {
    // 16M pool with ~130 MB of rows in optimised builds; a smaller multiple in debug.
    let (pool, rows) = if cfg!(debug_assertions) {
        ("4M", 60_000)
    } else {
        ("16M", 400_000)
    };
    let mut b = Basalt::start_with(&["--buffer-pool-size", pool]);
    let mut c = Conn::new(Opts::from_url(&b.url()).expect("url")).expect("connect");
    c.query_drop("create database big").expect("db");
    c.query_drop("use big").expect("use");
    c.query_drop("create table t (id int primary key, k int, pad varchar(300), key (k))")
        .expect("create");
    let started = Instant::now();
    let batch = 500;
    for start in (0..rows).step_by(batch) {
        let values: Vec<String> = (start..start + batch)
            .map(|i| format!("({i}, {}, '{}')", i % 1000, "x".repeat(300)))
            .collect();
        c.query_drop(format!("insert into t values {}", values.join(",")))
            .expect("insert");
    }
    eprintln!("loaded {rows} rows in {:?}", started.elapsed());
    let check = |c: &mut Conn| {
        let k: i64 = c
            .query_first("select k from t where id = 12345")
            .expect("q")
            .expect("row");
        assert_eq!(k, 345);
        let n: i64 = c
            .query_first("select count(*) from t where id between 1000 and 1999")
            .expect("q")
            .expect("row");
        assert_eq!(n, 1000);
        let ids: Vec<i64> = c
            .query("select id from t force index (k) where k = 7 order by id limit 3")
            .expect("q");
        assert_eq!(ids, vec![7, 1007, 2007]);
        let total: i64 = c
            .query_first("select count(*) from t")
            .expect("q")
            .expect("row");
        assert_eq!(total, rows as i64);
    };
    check(&mut c);
    drop(c);
    b.restart(false);
    let mut c = Conn::new(Opts::from_url(&b.url_db("big")).expect("url")).expect("reconnect");
    check(&mut c);
}

/// One round of churn on `t`: 1000 new rows, then, while `reader` holds a consistent
/// snapshot (a long report, or a backup), every row but the newest 500 is deleted and
/// the indexed column of those 500 changes. Purge cannot run until the snapshot ends.
fn churn_round(c: &mut Conn, reader: &mut Conn, round: i64) {
    let pad = "p".repeat(400);
    for chunk in 0..2 {
        let values: Vec<String> = (0..500)
            .map(|i| format!("({}, {i}, '{pad}')", round * 1000 + chunk * 500 + i))
            .collect();
        c.query_drop(format!("insert into t values {}", values.join(",")))
            .expect("insert");
    }
    reader
        .query_drop("start transaction with consistent snapshot")
        .expect("snapshot");
    let _: Option<i64> = reader.query_first("select count(*) from t").expect("read");
    let keep = round * 1000 + 500;
    c.query_drop(format!("delete from t where id < {keep}"))
        .expect("delete");
    c.query_drop(format!("update t set k = k + 7 where id >= {keep}"))
        .expect("update");
}

fn churn_db(b: &Basalt) -> Conn {
    Conn::new(Opts::from_url(&b.url_db("churn")).expect("url")).expect("connect")
}

fn wait_for_purge_sweep(b: &Basalt) {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut c = churn_db(b);
    loop {
        let pending: Option<(String, u64)> = c
            .query_first("show global status like 'Basalt_purge_sweep_tables_pending'")
            .expect("status");
        if pending.is_none_or(|(_, n)| n == 0) {
            return;
        }
        assert!(Instant::now() < deadline, "the purge sweep never finished");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Runs four churn rounds; with `crash`, each round ends with kill -9 (the snapshot
/// still open), else the snapshot ends. Returns the table file's size after a clean stop.
fn churn_file_size(crash: bool) -> u64 {
    let mut b = Basalt::start();
    let mut c = Conn::new(Opts::from_url(&b.url()).expect("url")).expect("connect");
    c.query_drop("create database churn").expect("db");
    c.query_drop("create table churn.t (id int primary key, k int, pad varchar(400), key (k))")
        .expect("create");
    drop(c);
    for round in 0..4 {
        let mut c = churn_db(&b);
        let mut reader = churn_db(&b);
        churn_round(&mut c, &mut reader, round);
        if crash {
            b.kill9();
            b.restart(false);
            wait_for_purge_sweep(&b);
        } else {
            reader.query_drop("commit").expect("end snapshot");
        }
    }
    let rows: i64 = churn_db(&b)
        .query_first("select count(*) from t")
        .expect("count")
        .expect("row");
    assert_eq!(rows, 500, "crash {crash}");
    assert_eq!(b.stop(), Some(0));
    std::fs::metadata(b.datadir.join("tables/1.bdt"))
        .expect("table file")
        .len()
}

#[test]
fn sigkill_rounds_leak_no_space() {
    // Deletes and updates made while a snapshot held purge back, then kill -9: their
    // delete-marked entries must still be purged after the restart. The table file
    // ends no larger than the same work without crashes (within one growth step).
    let crashed = churn_file_size(true);
    let clean = churn_file_size(false);
    eprintln!("table file after kill -9 rounds: {crashed} bytes; without crashes: {clean}");
    assert!(
        crashed <= clean + clean / 8 + 8 * 16384,
        "kill -9 rounds leaked space: {crashed} bytes against {clean}"
    );
}
