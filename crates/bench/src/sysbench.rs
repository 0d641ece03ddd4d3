//! sysbench 1.0 OLTP scripts (`oltp_point_select`, `oltp_read_only`, ...): one
//! `prepare` per stage, then `run` per thread count and prepared-statement mode in
//! alternating rounds, then `cleanup`. Any FATAL line or a non-zero exit is a failed
//! round, recorded with sysbench's own error text.

use crate::plan::{SysbenchCase, SysbenchPlan};
use crate::proc::run_with_timeout;
use crate::results::{Case, Metric, Results, Workload};
use crate::runner::{Sample, Stage};
use crate::servers::Server;
use crate::stats::Better;
use mysql::prelude::Queryable;
use std::process::Command;
use std::time::Duration;

pub const QPS: Metric = Metric {
    key: "qps",
    unit: "q/s",
    better: Better::Higher,
};
pub const TPS: Metric = Metric {
    key: "tps",
    unit: "tx/s",
    better: Better::Higher,
};
pub const LAT_AVG: Metric = Metric {
    key: "lat_avg",
    unit: "ms",
    better: Better::Lower,
};
pub const LAT_P95: Metric = Metric {
    key: "lat_p95",
    unit: "ms",
    better: Better::Lower,
};
pub const IGNORED_ERRORS: Metric = Metric {
    key: "ignored_errors",
    unit: "",
    better: Better::Lower,
};

/// Name of the set-up that prepares the sysbench tables.
pub const SETUP: &str = "sysbench prepare";

/// The figures of one `sysbench ... run`.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOutput {
    pub tps: f64,
    pub qps: f64,
    pub ignored_errors: u64,
    pub lat_avg_ms: f64,
    pub lat_p95_ms: f64,
}

/// The number in parentheses on a line like `queries: 19640 (6539.02 per sec.)`.
fn per_sec(line: &str) -> Option<f64> {
    let inner = line.split('(').nth(1)?;
    inner.split_whitespace().next()?.parse().ok()
}

/// The value after `label` on the first line that starts with it.
fn after<'a>(text: &'a str, label: &str) -> Option<&'a str> {
    text.lines()
        .find_map(|l| l.trim().strip_prefix(label))
        .map(str::trim)
}

/// sysbench's FATAL / error lines, if any.
pub fn fatal_lines(stdout: &str, stderr: &str) -> Option<String> {
    let lines: Vec<&str> = stdout
        .lines()
        .chain(stderr.lines())
        .map(str::trim)
        .filter(|l| l.starts_with("FATAL"))
        .collect();
    if lines.is_empty() {
        return None;
    }
    let mut uniq: Vec<&str> = Vec::new();
    for l in lines {
        if !uniq.contains(&l) {
            uniq.push(l);
        }
    }
    Some(uniq.into_iter().take(4).collect::<Vec<_>>().join(" | "))
}

/// Parses the report sysbench prints after `run`.
pub fn parse_run(stdout: &str, stderr: &str) -> Result<RunOutput, String> {
    if let Some(f) = fatal_lines(stdout, stderr) {
        return Err(f);
    }
    let missing = |what: &str| {
        format!(
            "no '{what}' in sysbench output: {}",
            crate::proc::tail_lines(stdout, 4)
        )
    };
    let tps = after(stdout, "transactions:")
        .and_then(per_sec)
        .ok_or_else(|| missing("transactions"))?;
    let qps = after(stdout, "queries:")
        .and_then(per_sec)
        .ok_or_else(|| missing("queries"))?;
    let ignored_errors = after(stdout, "ignored errors:")
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0);
    let lat = stdout
        .split("Latency (ms):")
        .nth(1)
        .ok_or_else(|| missing("Latency"))?;
    let num = |label: &str| -> Result<f64, String> {
        after(lat, label)
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| missing(label))
    };
    Ok(RunOutput {
        tps,
        qps,
        ignored_errors,
        lat_avg_ms: num("avg:")?,
        lat_p95_ms: num("95th percentile:")?,
    })
}

/// A round's sample.
pub fn sample_of(o: &RunOutput) -> Sample {
    vec![
        (QPS, o.qps),
        (TPS, o.tps),
        (LAT_AVG, o.lat_avg_ms),
        (LAT_P95, o.lat_p95_ms),
        (IGNORED_ERRORS, o.ignored_errors as f64),
    ]
}

/// `sysbench SCRIPT` with the connection and table options.
fn command(server: &Server, script: &str, table_size: u64) -> Command {
    let mut cmd = Command::new("sysbench");
    cmd.arg(script)
        .arg("--db-driver=mysql")
        .arg("--mysql-host=127.0.0.1")
        .arg(format!("--mysql-port={}", server.port))
        .arg("--mysql-user=root")
        .arg("--mysql-db=sbtest")
        .arg("--tables=1")
        .arg(format!("--table-size={table_size}"));
    cmd
}

