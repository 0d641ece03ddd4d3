//! The `joins` workload: planning plus execution time of many-table joins whose
//! FROM order does not follow the join conditions.
//!
//! Tables `t0..t60` of 10 rows `(k, k)` (`id int primary key, v int`); the query
//! for n tables is `select count(*) from t0, t2, t4, ..., t1, t3, ... where
//! t0.v = t1.v and t1.v = t2.v and ... ` (a chain listed so that no two
//! neighbours are adjacent), at n = 4, 8, 16, 32, 61. Every execution gives the
//! tables fresh aliases, so each one is a new statement text: no plan cache
//! answers it and the time covers parsing, planning and running. One client, the
//! text protocol; the sample is the median time per query of a round.

use crate::results::{Case, Metric, Results, Workload};
use crate::runner::{Sample, Stage};
use crate::servers::Server;
use crate::stats::{quantile_sorted, Better};
use mysql::prelude::Queryable;
use std::time::Instant;

pub const MS: Metric = Metric {
    key: "ms_per_query",
    unit: "ms",
    better: Better::Lower,
};

pub const SETUP: &str = "join tables";
/// Table counts measured.
pub const SIZES: [usize; 5] = [4, 8, 16, 32, 61];
const TABLES: usize = 61;

/// Creates `benchj.t0..t60`.
pub fn setup(server: &mut Server) -> Result<(), String> {
    let mut conn = mysql::Conn::new(server.opts(None)).map_err(|e| e.to_string())?;
    let values: Vec<String> = (0..10).map(|k| format!("({k},{k})")).collect();
    let mut stmts = vec![
        "drop database if exists benchj".to_string(),
        "create database benchj".to_string(),
    ];
    for i in 0..TABLES {
        stmts.push(format!(
            "create table benchj.t{i} (id int not null primary key, v int) engine=innodb"
        ));
        stmts.push(format!(
            "insert into benchj.t{i} values {}",
            values.join(",")
        ));
    }
    for s in &stmts {
        conn.query_drop(s).map_err(|e| format!("{s}: {e}"))?;
    }
    Ok(())
}

/// The shuffled chain over `n` tables, the tables aliased `a{tag}_{i}`.
pub fn chain_query(n: usize, tag: usize) -> String {
    let order = (0..n).step_by(2).chain((1..n).step_by(2));
    let from: Vec<String> = order.map(|i| format!("t{i} a{tag}_{i}")).collect();
    let conds: Vec<String> = (0..n - 1)
        .map(|i| format!("a{tag}_{i}.v = a{tag}_{}.v", i + 1))
        .collect();
    format!(
        "select count(*) from {} where {}",
        from.join(", "),
        conds.join(" and ")
    )
}

/// `queries` executions of the n-table join; the median time per query.
fn once(server: &Server, n: usize, queries: usize) -> Result<Sample, String> {
    let mut conn = mysql::Conn::new(server.opts(Some("benchj"))).map_err(|e| e.to_string())?;
    let mut times = Vec::with_capacity(queries);
    for q in 0..queries {
        let sql = chain_query(n, q);
        let t = Instant::now();
        let count: Option<i64> = conn
            .query_first(&sql)
            .map_err(|e| format!("{n} tables: {e}"))?;
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        if count != Some(10) {
            return Err(format!("{n} tables: count {count:?}, expected 10"));
        }
    }
    times.sort_by(f64::total_cmp);
    let median = quantile_sorted(&times, 0.5).ok_or("no queries")?;
    Ok(vec![(MS, median)])
}

/// Runs every join size; `quick` runs fewer queries per round.
pub fn run(stage: &mut Stage<'_>, quick: bool, rounds: usize, results: &mut Results) {
    stage.add_setup(SETUP, Box::new(setup));
    let queries = if quick { 5 } else { 30 };
    for n in SIZES {
        let mut case = Case::new(Workload::Joins, "shuffled chain", &format!("{n} tables"), 1);
        stage.run_case(&mut case, SETUP, rounds, |s| once(s, n, queries));
        results.cases.push(case);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chain_lists_no_neighbours_together() {
        let q = chain_query(4, 7);
        assert_eq!(
            q,
            "select count(*) from t0 a7_0, t2 a7_2, t1 a7_1, t3 a7_3 \
             where a7_0.v = a7_1.v and a7_1.v = a7_2.v and a7_2.v = a7_3.v"
        );
    }
}
