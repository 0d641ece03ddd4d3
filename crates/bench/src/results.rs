//! What a run measured: one `Case` per workload × parameters, holding every round's
//! samples for both systems and any failures, plus facts about the run itself.

use crate::servers::Kind;
use crate::stats::{median, ratio, Better};

/// The workload families.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Workload {
    /// The seed posts' mysqlslap point and range queries.
    Seed,
    /// sysbench OLTP scripts.
    Sysbench,
    /// Durable single-row autocommit INSERTs.
    Commit,
    /// Connect, one point select, disconnect.
    Storm,
    /// CPU cost per point select.
    Cpu,
    /// Planning and running many-table joins.
    Joins,
    /// TPC-H-style reporting queries.
    Tpch,
    /// Schema changes: instant ADD COLUMN, ADD INDEX under write load.
    Alter,
    /// Durable commits with and without the binary log (three systems).
    Binlog,
    /// Commit-to-dump-client latency and commits with many dump clients.
    BinlogDump,
    /// The connection storm and point selects over TLS.
    Tls,
    /// A table of 1,000 partitions: creating it, point selects.
    Partitions,
    /// Server memory and threads per idle client connection.
    Idle,
    /// Seed and sysbench cases with every instrument on and all off.
    Instruments,
    /// Stored procedures: loops and short CALLs.
    Routines,
}

impl Workload {
    pub fn name(self) -> &'static str {
        match self {
            Workload::Seed => "seed",
            Workload::Sysbench => "sysbench",
            Workload::Commit => "commit",
            Workload::Storm => "storm",
            Workload::Cpu => "cpu",
            Workload::Joins => "joins",
            Workload::Tpch => "tpch",
            Workload::Alter => "alter",
            Workload::Binlog => "binlog",
            Workload::BinlogDump => "binlog-dump",
            Workload::Tls => "tls",
            Workload::Instruments => "instruments",
            Workload::Partitions => "partitions",
            Workload::Idle => "idle",
            Workload::Routines => "routines",
        }
    }
}

/// A measured quantity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Metric {
    /// Short identifier (CSV column, lookups).
    pub key: &'static str,
    /// Unit shown in tables.
    pub unit: &'static str,
    pub better: Better,
}

/// All rounds' values of one metric, per system.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub metric: Metric,
    pub basalt: Vec<f64>,
    pub mariadb: Vec<f64>,
}

impl Series {
    pub fn samples(&self, kind: Kind) -> &[f64] {
        match kind {
            Kind::Basalt => &self.basalt,
            Kind::MariaDb => &self.mariadb,
        }
    }

    pub fn median(&self, kind: Kind) -> Option<f64> {
        median(self.samples(kind))
    }

    /// Median(Basalt) / median(MariaDB).
    pub fn ratio(&self) -> Option<f64> {
        ratio(self.median(Kind::Basalt), self.median(Kind::MariaDb))
    }
}

/// A failed round.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    pub server: Kind,
    /// 1-based round number; 0 for set-up.
    pub round: usize,
    pub message: String,
}

/// One workload with fixed parameters, run in alternating rounds on both systems.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    pub workload: Workload,
    /// e.g. `PK`, `oltp_point_select`.
    pub name: String,
    /// e.g. `point`, `LIMIT 10`, `ps=auto`; may be empty.
    pub variant: String,
    /// Concurrent clients (threads).
    pub clients: u32,
    pub series: Vec<Series>,
    pub failures: Vec<Failure>,
}

impl Case {
    pub fn new(workload: Workload, name: &str, variant: &str, clients: u32) -> Case {
        Case {
            workload,
            name: name.to_string(),
            variant: variant.to_string(),
            clients,
            series: Vec::new(),
            failures: Vec::new(),
        }
    }

    /// A one-line name for progress output and CSV rows.
    pub fn id(&self) -> String {
        let mut s = format!("{} {}", self.workload.name(), self.name);
        if !self.variant.is_empty() {
            s.push(' ');
            s.push_str(&self.variant);
        }
        s.push_str(&format!(" c={}", self.clients));
        s
    }

