//! The dump side's figures (issue 14, "Figures"): commit-to-dump-client latency with
//! 1, 10 and 100 dump clients, and commit throughput with 100 dump clients relative
//! to none.
//!
//! Systems, in alternating rounds (a [`Stage`] with the commit stage's settings,
//! flush=1): Basalt with `--log-bin --server-id=1` and MariaDB with `--log-bin
//! --server-id=1 --sync-binlog=1 --binlog-format=ROW --binlog-row-metadata=FULL`
//! (the `binlog` workload's binlog systems, [`System::extra_args`]).
//!
//! Dump clients are [`DumpClient`]s (raw COM_BINLOG_DUMP over TCP, one OS thread
//! each, every one with its own replica server id, never reused in a run). Each
//! starts at the position `SHOW MASTER STATUS` gives just before the clients
//! connect, so every XID event it then receives belongs to a transaction of this
//! run: nothing else writes during a run.
//!
//! Latency case (`d` dump clients): once every client has received its first event
//! (the stream is running), one writer thread does up to `commits` autocommit
//! single-row INSERTs (at most `max_secs`), recording the instant each was sent and
//! the instant its OK came back. Every client records the instant it received each
//! XID event; the k-th XID is the k-th INSERT. Reported over all clients pooled:
//! p50/p99 of (XID received − INSERT sent) and of (XID received − OK received),
//! which is negative when the server sends the event before the OK.
//!
//! Throughput case: autocommit INSERTs from `writers` clients for `secs`, first
//! with no dump client, then with `many` dump clients connected and streaming
//! (both in the same round, so the ratio compares neighbours in time).
//!
//! Invariants: every client must receive exactly as many XIDs as INSERTs returned
//! OK (between that and OKs + errors if some INSERTs failed); otherwise the round
//! fails with the counts, since a lost or duplicated transaction is a bug of the
//! dump side, not a figure. Clients wait for the stragglers at most
//! [`CATCH_UP`] after the writers stop.

use crate::binlog::System;
use crate::cpu;
use crate::dump_client::{DumpClient, Item, StartAt, XID_EVENT};
use crate::load::{self, COMMITS, LAT_P50};
use crate::plan::{DumpPlan, Plan};
use crate::results::{Case, Metric, Results, Workload};
use crate::runner::{fmt_num, Progress, Sample, Stage};
use crate::servers::{Kind, Launch, Server, Settings};
use crate::stats::{median, quantile_sorted, Better};
use mysql::prelude::Queryable;
use std::fmt::Write;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How long dump clients may take to receive the last transactions once the
/// writers have stopped.
pub const CATCH_UP: Duration = Duration::from_secs(60);
/// How long all dump clients may take to connect and receive their first event.
const CONNECT_LIMIT: Duration = Duration::from_secs(60);

const fn ms(key: &'static str) -> Metric {
    Metric {
        key,
        unit: "ms",
        better: Better::Lower,
    }
}

pub const SENT_P50: Metric = ms("xid_after_sent_p50");
pub const SENT_P99: Metric = ms("xid_after_sent_p99");
pub const OK_P50: Metric = ms("xid_after_ok_p50");
pub const OK_P99: Metric = ms("xid_after_ok_p99");
/// Transactions × dump clients whose XID was matched in a round.
pub const MATCHED: Metric = Metric {
    key: "xids_matched",
    unit: "XIDs",
    better: Better::Higher,
};
pub const COMMITS_NONE: Metric = Metric {
    key: "commits_per_s_no_dump",
    unit: "commits/s",
    better: Better::Higher,
};
pub const COMMITS_MANY: Metric = Metric {
    key: "commits_per_s_dump",
    unit: "commits/s",
    better: Better::Higher,
};
pub const DUMP_RATIO: Metric = Metric {
    key: "dump_over_none",
    unit: "×",
    better: Better::Higher,
};
/// From the writers' end until the last dump client had every XID.
pub const CATCH_UP_MS: Metric = ms("dump_catch_up");
const fn cores(key: &'static str) -> Metric {
    Metric {
        key,
        unit: "cores",
        better: Better::Lower,
    }
}
/// CPU time over wall time during a throughput run: the server process, and this
/// program (writers and dump clients).
pub const SERVER_CORES_NONE: Metric = cores("server_cores_no_dump");
pub const SERVER_CORES_MANY: Metric = cores("server_cores_dump");
pub const CLIENT_CORES_NONE: Metric = cores("client_cores_no_dump");
pub const CLIENT_CORES_MANY: Metric = cores("client_cores_dump");
/// Bytes the server read from storage per commit (`read_bytes` of /proc/PID/io:
/// page-cache hits do not count), without and with the dump clients.
pub const READ_B_NONE: Metric = Metric {
    key: "server_read_bytes_per_commit_no_dump",
    unit: "B",
    better: Better::Lower,
};
pub const READ_B_MANY: Metric = Metric {
    key: "server_read_bytes_per_commit_dump",
    unit: "B",
    better: Better::Lower,
};

