//! The `alter` workload: schema changes on a populated sysbench-shaped table.
//!
//! - `ADD COLUMN` at the end with a default, on 10,000 rows and on the large table
//!   (1,000,000 rows; 100,000 with `--quick`): the ALTER's time. A new column name
//!   every round; both servers add it without a copy.
//! - `ADD INDEX` on the large table with no other load: the ALTER's time (the
//!   index is dropped after each round, unmeasured).
//! - `ADD INDEX` on the large table while four clients run sysbench
//!   oltp_write_only's transaction (UPDATE of the indexed `k`, UPDATE of `c`,
//!   DELETE and INSERT of one row, by primary key) in a loop: the ALTER's time, and
//!   the transactions per second the clients committed while it ran as a share of
//!   those in the 3 seconds before it. MariaDB runs its default algorithm (INPLACE,
//!   LOCK=NONE for ADD INDEX). The index is dropped after each round, unmeasured.

use crate::results::{Case, Metric, Results, Workload};
use crate::runner::{Sample, Stage};
use crate::servers::Server;
use crate::stats::Better;
use mysql::prelude::Queryable;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub const ALTER_MS: Metric = Metric {
    key: "alter_ms",
    unit: "ms",
    better: Better::Lower,
};
pub const SHARE: Metric = Metric {
    key: "write_share",
    unit: "%",
    better: Better::Higher,
};

pub const SETUP: &str = "alter tables";
const SMALL: u64 = 10_000;
const WRITERS: u64 = 4;
const BEFORE: Duration = Duration::from_secs(3);

fn big_rows(quick: bool) -> u64 {
    if quick {
        100_000
    } else {
        1_000_000
    }
}

fn conn(server: &Server) -> Result<mysql::Conn, String> {
    mysql::Conn::new(server.opts(Some("bencha"))).map_err(|e| e.to_string())
}

/// Creates `bencha.small` and `bencha.big` as sysbench's `sbtest` tables.
fn setup(server: &mut Server, big: u64) -> Result<(), String> {
    let mut c = mysql::Conn::new(server.opts(None)).map_err(|e| e.to_string())?;
    for s in ["drop database if exists bencha", "create database bencha"] {
        c.query_drop(s).map_err(|e| format!("{s}: {e}"))?;
    }
    c.query_drop("use bencha").map_err(|e| e.to_string())?;
    for (name, rows) in [("small", SMALL), ("big", big)] {
        c.query_drop(format!(
            "create table {name} (id int not null auto_increment primary key, \
             k int not null default 0, c char(120) not null default '', \
             pad char(60) not null default '', key k_1 (k)) engine=innodb"
        ))
        .map_err(|e| e.to_string())?;
        for from in (0..rows).step_by(10_000) {
            let values: Vec<String> = (from..(from + 10_000).min(rows))
                .map(|i| format!("({},{},'{}','{}')", i + 1, i * 7 % rows, c_text(i), pad(i)))
                .collect();
            c.query_drop(format!("insert into {name} values {}", values.join(",")))
                .map_err(|e| format!("fill {name}: {e}"))?;
        }
    }
    Ok(())
}

fn c_text(i: u64) -> String {
    format!("{:011}-{:011}-{:011}-{:011}", i, i * 3, i * 7, i * 11)
}

fn pad(i: u64) -> String {
    format!("{:011}-{:011}", i * 13, i * 17)
}

/// One timed `ADD COLUMN` of a fresh column.
fn add_column(server: &Server, table: &str, round: &AtomicU64) -> Result<Sample, String> {
    let n = round.fetch_add(1, Ordering::Relaxed);
    let mut c = conn(server)?;
    let t = Instant::now();
    c.query_drop(format!(
        "alter table {table} add column x{n} int not null default 7"
    ))
    .map_err(|e| e.to_string())?;
    Ok(vec![(ALTER_MS, t.elapsed().as_secs_f64() * 1000.0)])
}

