//! The `partitions` workload: a table of 1,000 RANGE partitions (seed 003: MySQL
//! gave each partition buffers of its own).
//!
//! - `CREATE TABLE` of the 1,000-partition table: its time (the table is dropped
//!   after each round, unmeasured).
//! - Primary-key point selects (one client, 5,000 per round) on the
//!   1,000-partition table and on the same rows unpartitioned: queries per second.

use crate::results::{Case, Metric, Results, Workload};
use crate::runner::{Sample, Stage};
use crate::servers::Server;
use crate::stats::Better;
use mysql::prelude::Queryable;
use std::time::Instant;

pub const MS: Metric = Metric {
    key: "create_ms",
    unit: "ms",
    better: Better::Lower,
};

pub const SETUP: &str = "partitioned tables";
const PARTS: u64 = 1_000;
const ROWS: u64 = 100_000;
const SELECTS: u64 = 5_000;

fn conn(server: &Server) -> Result<mysql::Conn, String> {
    mysql::Conn::new(server.opts(Some("benchp"))).map_err(|e| e.to_string())
}

fn create_sql(name: &str) -> String {
    let parts: Vec<String> = (0..PARTS)
        .map(|i| {
            format!(
                "partition p{i} values less than ({})",
                (i + 1) * (ROWS / PARTS)
            )
        })
        .collect();
    format!(
        "create table {name} (a int primary key, b int) partition by range (a) ({})",
        parts.join(",")
    )
}

/// `benchp.parted` (1,000 partitions) and `benchp.plain`, with the same rows.
fn setup(server: &mut Server) -> Result<(), String> {
    let mut c = mysql::Conn::new(server.opts(None)).map_err(|e| e.to_string())?;
    for s in ["drop database if exists benchp", "create database benchp"] {
        c.query_drop(s).map_err(|e| format!("{s}: {e}"))?;
    }
    let mut c = conn(server)?;
    c.query_drop(create_sql("parted"))
        .map_err(|e| e.to_string())?;
    c.query_drop("create table plain (a int primary key, b int)")
        .map_err(|e| e.to_string())?;
    for table in ["parted", "plain"] {
        for from in (0..ROWS).step_by(10_000) {
            let values: Vec<String> = (from..from + 10_000)
                .map(|i| format!("({i},{i})"))
                .collect();
            c.query_drop(format!("insert into {table} values {}", values.join(",")))
                .map_err(|e| format!("fill {table}: {e}"))?;
        }
    }
    Ok(())
}

fn create(server: &Server) -> Result<Sample, String> {
    let mut c = conn(server)?;
    let t = Instant::now();
    c.query_drop(create_sql("fresh"))
        .map_err(|e| e.to_string())?;
    let took = t.elapsed();
    c.query_drop("drop table fresh")
        .map_err(|e| e.to_string())?;
    Ok(vec![(MS, took.as_secs_f64() * 1000.0)])
}

fn point_selects(server: &Server, table: &str) -> Result<Sample, String> {
    let mut c = conn(server)?;
    let t = Instant::now();
    for i in 0..SELECTS {
        let a = i * 7_919 % ROWS;
        let _: Option<i64> = c
            .query_first(format!("select b from {table} where a = {a}"))
            .map_err(|e| e.to_string())?;
    }
    let qps = SELECTS as f64 / t.elapsed().as_secs_f64();
    Ok(vec![(crate::sysbench::QPS, qps)])
}

pub fn run(stage: &mut Stage<'_>, rounds: usize, results: &mut Results) {
    stage.add_setup(SETUP, Box::new(setup));
    let variant = format!("{PARTS} partitions");
    let mut case = Case::new(Workload::Partitions, "CREATE TABLE", &variant, 1);
    stage.run_case(&mut case, SETUP, rounds, |s| create(s));
    results.cases.push(case);
    for (table, variant) in [("parted", variant.as_str()), ("plain", "not partitioned")] {
        let mut case = Case::new(Workload::Partitions, "PK point select", variant, 1);
        stage.run_case(&mut case, SETUP, rounds, |s| point_selects(s, table));
        results.cases.push(case);
    }
}