const LATENCY_CASE: &str = "commit to dump client";
const THROUGHPUT_CASE: &str = "autocommit INSERT";

/// Replica server ids, unique within a run (2, 3, ...; the primary is 1).
static NEXT_SERVER_ID: AtomicU32 = AtomicU32::new(2);

/// Runs the workload and appends its cases and report section to `results`.
pub fn run(
    full: &Plan,
    settings: Settings,
    launch: &Launch<'_>,
    progress: &Progress,
    results: &mut Results,
) {
    let plan = &full.dump;
    let basalt_extra: Vec<String> = launch
        .basalt_extra
        .iter()
        .cloned()
        .chain(System::BasaltOn.extra_args())
        .collect();
    let mariadb_extra: Vec<String> = launch
        .mariadb_extra
        .iter()
        .cloned()
        .chain(System::MariaDbOn.extra_args())
        .collect();
    let launch = Launch {
        basalt_extra: &basalt_extra,
        mariadb_extra: &mariadb_extra,
        ..launch.clone()
    };
    progress.say("binlog-dump | starting Basalt and MariaDB with their binary logs on");
    let mut stage = Stage::new(settings, &launch, progress);
    stage.add_setup(load::COMMIT_SETUP, Box::new(load::commit_setup));
    let mut cases = Vec::new();
    for &d in &plan.clients {
        let mut case = Case::new(Workload::BinlogDump, LATENCY_CASE, "", d);
        stage.run_case(&mut case, load::COMMIT_SETUP, full.rounds, |s| {
            latency_once(s, d as usize, plan)
        });
        cases.push(case);
    }
    let many = plan.clients.iter().copied().max().unwrap_or(100);
    let variant = format!("{many} dump clients vs none");
    let mut case = Case::new(
        Workload::BinlogDump,
        THROUGHPUT_CASE,
        &variant,
        plan.writers,
    );
    stage.run_case(&mut case, load::COMMIT_SETUP, full.rounds, |s| {
        throughput_once(s, many as usize, plan)
    });
    cases.push(case);
    results.sections.push(section(&cases, plan, many));
    results.cases.extend(cases);
}

/// `SHOW MASTER STATUS`: the current end of the binary log.
fn master_status(server: &Server) -> Result<StartAt, String> {
    let mut conn = mysql::Conn::new(server.opts(None)).map_err(|e| e.to_string())?;
    let row: Option<mysql::Row> = conn
        .query_first("show master status")
        .map_err(|e| format!("show master status: {e}"))?;
    let row = row.ok_or("show master status: no row (is the binary log on?)")?;
    let file: Option<String> = row.get(0);
    let pos: Option<u64> = row.get(1);
    match (file, pos) {
        (Some(file), Some(pos)) => Ok(StartAt {
            file,
            pos: u32::try_from(pos).map_err(|_| format!("position {pos} beyond 4 GiB"))?,
        }),
        _ => Err("show master status: unreadable File/Position".into()),
    }
}

/// State the dump threads share with the thread running the load.
struct Shared {
    /// XIDs each client must receive; `u64::MAX` until the load is over.
    expected: AtomicU64,
    stop: AtomicBool,
    ready: AtomicUsize,
    /// Threads that have returned (done or failed).
    finished: AtomicUsize,
    t0: Instant,
}

/// What one dump client received.
#[derive(Debug, Default)]
struct Received {
    server_id: u32,
    xids: u64,
    /// Receive instants of the XIDs, µs after `Shared::t0` (when recording).
    at: Vec<f64>,
    /// When it received its `expected`-th XID, µs after `t0`.
    caught_up: Option<f64>,
    /// When it received its latest XID, µs after `t0`.
    last_xid: f64,
}

