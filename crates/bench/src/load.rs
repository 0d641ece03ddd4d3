//! Client load written in Rust with the `mysql` crate, one OS thread per client:
//! durable commit throughput (single-row autocommit INSERTs, flush=1 on both) and
//! the connection storm (connect, one point select, disconnect). Every loop is
//! bounded by a deadline and by a count.

use crate::plan::LoadPlan;
use crate::results::{Case, Metric, Results, Workload};
use crate::runner::{Sample, Stage};
use crate::servers::Server;
use crate::stats::{quantile_sorted, Better};
use mysql::prelude::Queryable;
use std::sync::Barrier;
use std::time::{Duration, Instant};

pub const COMMITS: Metric = Metric {
    key: "commits_per_s",
    unit: "commits/s",
    better: Better::Higher,
};
pub const CONNS: Metric = Metric {
    key: "conns_per_s",
    unit: "conn/s",
    better: Better::Higher,
};
pub const LAT_P50: Metric = Metric {
    key: "lat_p50",
    unit: "ms",
    better: Better::Lower,
};
pub const LAT_P99: Metric = Metric {
    key: "lat_p99",
    unit: "ms",
    better: Better::Lower,
};

/// Server CPU time (user + system, /proc/PID/stat) per storm connection.
pub const CPU_PER_CONN: Metric = Metric {
    key: "server_cpu_us_per_conn",
    unit: "µs/conn",
    better: Better::Lower,
};

pub const BYTES_PER_COMMIT: Metric = Metric {
    key: "bytes_per_commit",
    unit: "B",
    better: Better::Lower,
};

pub const FSYNCS_PER_COMMIT: Metric = Metric {
    key: "fsyncs_per_commit",
    unit: "fsync",
    better: Better::Lower,
};

pub const COMMIT_SETUP: &str = "commit table";
pub const STORM_SETUP: &str = "storm table";

/// Upper bound on operations per client thread in one run.
const MAX_OPS_PER_CLIENT: u64 = 2_000_000;

/// What one client thread did.
#[derive(Default)]
struct ClientResult {
    ops: u64,
    errors: u64,
    first_error: Option<String>,
    /// Per-operation latency, µs.
    latencies: Vec<f64>,
}

/// Totals over all clients of one run.
#[derive(Debug, PartialEq)]
pub struct LoadTotals {
    pub ops: u64,
    pub errors: u64,
    pub first_error: Option<String>,
    pub elapsed: Duration,
    /// Sorted latencies, µs.
    pub latencies: Vec<f64>,
}

impl LoadTotals {
    /// Operations per second, p50 and p99 latency (ms) as a sample; an error when
    /// nothing succeeded or more than 1% of operations failed.
    pub fn sample(&self, rate: Metric) -> Result<Sample, String> {
        let attempts = self.ops + self.errors;
        if self.ops == 0 || self.errors * 100 > attempts {
            return Err(format!(
                "{} of {attempts} operations failed; first error: {}",
                self.errors,
                self.first_error.as_deref().unwrap_or("none")
            ));
        }
        let secs = self.elapsed.as_secs_f64().max(1e-9);
        let ms = |q| quantile_sorted(&self.latencies, q).unwrap_or(0.0) / 1000.0;
        Ok(vec![
            (rate, self.ops as f64 / secs),
            (LAT_P50, ms(0.50)),
            (LAT_P99, ms(0.99)),
        ])
    }
}

/// Runs `clients` threads; each calls `prepare` once (e.g. connect), waits for the
/// others, then calls `op` until `secs` pass or it has done `MAX_OPS_PER_CLIENT`.
pub(crate) fn drive<S, P, O>(
    clients: u32,
    secs: u64,
    prepare: P,
    op: O,
) -> Result<LoadTotals, String>
where
    P: Fn() -> Result<S, String> + Sync,
    O: Fn(&mut S, u64) -> Result<(), String> + Sync,
{
    let n = clients.max(1) as usize;
    let barrier = Barrier::new(n + 1);
    let run_for = Duration::from_secs(secs);
    let (results, elapsed) = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..n)
            .map(|_| scope.spawn(|| client_thread(&barrier, run_for, &prepare, &op)))
            .collect();
        barrier.wait();
        let start = Instant::now();
        let results: Vec<Result<ClientResult, String>> = handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("client thread panicked".into()))
            })
            .collect();
        (results, start.elapsed())
    });
    let mut totals = LoadTotals {
        ops: 0,
        errors: 0,
        first_error: None,
        elapsed,
        latencies: Vec::new(),
    };
    for r in results {
        let r = r?;
        totals.ops += r.ops;
        totals.errors += r.errors;
        totals.first_error = totals.first_error.or(r.first_error);
        totals.latencies.extend(r.latencies);
    }
    totals.latencies.sort_by(f64::total_cmp);
    Ok(totals)
}

