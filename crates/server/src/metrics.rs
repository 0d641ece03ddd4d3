//! The Prometheus page (`--metrics-port`): SHOW GLOBAL STATUS and SHOW GLOBAL
//! VARIABLES under the names prometheus/mysqld_exporter (0.14) gives them, so
//! its dashboards and alerts work unchanged, plus histograms only the server can
//! measure.
//!
//! The exporter's mapping, followed here: a name is lower-cased, characters
//! other than `[a-z0-9_]` become `_`; `Com_x` is
//! `mysql_global_status_commands_total{command="x"}`, `Handler_x`
//! `..._handlers_total{handler="x"}`, `Connection_errors_x`
//! `..._connection_errors_total{error="x"}`, `Innodb_rows_x`
//! `..._innodb_row_ops_total{operation="x"}`, `Innodb_buffer_pool_pages_x`
//! `..._buffer_pool_pages{state="x"}` for data/free/misc/old, `_dirty` is
//! `..._buffer_pool_dirty_pages`, `_total` is left out and the rest are
//! `..._buffer_pool_page_changes_total{operation="x"}`; every other status with
//! a numeric value (ON/YES count 1, OFF/NO 0) is an untyped
//! `mysql_global_status_<name>`. Numeric global variables are gauges
//! `mysql_global_variables_<name>`; `mysql_version_info` and
//! `mysql_transaction_isolation` carry the text ones.
//!
//! Rendering reads the status hub and the variables (atomics and short mutexes,
//! see `basalt_sql::stats::latency::export`): it never runs SQL nor waits for a
//! table or row lock.

use crate::{Server, ServerError};
use basalt_common::histogram::Snapshot;
use basalt_http::{MetricsServer, Options, Render};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::{Arc, Weak};

/// Starts the listener when `--metrics-port` is set, and logs its address.
pub fn start(server: &Arc<Server>) -> Result<Option<MetricsServer>, ServerError> {
    let Some(port) = server.config.metrics_port else {
        return Ok(None);
    };
    let host = server.config.metrics_bind_address.as_str();
    let addr = resolve(host, port).map_err(|source| ServerError::Listen {
        addr: format!("{host}:{port} (metrics)"),
        source,
    })?;
    let weak = Arc::downgrade(server);
    let render: Render = Arc::new(move || render(&weak));
    let m =
        MetricsServer::start(Options::new(addr), render).map_err(|source| ServerError::Listen {
            addr: format!("{addr} (metrics)"),
            source,
        })?;
    tracing::info!("metrics on http://{}/metrics", m.local_addr());
    Ok(Some(m))
}

/// `host` (`*` for every address) and `port` as one socket address.
fn resolve(host: &str, port: u16) -> std::io::Result<SocketAddr> {
    let host = if host == "*" { "::" } else { host };
    (host, port).to_socket_addrs()?.next().ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "the address resolves to nothing",
        )
    })
}

fn render(server: &Weak<Server>) -> String {
    let mut page = Page::default();
    let Some(server) = server.upgrade() else {
        page.add("mysql_up", UP_HELP, "gauge", "", "0".into());
        return page.finish();
    };
    page.add("mysql_up", UP_HELP, "gauge", "", "1".into());
    for (name, value) in server.engine.metrics_status() {
        status(&mut page, &name, &value);
    }
    variables(&mut page, server.engine.metrics_variables());
    histograms(&mut page);
    page.finish()
}

const UP_HELP: &str = "Whether the MySQL server is up.";

/// One SHOW GLOBAL STATUS row, as the exporter's global_status collector maps it.
fn status(page: &mut Page, name: &str, value: &str) {
    let Some(v) = parse_value(value) else {
        return;
    };
    let key = prometheus_name(name);
    let family = |f: &str| format!("mysql_global_status_{f}");
    let labelled = |page: &mut Page, f: &str, help, kind, label: &str, rest: &str| {
        page.add(&family(f), help, kind, &labels(&[(label, rest)]), v.clone());
    };
    let (group, rest) = split_group(&key);
    match (group, rest) {
        ("com", r) => labelled(page, "commands_total", COM, "counter", "command", r),
        ("handler", r) => labelled(page, "handlers_total", HANDLER, "counter", "handler", r),
        ("connection_errors", r) => labelled(
            page,
            "connection_errors_total",
            CONN_ERR,
            "counter",
            "error",
            r,
        ),
        ("innodb_rows", r) => labelled(
            page,
            "innodb_row_ops_total",
            ROW_OPS,
            "counter",
            "operation",
            r,
        ),
        ("performance_schema", r) => {
            let f = "performance_schema_lost_total";
            labelled(page, f, PS_LOST, "counter", "instrumentation", r)
        }
        ("innodb_buffer_pool_pages", "total") => {}
        ("innodb_buffer_pool_pages", "dirty") => {
            let f = family("buffer_pool_dirty_pages");
            page.add(&f, BP_DIRTY, "gauge", "", v);
        }
        ("innodb_buffer_pool_pages", r @ ("data" | "free" | "misc" | "old")) => {
            labelled(page, "buffer_pool_pages", BP_PAGES, "gauge", "state", r)
        }
        ("innodb_buffer_pool_pages", r) => {
            let f = "buffer_pool_page_changes_total";
            labelled(page, f, BP_CHANGES, "counter", "operation", r)
        }
        _ => page.add(&family(&key), GENERIC_STATUS, "untyped", "", v),
    }
}