fn since(t0: Instant) -> f64 {
    t0.elapsed().as_secs_f64() * 1e6
}

fn dump_thread(port: u16, at: &StartAt, record: bool, sh: &Shared) -> Result<Received, String> {
    let server_id = NEXT_SERVER_ID.fetch_add(1, Ordering::Relaxed);
    let mut r = Received {
        server_id,
        ..Received::default()
    };
    let mut c = DumpClient::start(port, server_id, at)
        .map_err(|e| format!("dump client {server_id}: {e}"))?;
    c.set_poll(Duration::from_millis(50))?;
    let mut started = false;
    loop {
        let item = c
            .poll()
            .map_err(|e| format!("dump client {server_id}: {e}"))?;
        match item {
            Some(Item::Event(t)) => {
                if !started {
                    started = true;
                    sh.ready.fetch_add(1, Ordering::SeqCst);
                }
                if t == XID_EVENT {
                    r.xids += 1;
                    r.last_xid = since(sh.t0);
                    if record {
                        r.at.push(r.last_xid);
                    }
                }
            }
            Some(Item::End) => {
                return Err(format!(
                    "dump client {server_id}: the server ended the dump"
                ))
            }
            None => {}
        }
        if r.caught_up.is_none() && r.xids >= sh.expected.load(Ordering::SeqCst) {
            r.caught_up = Some(r.last_xid);
            return Ok(r);
        }
        if sh.stop.load(Ordering::SeqCst) {
            return Ok(r);
        }
    }
}

/// What a load run inside the fleet reports: its sample and the range of
/// transactions it may have committed (OKs, OKs + errors).
struct LoadRun<T> {
    value: T,
    committed: (u64, u64),
    /// When the load ended, µs after `t0`.
    ended: f64,
}

/// Starts `d` dump clients at the end of the log, waits until all stream, runs
/// `load`, then waits (at most [`CATCH_UP`]) for every client to receive every
/// transaction. Fails when a client fails or any count is off.
fn with_fleet<T>(
    server: &Server,
    d: usize,
    record: bool,
    load: impl FnOnce(Instant) -> Result<LoadRun<T>, String>,
) -> Result<(LoadRun<T>, Vec<Received>), String> {
    let at = master_status(server)?;
    let sh = Shared {
        expected: AtomicU64::new(u64::MAX),
        stop: AtomicBool::new(false),
        ready: AtomicUsize::new(0),
        finished: AtomicUsize::new(0),
        t0: Instant::now(),
    };
    let port = server.port;
    let (run, got) = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..d)
            .map(|_| {
                let (sh, at) = (&sh, &at);
                scope.spawn(move || {
                    let r = dump_thread(port, at, record, sh);
                    sh.finished.fetch_add(1, Ordering::SeqCst);
                    r
                })
            })
            .collect();
        let run = wait_ready(&sh, d).and_then(|()| load(sh.t0));
        if let Ok(r) = &run {
            sh.expected.store(r.committed.0, Ordering::SeqCst);
            wait_finished(&sh, d, CATCH_UP);
        }
        sh.stop.store(true, Ordering::SeqCst);
        let got: Vec<Result<Received, String>> = handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("dump thread panicked".into()))
            })
            .collect();
        (run, got)
    });
    let mut received = Vec::with_capacity(d);
    for g in got {
        received.push(g?);
    }
    let run = run?;
    let counts: Vec<(u32, u64)> = received.iter().map(|r| (r.server_id, r.xids)).collect();
    check_counts(run.committed, &counts)
        .map_err(|e| format!("{e} (dump from {} at {})", at.file, at.pos))?;
    Ok((run, received))
}

