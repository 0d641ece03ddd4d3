//! The `routines` workload: stored procedures (issue: compile a routine once to
//! a form that does not re-parse or re-bind per iteration).
//!
//! - A procedure looping 1,000,000 times over `SET x = x + 1`: its time.
//! - A procedure looping 100,000 times over `SELECT v INTO y FROM t WHERE id = 1`
//!   (a primary-key read into a variable): its time.
//! - CALL of a short procedure (`SELECT a + 1`), 5,000 calls from one client:
//!   calls per second.
//! - Prepared `CALL short_out(?, ?)` (COM_STMT_EXECUTE; the OUT parameter
//!   comes back as the binary protocol's OUT-parameter result set) from 1 and
//!   16 clients for 3 seconds: calls per second.
//! - A stored function called once per row of a 100,000-row scan: one that
//!   computes (`RETURN x * 2`) and one that reads a row by primary key (`SELECT
//!   ... INTO`): the query's time.

use crate::results::{Case, Metric, Results, Workload};
use crate::runner::{Sample, Stage};
use crate::servers::Server;
use crate::stats::Better;
use mysql::prelude::Queryable;
use std::time::{Duration, Instant};

pub const MS: Metric = Metric {
    key: "run_ms",
    unit: "ms",
    better: Better::Lower,
};

pub const SETUP: &str = "stored procedures";
const CALLS: u64 = 5_000;
/// How long each round of prepared CALLs runs.
const PREPARED_SECS: u64 = 3;

const PROCS: &[&str] = &[
    "create procedure set_loop(n int) begin declare x int default 0; \
     while x < n do set x = x + 1; end while; select x; end",
    "create procedure select_loop(n int) begin declare x int default 0; declare y int; \
     while x < n do select v into y from lt where id = 1; set x = x + 1; end while; \
     select x, y; end",
    "create procedure short_p(a int) select a + 1",
    "create procedure short_out(in a int, out b int) set b = a + 1",
    "create function f_dbl(x int) returns int deterministic return x * 2",
    "create function f_read(k int) returns int reads sql data begin declare r int; \
     select v into r from lt where id = k; return r; end",
];

/// Rows of the table the functions are called over.
const SCAN_ROWS: u64 = 100_000;

fn conn(server: &Server) -> Result<mysql::Conn, String> {
    mysql::Conn::new(server.opts(Some("benchr"))).map_err(|e| e.to_string())
}

fn setup(server: &mut Server) -> Result<(), String> {
    let mut c = mysql::Conn::new(server.opts(None)).map_err(|e| e.to_string())?;
    for s in ["drop database if exists benchr", "create database benchr"] {
        c.query_drop(s).map_err(|e| format!("{s}: {e}"))?;
    }
    let mut c = conn(server)?;
    for s in [
        "create table lt (id int primary key, v int)",
        "insert into lt values (1, 7)",
        "create table ft (id int primary key)",
    ]
    .iter()
    .chain(PROCS)
    {
        c.query_drop(*s).map_err(|e| format!("{s}: {e}"))?;
    }
    // Both servers stop a recursive CTE after 1,000 iterations by default.
    c.query_drop("set max_recursive_iterations = 1000000")
        .map_err(|e| e.to_string())?;
    let fill = format!(
        "insert into ft with recursive s(n) as (select 1 union all select n + 1 from s \
         where n < {SCAN_ROWS}) select n from s"
    );
    c.query_drop(&fill).map_err(|e| format!("{fill}: {e}"))?;
    Ok(())
}

fn timed_call(server: &Server, sql: &str) -> Result<Sample, String> {
    let mut c = conn(server)?;
    let t = Instant::now();
    c.query_drop(sql).map_err(|e| format!("{sql}: {e}"))?;
    Ok(vec![(MS, t.elapsed().as_secs_f64() * 1000.0)])
}

fn short_calls(server: &Server) -> Result<Sample, String> {
    let mut c = conn(server)?;
    let t = Instant::now();
    for i in 0..CALLS {
        c.query_drop(format!("call short_p({i})"))
            .map_err(|e| e.to_string())?;
    }
    let qps = CALLS as f64 / t.elapsed().as_secs_f64();
    Ok(vec![(crate::sysbench::QPS, qps)])
}

/// One client's prepared CALLs until `deadline`; the first call's OUT value
/// is checked.
fn prepared_client(mut c: mysql::Conn, deadline: Instant) -> Result<u64, String> {
    let stmt = c.prep("call short_out(?, ?)").map_err(|e| e.to_string())?;
    let mut r = c
        .exec_iter(&stmt, (41, mysql::Value::NULL))
        .map_err(|e| e.to_string())?;
    let mut last = None;
    while let Some(set) = r.iter() {
        for row in set {
            last = row.map_err(|e| e.to_string())?.get::<i64, _>(0);
        }
    }
    drop(r);
    if last != Some(42) {
        return Err(format!("CALL short_out(41, ?) gave {last:?}, not 42"));
    }
    let mut n = 1;
    while Instant::now() < deadline {
        c.exec_drop(&stmt, (n as i64, mysql::Value::NULL))
            .map_err(|e| e.to_string())?;
        n += 1;
    }
    Ok(n)
}

fn prepared_calls(server: &Server, clients: usize, secs: u64) -> Result<Sample, String> {
    let conns = (0..clients)
        .map(|_| conn(server))
        .collect::<Result<Vec<_>, _>>()?;
    let t = Instant::now();
    let deadline = t + Duration::from_secs(secs);
    let handles: Vec<_> = conns
        .into_iter()
        .map(|c| std::thread::spawn(move || prepared_client(c, deadline)))
        .collect();
    let mut calls = 0;
    for h in handles {
        calls += h.join().map_err(|_| "client panicked".to_string())??;
    }
    Ok(vec![(
        crate::sysbench::QPS,
        calls as f64 / t.elapsed().as_secs_f64(),
    )])
}

/// `quick`: one-second prepared-CALL rounds (the smoke test).
pub fn run(stage: &mut Stage<'_>, rounds: usize, quick: bool, results: &mut Results) {
    stage.add_setup(SETUP, Box::new(setup));
    let secs = if quick { 1 } else { PREPARED_SECS };
    for (name, sql, variant) in [
        (
            "SET x = x + 1 loop",
            "call set_loop(1000000)",
            "1,000,000 iterations",
        ),
        (
            "SELECT ... INTO loop",
            "call select_loop(100000)",
            "100,000 iterations",
        ),
        (
            "function per row: RETURN x * 2",
            "select sum(f_dbl(id)) from ft",
            "100,000 rows",
        ),
        (
            "function per row: SELECT ... INTO",
            "select sum(f_read(1)) from ft",
            "100,000 rows",
        ),
    ] {
        let mut case = Case::new(Workload::Routines, name, variant, 1);
        stage.run_case(&mut case, SETUP, rounds, |s| timed_call(s, sql));
        results.cases.push(case);
    }
    let mut case = Case::new(Workload::Routines, "CALL short procedure", "5,000 calls", 1);
    stage.run_case(&mut case, SETUP, rounds, |s| short_calls(s));
    results.cases.push(case);
    for clients in [1, 16] {
        let variant = format!("{clients} client{}", if clients == 1 { "" } else { "s" });
        let mut case = Case::new(
            Workload::Routines,
            "prepared CALL with OUT parameter",
            &variant,
            clients as u32,
        );
        stage.run_case(&mut case, SETUP, rounds, |s| {
            prepared_calls(s, clients, secs)
        });
        results.cases.push(case);
    }
}
