//! The seed workload: the benchmark posts' point and range queries on table `foo`
//! (64,000 rows), run by `mariadb-slap` exactly as the posts run mysqlslap.
//!
//! mysqlslap's `--create` builds the schema before every iteration and drops it at
//! the end unless `--no-drop` is given; a run *without* `--create` still drops the
//! schema at the end. So the set-up runs the DDL once per server with
//! `--create=ddl.sql --no-drop`, and every measured run passes `--no-drop` and just
//! `--query`: the timing mariadb-slap reports ("Average number of seconds to run all
//! queries") then covers only the query phase, with the table already built.

use crate::plan::SeedPlan;
use crate::proc::run_with_timeout;
use crate::results::{Case, Metric, Results, Workload};
use crate::runner::{Sample, Stage};
use crate::servers::Server;
use crate::stats::Better;
use mysql::prelude::Queryable;
use std::process::Command;
use std::time::Duration;

/// The seed DDL (`shared/bench/seed-ddl.sql`), one statement per line.
pub const SEED_DDL: &str = include_str!("../seed-ddl.sql");

/// Seconds for all queries, as mariadb-slap reports it (the seed posts' response
/// time).
pub const SECONDS: Metric = Metric {
    key: "seconds",
    unit: "s",
    better: Better::Lower,
};

/// Mean response time of one query as a client sees it.
pub const US_PER_QUERY: Metric = Metric {
    key: "us_per_query",
    unit: "µs",
    better: Better::Lower,
};

/// Name of the set-up that loads table `foo`.
pub const SETUP: &str = "seed DDL";

/// One seed query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeedQuery {
    /// `PK`, `PK-force`, `cover-noforce`, `nocover-force`, `cover-force`.
    pub name: &'static str,
    /// `point` or `LIMIT 10` / `LIMIT 100` / `LIMIT 1000`.
    pub variant: String,
    pub sql: String,
    /// Rows a range query returns; `None` for point queries.
    pub limit: Option<u32>,
}

/// The 5 point queries and 3 range queries × LIMIT 10/100/1000.
pub fn seed_queries() -> Vec<SeedQuery> {
    let point = [
        ("PK", "select j from foo where i = 100"),
        (
            "PK-force",
            "select j from foo FORCE INDEX(`PRIMARY`) where i = 100",
        ),
        ("cover-noforce", "select k from foo where j = 100"),
        (
            "nocover-force",
            "select k from foo FORCE INDEX(`xj`) where j = 100",
        ),
        (
            "cover-force",
            "select k from foo FORCE INDEX(`xjk`) where j = 100",
        ),
    ];
    let range = [
        ("PK", "select j from foo where i >= 100 order by i limit"),
        (
            "nocover-force",
            "select k from foo FORCE INDEX(`xj`) where j >= 100 order by j limit",
        ),
        (
            "cover-force",
            "select k from foo FORCE INDEX(`xjk`) where j >= 100 order by j limit",
        ),
    ];
    let mut v: Vec<SeedQuery> = point
        .iter()
        .map(|(name, sql)| SeedQuery {
            name,
            variant: "point".into(),
            sql: sql.to_string(),
            limit: None,
        })
        .collect();
    for limit in [10u32, 100, 1000] {
        for (name, sql) in range {
            v.push(SeedQuery {
                name,
                variant: format!("LIMIT {limit}"),
                sql: format!("{sql} {limit}"),
                limit: Some(limit),
            });
        }
    }
    v
}

/// How a seed case is labelled in tables and charts: `point PK`,
/// `range PK, LIMIT 10`.
pub fn label(name: &str, variant: &str) -> String {
    if variant == "point" {
        format!("point {name}")
    } else {
        format!("range {name}, {variant}")
    }
}

/// Total queries for one run: `base` for point queries and LIMIT 10, fewer for
/// longer scans so every run takes a similar time (both systems run the same count,
/// so the normalised times are unaffected).
pub fn query_count(base: u64, limit: Option<u32>) -> u64 {
    let n = match limit {
        None | Some(0..=10) => base,
        Some(11..=100) => base / 4,
        Some(_) => base / 20,
    };
    n.max(1)
}

/// What mariadb-slap printed for one run.
#[derive(Clone, Debug, PartialEq)]
pub struct SlapOutput {
    pub avg_seconds: f64,
    pub min_seconds: f64,
    pub max_seconds: f64,
    pub clients: u32,
    pub queries_per_client: u64,
}

/// Parses mariadb-slap's "Benchmark" block. mariadb-slap exits 0 even when a query
/// fails, so any "Cannot run query" / error line on stderr is a failure too.
pub fn parse_slap(stdout: &str, stderr: &str) -> Result<SlapOutput, String> {
    if let Some(line) = stderr
        .lines()
        .chain(stdout.lines())
        .find(|l| l.contains("Cannot run query") || l.contains("ERROR") || l.contains("Error"))
    {
        return Err(line.trim().to_string());
    }
    let field = |label: &str| -> Option<&str> {
        stdout
            .lines()
            .find_map(|l| l.trim().strip_prefix(label))
            .map(|rest| rest.trim().trim_end_matches("seconds").trim())
    };
    let secs = |label: &str| -> Result<f64, String> {
        field(label)
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("no '{label}' in mariadb-slap output: {}", stdout.trim()))
    };
    Ok(SlapOutput {
        avg_seconds: secs("Average number of seconds to run all queries:")?,
        min_seconds: secs("Minimum number of seconds to run all queries:")?,
        max_seconds: secs("Maximum number of seconds to run all queries:")?,
        clients: field("Number of clients running queries:")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0),
        queries_per_client: field("Average number of queries per client:")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0),
    })
}