const COM: &str = "Total number of executed MySQL commands.";
const HANDLER: &str = "Total number of executed MySQL handlers.";
const CONN_ERR: &str = "Total number of MySQL connection errors.";
const ROW_OPS: &str = "Total number of MySQL InnoDB row operations.";
const PS_LOST: &str = "Total number of MySQL instrumentations that could not be loaded or created due to memory constraints.";
const BP_DIRTY: &str = "Innodb buffer pool dirty pages.";
const BP_PAGES: &str = "Innodb buffer pool pages by state.";
const BP_CHANGES: &str = "Innodb buffer pool page state changes.";
const GENERIC_STATUS: &str = "Generic metric from SHOW GLOBAL STATUS.";
const GENERIC_VARIABLE: &str = "Generic gauge metric from SHOW GLOBAL VARIABLES.";

/// The exporter's groups (`^(com|handler|...)_(.*)$` on the lower-cased name):
/// the group and the rest, or `("", key)`.
fn split_group(key: &str) -> (&str, &str) {
    const GROUPS: &[&str] = &[
        "com",
        "handler",
        "connection_errors",
        "innodb_buffer_pool_pages",
        "innodb_rows",
        "performance_schema",
    ];
    for g in GROUPS {
        if let Some(rest) = key.strip_prefix(g).and_then(|r| r.strip_prefix('_')) {
            return (g, rest);
        }
    }
    ("", key)
}

/// The numeric global variables, and the exporter's info series.
fn variables(page: &mut Page, vars: Vec<(&'static str, String)>) {
    let mut text: BTreeMap<&str, String> = BTreeMap::new();
    for (name, value) in vars {
        let key = prometheus_name(name);
        match parse_value(&value) {
            Some(v) => page.add(
                &format!("mysql_global_variables_{key}"),
                GENERIC_VARIABLE,
                "gauge",
                "",
                v,
            ),
            None => {
                text.insert(name, value);
            }
        }
    }
    let get = |n: &str| text.get(n).map_or("", String::as_str);
    let version = labels(&[
        ("innodb_version", get("innodb_version")),
        ("version", get("version")),
        ("version_comment", get("version_comment")),
    ]);
    let help = "MySQL version and distribution.";
    page.add("mysql_version_info", help, "gauge", &version, "1".into());
    let level = match get("transaction_isolation") {
        "" => get("tx_isolation"),
        l => l,
    };
    if !level.is_empty() {
        let l = labels(&[("level", level)]);
        let help = "MySQL transaction isolation.";
        page.add("mysql_transaction_isolation", help, "gauge", &l, "1".into());
    }
}

/// The histograms only the server has.
fn histograms(page: &mut Page) {
    use basalt_sql::stats::latency::{snapshots, CLASSES};
    use basalt_storage::metrics::{
        COMMIT_LATENCY, FSYNC_LATENCY, GROUP_COMMIT_SIZE, ROW_LOCK_WAIT,
    };
    for (class, h) in CLASSES.iter().zip(snapshots()) {
        page.histogram(
            "basalt_statement_duration_seconds",
            "Client statements' response time by command class (from start to the end of the answer).",
            ("command", class),
            &h,
            MICROS,
        );
    }
    page.histogram(
        "basalt_commit_duration_seconds",
        "Commits of writing transactions: from the commit record's append to its acknowledgement.",
        ("", ""),
        &COMMIT_LATENCY.snapshot(),
        MICROS,
    );
    page.histogram(
        "basalt_wal_fsync_duration_seconds",
        "Fsyncs of write-ahead log data.",
        ("", ""),
        &FSYNC_LATENCY.snapshot(),
        MICROS,
    );
    page.histogram(
        "basalt_row_lock_wait_seconds",
        "Waits of transactions for row locks (until granted, timed out or a deadlock victim).",
        ("", ""),
        &ROW_LOCK_WAIT.snapshot(),
        MICROS,
    );
    page.histogram(
        "basalt_group_commit_size",
        "Transactions made durable by one log flush (group commit).",
        ("", ""),
        &GROUP_COMMIT_SIZE.snapshot(),
        1.0,
    );
}

/// Microseconds in a second's unit.
const MICROS: f64 = 1e-6;

/// A value as the exporter's `parseStatus` reads it: ON/YES 1, OFF/NO/DISABLED
/// 0, numbers as they are; `None` for other text. Returned in exposition form.
fn parse_value(v: &str) -> Option<String> {
    match v.to_ascii_lowercase().as_str() {
        "yes" | "on" | "primary" => return Some("1".into()),
        "no" | "off" | "disabled" | "connecting" | "non-primary" | "disconnected" => {
            return Some("0".into())
        }
        _ => {}
    }
    if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) {
        // Exact, where a float would round counters past 2^53.
        return Some(v.to_string());
    }
    let starts_numeric = v
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_digit() || b"+-.".contains(&b));
    let f: f64 = v.parse().ok().filter(|_| starts_numeric)?;
    f.is_finite().then(|| float(f))
}

