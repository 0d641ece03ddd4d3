//! Command-line flags and the plan they resolve to: which workloads run, with which
//! client counts, query counts and durations. `--quick` swaps in small defaults so a
//! run takes a few minutes; explicit flags override either set.

use crate::results::Workload;
use crate::slap::{SeedQuery, SEED_DDL};
use clap::Parser;
use std::path::PathBuf;
use std::time::Duration;

/// Side-by-side benchmark: Basalt and MariaDB in alternating rounds.
#[derive(Parser, Debug, Clone, Default)]
#[command(name = "basalt-bench", version)]
pub struct Args {
    /// Small, fast run (a few minutes): fewer queries, 1 round, a subset of cases.
    #[arg(long)]
    pub quick: bool,
    /// Rounds per system and case (default 3; 1 with --quick).
    #[arg(long)]
    pub rounds: Option<usize>,
    /// Workloads to run (default all): seed, sysbench, commit, storm, cpu, joins, tpch, alter,
    /// binlog, binlog-dump, tls, partitions, idle, instruments, routines.
    #[arg(long, value_delimiter = ',')]
    pub workloads: Vec<String>,
    /// The basaltd binary (default: basaltd next to this program).
    #[arg(long)]
    pub basaltd: Option<PathBuf>,
    /// The mariadbd binary (default: from PATH or /usr/sbin).
    #[arg(long)]
    pub mariadbd: Option<PathBuf>,
    /// Report directory.
    #[arg(long, default_value = "bench/results")]
    pub out: PathBuf,
    /// Where servers' temporary data directories go (default: the system temp dir).
    #[arg(long)]
    pub workdir: Option<PathBuf>,
    /// Buffer pool size for both servers.
    #[arg(long, default_value = "512M")]
    pub buffer_pool_size: String,
    /// Seed set: total queries per point-query run (default 20000; 2000 with --quick).
    #[arg(long)]
    pub seed_queries: Option<u64>,
    /// Seed set: client counts (default 1,4,32).
    #[arg(long, value_delimiter = ',')]
    pub seed_clients: Vec<u32>,
    /// Seed set: only queries whose "name variant" contains one of these strings.
    #[arg(long, value_delimiter = ',')]
    pub seed_filter: Vec<String>,
    /// sysbench scripts run with --db-ps-mode=auto (default all five).
    #[arg(long, value_delimiter = ',')]
    pub sysbench_scripts: Vec<String>,
    /// sysbench thread counts for --db-ps-mode=auto (default 1,4,8,16,32,64).
    #[arg(long, value_delimiter = ',')]
    pub sysbench_threads: Vec<u32>,
    /// sysbench scripts also run with --db-ps-mode=disable (default
    /// oltp_point_select,oltp_read_only,oltp_read_write; "none" for none).
    #[arg(long, value_delimiter = ',')]
    pub sysbench_text_scripts: Vec<String>,
    /// Thread counts for --db-ps-mode=disable (default 1,8,32).
    #[arg(long, value_delimiter = ',')]
    pub sysbench_text_threads: Vec<u32>,
    /// Seconds per sysbench run (default 5; 3 with --quick).
    #[arg(long)]
    pub sysbench_time: Option<u64>,
    /// Rows per sysbench table.
    #[arg(long, default_value_t = 10000)]
    pub sysbench_table_size: u64,
    /// Durable commit clients (default 1,16,64).
    #[arg(long, value_delimiter = ',')]
    pub commit_clients: Vec<u32>,
    /// Binary log workload: clients for autocommit INSERTs and sysbench
    /// oltp_write_only threads (default 1,16,64).
    #[arg(long, value_delimiter = ',')]
    pub binlog_clients: Vec<u32>,
    /// binlog-dump workload: dump clients per latency case (default 1,10,100; the
    /// largest is also the throughput case's).
    #[arg(long, value_delimiter = ',')]
    pub dump_clients: Vec<u32>,
    /// binlog-dump workload: INSERTs per latency case (default 2000; 500 with
    /// --quick), at most 20 s.
    #[arg(long)]
    pub dump_commits: Option<u64>,
    /// Connection storm clients (default 1,32,256; quick: 1,32).
    #[arg(long, value_delimiter = ',')]
    pub storm_clients: Vec<u32>,
    /// Seconds per commit / storm / binlog / binlog-dump throughput run (default 5; 3
    /// with --quick).
    #[arg(long)]
    pub load_time: Option<u64>,
    /// Point selects measured under callgrind (default 2000; 500 with --quick).
    #[arg(long)]
    pub cpu_queries: Option<u64>,
    /// A TrueType font for chart labels (default: a DejaVu/Liberation font if
    /// installed; charts without labels otherwise).
    #[arg(long)]
    pub font: Option<PathBuf>,
    /// Skip the PNG charts.
    #[arg(long)]
    pub no_charts: bool,
    /// Describes the Basalt build in the report (default: the git HEAD of the
    /// current directory).
    #[arg(long)]
    pub basalt_commit: Option<String>,
    /// A note for the report (repeatable).
    #[arg(long = "note")]
    pub notes: Vec<String>,
    /// `one-thread-per-connection` or `pool-of-threads`, given to both servers
    /// (default: each server's own default, one thread per connection).
    #[arg(long = "thread-handling")]
    pub thread_handling: Option<String>,
}