/// Creates database `sbtest` and runs `sysbench oltp_read_only prepare` (every
/// OLTP script shares the same tables).
pub fn setup(server: &mut Server, table_size: u64) -> Result<(), String> {
    let mut conn = mysql::Conn::new(server.opts(None)).map_err(|e| e.to_string())?;
    conn.query_drop("drop database if exists sbtest")
        .and_then(|_| conn.query_drop("create database sbtest"))
        .map_err(|e| e.to_string())?;
    let mut cmd = command(server, "oltp_read_only", table_size);
    cmd.arg("prepare");
    let out = run_with_timeout(
        cmd,
        server.scratch(),
        "sysbench-prepare",
        Duration::from_secs(600),
    )
    .map_err(|e| format!("run sysbench: {e}"))?;
    if let Some(f) = fatal_lines(&out.stdout, &out.stderr) {
        return Err(f);
    }
    if !out.success() {
        return Err(out.describe_failure());
    }
    Ok(())
}

/// One `sysbench ... run`.
pub fn run_once(
    server: &mut Server,
    case: &SysbenchCase,
    plan: &SysbenchPlan,
) -> Result<Sample, String> {
    let mut cmd = command(server, &case.script, plan.table_size);
    cmd.arg(format!("--threads={}", case.threads))
        .arg(format!("--time={}", plan.time))
        .arg("--events=0")
        .arg(format!("--db-ps-mode={}", case.ps_mode))
        .arg("run");
    let limit = Duration::from_secs(plan.time + 90);
    let out = run_with_timeout(cmd, server.scratch(), "sysbench-run", limit)
        .map_err(|e| format!("run sysbench: {e}"))?;
    if let Some(f) = fatal_lines(&out.stdout, &out.stderr) {
        return Err(f);
    }
    if !out.success() {
        return Err(out.describe_failure());
    }
    parse_run(&out.stdout, &out.stderr).map(|o| sample_of(&o))
}

/// Runs `cases` on `stage` (all of them share one prepare), then cleans up.
pub fn run(
    stage: &mut Stage<'_>,
    plan: &SysbenchPlan,
    cases: &[SysbenchCase],
    rounds: usize,
    results: &mut Results,
) {
    if cases.is_empty() {
        return;
    }
    let size = plan.table_size;
    stage.add_setup(SETUP, Box::new(move |s| setup(s, size)));
    for sc in cases {
        let variant = format!("ps={}", sc.ps_mode);
        let mut case = Case::new(Workload::Sysbench, &sc.script, &variant, sc.threads);
        stage.run_case(&mut case, SETUP, rounds, |s| run_once(s, sc, plan));
        results.cases.push(case);
    }
    for kind in crate::servers::Kind::BOTH {
        if let Some(server) = stage.server(kind) {
            let mut cmd = command(server, "oltp_read_only", size);
            cmd.arg("cleanup");
            let _ = run_with_timeout(
                cmd,
                server.scratch(),
                "sysbench-cleanup",
                Duration::from_secs(120),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const POINT: &str = include_str!("../fixtures/sysbench_point_select_run.txt");
    const RW: &str = include_str!("../fixtures/sysbench_read_write_run.txt");
    const ERR: &str = include_str!("../fixtures/sysbench_error.txt");

    #[test]
    fn parses_point_select() {
        let o = parse_run(POINT, "").expect("parse");
        assert_eq!(o.tps, 6539.02);
        assert_eq!(o.qps, 6539.02);
        assert_eq!(o.ignored_errors, 0);
        assert_eq!(o.lat_avg_ms, 0.61);
        assert_eq!(o.lat_p95_ms, 2.30);
    }

    #[test]
    fn parses_read_write() {
        let o = parse_run(RW, "").expect("parse");
        assert_eq!(o.tps, 235.07);
        assert_eq!(o.qps, 4701.34);
        assert_eq!(o.lat_avg_ms, 8.48);
        assert_eq!(o.lat_p95_ms, 21.11);
        assert_eq!(sample_of(&o)[0], (QPS, 4701.34));
    }

    #[test]
    fn fatal_is_failure() {
        let e = parse_run(ERR, "").expect_err("fatal");
        assert!(e.contains("Unknown database 'nosuchdb'"), "{e}");
        assert!(e.starts_with("FATAL"), "{e}");
    }

    #[test]
    fn truncated_output_is_failure() {
        let cut = &POINT[..POINT.find("Latency").expect("latency")];
        assert!(parse_run(cut, "").is_err());
    }
}
