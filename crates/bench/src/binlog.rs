//! The binary log's figures (issue 14, "Figures"): durable commits/s and fsyncs per
//! commit for three systems in alternating rounds.
//!
//! Systems, started together with the commit stage's settings (flush=1, equal buffer
//! pools), each on a fresh data directory:
//! 1. Basalt without a binary log (as the `commit` workload starts it);
//! 2. Basalt with `--log-bin --server-id=1`: the binlog events ride in the WAL's
//!    commit record, so a commit should still need one fsync (per group);
//! 3. MariaDB with `--log-bin --server-id=1 --sync-binlog=1 --binlog-format=ROW
//!    --binlog-row-metadata=FULL` (Basalt's default metadata) and
//!    `innodb_flush_log_at_trx_commit=1`: redo log and binlog each fsync per group.
//!
//! Cases: autocommit single-row INSERTs (as the `commit` workload) and sysbench
//! `oltp_write_only` (ps=auto), each at the plan's client counts. Every round runs
//! the three systems in turn, so drifts in machine load hit all of them alike.
//!
//! Fsyncs per commit come from each server's own counters, read before and after a
//! run (`SHOW GLOBAL STATUS`), divided by the server's own commit counter over the
//! same window:
//! - Basalt: `Innodb_os_log_fsyncs` (every WAL fsync/fdatasync, segments included)
//!   over `Basalt_log_commits` (commit records written to the WAL).
//! - MariaDB 10.11: `Innodb_data_fsyncs` (every fsync/fdatasync InnoDB issues, the
//!   redo log's included; 10.11 no longer has `Innodb_os_log_fsyncs`) plus
//!   `Binlog_group_commits` (with `sync_binlog=1` the binlog is synced once per
//!   group commit), over `Binlog_commits`.
//!
//! Invariants: a round's counters bracket the whole client run (read before the
//! clients connect and after they all finished); a round whose commit counter did
//! not move records no fsync figure rather than a division by zero.

use crate::load::{self, BYTES_PER_COMMIT, COMMITS, FSYNCS_PER_COMMIT, LAT_P50, LAT_P99};
use crate::plan::{Plan, SysbenchCase, SysbenchPlan};
use crate::proc::which;
use crate::results::{Metric, Results};
use crate::runner::{describe, fmt_num, Progress, Sample, SetupFn};
use crate::servers::{Kind, Launch, Server, Settings};
use crate::stats::{median, ratio, Better};
use crate::sysbench::{self, LAT_P95, TPS};
use mysql::prelude::Queryable;
use std::collections::HashMap;
use std::fmt::Write;

/// Engine-log fsyncs per commit (Basalt's WAL, MariaDB's InnoDB files).
pub const LOG_FSYNCS: Metric = Metric {
    key: "log_fsyncs_per_commit",
    unit: "fsync",
    better: Better::Lower,
};

/// Binlog fsyncs per commit (MariaDB's `Binlog_group_commits`; 0 for Basalt,
/// whose binlog needs no fsync of its own at commit).
pub const BINLOG_FSYNCS: Metric = Metric {
    key: "binlog_fsyncs_per_commit",
    unit: "fsync",
    better: Better::Lower,
};

const COMMIT_CASE: &str = "autocommit INSERT";
const SYSBENCH_CASE: &str = "oltp_write_only";
const SYSBENCH_SETUP: &str = "sysbench prepare";

/// One of the three systems under test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum System {
    BasaltOff,
    BasaltOn,
    MariaDbOn,
}

impl System {
    /// All three, in the order every round runs them.
    pub const ALL: [System; 3] = [System::BasaltOff, System::BasaltOn, System::MariaDbOn];