/// The seed set's parameters.
#[derive(Clone, Debug)]
pub struct SeedPlan {
    pub queries: u64,
    pub clients: Vec<u32>,
    pub filter: Vec<String>,
    pub ddl: String,
    pub timeout: Duration,
}

impl SeedPlan {
    /// True when `q` passes the filter.
    pub fn selects(&self, q: &SeedQuery) -> bool {
        let id = format!("{} {}", q.name, q.variant);
        self.filter.is_empty() || self.filter.iter().any(|f| id.contains(f.as_str()))
    }
}

/// One sysbench script at one thread count and prepared-statement mode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SysbenchCase {
    pub script: String,
    pub threads: u32,
    /// `auto` (server-side prepared statements) or `disable` (text protocol).
    pub ps_mode: &'static str,
}

/// sysbench's parameters.
#[derive(Clone, Debug)]
pub struct SysbenchPlan {
    pub cases: Vec<SysbenchCase>,
    pub time: u64,
    pub table_size: u64,
}

/// Commit or storm parameters.
#[derive(Clone, Debug)]
pub struct LoadPlan {
    pub clients: Vec<u32>,
    pub secs: u64,
}

/// The binlog-dump workload's parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DumpPlan {
    /// Dump clients per latency case; the largest also for the throughput case.
    pub clients: Vec<u32>,
    /// INSERTs per latency case, one after another.
    pub commits: u64,
    /// Upper bound on a latency case's INSERT loop, seconds.
    pub max_secs: u64,
    /// Writer clients of the throughput case.
    pub writers: u32,
    /// Seconds per throughput run.
    pub secs: u64,
}

/// Everything the run does.
#[derive(Clone, Debug)]
pub struct Plan {
    pub quick: bool,
    pub rounds: usize,
    pub workloads: Vec<Workload>,
    pub buffer_pool: String,
    pub seed: SeedPlan,
    pub sysbench: SysbenchPlan,
    pub commit: LoadPlan,
    pub storm: LoadPlan,
    /// Client counts and seconds per run of the binlog workload (both its
    /// autocommit INSERTs and its sysbench oltp_write_only runs).
    pub binlog: LoadPlan,
    pub dump: DumpPlan,
    pub cpu_queries: u64,
}

/// Scripts that only read: they run with flush=2 like the seed set; the others
/// commit writes and run durable (flush=1).
pub const READ_ONLY_SCRIPTS: [&str; 2] = ["oltp_point_select", "oltp_read_only"];