fn client_thread<S, P, O>(
    barrier: &Barrier,
    run_for: Duration,
    prepare: &P,
    op: &O,
) -> Result<ClientResult, String>
where
    P: Fn() -> Result<S, String>,
    O: Fn(&mut S, u64) -> Result<(), String>,
{
    let state = prepare();
    barrier.wait();
    let mut state = state?;
    let deadline = Instant::now() + run_for;
    let mut r = ClientResult::default();
    let mut i = 0u64;
    while i < MAX_OPS_PER_CLIENT && Instant::now() < deadline {
        let t0 = Instant::now();
        match op(&mut state, i) {
            Ok(()) => {
                r.ops += 1;
                r.latencies.push(t0.elapsed().as_secs_f64() * 1e6);
            }
            Err(e) => {
                r.errors += 1;
                r.first_error.get_or_insert(e);
                // A client whose connection broke stops; the others go on.
                if r.errors > 100 {
                    break;
                }
            }
        }
        i += 1;
    }
    Ok(r)
}

fn exec(server: &Server, db: Option<&str>, stmts: &[&str]) -> Result<(), String> {
    let mut conn = mysql::Conn::new(server.opts(db)).map_err(|e| e.to_string())?;
    for s in stmts {
        conn.query_drop(*s).map_err(|e| format!("{s}: {e}"))?;
    }
    Ok(())
}

/// Table `benchc.t` for the commit workload.
pub fn commit_setup(server: &mut Server) -> Result<(), String> {
    exec(
        server,
        None,
        &[
            "drop database if exists benchc",
            "create database benchc",
            "create table benchc.t (id bigint not null auto_increment primary key, \
             k int not null, pad varchar(60) not null) engine=innodb",
        ],
    )
}

/// Bytes process `pid` caused to be written to storage (`/proc/PID/io`).
fn storage_write_bytes(pid: Option<u32>) -> Option<u64> {
    let io = crate::proc::read_lossy(std::path::Path::new(&format!("/proc/{}/io", pid?)));
    parse_write_bytes(&io)
}

/// `write_bytes` from the text of `/proc/PID/io`.
pub fn parse_write_bytes(io: &str) -> Option<u64> {
    parse_io(io, "write_bytes")
}

/// A counter (`read_bytes`, `write_bytes`, ...) from the text of `/proc/PID/io`.
pub fn parse_io(io: &str, field: &str) -> Option<u64> {
    io.lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().parse().ok())
}

/// Bytes process `pid` caused to be read from storage (`/proc/PID/io`; page-cache
/// hits do not count).
pub fn storage_read_bytes(pid: Option<u32>) -> Option<u64> {
    let io = crate::proc::read_lossy(std::path::Path::new(&format!("/proc/{}/io", pid?)));
    parse_io(&io, "read_bytes")
}

/// A global status counter (`SHOW GLOBAL STATUS LIKE name`), if the server has it.
fn global_status(server: &Server, name: &str) -> Option<u64> {
    let mut conn = mysql::Conn::new(server.opts(None)).ok()?;
    let row: Option<(String, String)> = conn
        .query_first(format!("show global status like '{name}'"))
        .ok()?;
    row?.1.parse().ok()
}

/// `clients` connections each inserting one row per autocommit transaction. Also
/// reports the bytes the server wrote to storage per commit, which shows whether
/// commits reach the disk at all, and log fsyncs per commit (`Innodb_os_log_fsyncs`,
/// which both servers count): below 1 means group commit shares fsyncs.
pub fn commit_once(server: &Server, clients: u32, secs: u64) -> Result<Sample, String> {
    commit_counted(server, clients, secs).map(|(sample, _, _)| sample)
}

/// [`commit_once`], also returning how many INSERTs returned OK and how many
/// failed (a failed one may still have committed).
pub fn commit_counted(
    server: &Server,
    clients: u32,
    secs: u64,
) -> Result<(Sample, u64, u64), String> {
    let opts = server.opts(Some("benchc"));
    let fsyncs_before = global_status(server, "Innodb_os_log_fsyncs");
    let before = storage_write_bytes(server.pid());
    let totals = drive(
        clients,
        secs,
        || mysql::Conn::new(opts.clone()).map_err(|e| e.to_string()),
        |conn, i| {
            conn.query_drop(format!(
                "insert into t (k, pad) values ({i}, 'basalt-bench durable commit')"
            ))
            .map_err(|e| e.to_string())
        },
    )?;
    let after = storage_write_bytes(server.pid());
    let mut sample = totals.sample(COMMITS)?;
    if let (Some(b), Some(a)) = (before, after) {
        let per = a.saturating_sub(b) as f64 / totals.ops.max(1) as f64;
        sample.push((BYTES_PER_COMMIT, per));
    }
    let fsyncs_after = global_status(server, "Innodb_os_log_fsyncs");
    if let (Some(b), Some(a)) = (fsyncs_before, fsyncs_after) {
        let per = a.saturating_sub(b) as f64 / totals.ops.max(1) as f64;
        sample.push((FSYNCS_PER_COMMIT, per));
    }
    Ok((sample, totals.ops, totals.errors))
}