fn wait_ready(sh: &Shared, d: usize) -> Result<(), String> {
    let deadline = Instant::now() + CONNECT_LIMIT;
    loop {
        let ready = sh.ready.load(Ordering::SeqCst);
        if ready == d {
            return Ok(());
        }
        if sh.finished.load(Ordering::SeqCst) > 0 {
            return Err("a dump client stopped before streaming".into());
        }
        if Instant::now() > deadline {
            return Err(format!(
                "only {ready} of {d} dump clients streaming after {CONNECT_LIMIT:?}"
            ));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn wait_finished(sh: &Shared, d: usize, limit: Duration) {
    let deadline = Instant::now() + limit;
    while sh.finished.load(Ordering::SeqCst) < d && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Checks every client's XID count against the committed range `(lo, hi)`;
/// `counts` holds (replica server id, XIDs received).
pub fn check_counts((lo, hi): (u64, u64), counts: &[(u32, u64)]) -> Result<(), String> {
    let bad: Vec<String> = counts
        .iter()
        .filter(|(_, n)| *n < lo || *n > hi)
        .map(|(id, n)| format!("server_id {id}: {n}"))
        .collect();
    if bad.is_empty() {
        return Ok(());
    }
    let want = if lo == hi {
        lo.to_string()
    } else {
        format!("{lo}..={hi}")
    };
    let shown: Vec<&str> = bad.iter().take(5).map(String::as_str).collect();
    Err(format!(
        "{} of {} dump clients did not receive every transaction exactly once \
         (XIDs expected {want}; got {}{})",
        bad.len(),
        counts.len(),
        shown.join(", "),
        if bad.len() > 5 { ", ..." } else { "" }
    ))
}

/// (XID received − INSERT sent, XID received − OK received) over every client's
/// k-th XID matched with the k-th INSERT, each sorted, in the units given.
pub fn dump_latencies(sent: &[f64], ok: &[f64], recv: &[Vec<f64>]) -> (Vec<f64>, Vec<f64>) {
    let mut a = Vec::new();
    let mut b = Vec::new();
    for r in recv {
        for ((x, s), o) in r.iter().zip(sent).zip(ok) {
            a.push(x - s);
            b.push(x - o);
        }
    }
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    (a, b)
}

/// The single writer: up to `n` INSERTs for at most `max`; (sent, OK) instants in
/// µs after `t0`.
fn write_timed(
    conn: &mut mysql::Conn,
    n: u64,
    max: Duration,
    t0: Instant,
) -> Result<(Vec<f64>, Vec<f64>), String> {
    let (mut sent, mut ok) = (Vec::new(), Vec::new());
    let deadline = Instant::now() + max;
    for i in 0..n {
        if Instant::now() >= deadline {
            break;
        }
        sent.push(since(t0));
        conn.query_drop(format!(
            "insert into t (k, pad) values ({i}, 'basalt-bench dump latency')"
        ))
        .map_err(|e| format!("INSERT {i}: {e}"))?;
        ok.push(since(t0));
    }
    Ok((sent, ok))
}

/// One latency round with `d` dump clients.
fn latency_once(server: &mut Server, d: usize, plan: &DumpPlan) -> Result<Sample, String> {
    let mut conn = mysql::Conn::new(server.opts(Some("benchc"))).map_err(|e| e.to_string())?;
    let max = Duration::from_secs(plan.max_secs);
    let (run, got) = with_fleet(server, d, true, |t0| {
        let (sent, ok) = write_timed(&mut conn, plan.commits, max, t0)?;
        let n = sent.len() as u64;
        Ok(LoadRun {
            value: (sent, ok),
            committed: (n, n),
            ended: since(t0),
        })
    })?;
    let (sent, ok) = run.value;
    let recv: Vec<Vec<f64>> = got.into_iter().map(|r| r.at).collect();
    latency_sample(&sent, &ok, &recv)
}

/// The latency figures (ms) of one round.
pub fn latency_sample(sent: &[f64], ok: &[f64], recv: &[Vec<f64>]) -> Result<Sample, String> {
    let (from_sent, from_ok) = dump_latencies(sent, ok, recv);
    let q = |v: &[f64], p| quantile_sorted(v, p).map(|x| x / 1000.0);
    let mut rtt: Vec<f64> = ok.iter().zip(sent).map(|(o, s)| o - s).collect();
    rtt.sort_by(f64::total_cmp);
    match (
        q(&from_sent, 0.5),
        q(&from_sent, 0.99),
        q(&from_ok, 0.5),
        q(&from_ok, 0.99),
    ) {
        (Some(a), Some(b), Some(c), Some(d)) => Ok(vec![
            (SENT_P50, a),
            (SENT_P99, b),
            (OK_P50, c),
            (OK_P99, d),
            (LAT_P50, q(&rtt, 0.5).unwrap_or(0.0)),
            (MATCHED, from_sent.len() as f64),
        ]),
        _ => Err("no transaction was committed and received".into()),
    }
}

/// CPU ticks of (server, this program).
fn ticks(server: &Server) -> Result<(u64, u64), String> {
    let pid = server.pid().ok_or("server not running")?;
    Ok((cpu::cpu_ticks(pid)?, cpu::cpu_ticks(std::process::id())?))
}

/// Cores used by (server, this program) between two tick readings `secs` apart.
fn cores_used(before: (u64, u64), after: (u64, u64), secs: f64) -> (f64, f64) {
    let per = |a: u64, b: u64| a.saturating_sub(b) as f64 / cpu::clock_ticks_per_sec() / secs;
    (per(after.0, before.0), per(after.1, before.1))
}

/// A commit run with the CPU both processes used during it.
struct Measured {
    sample: Sample,
    ops: u64,
    errors: u64,
    cores: (f64, f64),
    /// Storage bytes the server read per commit, when /proc tells.
    read_per_commit: Option<f64>,
}

fn commit_measured(server: &Server, plan: &DumpPlan) -> Result<Measured, String> {
    let before = ticks(server)?;
    let read_before = load::storage_read_bytes(server.pid());
    let t = Instant::now();
    let (sample, ops, errors) = load::commit_counted(server, plan.writers, plan.secs)?;
    let cores = cores_used(before, ticks(server)?, t.elapsed().as_secs_f64());
    let read_per_commit = match (read_before, load::storage_read_bytes(server.pid())) {
        (Some(b), Some(a)) => Some(a.saturating_sub(b) as f64 / ops.max(1) as f64),
        _ => None,
    };
    Ok(Measured {
        sample,
        ops,
        errors,
        cores,
        read_per_commit,
    })
}

/// One throughput round: `writers` clients without, then with `many` dump clients.
fn throughput_once(server: &mut Server, many: usize, plan: &DumpPlan) -> Result<Sample, String> {
    let none = commit_measured(server, plan)?;
    let none_rate = rate(&none.sample)?;
    let (run, got) = with_fleet(server, many, false, |t0| {
        let m = commit_measured(server, plan)?;
        Ok(LoadRun {
            committed: (m.ops, m.ops + m.errors),
            value: m,
            ended: since(t0),
        })
    })?;
    let many_rate = rate(&run.value.sample)?;
    let last = got.iter().filter_map(|r| r.caught_up).fold(0.0, f64::max);
    let reads = [
        none.read_per_commit.map(|v| (READ_B_NONE, v)),
        run.value.read_per_commit.map(|v| (READ_B_MANY, v)),
    ];
    let mut sample = vec![
        (COMMITS_NONE, none_rate),
        (COMMITS_MANY, many_rate),
        (DUMP_RATIO, many_rate / none_rate.max(1e-9)),
        (CATCH_UP_MS, (last - run.ended).max(0.0) / 1000.0),
        (SERVER_CORES_NONE, none.cores.0),
        (SERVER_CORES_MANY, run.value.cores.0),
        (CLIENT_CORES_NONE, none.cores.1),
        (CLIENT_CORES_MANY, run.value.cores.1),
    ];
    sample.extend(reads.into_iter().flatten());
    Ok(sample)
}

fn rate(sample: &Sample) -> Result<f64, String> {
    sample
        .iter()
        .find(|(m, _)| m.key == COMMITS.key)
        .map(|(_, v)| *v)
        .ok_or_else(|| "commit run without a commits/s figure".into())
}

fn med(c: &Case, key: &str, kind: Kind) -> String {
    match c.median(key, kind) {
        Some(v) => fmt_num(v),
        None if c.failed(kind) => "FAIL".into(),
        None => "–".into(),
    }
}

fn rounds(c: &Case, key: &str, kind: Kind, digits: usize) -> String {
    let v: Vec<String> = c
        .series(key)
        .map(|s| {
            s.samples(kind)
                .iter()
                .map(|x| format!("{x:.digits$}"))
                .collect()
        })
        .unwrap_or_default();
    if v.is_empty() {
        "–".into()
    } else {
        v.join(", ")
    }
}

fn name(kind: Kind) -> &'static str {
    match kind {
        Kind::Basalt => System::BasaltOn.name(),
        Kind::MariaDb => System::MariaDbOn.name(),
    }
}

/// The report section: (title, Markdown body).
pub fn section(cases: &[Case], plan: &DumpPlan, many: u32) -> (String, String) {
    let mut b = format!(
        "Basalt with `--log-bin --server-id=1` and MariaDB with `--log-bin --server-id=1 \
         --sync-binlog=1 --binlog-format=ROW --binlog-row-metadata=FULL`, alternating \
         rounds, flush_log_at_trx_commit=1. Dump clients: raw COM_BINLOG_DUMP over \
         loopback TCP (`@master_binlog_checksum='ALL'`, `@mariadb_slave_capability=4`, \
         blocking dump from `SHOW MASTER STATUS`), one thread each; they read packet \
         framing and the event type only. **Latency**: one writer does up to {} \
         autocommit single-row INSERTs (at most {} s) one after another; the k-th XID \
         event each dump client receives is matched with the k-th INSERT. p50/p99 over \
         all clients' XIDs pooled, medians of the rounds, ms, lower is better. \
         \"after OK\" is negative when the event reached the client before the INSERT's \
         OK did.\n\n\
         | dump clients | system | XID after INSERT sent p50 | p99 | XID after OK p50 | \
         p99 | INSERT round trip p50 | XIDs matched per round | p99 after sent, every \
         round |\n|---|---|---|---|---|---|---|---|---|\n",
        plan.commits, plan.max_secs
    );
    for c in cases.iter().filter(|c| c.name == LATENCY_CASE) {
        for kind in Kind::BOTH {
            let _ = writeln!(
                b,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                c.clients,
                name(kind),
                med(c, SENT_P50.key, kind),
                med(c, SENT_P99.key, kind),
                med(c, OK_P50.key, kind),
                med(c, OK_P99.key, kind),
                med(c, LAT_P50.key, kind),
                med(c, MATCHED.key, kind),
                rounds(c, SENT_P99.key, kind, 3),
            );
        }
    }
    let _ = write!(
        b,
        "\n**Throughput**: autocommit single-row INSERTs from {} clients for {} s, with no \
         dump client and then, in the same round, with {many} dump clients connected and \
         streaming (goal: ≥ 0.95). Ratio: median of the rounds' ratios. Catch-up: from \
         the writers' end until the last dump client had every transaction.\n\n\
         CPU: cores used during the run (CPU time / wall time) by the server and by this \
         program (writers and dump clients), without / with the dump clients; the \
         machine has {} cores. Server reads: bytes the server read from storage per \
         commit (`read_bytes` in /proc/PID/io; page-cache hits do not count), without / \
         with.\n\n\
         | system | commits/s, no dump client | commits/s, {many} dump clients | with / \
         without ↑ | ratio, every round | catch-up ms | server cores | client cores \
         | server reads B/commit |\n|---|---|---|---|---|---|---|---|---|\n",
        plan.writers,
        plan.secs,
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    for c in cases.iter().filter(|c| c.name == THROUGHPUT_CASE) {
        for kind in Kind::BOTH {
            let ratio = c
                .series(DUMP_RATIO.key)
                .and_then(|s| median(s.samples(kind)))
                .map_or_else(|| med(c, DUMP_RATIO.key, kind), |r| format!("{r:.3}"));
            let _ = writeln!(
                b,
                "| {} | {} | {} | {ratio} | {} | {} | {} / {} | {} / {} | {} / {} |",
                name(kind),
                med(c, COMMITS_NONE.key, kind),
                med(c, COMMITS_MANY.key, kind),
                rounds(c, DUMP_RATIO.key, kind, 3),
                med(c, CATCH_UP_MS.key, kind),
                med(c, SERVER_CORES_NONE.key, kind),
                med(c, SERVER_CORES_MANY.key, kind),
                med(c, CLIENT_CORES_NONE.key, kind),
                med(c, CLIENT_CORES_MANY.key, kind),
                med(c, READ_B_NONE.key, kind),
                med(c, READ_B_MANY.key, kind),
            );
        }
    }
    b.push('\n');
    completeness(&mut b, cases);
    ("Binary log: commit to dump clients".into(), b)
}

/// Whether every dump client received every transaction, from the failures.
fn completeness(b: &mut String, cases: &[Case]) {
    let lost: Vec<String> = cases
        .iter()
        .flat_map(|c| {
            c.failures
                .iter()
                .filter(|f| f.message.contains("did not receive every transaction"))
                .map(move |f| format!("{} ({} round {})", c.id(), f.server.name(), f.round))
        })
        .collect();
    if lost.is_empty() {
        b.push_str(
            "XID counts: in every completed round every dump client received exactly one \
             XID per committed transaction.\n",
        );
    } else {
        let _ = writeln!(
            b,
            "**XID counts wrong** (a dump-side bug; details under Failures): {}.",
            lost.join("; ")
        );
    }
    if cases.iter().any(|c| !c.failures.is_empty()) {
        b.push_str("Failed rounds are listed under Failures.\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xids_match_inserts_by_rank() {
        let sent = [0.0, 10.0, 20.0];
        let ok = [5.0, 15.0, 25.0];
        // Client 1 gets each XID 2 µs after the OK, client 2 one µs before it.
        let recv = vec![vec![7.0, 17.0, 27.0], vec![4.0, 14.0, 24.0]];
        let (a, b) = dump_latencies(&sent, &ok, &recv);
        assert_eq!(a, [4.0, 4.0, 4.0, 7.0, 7.0, 7.0]);
        assert_eq!(b, [-1.0, -1.0, -1.0, 2.0, 2.0, 2.0]);
        // A client with fewer XIDs contributes only those it has.
        let (a, _) = dump_latencies(&sent, &ok, &[vec![1.0]]);
        assert_eq!(a, [1.0]);
    }

    #[test]
    fn latency_sample_in_ms() {
        let sent: Vec<f64> = (0..100).map(|i| i as f64 * 10_000.0).collect();
        let ok: Vec<f64> = sent.iter().map(|s| s + 1000.0).collect();
        let recv = vec![sent
            .iter()
            .enumerate()
            .map(|(i, s)| s + 500.0 + i as f64 * 10.0)
            .collect()];
        let s = latency_sample(&sent, &ok, &recv).expect("sample");
        let get = |m: Metric| s.iter().find(|(x, _)| x.key == m.key).map(|p| p.1);
        assert_eq!(get(SENT_P50), Some(0.99));
        assert_eq!(get(SENT_P99), Some(1.48));
        assert_eq!(get(OK_P50), Some(-0.01));
        assert_eq!(get(LAT_P50), Some(1.0));
        assert_eq!(get(MATCHED), Some(100.0));
        assert!(latency_sample(&[], &[], &[vec![]]).is_err());
    }

    #[test]
    fn counts_must_equal_commits() {
        assert!(check_counts((3, 3), &[(2, 3), (3, 3)]).is_ok());
        assert!(check_counts((3, 4), &[(2, 4), (3, 3)]).is_ok());
        let e = check_counts((3, 3), &[(2, 3), (3, 2), (4, 5)]).expect_err("off");
        assert!(e.starts_with("2 of 3 dump clients"), "{e}");
        assert!(e.contains("server_id 3: 2, server_id 4: 5"), "{e}");
        assert!(e.contains("expected 3;"), "{e}");
    }

    #[test]
    fn section_shows_both_tables() {
        let plan = DumpPlan {
            clients: vec![1, 100],
            commits: 2000,
            max_secs: 20,
            writers: 16,
            secs: 5,
        };
        let mut lat = Case::new(Workload::BinlogDump, LATENCY_CASE, "", 100);
        lat.record(
            Kind::Basalt,
            &[
                (SENT_P50, 0.5),
                (SENT_P99, 2.0),
                (OK_P50, 0.1),
                (OK_P99, 1.0),
            ],
        );
        lat.fail(
            Kind::MariaDb,
            2,
            "1 of 100 dump clients did not receive every transaction",
        );
        let mut tp = Case::new(Workload::BinlogDump, THROUGHPUT_CASE, "", 16);
        tp.record(
            Kind::Basalt,
            &[
                (COMMITS_NONE, 20000.0),
                (COMMITS_MANY, 19000.0),
                (DUMP_RATIO, 0.95),
            ],
        );
        let (title, body) = section(&[lat, tp], &plan, 100);
        assert!(title.contains("dump"));
        assert!(
            body.contains("| 100 | Basalt, binlog | 0.5000 | 2.00 | 0.1000 | 1.00 |"),
            "{body}"
        );
        assert!(body.contains("| 100 | MariaDB, binlog | FAIL |"), "{body}");
        assert!(
            body.contains("| Basalt, binlog | 20000 | 19000 | 0.950 | 0.950 |"),
            "{body}"
        );
        assert!(body.contains("XID counts wrong"), "{body}");
    }
}