/// The round's sample from a parsed output.
pub fn sample_of(out: &SlapOutput) -> Sample {
    let mut s = vec![(SECONDS, out.avg_seconds)];
    if out.queries_per_client > 0 {
        s.push((
            US_PER_QUERY,
            out.avg_seconds * 1e6 / out.queries_per_client as f64,
        ));
    }
    s
}

/// mariadb-slap's common arguments for `server` (`--no-defaults` must come first).
fn slap_command(server: &Server, concurrency: u32, queries: u64) -> Command {
    let mut cmd = Command::new("mariadb-slap");
    cmd.arg("--no-defaults")
        .arg("--skip-ssl")
        .arg(format!("--concurrency={concurrency}"))
        .arg("-h127.0.0.1")
        .arg(format!("-P{}", server.port))
        .arg("-uroot")
        .arg("--create-schema=test1")
        .arg(format!("--number-of-queries={queries}"))
        .arg("--no-drop");
    cmd
}

/// Builds table `foo` on `server` with `--create=ddl.sql --no-drop` and checks its
/// row count.
pub fn setup(server: &mut Server, ddl: &str) -> Result<(), String> {
    let ddl_path = server.scratch().join("ddl.sql");
    std::fs::write(&ddl_path, ddl).map_err(|e| format!("write ddl.sql: {e}"))?;
    let mut cmd = slap_command(server, 1, 1);
    cmd.arg(format!("--create={}", ddl_path.display()))
        .arg("--query=select count(*) from foo");
    let out = run_with_timeout(
        cmd,
        server.scratch(),
        "slap-create",
        Duration::from_secs(900),
    )
    .map_err(|e| format!("run mariadb-slap: {e}"))?;
    if !out.success() {
        return Err(out.describe_failure());
    }
    parse_slap(&out.stdout, &out.stderr)?;
    let mut conn = mysql::Conn::new(server.opts(Some("test1"))).map_err(|e| e.to_string())?;
    let rows: Option<u64> = conn
        .query_first("select count(*) from foo")
        .map_err(|e| e.to_string())?;
    match rows {
        Some(64000) => Ok(()),
        other => Err(format!(
            "table foo has {other:?} rows after the DDL, expected 64000"
        )),
    }
}

/// One measured mariadb-slap run.
pub fn run_once(
    server: &mut Server,
    sql: &str,
    concurrency: u32,
    queries: u64,
    limit: Duration,
) -> Result<Sample, String> {
    let mut cmd = slap_command(server, concurrency, queries);
    cmd.arg(format!("--query={sql}"));
    let out = run_with_timeout(cmd, server.scratch(), "slap", limit)
        .map_err(|e| format!("run mariadb-slap: {e}"))?;
    if !out.success() {
        return Err(out.describe_failure());
    }
    parse_slap(&out.stdout, &out.stderr).map(|o| sample_of(&o))
}

/// Runs the seed set on `stage`, appending one case per query × concurrency.
pub fn run(stage: &mut Stage<'_>, plan: &SeedPlan, rounds: usize, results: &mut Results) {
    let ddl = plan.ddl.clone();
    stage.add_setup(SETUP, Box::new(move |s| setup(s, &ddl)));
    for q in seed_queries() {
        if !plan.selects(&q) {
            continue;
        }
        for &c in &plan.clients {
            let mut case = Case::new(Workload::Seed, q.name, &q.variant, c);
            let n = query_count(plan.queries, q.limit);
            stage.run_case(&mut case, SETUP, rounds, |s| {
                run_once(s, &q.sql, c, n, plan.timeout)
            });
            results.cases.push(case);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const C32: &str = include_str!("../fixtures/slap_c32.txt");
    const ERR: &str = include_str!("../fixtures/slap_error.txt");

    #[test]
    fn parses_real_output() {
        let o = parse_slap(C32, "").expect("parse");
        assert_eq!(o.avg_seconds, 0.514);
        assert_eq!(o.min_seconds, 0.514);
        assert_eq!(o.max_seconds, 0.514);
        assert_eq!(o.clients, 32);
        assert_eq!(o.queries_per_client, 62);
        let s = sample_of(&o);
        assert_eq!(s[0], (SECONDS, 0.514));
        assert!((s[1].1 - 0.514e6 / 62.0).abs() < 1e-6);
    }

    #[test]
    fn query_error_is_failure_despite_exit_0() {
        let e = parse_slap("", ERR).expect_err("error");
        assert!(e.contains("Unknown column 'nosuch'"), "{e}");
    }

    #[test]
    fn missing_block_is_failure() {
        assert!(parse_slap("", "").is_err());
    }

    #[test]
    fn fourteen_queries() {
        let q = seed_queries();
        assert_eq!(q.len(), 14);
        assert_eq!(q.iter().filter(|q| q.limit.is_none()).count(), 5);
        assert!(q.iter().any(|q| q.sql
            == "select k from foo FORCE INDEX(`xjk`) where j >= 100 order by j limit 1000"));
    }

    #[test]
    fn labels() {
        assert_eq!(label("PK", "point"), "point PK");
        assert_eq!(
            label("cover-force", "LIMIT 10"),
            "range cover-force, LIMIT 10"
        );
    }

    #[test]
    fn query_counts_shrink_with_limit() {
        assert_eq!(query_count(20000, None), 20000);
        assert_eq!(query_count(20000, Some(10)), 20000);
        assert_eq!(query_count(20000, Some(100)), 5000);
        assert_eq!(query_count(20000, Some(1000)), 1000);
        assert_eq!(query_count(3, Some(1000)), 1);
    }

    #[test]
    fn embedded_ddl_is_the_seed_ddl() {
        assert!(SEED_DDL.starts_with("create table foo"));
        assert!(SEED_DDL.contains("create index xjk on foo(j,k);"));
    }
}