    pub fn name(self) -> &'static str {
        match self {
            System::BasaltOff => "Basalt, no binlog",
            System::BasaltOn => "Basalt, binlog",
            System::MariaDbOn => "MariaDB, binlog",
        }
    }

    pub fn kind(self) -> Kind {
        match self {
            System::BasaltOff | System::BasaltOn => Kind::Basalt,
            System::MariaDbOn => Kind::MariaDb,
        }
    }

    fn idx(self) -> usize {
        match self {
            System::BasaltOff => 0,
            System::BasaltOn => 1,
            System::MariaDbOn => 2,
        }
    }

    /// Options added to the server's usual ones.
    pub fn extra_args(self) -> Vec<String> {
        let v: &[&str] = match self {
            System::BasaltOff => &[],
            System::BasaltOn => &["--log-bin", "--server-id=1"],
            System::MariaDbOn => &[
                "--log-bin=mariadb-bin",
                "--server-id=1",
                "--sync-binlog=1",
                "--binlog-format=ROW",
                "--binlog-row-metadata=FULL",
            ],
        };
        v.iter().map(|s| s.to_string()).collect()
    }
}

/// One case (workload × clients) with every round's sample per system.
#[derive(Clone, Debug, PartialEq)]
pub struct TrioCase {
    pub name: String,
    pub clients: u32,
    /// Samples per system (index: `System::idx`), one per successful round.
    pub samples: [Vec<Sample>; 3],
    /// (system, 1-based round or 0 for set-up, message).
    pub failures: Vec<(System, usize, String)>,
}

impl TrioCase {
    pub fn new(name: &str, clients: u32) -> TrioCase {
        TrioCase {
            name: name.to_string(),
            clients,
            samples: [Vec::new(), Vec::new(), Vec::new()],
            failures: Vec::new(),
        }
    }

    /// Every round's value of metric `key` for `sys`.
    pub fn values(&self, sys: System, key: &str) -> Vec<f64> {
        self.samples[sys.idx()]
            .iter()
            .filter_map(|s| s.iter().find(|(m, _)| m.key == key).map(|(_, v)| *v))
            .collect()
    }

    pub fn median(&self, sys: System, key: &str) -> Option<f64> {
        median(&self.values(sys, key))
    }

    pub fn failed(&self, sys: System) -> bool {
        self.failures.iter().any(|(s, _, _)| *s == sys)
    }

    fn id(&self) -> String {
        format!("binlog {} c={}", self.name, self.clients)
    }
}

/// A counter snapshot of one server.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub commits: u64,
    pub log_fsyncs: u64,
    pub binlog_fsyncs: u64,
}

/// The status counters read for `kind`: (commits, engine-log fsyncs, binlog fsyncs).
pub fn counter_names(kind: Kind) -> (&'static str, &'static str, Option<&'static str>) {
    match kind {
        Kind::Basalt => ("Basalt_log_commits", "Innodb_os_log_fsyncs", None),
        Kind::MariaDb => (
            "Binlog_commits",
            "Innodb_data_fsyncs",
            Some("Binlog_group_commits"),
        ),
    }
}

/// Picks `kind`'s counters out of `SHOW GLOBAL STATUS` rows.
pub fn pick_counters(kind: Kind, status: &HashMap<String, String>) -> Result<Counters, String> {
    let get = |name: &str| -> Result<u64, String> {
        status
            .get(name)
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("status counter {name} missing"))
    };
    let (commits, log, binlog) = counter_names(kind);
    Ok(Counters {
        commits: get(commits)?,
        log_fsyncs: get(log)?,
        binlog_fsyncs: match binlog {
            Some(n) => get(n)?,
            None => 0,
        },
    })
}

fn read_counters(server: &Server) -> Result<Counters, String> {
    let mut conn = mysql::Conn::new(server.opts(None)).map_err(|e| e.to_string())?;
    let rows: Vec<(String, String)> = conn
        .query("show global status")
        .map_err(|e| format!("show global status: {e}"))?;
    pick_counters(server.kind, &rows.into_iter().collect())
}

/// Per-commit fsync figures from two snapshots; empty when nothing committed.
pub fn fsync_sample(before: Counters, after: Counters) -> Sample {
    let commits = after.commits.saturating_sub(before.commits);
    if commits == 0 {
        return Vec::new();
    }
    let per = |a: u64, b: u64| a.saturating_sub(b) as f64 / commits as f64;
    let log = per(after.log_fsyncs, before.log_fsyncs);
    let binlog = per(after.binlog_fsyncs, before.binlog_fsyncs);
    vec![
        (FSYNCS_PER_COMMIT, log + binlog),
        (LOG_FSYNCS, log),
        (BINLOG_FSYNCS, binlog),
    ]
}

