//! The `tpch` workload: TPC-H queries 1, 3, 5, 6 and 10, in MySQL syntax, over
//! TPC-H-style data ([`gen`]) at scale factor 0.1 (0.01 with `--quick`). One
//! client; a sample is the median time of a round's executions of a query. Each
//! server's result rows are compared with the other's: a query whose results
//! differ fails instead of giving a time.

pub mod gen;

use crate::results::{Case, Metric, Results, Workload};
use crate::runner::{Sample, Stage};
use crate::servers::{Kind, Server};
use crate::stats::{quantile_sorted, Better};
use mysql::prelude::Queryable;
use std::collections::HashMap;
use std::time::Instant;

pub const MS: Metric = Metric {
    key: "ms_per_query",
    unit: "ms",
    better: Better::Lower,
};

pub const SETUP: &str = "tpch data";
const DB: &str = "benchtpch";

/// The queries: (name, text), with the specification's default substitution
/// parameters.
pub const QUERIES: [(&str, &str); 5] = [
    (
        "Q1 pricing summary",
        "select l_returnflag, l_linestatus, sum(l_quantity) as sum_qty, \
         sum(l_extendedprice) as sum_base_price, \
         sum(l_extendedprice * (1 - l_discount)) as sum_disc_price, \
         sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) as sum_charge, \
         avg(l_quantity) as avg_qty, avg(l_extendedprice) as avg_price, \
         avg(l_discount) as avg_disc, count(*) as count_order \
         from lineitem where l_shipdate <= date '1998-12-01' - interval '90' day \
         group by l_returnflag, l_linestatus order by l_returnflag, l_linestatus",
    ),
    (
        "Q3 shipping priority",
        "select l_orderkey, sum(l_extendedprice * (1 - l_discount)) as revenue, \
         o_orderdate, o_shippriority from customer, orders, lineitem \
         where c_mktsegment = 'BUILDING' and c_custkey = o_custkey \
         and l_orderkey = o_orderkey and o_orderdate < date '1995-03-15' \
         and l_shipdate > date '1995-03-15' \
         group by l_orderkey, o_orderdate, o_shippriority \
         order by revenue desc, o_orderdate, l_orderkey limit 10",
    ),
    (
        "Q5 local supplier volume",
        "select n_name, sum(l_extendedprice * (1 - l_discount)) as revenue \
         from customer, orders, lineitem, supplier, nation, region \
         where c_custkey = o_custkey and l_orderkey = o_orderkey \
         and l_suppkey = s_suppkey and c_nationkey = s_nationkey \
         and s_nationkey = n_nationkey and n_regionkey = r_regionkey \
         and r_name = 'ASIA' and o_orderdate >= date '1994-01-01' \
         and o_orderdate < date '1994-01-01' + interval '1' year \
         group by n_name order by revenue desc",
    ),
    (
        "Q6 forecasting revenue change",
        "select sum(l_extendedprice * l_discount) as revenue from lineitem \
         where l_shipdate >= date '1994-01-01' \
         and l_shipdate < date '1994-01-01' + interval '1' year \
         and l_discount between 0.06 - 0.01 and 0.06 + 0.01 and l_quantity < 24",
    ),
    (
        "Q10 returned item reporting",
        "select c_custkey, c_name, sum(l_extendedprice * (1 - l_discount)) as revenue, \
         c_acctbal, n_name, c_address, c_phone, c_comment \
         from customer, orders, lineitem, nation \
         where c_custkey = o_custkey and l_orderkey = o_orderkey \
         and o_orderdate >= date '1993-10-01' \
         and o_orderdate < date '1993-10-01' + interval '3' month \
         and l_returnflag = 'R' and c_nationkey = n_nationkey \
         group by c_custkey, c_name, c_acctbal, c_phone, n_name, c_address, c_comment \
         order by revenue desc, c_custkey limit 20",
    ),
];

/// Creates and loads `benchtpch` at scale factor `sf`.
fn setup(server: &mut Server, sf: f64) -> Result<(), String> {
    let mut conn = mysql::Conn::new(server.opts(None)).map_err(|e| e.to_string())?;
    conn.query_drop(format!("drop database if exists {DB}"))
        .and_then(|_| conn.query_drop(format!("create database {DB}")))
        .and_then(|_| conn.query_drop(format!("use {DB}")))
        .map_err(|e| e.to_string())?;
    for ddl in gen::DDL {
        conn.query_drop(ddl).map_err(|e| format!("{ddl}: {e}"))?;
    }
    gen::generate(sf, &mut |stmt| {
        conn.query_drop(&stmt)
            .map_err(|e| format!("load: {e} ({} bytes)", stmt.len()))
    })?;
    // MariaDB's optimizer needs fresh statistics after a bulk load (Basalt keeps
    // its own up to date as rows arrive).
    conn.query_drop(
        "analyze table region, nation, supplier, part, partsupp, customer, orders, lineitem",
    )
    .map_err(|e| e.to_string())
}

/// The result of a query as text rows, to compare the two servers.
fn rows_text(rows: Vec<mysql::Row>) -> Vec<String> {
    rows.into_iter()
        .map(|r| {
            // The row's values (Row::unwrap takes them out; it cannot fail).
            mysql::Row::unwrap(r)
                .iter()
                .map(|v| match v {
                    mysql::Value::NULL => "NULL".to_string(),
                    mysql::Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
                    other => format!("{other:?}"),
                })
                .collect::<Vec<_>>()
                .join("|")
        })
        .collect()
}

/// `runs` executions of `sql`; the median time. The rows must equal what the
/// other server gave (`seen` keeps the first server's rows per query).
fn once(
    server: &Server,
    sql: &str,
    runs: usize,
    seen: &mut HashMap<Kind, Vec<String>>,
) -> Result<Sample, String> {
    let mut conn = mysql::Conn::new(server.opts(Some(DB))).map_err(|e| e.to_string())?;
    let mut times = Vec::with_capacity(runs);
    let mut result = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        let rows: Vec<mysql::Row> = conn.query(sql).map_err(|e| e.to_string())?;
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        result = rows_text(rows);
    }
    if result.is_empty() {
        return Err("no rows".into());
    }
    seen.insert(server.kind, result.clone());
    let other = seen.iter().find(|(k, _)| **k != server.kind);
    if let Some((k, theirs)) = other {
        if *theirs != result {
            return Err(format!(
                "results differ from {}: {:?} vs {:?}",
                k.name(),
                result.first(),
                theirs.first()
            ));
        }
    }
    times.sort_by(f64::total_cmp);
    Ok(vec![(MS, quantile_sorted(&times, 0.5).ok_or("no runs")?)])
}

/// Loads the data and runs every query; `quick`: scale factor 0.01 and fewer
/// executions.
pub fn run(stage: &mut Stage<'_>, quick: bool, rounds: usize, results: &mut Results) {
    let sf = if quick { 0.01 } else { 0.1 };
    stage.add_setup(SETUP, Box::new(move |s| setup(s, sf)));
    let runs = if quick { 2 } else { 5 };
    for (name, sql) in QUERIES {
        let mut case = Case::new(Workload::Tpch, name, &format!("SF {sf}"), 1);
        let mut seen = HashMap::new();
        stage.run_case(&mut case, SETUP, rounds, |s| once(s, sql, runs, &mut seen));
        results.cases.push(case);
    }
}
