//! CPU cost of a point select on the server, two ways:
//!
//! * **Instructions per query.** With hardware counters (`perf stat -e
//!   instructions`) when the machine has them; otherwise the server runs under
//!   `valgrind --tool=callgrind --instr-atstart=no`, instrumentation is switched on
//!   after start-up and warm-up (`callgrind_control --instr=on`), counters are
//!   zeroed (`--zero`), the client (this process) sends N point selects, and a dump
//!   (`--dump`)
//!   gives the instructions executed. An idle interval of the same length is
//!   measured the same way and subtracted, which removes background threads.
//! * **Server CPU time per query, natively**: utime+stime of the server process
//!   (`/proc/PID/stat`) across N point selects from one client, in the alternating
//!   rounds of the other workloads.

use crate::proc::{read_lossy, run_with_timeout, which};
use crate::results::{Case, Metric, Results, Workload};
use crate::runner::{Progress, Sample, Stage};
use crate::servers::{Kind, Launch, Server, Settings};
use crate::stats::Better;
use mysql::prelude::Queryable;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

pub const INSTR: Metric = Metric {
    key: "instr_per_query",
    unit: "instructions",
    better: Better::Lower,
};
pub const INSTR_RAW: Metric = Metric {
    key: "instr_per_query_raw",
    unit: "instructions",
    better: Better::Lower,
};
pub const CPU_US: Metric = Metric {
    key: "server_cpu_us",
    unit: "µs",
    better: Better::Lower,
};
pub const WALL_US: Metric = Metric {
    key: "client_wall_us",
    unit: "µs",
    better: Better::Lower,
};

pub const SETUP: &str = "cpu table";
const WARMUP: u64 = 300;

/// How instructions are counted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Counter {
    /// `perf stat -e instructions -p PID`.
    Perf,
    /// The server runs under callgrind.
    Callgrind,
}

impl Counter {
    pub fn describe(&self) -> &'static str {
        match self {
            Counter::Perf => "perf stat -e instructions",
            Counter::Callgrind => {
                "valgrind --tool=callgrind (perf stat counters not supported here)"
            }
        }
    }
}

/// The first field of `perf stat -x,` output for the event: a count when the
/// counter works, `<not supported>` / `<not counted>` when it does not.
pub fn parse_perf_csv(text: &str, event: &str) -> Option<u64> {
    text.lines()
        .find(|l| l.split(',').nth(2).is_some_and(|e| e.starts_with(event)))
        .and_then(|l| l.split(',').next())
        .and_then(|v| v.trim().parse::<f64>().ok())
        .map(|v| v as u64)
}

/// Picks perf when `perf stat -e instructions` counts, else callgrind.
pub fn detect(scratch: &Path) -> Result<Counter, String> {
    if which("perf").is_some() {
        let mut cmd = Command::new("perf");
        cmd.args(["stat", "-e", "instructions", "-x,", "true"]);
        if let Ok(out) = run_with_timeout(cmd, scratch, "perf-detect", Duration::from_secs(20)) {
            if parse_perf_csv(&out.stderr, "instructions").is_some() {
                return Ok(Counter::Perf);
            }
        }
    }
    if which("valgrind").is_some() && which("callgrind_control").is_some() {
        return Ok(Counter::Callgrind);
    }
    Err(
        "perf stat instruction counters are not supported here and valgrind is not installed \
         (Debian package: valgrind)"
            .into(),
    )
}

/// The event total of a callgrind dump (`totals:`, else `summary:`).
pub fn parse_callgrind_totals(text: &str) -> Option<u64> {
    let find = |label: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(label))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
    };
    find("totals:").or_else(|| find("summary:"))
}

/// The dump with the highest sequence number (`cg.out.N`) in `dir`.
fn newest_dump(dir: &Path) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let n: u64 = name
                .strip_prefix("cg.out.")?
                .split('-')
                .next()?
                .parse()
                .ok()?;
            Some((n, e.path()))
        })
        .max_by_key(|(n, _)| *n)
        .map(|(_, p)| p)
}

/// Table `benchcpu.t`, 1,000 rows.
pub fn setup(server: &mut Server) -> Result<(), String> {
    let values: Vec<String> = (1..=1000).map(|i| format!("({i},{})", i * 7)).collect();
    let mut conn = mysql::Conn::new(server.opts(None)).map_err(|e| e.to_string())?;
    for s in [
        "drop database if exists benchcpu".to_string(),
        "create database benchcpu".to_string(),
        "create table benchcpu.t (id int not null primary key, v int not null) engine=innodb"
            .into(),
        format!("insert into benchcpu.t values {}", values.join(",")),
    ] {
        conn.query_drop(&s).map_err(|e| format!("{s:.60}: {e}"))?;
    }
    Ok(())
}

/// `n` point selects on one connection.
fn point_selects(conn: &mut mysql::Conn, n: u64) -> Result<(), String> {
    for i in 0..n {
        let v: Option<i64> = conn
            .query_first(format!("select v from t where id = {}", i % 1000 + 1))
            .map_err(|e| e.to_string())?;
        if v.is_none() {
            return Err("point select returned no row".into());
        }
    }
    Ok(())
}