const ALL_SCRIPTS: [&str; 5] = [
    "oltp_point_select",
    "oltp_read_only",
    "oltp_read_write",
    "oltp_write_only",
    "oltp_insert",
];

fn or<T: Clone>(given: &[T], default: &[T]) -> Vec<T> {
    if given.is_empty() {
        default.to_vec()
    } else {
        given.to_vec()
    }
}

fn parse_workloads(names: &[String]) -> Result<Vec<Workload>, String> {
    let all = [
        Workload::Seed,
        Workload::Sysbench,
        Workload::Commit,
        Workload::Storm,
        Workload::Cpu,
        Workload::Joins,
        Workload::Tpch,
        Workload::Alter,
        Workload::Binlog,
        Workload::BinlogDump,
        Workload::Tls,
        Workload::Partitions,
        Workload::Idle,
        Workload::Instruments,
        Workload::Routines,
    ];
    if names.is_empty() {
        return Ok(all.to_vec());
    }
    names
        .iter()
        .map(|n| {
            all.iter()
                .copied()
                .find(|w| w.name() == n.trim())
                .ok_or_else(|| {
                    format!(
                        "unknown workload '{n}' (seed, sysbench, commit, storm, cpu, joins, \
                         tpch, alter, binlog, binlog-dump, tls, partitions, idle, \
                         instruments, routines)"
                    )
                })
        })
        .collect()
}

/// Script names as given, with the `oltp_` prefix added when missing.
fn script_names(given: &[String], default: &[&str]) -> Vec<String> {
    if given.iter().any(|s| s == "none") {
        return Vec::new();
    }
    let names: Vec<String> = if given.is_empty() {
        default.iter().map(|s| s.to_string()).collect()
    } else {
        given.to_vec()
    };
    names
        .into_iter()
        .map(|s| {
            if s.starts_with("oltp_") || s.contains('.') || s.contains('/') {
                s
            } else {
                format!("oltp_{s}")
            }
        })
        .collect()
}

fn sysbench_plan(a: &Args) -> SysbenchPlan {
    let q = a.quick;
    let auto_default: &[&str] = if q { &READ_ONLY_SCRIPTS } else { &ALL_SCRIPTS };
    let text_default: &[&str] = if q {
        &[]
    } else {
        &["oltp_point_select", "oltp_read_only", "oltp_read_write"]
    };
    let threads = or(
        &a.sysbench_threads,
        if q { &[1, 8] } else { &[1, 4, 8, 16, 32, 64] },
    );
    let text_threads = or(&a.sysbench_text_threads, &[1, 8, 32]);
    let mut cases = Vec::new();
    for script in script_names(&a.sysbench_scripts, auto_default) {
        for &t in &threads {
            cases.push(SysbenchCase {
                script: script.clone(),
                threads: t,
                ps_mode: "auto",
            });
        }
    }
    for script in script_names(&a.sysbench_text_scripts, text_default) {
        for &t in &text_threads {
            cases.push(SysbenchCase {
                script: script.clone(),
                threads: t,
                ps_mode: "disable",
            });
        }
    }
    SysbenchPlan {
        cases,
        time: a.sysbench_time.unwrap_or(if q { 3 } else { 5 }),
        table_size: a.sysbench_table_size,
    }
}