/// A float in exposition form.
fn float(f: f64) -> String {
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.into();
    }
    format!("{f}")
}

/// The exporter's `validPrometheusName`.
fn prometheus_name(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect()
}

/// `{a="x",b="y"}`, values escaped; empty for no labels.
fn labels(pairs: &[(&str, &str)]) -> String {
    if pairs.is_empty() {
        return String::new();
    }
    let inner: Vec<String> = pairs
        .iter()
        .map(|(k, v)| format!("{k}=\"{}\"", escape_label(v)))
        .collect();
    format!("{{{}}}", inner.join(","))
}

fn escape_label(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// The page's metric families, written sorted by name (as client_golang
/// writes them), each with its HELP and TYPE once.
#[derive(Default)]
struct Page {
    families: BTreeMap<String, Family>,
}

struct Family {
    help: String,
    kind: &'static str,
    /// The series' lines without the family name: `{labels} value`.
    samples: Vec<String>,
}

impl Page {
    fn add(&mut self, name: &str, help: &str, kind: &'static str, labels: &str, value: String) {
        self.family(name, help, kind)
            .samples
            .push(format!("{labels} {value}"));
    }

    fn family(&mut self, name: &str, help: &str, kind: &'static str) -> &mut Family {
        self.families
            .entry(name.to_string())
            .or_insert_with(|| Family {
                help: help.replace('\\', "\\\\").replace('\n', "\\n"),
                kind,
                samples: Vec::new(),
            })
    }

    /// A histogram series: cumulative `_bucket{le=...}`, `_sum`, `_count`; bucket
    /// bounds and the sum in `scale` units of the recorded values.
    fn histogram(&mut self, name: &str, help: &str, label: (&str, &str), s: &Snapshot, scale: f64) {
        let fam = self.family(name, help, "histogram");
        let extra = match label {
            ("", _) => String::new(),
            (k, v) => format!("{k}=\"{}\",", escape_label(v)),
        };
        for (i, n) in s.cumulative().iter().enumerate() {
            let le = match s.upper_bound(i) {
                Some(b) => float(b as f64 * scale),
                None => "+Inf".into(),
            };
            fam.samples
                .push(format!("_bucket{{{extra}le=\"{le}\"}} {n}"));
        }
        let braces = |e: &str| match e.strip_suffix(',') {
            Some(e) => format!("{{{e}}}"),
            None => String::new(),
        };
        let sum = float(s.sum as f64 * scale);
        fam.samples.push(format!("_sum{} {sum}", braces(&extra)));
        fam.samples
            .push(format!("_count{} {}", braces(&extra), s.count()));
    }

    fn finish(self) -> String {
        let mut out = String::with_capacity(64 * 1024);
        for (name, f) in &self.families {
            let _ = writeln!(out, "# HELP {name} {}", f.help);
            let _ = writeln!(out, "# TYPE {name} {}", f.kind);
            for s in &f.samples {
                let _ = writeln!(out, "{name}{s}");
            }
        }
        out
    }
}

#[cfg(test)]
mod tests;