/// Table `benchs.t` (100 rows) for the connection storm.
pub fn storm_setup(server: &mut Server) -> Result<(), String> {
    let values: Vec<String> = (1..=100).map(|i| format!("({i},{})", i * 10)).collect();
    let insert = format!("insert into benchs.t values {}", values.join(","));
    exec(
        server,
        None,
        &[
            "drop database if exists benchs",
            "create database benchs",
            "create table benchs.t (id int not null primary key, v int not null) engine=innodb",
            &insert,
        ],
    )
}

/// `clients` threads each looping: connect, one point select, disconnect. Also
/// reports the server's CPU time per connection.
pub fn storm_once(server: &Server, clients: u32, secs: u64) -> Result<Sample, String> {
    let opts = server.opts(Some("benchs"));
    let ticks0 = server.pid().and_then(|p| crate::cpu::cpu_ticks(p).ok());
    let totals = drive(
        clients,
        secs,
        || Ok(()),
        |_, i| {
            let mut conn = mysql::Conn::new(opts.clone()).map_err(|e| e.to_string())?;
            point_select(&mut conn, i)
        },
    )?;
    let ticks1 = server.pid().and_then(|p| crate::cpu::cpu_ticks(p).ok());
    let mut sample = totals.sample(CONNS)?;
    if let (Some(a), Some(b)) = (ticks0, ticks1) {
        let secs = b.saturating_sub(a) as f64 / crate::cpu::clock_ticks_per_sec();
        sample.push((CPU_PER_CONN, secs * 1e6 / totals.ops.max(1) as f64));
    }
    Ok(sample)
}

/// One point select by primary key on the storm table (`benchs.t`, 100 rows).
pub(crate) fn point_select(conn: &mut mysql::Conn, i: u64) -> Result<(), String> {
    let v: Option<i64> = conn
        .query_first(format!("select v from t where id = {}", i % 100 + 1))
        .map_err(|e| e.to_string())?;
    v.map(|_| ())
        .ok_or_else(|| "point select returned no row".into())
}

/// Durable commit throughput at each client count.
pub fn run_commit(stage: &mut Stage<'_>, plan: &LoadPlan, rounds: usize, results: &mut Results) {
    stage.add_setup(COMMIT_SETUP, Box::new(commit_setup));
    for &c in &plan.clients {
        let mut case = Case::new(Workload::Commit, "autocommit INSERT", "flush=1", c);
        stage.run_case(&mut case, COMMIT_SETUP, rounds, |s| {
            commit_once(s, c, plan.secs)
        });
        results.cases.push(case);
    }
}

/// Connection storm at each client count.
pub fn run_storm(stage: &mut Stage<'_>, plan: &LoadPlan, rounds: usize, results: &mut Results) {
    stage.add_setup(STORM_SETUP, Box::new(storm_setup));
    for &c in &plan.clients {
        let mut case = Case::new(Workload::Storm, "connect+select+quit", "", c);
        stage.run_case(&mut case, STORM_SETUP, rounds, |s| {
            storm_once(s, c, plan.secs)
        });
        results.cases.push(case);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    #[test]
    fn drive_is_bounded_by_time_and_counts_ops() {
        let calls = AtomicU64::new(0);
        let t = drive(
            3,
            1,
            || Ok(()),
            |_, _| {
                calls.fetch_add(1, Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(10));
                Ok(())
            },
        )
        .expect("drive");
        assert_eq!(t.ops, calls.load(Ordering::Relaxed));
        assert!(t.ops > 0);
        assert_eq!(t.latencies.len() as u64, t.ops);
        assert!(t.latencies.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn prepare_error_fails_the_run() {
        let r = drive(2, 1, || Err::<(), _>("refused".to_string()), |_, _| Ok(()));
        assert_eq!(r.expect_err("error"), "refused");
    }

    #[test]
    fn proc_io_write_bytes() {
        let io = "rchar: 6976\nwchar: 0\nsyscr: 10\nsyscw: 0\nread_bytes: 0\nwrite_bytes: 8192\ncancelled_write_bytes: 0\n";
        assert_eq!(parse_write_bytes(io), Some(8192));
        assert_eq!(parse_write_bytes(""), None);
        assert_eq!(parse_io(io, "read_bytes"), Some(0));
        assert_eq!(parse_io(io, "rchar"), Some(6976));
    }

    #[test]
    fn sample_math_and_error_threshold() {
        let t = LoadTotals {
            ops: 200,
            errors: 0,
            first_error: None,
            elapsed: Duration::from_secs(2),
            latencies: (1..=100).map(|i| i as f64 * 1000.0).collect(),
        };
        let s = t.sample(COMMITS).expect("sample");
        assert_eq!(s[0], (COMMITS, 100.0));
        assert_eq!(s[1], (LAT_P50, 50.0));
        assert_eq!(s[2], (LAT_P99, 99.0));
        let bad = LoadTotals {
            errors: 10,
            first_error: Some("boom".into()),
            ..t
        };
        assert!(bad.sample(COMMITS).expect_err("too many").contains("boom"));
    }
}