/// Resolves flags into a plan.
pub fn resolve(a: &Args) -> Result<Plan, String> {
    let q = a.quick;
    let rounds = a.rounds.unwrap_or(if q { 1 } else { 3 });
    if rounds == 0 {
        return Err("--rounds must be at least 1".into());
    }
    let load_secs = a.load_time.unwrap_or(if q { 3 } else { 5 });
    Ok(Plan {
        quick: q,
        rounds,
        workloads: parse_workloads(&a.workloads)?,
        buffer_pool: a.buffer_pool_size.clone(),
        seed: SeedPlan {
            queries: a.seed_queries.unwrap_or(if q { 2000 } else { 20000 }),
            clients: or(&a.seed_clients, &[1, 4, 32]),
            filter: a.seed_filter.clone(),
            ddl: SEED_DDL.to_string(),
            timeout: Duration::from_secs(if q { 120 } else { 300 }),
        },
        sysbench: sysbench_plan(a),
        commit: LoadPlan {
            clients: or(&a.commit_clients, if q { &[1, 16] } else { &[1, 16, 64] }),
            secs: load_secs,
        },
        storm: LoadPlan {
            clients: or(&a.storm_clients, if q { &[1, 32] } else { &[1, 32, 256] }),
            secs: load_secs,
        },
        binlog: LoadPlan {
            clients: or(&a.binlog_clients, if q { &[1, 16] } else { &[1, 16, 64] }),
            secs: load_secs,
        },
        dump: DumpPlan {
            clients: or(&a.dump_clients, &[1, 10, 100]),
            commits: a.dump_commits.unwrap_or(if q { 500 } else { 2000 }),
            max_secs: 20,
            writers: 16,
            secs: load_secs,
        },
        cpu_queries: a.cpu_queries.unwrap_or(if q { 500 } else { 2000 }),
    })
}

impl Plan {
    pub fn runs(&self, w: Workload) -> bool {
        self.workloads.contains(&w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Args {
        let mut v = vec!["basalt-bench"];
        v.extend_from_slice(list);
        Args::parse_from(v)
    }

    #[test]
    fn full_defaults() {
        let p = resolve(&args(&[])).expect("plan");
        assert_eq!(p.rounds, 3);
        assert_eq!(p.workloads.len(), 15);
        assert_eq!(p.dump.clients, [1, 10, 100]);
        assert_eq!((p.dump.commits, p.dump.writers), (2000, 16));
        assert_eq!(p.binlog.clients, [1, 16, 64]);
        assert_eq!(p.seed.clients, [1, 4, 32]);
        assert_eq!(p.seed.queries, 20000);
        // 5 scripts x 6 thread counts with ps, 3 x 3 without.
        assert_eq!(p.sysbench.cases.len(), 30 + 9);
        assert_eq!(p.commit.clients, [1, 16, 64]);
    }

    #[test]
    fn quick_is_smaller() {
        let p = resolve(&args(&["--quick"])).expect("plan");
        assert_eq!(p.rounds, 1);
        assert_eq!(p.sysbench.cases.len(), 4);
        assert!(p.sysbench.cases.iter().all(|c| c.ps_mode == "auto"));
        assert_eq!(p.seed.queries, 2000);
    }

    #[test]
    fn overrides() {
        let p = resolve(&args(&[
            "--quick",
            "--rounds",
            "2",
            "--workloads",
            "seed,cpu",
            "--sysbench-scripts",
            "point_select",
            "--sysbench-text-scripts",
            "none",
            "--seed-filter",
            "PK point",
            "--dump-clients",
            "2,3",
        ]))
        .expect("plan");
        assert_eq!(p.rounds, 2);
        assert_eq!(p.workloads, [Workload::Seed, Workload::Cpu]);
        assert_eq!(p.dump.clients, [2, 3]);
        assert_eq!(p.dump.commits, 500);
        let d = resolve(&args(&["--workloads", "binlog-dump"])).expect("plan");
        assert_eq!(d.workloads, [Workload::BinlogDump]);
        assert_eq!(p.sysbench.cases[0].script, "oltp_point_select");
        let sel: Vec<_> = crate::slap::seed_queries()
            .into_iter()
            .filter(|q| p.seed.selects(q))
            .collect();
        assert_eq!(sel.len(), 1);
        assert!(resolve(&args(&["--workloads", "nope"])).is_err());
        assert!(resolve(&args(&["--rounds", "0"])).is_err());
    }
}