/// sysbench oltp_write_only's transactions until `stop`; counts commits.
fn writer(
    server: &Server,
    w: u64,
    rows: u64,
    stop: Arc<AtomicBool>,
    commits: Arc<AtomicU64>,
) -> Result<(), String> {
    let mut c = conn(server)?;
    let mut i = w;
    while !stop.load(Ordering::Relaxed) {
        i += WRITERS;
        let id = (i * 2_654_435_761) % rows + 1;
        let txn = [
            format!("update big set k = k + 1 where id = {id}"),
            format!("update big set c = '{}' where id = {id}", c_text(i)),
            format!("delete from big where id = {id}"),
            format!(
                "insert into big (id, k, c, pad) values ({id}, {}, '{}', '{}')",
                i % rows,
                c_text(i),
                pad(i)
            ),
        ];
        c.query_drop("begin").map_err(|e| e.to_string())?;
        for q in &txn {
            c.query_drop(q).map_err(|e| format!("{q}: {e}"))?;
        }
        c.query_drop("commit").map_err(|e| e.to_string())?;
        commits.fetch_add(1, Ordering::Relaxed);
    }
    Ok(())
}

/// One timed `ADD INDEX` with nothing else running, then its unmeasured drop.
fn add_index_alone(server: &Server) -> Result<Sample, String> {
    let mut c = conn(server)?;
    let t = Instant::now();
    c.query_drop("alter table big add index kpad (pad)")
        .map_err(|e| e.to_string())?;
    let took = t.elapsed();
    c.query_drop("alter table big drop index kpad")
        .map_err(|e| e.to_string())?;
    Ok(vec![(ALTER_MS, took.as_secs_f64() * 1000.0)])
}

/// `ADD INDEX` under write load: its time and the writers' share of throughput.
fn add_index_under_writes(server: &Server, rows: u64) -> Result<Sample, String> {
    let stop = Arc::new(AtomicBool::new(false));
    let commits = Arc::new(AtomicU64::new(0));
    let outcome = std::thread::scope(|s| {
        let writers: Vec<_> = (0..WRITERS)
            .map(|w| {
                let (stop, commits) = (stop.clone(), commits.clone());
                s.spawn(move || writer(server, w, rows, stop, commits))
            })
            .collect();
        let measured = (|| {
            std::thread::sleep(Duration::from_millis(500));
            let c0 = commits.load(Ordering::Relaxed);
            std::thread::sleep(BEFORE);
            let before = (commits.load(Ordering::Relaxed) - c0) as f64 / BEFORE.as_secs_f64();
            let mut c = conn(server)?;
            let c1 = commits.load(Ordering::Relaxed);
            let t = Instant::now();
            c.query_drop("alter table big add index kpad (pad)")
                .map_err(|e| e.to_string())?;
            let took = t.elapsed();
            let during = (commits.load(Ordering::Relaxed) - c1) as f64 / took.as_secs_f64();
            Ok::<_, String>((took, during / before.max(1e-9) * 100.0))
        })();
        stop.store(true, Ordering::Relaxed);
        for h in writers {
            h.join().map_err(|_| "writer panicked".to_string())??;
        }
        measured
    });
    let (took, share) = outcome?;
    conn(server)?
        .query_drop("alter table big drop index kpad")
        .map_err(|e| e.to_string())?;
    Ok(vec![
        (ALTER_MS, took.as_secs_f64() * 1000.0),
        (SHARE, share),
    ])
}

/// Runs the cases; `quick` uses the smaller large table.
pub fn run(stage: &mut Stage<'_>, quick: bool, rounds: usize, results: &mut Results) {
    let rows = big_rows(quick);
    stage.add_setup(SETUP, Box::new(move |s| setup(s, rows)));
    let round = AtomicU64::new(0);
    for (table, n) in [("small", SMALL), ("big", rows)] {
        let mut case = Case::new(Workload::Alter, "ADD COLUMN", &format!("{n} rows"), 1);
        stage.run_case(&mut case, SETUP, rounds, |s| add_column(s, table, &round));
        results.cases.push(case);
    }
    let mut case = Case::new(Workload::Alter, "ADD INDEX", &format!("{rows} rows"), 1);
    stage.run_case(&mut case, SETUP, rounds, |s| add_index_alone(s));
    results.cases.push(case);
    let mut case = Case::new(
        Workload::Alter,
        "ADD INDEX under writes",
        &format!("{rows} rows"),
        WRITERS as u32,
    );
    stage.run_case(&mut case, SETUP, rounds, |s| {
        add_index_under_writes(s, rows)
    });
    results.cases.push(case);
}