    /// Adds one round's values for `kind`.
    pub fn record(&mut self, kind: Kind, sample: &[(Metric, f64)]) {
        for &(metric, value) in sample {
            let idx = match self.series.iter().position(|s| s.metric.key == metric.key) {
                Some(i) => i,
                None => {
                    self.series.push(Series {
                        metric,
                        basalt: Vec::new(),
                        mariadb: Vec::new(),
                    });
                    self.series.len() - 1
                }
            };
            let s = &mut self.series[idx];
            match kind {
                Kind::Basalt => s.basalt.push(value),
                Kind::MariaDb => s.mariadb.push(value),
            }
        }
    }

    pub fn fail(&mut self, server: Kind, round: usize, message: impl Into<String>) {
        self.failures.push(Failure {
            server,
            round,
            message: message.into(),
        });
    }

    /// True when `kind` failed at least once.
    pub fn failed(&self, kind: Kind) -> bool {
        self.failures.iter().any(|f| f.server == kind)
    }

    /// The first failure message of `kind`.
    pub fn first_failure(&self, kind: Kind) -> Option<&str> {
        self.failures
            .iter()
            .find(|f| f.server == kind)
            .map(|f| f.message.as_str())
    }

    pub fn series(&self, key: &str) -> Option<&Series> {
        self.series.iter().find(|s| s.metric.key == key)
    }

    /// Median of metric `key` for `kind`.
    pub fn median(&self, key: &str, kind: Kind) -> Option<f64> {
        self.series(key)?.median(kind)
    }

    /// Basalt/MariaDB ratio of the medians of metric `key`.
    pub fn ratio(&self, key: &str) -> Option<f64> {
        self.series(key)?.ratio()
    }
}

/// Facts about the run, printed in the report's header.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunInfo {
    /// UTC start time, `YYYY-MM-DD HH:MM:SS`.
    pub started: String,
    pub finished: String,
    pub duration_secs: f64,
    pub command: String,
    pub quick: bool,
    pub rounds: usize,
    pub cpus: usize,
    pub loadavg_start: String,
    pub loadavg_end: String,
    pub basaltd: String,
    pub basalt_commit: String,
    pub mariadb_version: String,
    pub buffer_pool: String,
    /// Free-form notes (method choices, skipped parts).
    pub notes: Vec<String>,
}

/// Everything a report is made from.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Results {
    pub info: RunInfo,
    pub cases: Vec<Case>,
    /// Hot spots or other text sections appended verbatim (title, Markdown body).
    pub sections: Vec<(String, String)>,
}

impl Results {
    /// The cases of one workload, in run order.
    pub fn of(&self, w: Workload) -> impl Iterator<Item = &Case> {
        self.cases.iter().filter(move |c| c.workload == w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const QPS: Metric = Metric {
        key: "qps",
        unit: "q/s",
        better: Better::Higher,
    };

    #[test]
    fn record_and_ratio() {
        let mut c = Case::new(Workload::Sysbench, "oltp_point_select", "ps=auto", 8);
        c.record(Kind::Basalt, &[(QPS, 100.0)]);
        c.record(Kind::MariaDb, &[(QPS, 50.0)]);
        c.record(Kind::Basalt, &[(QPS, 300.0)]);
        c.record(Kind::MariaDb, &[(QPS, 70.0)]);
        c.record(Kind::Basalt, &[(QPS, 200.0)]);
        assert_eq!(c.median("qps", Kind::Basalt), Some(200.0));
        assert_eq!(c.median("qps", Kind::MariaDb), Some(60.0));
        let r = c.ratio("qps").expect("ratio");
        assert!((r - 200.0 / 60.0).abs() < 1e-12);
        assert_eq!(c.id(), "sysbench oltp_point_select ps=auto c=8");
    }

    #[test]
    fn failures_are_per_server() {
        let mut c = Case::new(Workload::Seed, "PK", "point", 1);
        c.fail(Kind::Basalt, 1, "boom");
        assert!(c.failed(Kind::Basalt));
        assert!(!c.failed(Kind::MariaDb));
        assert_eq!(c.first_failure(Kind::Basalt), Some("boom"));
        assert_eq!(c.ratio("qps"), None);
    }
}
