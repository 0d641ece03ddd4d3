//! Many connections, each running one point select per second (web fleets: most
//! clients are idle most of the time, and each comes back now and then).
//!
//! Four generator threads own the connections; connection `i` of `n` is due at
//! `i / n` seconds past each second, so the load is spread evenly. Measured over
//! the run: each query's latency from its due time (a late start counts) and the
//! server's CPU time per query (/proc/PID/stat).

use crate::cpu::{clock_ticks_per_sec, cpu_ticks};
use crate::load::{LAT_P50, LAT_P99};
use crate::results::{Case, Metric, Results, Workload};
use crate::runner::{Sample, Stage};
use crate::servers::Server;
use crate::stats::Better;
use mysql::prelude::Queryable;
use std::time::{Duration, Instant};

pub const CPU_US: Metric = Metric {
    key: "server_cpu_us",
    unit: "µs/query",
    better: Better::Lower,
};

pub const NAME: &str = "1 point select/s per connection";
const SETUP: &str = "paced table";
const THREADS: usize = 4;
const ROWS: u64 = 1_000;

fn setup(server: &mut Server) -> Result<(), String> {
    let mut c = mysql::Conn::new(server.opts(None)).map_err(|e| e.to_string())?;
    let values: Vec<String> = (0..ROWS).map(|i| format!("({i},{i})")).collect();
    for s in [
        "drop database if exists benchpaced".to_string(),
        "create database benchpaced".into(),
        "create table benchpaced.t (id int primary key, v int)".into(),
        format!("insert into benchpaced.t values {}", values.join(",")),
    ] {
        c.query_drop(&s).map_err(|e| format!("{s}: {e}"))?;
    }
    Ok(())
}

/// One generator thread: its connections (`first` is the index of the first
/// among all `n`), run for `secs`; the latencies in ms.
fn generate(
    server: &Server,
    first: usize,
    count: usize,
    n: usize,
    start: Instant,
    secs: u64,
) -> Result<Vec<f64>, String> {
    let mut conns = Vec::with_capacity(count);
    for _ in 0..count {
        let mut c = mysql::Conn::new(server.opts(Some("benchpaced"))).map_err(|e| e.to_string())?;
        c.query_drop("select 1").map_err(|e| e.to_string())?;
        conns.push(c);
    }
    let mut lat = Vec::with_capacity(count * secs as usize);
    for second in 0..secs {
        for (k, c) in conns.iter_mut().enumerate() {
            let i = first + k;
            let due =
                start + Duration::from_secs(second) + Duration::from_secs_f64(i as f64 / n as f64);
            if let Some(wait) = due.checked_duration_since(Instant::now()) {
                std::thread::sleep(wait);
            }
            let id = (i as u64 * 7_919 + second) % ROWS;
            let _: Option<i64> = c
                .query_first(format!("select v from t where id = {id}"))
                .map_err(|e| e.to_string())?;
            lat.push(due.elapsed().as_secs_f64() * 1000.0);
        }
    }
    Ok(lat)
}

fn measure(server: &Server, n: usize, secs: u64) -> Result<Sample, String> {
    let pid = server.pid().ok_or("server not running")?;
    // Connecting takes a while: the run starts once every thread could connect
    // (2 ms per connection and thread is ample) plus a second to go idle.
    let connect = Duration::from_millis(2 * (n / THREADS) as u64 + 1_000);
    let start = Instant::now() + connect;
    let per = n.div_ceil(THREADS);
    let (lat, ticks) = std::thread::scope(|s| {
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                let first = t * per;
                let count = per.min(n.saturating_sub(first));
                s.spawn(move || generate(server, first, count, n, start, secs))
            })
            .collect();
        if let Some(wait) = start.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        let cpu0 = cpu_ticks(pid);
        let lat: Vec<_> = handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("generator panicked".into()))
            })
            .collect();
        let ticks = cpu0.and_then(|a| cpu_ticks(pid).map(|b| b.saturating_sub(a)));
        (lat, ticks)
    });
    let ticks = ticks? as f64;
    let mut all = Vec::new();
    for r in lat {
        all.extend(r?);
    }
    if all.is_empty() {
        return Err("no queries ran".into());
    }
    all.sort_by(f64::total_cmp);
    let pct = |p: f64| all[((all.len() - 1) as f64 * p) as usize];
    let cpu_us = ticks / clock_ticks_per_sec() * 1e6 / all.len() as f64;
    Ok(vec![
        (LAT_P50, pct(0.50)),
        (LAT_P99, pct(0.99)),
        (CPU_US, cpu_us),
    ])
}

pub fn run(stage: &mut Stage<'_>, quick: bool, rounds: usize, results: &mut Results) {
    stage.add_setup(SETUP, Box::new(setup));
    let (counts, secs): (&[usize], u64) = if quick {
        (&[1_000], 3)
    } else {
        (&[1_000, 10_000], 10)
    };
    for &n in counts {
        let mut case = Case::new(Workload::Idle, NAME, "", n as u32);
        stage.run_case(&mut case, SETUP, rounds, |s| measure(s, n, secs));
        results.cases.push(case);
    }
}