/// utime + stime of process `pid`, in clock ticks.
pub fn cpu_ticks(pid: u32) -> Result<u64, String> {
    let stat = read_lossy(Path::new(&format!("/proc/{pid}/stat")));
    parse_stat_ticks(&stat).ok_or_else(|| format!("cannot read /proc/{pid}/stat"))
}

/// utime + stime from the text of `/proc/PID/stat`.
pub fn parse_stat_ticks(stat: &str) -> Option<u64> {
    // Fields after "(comm)": state is field 3, utime 14, stime 15.
    let rest = &stat[stat.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let utime: u64 = f.get(11)?.parse().ok()?;
    let stime: u64 = f.get(12)?.parse().ok()?;
    Some(utime + stime)
}

pub fn clock_ticks_per_sec() -> f64 {
    // SAFETY: sysconf has no preconditions.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 {
        t as f64
    } else {
        100.0
    }
}

/// One native round: server CPU µs and client wall µs per point select.
pub fn native_once(server: &mut Server, n: u64) -> Result<Sample, String> {
    let pid = server.pid().ok_or("server not running")?;
    let mut conn = mysql::Conn::new(server.opts(Some("benchcpu"))).map_err(|e| e.to_string())?;
    point_selects(&mut conn, WARMUP)?;
    let t0 = cpu_ticks(pid)?;
    let w0 = Instant::now();
    point_selects(&mut conn, n)?;
    let wall = w0.elapsed().as_secs_f64();
    let t1 = cpu_ticks(pid)?;
    let cpu_s = t1.saturating_sub(t0) as f64 / clock_ticks_per_sec();
    Ok(vec![
        (CPU_US, cpu_s * 1e6 / n as f64),
        (WALL_US, wall * 1e6 / n as f64),
    ])
}

/// Native CPU time per point select, alternating rounds on `stage`.
pub fn run_native(stage: &mut Stage<'_>, n: u64, rounds: usize, results: &mut Results) {
    stage.add_setup(SETUP, Box::new(setup));
    let mut case = Case::new(Workload::Cpu, "point select", "native, /proc CPU time", 1);
    stage.run_case(&mut case, SETUP, rounds, |s| native_once(s, n));
    results.cases.push(case);
}

/// Runs `callgrind_control ARG PID`.
fn callgrind_control(arg: &str, pid: u32, scratch: &Path) -> Result<(), String> {
    let mut cmd = Command::new("callgrind_control");
    cmd.arg(arg).arg(pid.to_string());
    let out = run_with_timeout(cmd, scratch, "callgrind-control", Duration::from_secs(120))
        .map_err(|e| format!("callgrind_control: {e}"))?;
    if out.success() {
        Ok(())
    } else {
        Err(format!(
            "callgrind_control {arg}: {}",
            out.describe_failure()
        ))
    }
}

/// Instructions the server executes while `work` runs.
fn count_phase<F>(counter: &Counter, pid: u32, cg_dir: &Path, work: F) -> Result<u64, String>
where
    F: FnOnce() -> Result<(), String>,
{
    match counter {
        Counter::Callgrind => {
            callgrind_control("--zero", pid, cg_dir)?;
            work()?;
            callgrind_control("--dump", pid, cg_dir)?;
            let dump = newest_dump(cg_dir).ok_or("callgrind wrote no dump")?;
            parse_callgrind_totals(&read_lossy(&dump))
                .ok_or_else(|| format!("no totals in {}", dump.display()))
        }
        Counter::Perf => {
            let out = cg_dir.join("perf-stat.csv");
            let mut perf = Command::new("perf")
                .args(["stat", "-e", "instructions", "-x,", "-o"])
                .arg(&out)
                .arg("-p")
                .arg(pid.to_string())
                .spawn()
                .map_err(|e| format!("spawn perf: {e}"))?;
            std::thread::sleep(Duration::from_millis(300));
            let res = work();
            crate::proc::signal(perf.id(), libc::SIGINT);
            let _ = perf.wait();
            res?;
            parse_perf_csv(&read_lossy(&out), "instructions")
                .ok_or_else(|| "perf stat counted nothing".into())
        }
    }
}

/// Instructions per point select on one server: (busy − idle) / n, and busy / n.
fn instr_on(
    server: &mut Server,
    counter: &Counter,
    cg_dir: &Path,
    n: u64,
) -> Result<Sample, String> {
    let pid = server.pid().ok_or("server not running")?;
    let mut conn = mysql::Conn::new(server.opts(Some("benchcpu"))).map_err(|e| e.to_string())?;
    point_selects(&mut conn, WARMUP)?;
    if *counter == Counter::Callgrind {
        callgrind_control("--instr=on", pid, cg_dir)?;
        point_selects(&mut conn, WARMUP)?;
    }
    let start = Instant::now();
    let busy = count_phase(counter, pid, cg_dir, || point_selects(&mut conn, n))?;
    let took = start.elapsed();
    let idle = count_phase(counter, pid, cg_dir, || {
        std::thread::sleep(took);
        Ok(())
    })?;
    Ok(vec![
        (INSTR, busy.saturating_sub(idle) as f64 / n as f64),
        (INSTR_RAW, busy as f64 / n as f64),
    ])
}