/// Three servers started together, with the set-ups done on each.
struct Trio<'a> {
    launch: &'a Launch<'a>,
    settings: Settings,
    servers: [Option<Server>; 3],
    start_error: [Option<String>; 3],
    setups: Vec<(String, SetupFn<'a>, [Option<String>; 3])>,
    progress: &'a Progress,
}

impl<'a> Trio<'a> {
    fn new(settings: Settings, launch: &'a Launch<'a>, progress: &'a Progress) -> Trio<'a> {
        let mut trio = Trio {
            launch,
            settings,
            servers: [None, None, None],
            start_error: [None, None, None],
            setups: Vec::new(),
            progress,
        };
        for sys in System::ALL {
            trio.start(sys);
        }
        trio
    }

    fn start(&mut self, sys: System) {
        let extra = sys.extra_args();
        let mariadb_extra: Vec<String> = match sys.kind() {
            Kind::MariaDb => self
                .launch
                .mariadb_extra
                .iter()
                .chain(&extra)
                .cloned()
                .collect(),
            Kind::Basalt => self.launch.mariadb_extra.to_vec(),
        };
        let basalt_extra: Vec<String> = match sys.kind() {
            Kind::Basalt => self
                .launch
                .basalt_extra
                .iter()
                .chain(&extra)
                .cloned()
                .collect(),
            Kind::MariaDb => self.launch.basalt_extra.to_vec(),
        };
        let launch = Launch {
            mariadb_extra: &mariadb_extra,
            basalt_extra: &basalt_extra,
            ..self.launch.clone()
        };
        self.progress.say(&format!(
            "binlog | starting {} ({})",
            sys.name(),
            extra.join(" ")
        ));
        match Server::start(sys.kind(), &self.settings, &launch) {
            Ok(s) => {
                self.progress
                    .say(&format!("{} ready on 127.0.0.1:{}", sys.name(), s.port));
                self.servers[sys.idx()] = Some(s);
                self.start_error[sys.idx()] = None;
            }
            Err(e) => {
                self.progress
                    .say(&format!("{} failed to start: {e}", sys.name()));
                self.start_error[sys.idx()] = Some(e);
            }
        }
    }

    fn add_setup(&mut self, name: &str, run: SetupFn<'a>) {
        let mut errors = [None, None, None];
        for sys in System::ALL {
            if let Some(server) = self.servers[sys.idx()].as_mut() {
                self.progress
                    .say(&format!("binlog | set-up '{name}' on {}", sys.name()));
                errors[sys.idx()] = run(server).err();
            }
        }
        self.setups.push((name.to_string(), run, errors));
    }

    /// Restarts a server that died and redoes every set-up on it.
    fn revive(&mut self, sys: System) {
        let dead = self.servers[sys.idx()].as_mut().is_some_and(|s| !s.alive());
        if !dead {
            return;
        }
        self.progress
            .say(&format!("{} is not running; restarting it", sys.name()));
        self.servers[sys.idx()] = None;
        self.start(sys);
        if let Some(server) = self.servers[sys.idx()].as_mut() {
            for (_, run, errors) in &mut self.setups {
                errors[sys.idx()] = run(server).err();
            }
        }
    }

    fn blocked(&self, sys: System, setup: &str) -> Option<String> {
        if let Some(e) = &self.start_error[sys.idx()] {
            return Some(format!("server did not start: {e}"));
        }
        let (_, _, errors) = self.setups.iter().find(|(n, _, _)| n == setup)?;
        errors[sys.idx()]
            .as_ref()
            .map(|e| format!("set-up '{setup}' failed: {e}"))
    }

    /// Runs `case` for `rounds` rounds of the three systems in turn; a system sits
    /// out the case's remaining rounds after a failure.
    fn run_case<F>(&mut self, case: &mut TrioCase, setup: &str, rounds: usize, mut measure: F)
    where
        F: FnMut(&mut Server) -> Result<Sample, String>,
    {
        for round in 1..=rounds {
            for sys in System::ALL {
                if case.failed(sys) {
                    continue;
                }
                self.revive(sys);
                if let Some(why) = self.blocked(sys, setup) {
                    self.progress
                        .say(&format!("{} | {} skipped: {why}", case.id(), sys.name()));
                    case.failures.push((sys, 0, why));
                    continue;
                }
                let label = format!("{} | {} round {round}/{rounds}", case.id(), sys.name());
                let Some(server) = self.servers[sys.idx()].as_mut() else {
                    continue;
                };
                match measure_round(server, &mut measure) {
                    Ok(sample) => {
                        self.progress
                            .say(&format!("{label}: {}", describe(&sample)));
                        case.samples[sys.idx()].push(sample);
                    }
                    Err(e) => {
                        let e = if server.alive() {
                            e
                        } else {
                            format!("{e} (server exited: {})", server.log_tail(4))
                        };
                        self.progress.say(&format!("{label}: FAILED: {e}"));
                        case.failures.push((sys, round, e));
                    }
                }
            }
        }
    }
}

/// One round: counters, the load, counters again; the load's sample with the
/// fsync figures appended (the load's own fsync figure, if any, replaced).
fn measure_round<F>(server: &mut Server, measure: &mut F) -> Result<Sample, String>
where
    F: FnMut(&mut Server) -> Result<Sample, String>,
{
    let before = read_counters(server)?;
    let mut sample = measure(server)?;
    let after = read_counters(server)?;
    sample.retain(|(m, _)| m.key != FSYNCS_PER_COMMIT.key);
    sample.extend(fsync_sample(before, after));
    Ok(sample)
}

/// Runs the binlog workload: the three servers with `settings` (flush=1), the
/// autocommit INSERT and sysbench oltp_write_only cases at `full.binlog.clients`
/// for `full.binlog.secs` each, and appends its report section to `results`.
pub fn run(
    full: &Plan,
    settings: Settings,
    launch: &Launch<'_>,
    progress: &Progress,
    results: &mut Results,
) {
    let (plan, rounds, table_size) = (&full.binlog, full.rounds, full.sysbench.table_size);
    let mut trio = Trio::new(settings, launch, progress);
    let mut cases = Vec::new();
    trio.add_setup(load::COMMIT_SETUP, Box::new(load::commit_setup));
    for &c in &plan.clients {
        let mut case = TrioCase::new(COMMIT_CASE, c);
        trio.run_case(&mut case, load::COMMIT_SETUP, rounds, |s| {
            load::commit_once(s, c, plan.secs)
        });
        cases.push(case);
    }
    if which("sysbench").is_some() {
        trio.add_setup(
            SYSBENCH_SETUP,
            Box::new(move |s| sysbench::setup(s, table_size)),
        );
        let sb = SysbenchPlan {
            cases: Vec::new(),
            time: plan.secs,
            table_size,
        };
        for &t in &plan.clients {
            let sc = SysbenchCase {
                script: SYSBENCH_CASE.into(),
                threads: t,
                ps_mode: "auto",
            };
            let mut case = TrioCase::new(SYSBENCH_CASE, t);
            trio.run_case(&mut case, SYSBENCH_SETUP, rounds, |s| {
                let mut sample = sysbench::run_once(s, &sc, &sb)?;
                let tps = sample.iter().find(|(m, _)| m.key == TPS.key).map(|p| p.1);
                sample.extend(tps.map(|v| (COMMITS, v)));
                Ok(sample)
            });
            cases.push(case);
        }
    } else {
        results.info.notes.push(
            "binlog: the sysbench oltp_write_only cases were skipped: sysbench is not \
             installed (Debian package: sysbench)."
                .into(),
        );
    }
    results.sections.push(section(&cases, plan.secs));
}

/// A median for a table cell, `FAIL` or `–`.
fn med(c: &TrioCase, sys: System, key: &str) -> String {
    match c.median(sys, key) {
        Some(v) => fmt_num(v),
        None if c.failed(sys) => "FAIL".into(),
        None => "–".into(),
    }
}

fn rat(c: &TrioCase, num: System, den: System) -> String {
    ratio(c.median(num, COMMITS.key), c.median(den, COMMITS.key))
        .map_or("–".into(), |r| format!("{r:.2}"))
}

const INTRO: &str = "Three systems in alternating rounds (Basalt without binlog, Basalt \
with `--log-bin --server-id=1`, MariaDB with `--log-bin --server-id=1 --sync-binlog=1 \
--binlog-format=ROW --binlog-row-metadata=FULL`), all with \
flush_log_at_trx_commit=1 and otherwise the commit stage's settings. Basalt writes a \
transaction's binlog events in its WAL commit record, so one fsync per group commit \
covers both; MariaDB syncs its redo log (prepare) and its binlog per group. Cases: \
single-row autocommit INSERTs (as the `commit` workload) and sysbench \
`oltp_write_only` (ps=auto; one transaction = one commit, commits/s = sysbench's TPS). \
Commits/s: median of the rounds, higher is better. Ratios: of the medians, above 1 \
means the first system commits faster.";

const COUNTERS: &str = "**Fsyncs per commit** come from each server's own counters, \
read with `SHOW GLOBAL STATUS` before and after each run and divided by the server's \
own commit counter over the same window. Basalt: `Innodb_os_log_fsyncs` (every WAL \
fsync/fdatasync) / `Basalt_log_commits`. MariaDB 10.11 (which has no \
`Innodb_os_log_fsyncs` any more): `Innodb_data_fsyncs` (every fsync/fdatasync InnoDB \
issues, redo log included) + `Binlog_group_commits` (with sync_binlog=1 the binlog is \
synced once per group commit) / `Binlog_commits`. What they miss: Basalt's fsyncs of \
the binlog files and table files at checkpoints (off the commit path; none may fall in \
a short run), MariaDB's binlog fsyncs at file rotation and of the `.index` file, and \
Aria/system-table syncs. Checked by hand against `strace -f -c -e \
trace=fsync,fdatasync` on both servers (see crates/bench/README.md): the counters \
matched the system calls exactly.";

/// The report section: (title, Markdown body).
pub fn section(cases: &[TrioCase], secs: u64) -> (String, String) {
    let [off, on, mdb] = System::ALL;
    let mut b = format!("{INTRO} Each run lasts {secs} s.\n\n");
    b.push_str(
        "| workload | clients | Basalt, no binlog commits/s | Basalt, binlog commits/s | \
         MariaDB, binlog commits/s | Basalt binlog / no binlog ↑ | Basalt binlog / MariaDB \
         binlog ↑ | fsyncs/commit Basalt, no binlog | fsyncs/commit Basalt, binlog | \
         fsyncs/commit MariaDB, binlog |\n|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let f = FSYNCS_PER_COMMIT.key;
    for c in cases {
        let _ = writeln!(
            b,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            c.name,
            c.clients,
            med(c, off, COMMITS.key),
            med(c, on, COMMITS.key),
            med(c, mdb, COMMITS.key),
            rat(c, on, off),
            rat(c, on, mdb),
            med(c, off, f),
            med(c, on, f),
            med(c, mdb, f),
        );
    }
    let _ = write!(b, "\n{COUNTERS}\n\n");
    details(&mut b, cases);
    failures(&mut b, cases);
    ("Binary log: durable commits and fsyncs".into(), b)
}

/// Every round's commits/s, latencies and the fsync split per system.
fn details(b: &mut String, cases: &[TrioCase]) {
    b.push_str(
        "Details (medians unless said otherwise; latency p50/p99 for INSERTs, sysbench \
         avg/p95 for oltp_write_only; storage B/commit is `write_bytes` from /proc/PID/io, \
         INSERTs only):\n\n\
         | workload | clients | system | commits/s, every round | latency ms | log \
         fsyncs/commit | binlog fsyncs/commit | storage B/commit |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    for c in cases {
        let (lo, hi) = if c.name == SYSBENCH_CASE {
            (sysbench::LAT_AVG.key, LAT_P95.key)
        } else {
            (LAT_P50.key, LAT_P99.key)
        };
        for sys in System::ALL {
            let rounds: Vec<String> = c
                .values(sys, COMMITS.key)
                .iter()
                .map(|v| fmt_num(*v))
                .collect();
            let _ = writeln!(
                b,
                "| {} | {} | {} | {} | {} / {} | {} | {} | {} |",
                c.name,
                c.clients,
                sys.name(),
                if rounds.is_empty() {
                    "–".into()
                } else {
                    rounds.join(", ")
                },
                med(c, sys, lo),
                med(c, sys, hi),
                med(c, sys, LOG_FSYNCS.key),
                med(c, sys, BINLOG_FSYNCS.key),
                med(c, sys, BYTES_PER_COMMIT.key),
            );
        }
    }
    b.push('\n');
}

fn failures(b: &mut String, cases: &[TrioCase]) {
    let all: Vec<_> = cases
        .iter()
        .flat_map(|c| c.failures.iter().map(move |f| (c, f)))
        .collect();
    if all.is_empty() {
        return;
    }
    b.push_str(
        "Failures (round 0 = set-up):\n\n| case | system | round | error |\n|---|---|---|---|\n",
    );
    for (c, (sys, round, msg)) in all {
        let msg: String = msg.chars().take(400).collect();
        let _ = writeln!(
            b,
            "| {} | {} | {round} | {} |",
            crate::report::cell(&c.id()),
            sys.name(),
            crate::report::cell(&msg)
        );
    }
    b.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn counters_per_kind() {
        let s = status(&[
            ("Basalt_log_commits", "10"),
            ("Innodb_os_log_fsyncs", "7"),
            ("Binlog_commits", "20"),
            ("Innodb_data_fsyncs", "30"),
            ("Binlog_group_commits", "15"),
        ]);
        let b = pick_counters(Kind::Basalt, &s).expect("basalt");
        assert_eq!((b.commits, b.log_fsyncs, b.binlog_fsyncs), (10, 7, 0));
        let m = pick_counters(Kind::MariaDb, &s).expect("mariadb");
        assert_eq!((m.commits, m.log_fsyncs, m.binlog_fsyncs), (20, 30, 15));
        let e = pick_counters(Kind::MariaDb, &status(&[])).expect_err("missing");
        assert!(e.contains("Binlog_commits"), "{e}");
    }

    #[test]
    fn fsyncs_per_commit_from_deltas() {
        let before = Counters {
            commits: 100,
            log_fsyncs: 50,
            binlog_fsyncs: 40,
        };
        let after = Counters {
            commits: 300,
            log_fsyncs: 150,
            binlog_fsyncs: 140,
        };
        let s = fsync_sample(before, after);
        assert_eq!(s[0], (FSYNCS_PER_COMMIT, 1.0));
        assert_eq!(s[1], (LOG_FSYNCS, 0.5));
        assert_eq!(s[2], (BINLOG_FSYNCS, 0.5));
        assert!(fsync_sample(after, after).is_empty());
    }

    #[test]
    fn mariadb_gets_durable_binlog() {
        let a = System::MariaDbOn.extra_args().join(" ");
        for want in [
            "--log-bin=",
            "--server-id=1",
            "--sync-binlog=1",
            "--binlog-format=ROW",
        ] {
            assert!(a.contains(want), "{want} missing from {a}");
        }
        assert!(System::BasaltOff.extra_args().is_empty());
        assert_eq!(
            System::BasaltOn.extra_args(),
            ["--log-bin", "--server-id=1"]
        );
    }

    #[test]
    fn section_has_ratios_and_failures() {
        let mut c = TrioCase::new(COMMIT_CASE, 16);
        let round =
            |commits: f64, fsyncs: f64| vec![(COMMITS, commits), (FSYNCS_PER_COMMIT, fsyncs)];
        c.samples[0].push(round(1000.0, 0.25));
        c.samples[1].push(round(900.0, 0.25));
        c.samples[2].push(round(300.0, 0.5));
        let mut sb = TrioCase::new(SYSBENCH_CASE, 1);
        sb.failures
            .push((System::MariaDbOn, 1, "boom | bang".into()));
        let (title, body) = section(&[c, sb], 5);
        assert!(title.contains("Binary log"));
        assert!(
            body.contains("| autocommit INSERT | 16 | 1000 | 900.0 | 300.0 | 0.90 | 3.00 | 0.2500 | 0.2500 | 0.5000 |"),
            "{body}"
        );
        assert!(
            body.contains("| oltp_write_only | 1 | – | – | FAIL |"),
            "{body}"
        );
        assert!(body.contains("boom \\| bang"), "{body}");
        assert!(body.contains("900.0 |"), "{body}");
    }
}
