//! The `idle` workload: what idle client connections cost the server (seed 003's
//! memory taxes; web fleets run thousands of connections per server).
//!
//! Per round and count: read the server's RSS and thread count from /proc, open
//! that many connections, run `SELECT 1` on each, leave them idle for a second,
//! read RSS and threads again, close them and let the server settle. Reported:
//! RSS growth per connection (KB) and the server's threads while they idle.

use crate::results::{Case, Metric, Results, Workload};
use crate::runner::{Sample, Stage};
use crate::servers::Server;
use crate::stats::Better;
use mysql::prelude::Queryable;
use std::time::Duration;

pub const KB_PER_CONN: Metric = Metric {
    key: "kb_per_conn",
    unit: "KB",
    better: Better::Lower,
};

pub const THREADS: Metric = Metric {
    key: "threads",
    unit: "threads",
    better: Better::Lower,
};

/// Idle connections per case (the full run adds 10,000).
pub fn counts(quick: bool) -> Vec<usize> {
    if quick {
        vec![100, 1_000]
    } else {
        vec![100, 1_000, 10_000]
    }
}

/// A /proc/PID/status field in its unit (kB for memory).
fn proc_status(pid: u32, field: &str) -> Result<u64, String> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).map_err(|e| e.to_string())?;
    s.lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .ok_or_else(|| format!("no {field} in /proc/{pid}/status"))
}

/// Lets this process hold `n` sockets (and a margin).
fn raise_nofile(n: usize) {
    let want = (n + 1_024) as libc::rlim_t;
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit read and write the struct passed, nothing else.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 && lim.rlim_cur < want {
            lim.rlim_cur = want.min(lim.rlim_max);
            libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
        }
    }
}

fn measure(server: &Server, n: usize) -> Result<Sample, String> {
    let pid = server.pid().ok_or("server not running")?;
    let rss0 = proc_status(pid, "VmRSS:")?;
    let mut conns = Vec::with_capacity(n);
    for _ in 0..n {
        let mut c = mysql::Conn::new(server.opts(None)).map_err(|e| e.to_string())?;
        c.query_drop("select 1").map_err(|e| e.to_string())?;
        conns.push(c);
    }
    std::thread::sleep(Duration::from_secs(1));
    let rss1 = proc_status(pid, "VmRSS:")?;
    let threads = proc_status(pid, "Threads:")?;
    drop(conns);
    std::thread::sleep(Duration::from_millis(500 + n as u64 / 10));
    let per_conn = rss1.saturating_sub(rss0) as f64 / n as f64;
    Ok(vec![(KB_PER_CONN, per_conn), (THREADS, threads as f64)])
}

pub fn run(stage: &mut Stage<'_>, counts: &[usize], rounds: usize, results: &mut Results) {
    raise_nofile(counts.iter().copied().max().unwrap_or(0));
    for &n in counts {
        let mut case = Case::new(Workload::Idle, "idle connections", "", n as u32);
        stage.run_case(&mut case, "", rounds, |s| measure(s, n));
        results.cases.push(case);
    }
}