/// Starts each server under the counter, measures, stops it; one case.
pub fn run_instructions(
    launch: &Launch<'_>,
    settings: &Settings,
    n: u64,
    progress: &Progress,
    results: &mut Results,
) {
    let mut case = Case::new(Workload::Cpu, "point select", "instructions/query", 1);
    let counter = match detect(launch.workdir) {
        Ok(c) => c,
        Err(e) => {
            for kind in Kind::BOTH {
                case.fail(kind, 0, e.clone());
            }
            results.cases.push(case);
            return;
        }
    };
    progress.say(&format!(
        "cpu: counting instructions with {}",
        counter.describe()
    ));
    for kind in Kind::BOTH {
        match instr_one(kind, &counter, launch, settings, n, progress) {
            Ok(sample) => {
                progress.say(&format!(
                    "cpu | {}: {}",
                    kind.name(),
                    crate::runner::describe(&sample)
                ));
                case.record(kind, &sample);
            }
            Err(e) => {
                progress.say(&format!("cpu | {}: FAILED: {e}", kind.name()));
                case.fail(kind, 1, e);
            }
        }
    }
    results.cases.push(case);
    results.info.notes.push(format!(
        "Instructions per point select counted with {}; {n} queries, minus an idle interval of equal length{}.",
        counter.describe(),
        if counter == Counter::Callgrind {
            "; user-space instructions only (callgrind does not see the kernel)"
        } else {
            ""
        }
    ));
}

fn instr_one(
    kind: Kind,
    counter: &Counter,
    launch: &Launch<'_>,
    settings: &Settings,
    n: u64,
    progress: &Progress,
) -> Result<Sample, String> {
    let cg = tempfile::Builder::new()
        .prefix("basalt-bench-callgrind-")
        .tempdir_in(launch.workdir)
        .map_err(|e| format!("tempdir: {e}"))?;
    let wrapper: Vec<String> = match counter {
        Counter::Perf => Vec::new(),
        Counter::Callgrind => vec![
            "valgrind".into(),
            "--tool=callgrind".into(),
            "--instr-atstart=no".into(),
            format!(
                "--callgrind-out-file={}",
                cg.path().join("cg.out").display()
            ),
        ],
    };
    // Under valgrind mariadbd cannot reserve address space for the largest buffer
    // pool (innodb_buffer_pool_size_max) and hangs in native AIO set-up.
    let mariadb_extra: Vec<String> = match counter {
        Counter::Perf => Vec::new(),
        Counter::Callgrind => vec![
            format!("--innodb-buffer-pool-size-max={}", settings.buffer_pool),
            "--innodb-use-native-aio=0".into(),
        ],
    };
    let l = Launch {
        wrapper: &wrapper,
        mariadb_extra: &mariadb_extra,
        ready_timeout: Duration::from_secs(600),
        ..launch.clone()
    };
    progress.say(&format!("cpu | starting {} under the counter", kind.name()));
    let mut server = Server::start(kind, settings, &l)?;
    setup(&mut server)?;
    instr_on(&mut server, counter, cg.path(), n)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOT_SUPPORTED: &str = include_str!("../fixtures/perf_stat_not_supported.txt");
    const TASK_CLOCK: &str = include_str!("../fixtures/perf_stat_task_clock.txt");
    const CG: &str = include_str!("../fixtures/callgrind_dump_head.txt");

    #[test]
    fn perf_csv() {
        assert_eq!(parse_perf_csv(NOT_SUPPORTED, "instructions"), None);
        assert_eq!(parse_perf_csv(TASK_CLOCK, "task-clock"), Some(0));
        assert_eq!(
            parse_perf_csv("123456,,instructions,1,100.00,,\n", "instructions"),
            Some(123456)
        );
    }

    #[test]
    fn callgrind_totals() {
        assert_eq!(parse_callgrind_totals(CG), Some(9942063));
        assert_eq!(parse_callgrind_totals("summary: 42\n"), Some(42));
        assert_eq!(parse_callgrind_totals("events: Ir\n"), None);
    }

    #[test]
    fn proc_stat_ticks() {
        let stat =
            "1234 (base (x) d) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 9 0 1 2 3";
        assert_eq!(parse_stat_ticks(stat), Some(300));
        assert_eq!(parse_stat_ticks("garbage"), None);
    }

    #[test]
    fn newest_dump_by_number() {
        let d = tempfile::tempdir().expect("tempdir");
        for n in ["cg.out", "cg.out.2", "cg.out.10", "cg.out.9"] {
            std::fs::write(d.path().join(n), "").expect("write");
        }
        let p = newest_dump(d.path()).expect("dump");
        assert!(p.ends_with("cg.out.10"));
    }
}
