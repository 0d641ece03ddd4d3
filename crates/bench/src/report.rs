//! The Markdown report and the raw-sample CSV. Every ratio is median(Basalt) /
//! median(MariaDB); each table says whether lower or higher is better.

use crate::cpu;
use crate::load::{
    BYTES_PER_COMMIT, COMMITS, CONNS, CPU_PER_CONN, FSYNCS_PER_COMMIT, LAT_P50, LAT_P99,
};
use crate::results::{Case, Results, Workload};
use crate::runner::fmt_num;
use crate::servers::Kind;
use crate::slap::{SECONDS, US_PER_QUERY};
use crate::stats::{verdict, Better};
use crate::sysbench::{LAT_AVG, LAT_P95, QPS, TPS};
use std::fmt::Write;

/// Chart files to link from the report (file name, caption).
pub type Charts = Vec<(String, String)>;

/// Escapes text for a Markdown table cell.
pub fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// A median, or `FAIL` / `–` when there is none.
fn med(c: &Case, key: &str, kind: Kind) -> String {
    match c.median(key, kind) {
        Some(v) => fmt_num(v),
        None if c.failed(kind) => "FAIL".into(),
        None => "–".into(),
    }
}

/// The Basalt/MariaDB ratio with two decimals, or `–`.
fn rat(c: &Case, key: &str) -> String {
    c.ratio(key).map_or("–".into(), |r| format!("{r:.2}"))
}

/// Renders the whole report.
pub fn render(r: &Results, charts: &Charts, csv_name: &str) -> String {
    let mut out = String::new();
    header(&mut out, r);
    summary(&mut out, r);
    seed(&mut out, r);
    sysbench(&mut out, r);
    simple_table(
        &mut out,
        r,
        Workload::Commit,
        "Durable commit throughput",
        COMMITS.key,
    );
    simple_table(&mut out, r, Workload::Storm, "Connection storm", CONNS.key);
    cpu_table(&mut out, r);
    joins_table(&mut out, r);
    tpch_table(&mut out, r);
    alter_table(&mut out, r);
    partitions_table(&mut out, r);
    routines_table(&mut out, r);
    idle_table(&mut out, r);
    paced_table(&mut out, r);
    tls_table(&mut out, r);
    crate::instruments::table(&mut out, r);
    for (file, caption) in charts {
        let _ = writeln!(out, "![{caption}]({file})\n");
    }
    failures(&mut out, r);
    for (title, body) in &r.sections {
        let _ = writeln!(out, "## {title}\n\n{body}\n");
    }
    if !r.info.notes.is_empty() {
        out.push_str("## Notes\n\n");
        for n in &r.info.notes {
            let _ = writeln!(out, "- {n}");
        }
        out.push('\n');
    }
    let _ = writeln!(out, "Raw samples (every round): [{csv_name}]({csv_name}).");
    out
}

fn header(out: &mut String, r: &Results) {
    let i = &r.info;
    let mode = if i.quick { "quick" } else { "full" };
    let _ = write!(
        out,
        "# Basalt vs MariaDB: side-by-side benchmark\n\n\
         - Run: {} → {} UTC ({:.1} min), {mode} mode, {} round(s) per system and case, \
         alternating Basalt, MariaDB, Basalt, ...\n\
         - Command: `{}`\n\
         - Machine: {} CPUs; load average at start {}, at end {}. Other jobs share the \
         machine, so absolute figures are noisy; compare the ratios.\n\
         - Basalt: `{}` (commit {}); MariaDB: {}.\n\
         - Both servers: buffer pool {}, max_connections 20000, loopback TCP, fresh data \
         directories. Read workloads (seed set, read-only sysbench, connection storm, CPU) \
         run with flush_log_at_trx_commit=2 on both, like the seed post; workloads that \
         commit writes (sysbench read_write/write_only/insert, durable commits) with =1 on \
         both. MariaDB also gets the seed post's performance_schema=0, \
         innodb_doublewrite=0, innodb_flush_method=O_DIRECT, query_cache_size=0, \
         skip_log_bin.\n\n\
         **Ratios are Basalt / MariaDB medians.** For times (response time, latency, \
         instructions) lower is better: below 1 means Basalt is faster. For throughput \
         (QPS, TPS, commits/s, connections/s) higher is better: above 1 means Basalt is \
         faster.\n\n",
        i.started,
        i.finished,
        i.duration_secs / 60.0,
        i.rounds,
        cell(&i.command),
        i.cpus,
        i.loadavg_start,
        i.loadavg_end,
        i.basaltd,
        i.basalt_commit,
        i.mariadb_version,
        i.buffer_pool,
    );
}

/// The headline metric of a case and its direction.
pub(crate) fn headline(c: &Case) -> Option<(&'static str, Better)> {
    Some(match c.workload {
        Workload::Seed => (SECONDS.key, Better::Lower),
        Workload::Sysbench => (QPS.key, Better::Higher),
        Workload::Commit => (COMMITS.key, Better::Higher),
        Workload::Storm => (CONNS.key, Better::Higher),
        Workload::Joins => (crate::joins::MS.key, Better::Lower),
        Workload::Tpch => (crate::tpch::MS.key, Better::Lower),
        Workload::Alter => (crate::alter::ALTER_MS.key, Better::Lower),
        Workload::Partitions if c.name.starts_with("CREATE") => {
            (crate::partitions::MS.key, Better::Lower)
        }
        Workload::Partitions => (QPS.key, Better::Higher),
        Workload::Routines if c.name.contains("CALL") => (QPS.key, Better::Higher),
        Workload::Routines if c.name == crate::trigger_bench::NAME => (QPS.key, Better::Higher),
        Workload::Routines => (crate::routines::MS.key, Better::Lower),
        Workload::Idle if c.name == crate::paced::NAME => (LAT_P99.key, Better::Lower),
        Workload::Idle => (crate::idle::KB_PER_CONN.key, Better::Lower),
        Workload::Tls if c.name.starts_with("connect") => (CONNS.key, Better::Higher),
        Workload::Tls => (crate::sysbench::QPS.key, Better::Higher),
        Workload::Instruments if c.name.starts_with("oltp") => (QPS.key, Better::Higher),
        Workload::Instruments if c.name == crate::instruments::INSTRUCTIONS => {
            (cpu::INSTR.key, Better::Lower)
        }
        Workload::Instruments if c.name == crate::instruments::NATIVE => {
            (cpu::CPU_US.key, Better::Lower)
        }
        Workload::Instruments => (SECONDS.key, Better::Lower),
        // Three systems: its own section (binlog.rs), not Basalt/MariaDB cases.
        Workload::Binlog | Workload::BinlogDump => return None,
        Workload::Cpu => {
            if c.series(cpu::INSTR.key).is_some() {
                (cpu::INSTR.key, Better::Lower)
            } else {
                (cpu::CPU_US.key, Better::Lower)
            }
        }
    })
}

/// Workloads counted in the summary (the others have sections of their own).
const SUMMARISED: [Workload; 6] = [
    Workload::Seed,
    Workload::Sysbench,
    Workload::Commit,
    Workload::Storm,
    Workload::Cpu,
    Workload::Joins,
];

fn summary(out: &mut String, r: &Results) {
    if !SUMMARISED.iter().any(|w| r.of(*w).next().is_some()) {
        return;
    }
    out.push_str("## Summary\n\n| workload | cases | Basalt faster | parity (±2%) | Basalt slower | Basalt failed |\n|---|---|---|---|---|---|\n");
    for w in SUMMARISED {
        let cases: Vec<&Case> = r.of(w).collect();
        if cases.is_empty() {
            continue;
        }
        let (mut fast, mut par, mut slow, mut failed) = (0, 0, 0, 0);
        for c in &cases {
            if c.failed(Kind::Basalt) {
                failed += 1;
                continue;
            }
            let Some((key, better)) = headline(c) else {
                continue;
            };
            match c.ratio(key).map(|x| verdict(x, better)) {
                Some("Basalt faster") => fast += 1,
                Some("parity") => par += 1,
                Some(_) => slow += 1,
                None => {}
            }
        }
        let _ = writeln!(
            out,
            "| {} | {} | {fast} | {par} | {slow} | {failed} |",
            w.name(),
            cases.len()
        );
    }
    out.push('\n');
}

/// Distinct values in first-seen order.
fn distinct<T: PartialEq + Clone>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut v: Vec<T> = Vec::new();
    for i in items {
        if !v.contains(&i) {
            v.push(i);
        }
    }
    v
}

fn seed(out: &mut String, r: &Results) {
    let cases: Vec<&Case> = r.of(Workload::Seed).collect();
    if cases.is_empty() {
        return;
    }
    let clients = distinct(cases.iter().map(|c| c.clients));
    let queries = distinct(cases.iter().map(|c| (c.name.clone(), c.variant.clone())));
    out.push_str(
        "## Seed set (mariadb-slap): normalised response time\n\n\
         Each cell is Basalt's response time (mariadb-slap's \"average number of seconds \
         to run all queries\", median of the rounds) divided by MariaDB's for the same \
         query and client count: MariaDB = 1.00, **lower is better, below 1 means Basalt \
         is faster**. This is the seed posts' normalisation with MariaDB as the base \
         case.\n\n| query | ",
    );
    let heads: Vec<String> = clients.iter().map(|c| format!("{c} client(s)")).collect();
    let _ = writeln!(out, "{} |", heads.join(" | "));
    let _ = writeln!(out, "|---|{}", "---|".repeat(clients.len()));
    for (name, variant) in &queries {
        let mut row = format!("| {} |", crate::slap::label(name, variant));
        for &cl in &clients {
            let c = cases
                .iter()
                .find(|c| &c.name == name && &c.variant == variant && c.clients == cl);
            let v = match c {
                Some(c) if c.failed(Kind::Basalt) => "FAIL".to_string(),
                Some(c) => rat(c, SECONDS.key),
                None => "–".into(),
            };
            let _ = write!(row, " {v} |");
        }
        let _ = writeln!(out, "{row}");
    }
    out.push_str(
        "\nAbsolute medians: seconds for all queries, and mean response time per query as \
         a client sees it (µs):\n\n\
         | query | clients | Basalt s | MariaDB s | Basalt µs/query | MariaDB µs/query | ratio |\n\
         |---|---|---|---|---|---|---|\n",
    );
    for c in &cases {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            crate::slap::label(&c.name, &c.variant),
            c.clients,
            med(c, SECONDS.key, Kind::Basalt),
            med(c, SECONDS.key, Kind::MariaDb),
            med(c, US_PER_QUERY.key, Kind::Basalt),
            med(c, US_PER_QUERY.key, Kind::MariaDb),
            rat(c, SECONDS.key),
        );
    }
    out.push('\n');
}

fn sysbench(out: &mut String, r: &Results) {
    let cases: Vec<&Case> = r.of(Workload::Sysbench).collect();
    if cases.is_empty() {
        return;
    }
    out.push_str(
        "## sysbench\n\n\
         Medians of the rounds. QPS and TPS: higher is better (ratio above 1 = Basalt \
         faster). Latency: lower is better (ratio below 1 = Basalt faster). \
         `ps=auto` uses server-side prepared statements, `ps=disable` the text \
         protocol.\n\n\
         | script | mode | threads | Basalt QPS | MariaDB QPS | QPS ratio ↑ | Basalt TPS | MariaDB TPS | Basalt avg ms | MariaDB avg ms | Basalt p95 ms | MariaDB p95 ms | p95 ratio ↓ |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for c in &cases {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            c.name,
            c.variant,
            c.clients,
            med(c, QPS.key, Kind::Basalt),
            med(c, QPS.key, Kind::MariaDb),
            rat(c, QPS.key),
            med(c, TPS.key, Kind::Basalt),
            med(c, TPS.key, Kind::MariaDb),
            med(c, LAT_AVG.key, Kind::Basalt),
            med(c, LAT_AVG.key, Kind::MariaDb),
            med(c, LAT_P95.key, Kind::Basalt),
            med(c, LAT_P95.key, Kind::MariaDb),
            rat(c, LAT_P95.key),
        );
    }
    out.push('\n');
}

fn simple_table(out: &mut String, r: &Results, w: Workload, title: &str, key: &str) {
    let cases: Vec<&Case> = r.of(w).collect();
    let Some(first) = cases.first() else {
        return;
    };
    let unit = first.series(key).map_or("", |s| s.metric.unit);
    let commit = w == Workload::Commit;
    let what = if commit {
        "Each client inserts one row per autocommit transaction (flush_log_at_trx_commit=1 \
         on both: an fsync per commit, or per group commit). \"storage B/commit\" is the \
         server's `write_bytes` from /proc/PID/io per commit: near zero means the commits \
         did not reach the disk."
    } else {
        "Each client loops: connect, one point select by primary key, disconnect."
    };
    let (extra_head, extra_rule) = if commit {
        (
            " Basalt storage B/commit | MariaDB storage B/commit | Basalt log fsyncs/commit | MariaDB log fsyncs/commit |",
            "---|---|---|---|",
        )
    } else {
        (
            " Basalt server CPU µs/conn | MariaDB server CPU µs/conn |",
            "---|---|",
        )
    };
    let _ = write!(
        out,
        "## {title}\n\n{what} Throughput: higher is better (ratio above 1 = Basalt faster); \
         latency per operation: lower is better.\n\n\
         | clients | Basalt {unit} | MariaDB {unit} | ratio ↑ | Basalt p50 ms | MariaDB p50 ms | Basalt p99 ms | MariaDB p99 ms |{extra_head}\n\
         |---|---|---|---|---|---|---|---|{extra_rule}\n"
    );
    for c in &cases {
        let mut row = format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            c.clients,
            med(c, key, Kind::Basalt),
            med(c, key, Kind::MariaDb),
            rat(c, key),
            med(c, LAT_P50.key, Kind::Basalt),
            med(c, LAT_P50.key, Kind::MariaDb),
            med(c, LAT_P99.key, Kind::Basalt),
            med(c, LAT_P99.key, Kind::MariaDb),
        );
        if commit {
            let _ = write!(
                row,
                " {} | {} | {} | {} |",
                med(c, BYTES_PER_COMMIT.key, Kind::Basalt),
                med(c, BYTES_PER_COMMIT.key, Kind::MariaDb),
                med(c, FSYNCS_PER_COMMIT.key, Kind::Basalt),
                med(c, FSYNCS_PER_COMMIT.key, Kind::MariaDb)
            );
        } else {
            let _ = write!(
                row,
                " {} | {} |",
                med(c, CPU_PER_CONN.key, Kind::Basalt),
                med(c, CPU_PER_CONN.key, Kind::MariaDb)
            );
        }
        let _ = writeln!(out, "{row}");
    }
    out.push('\n');
}

fn joins_table(out: &mut String, r: &Results) {
    let cases: Vec<&Case> = r.of(Workload::Joins).collect();
    if cases.is_empty() {
        return;
    }
    out.push_str(
        "## Many-table joins\n\n\
         One client, `select count(*)` over a chain of 10-row tables joined on `v`, \
         listed so that no two neighbours are adjacent in FROM; fresh aliases every \
         time, so the time covers parsing, planning and running. Median ms per query; \
         lower is better (ratio below 1 = Basalt faster).\n\n\
         | tables | Basalt ms | MariaDB ms | ratio ↓ |\n|---|---|---|---|\n",
    );
    let key = crate::joins::MS.key;
    for c in &cases {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            c.variant,
            med(c, key, Kind::Basalt),
            med(c, key, Kind::MariaDb),
            rat(c, key)
        );
    }
    out.push('\n');
}

fn tls_table(out: &mut String, r: &Results) {
    let cases: Vec<&Case> = r.of(Workload::Tls).collect();
    if cases.is_empty() {
        return;
    }
    out.push_str(
        "## TLS\n\n\
         Both servers with the same RSA 2048 certificate; clients (the `mysql` crate, \
         rustls) verify it against the CA. The storm connects with a full TLS handshake, \
         runs one point select and disconnects; point selects run over connections opened \
         once. Higher is better (ratio above 1 = Basalt faster).\n\n\
         | case | clients | Basalt | MariaDB | ratio ↑ | Basalt p50 ms | MariaDB p50 ms | \
         Basalt p99 ms | MariaDB p99 ms |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    for c in &cases {
        let Some((key, _)) = headline(c) else {
            continue;
        };
        let unit = c.series(key).map_or("", |s| s.metric.unit);
        let _ = writeln!(
            out,
            "| {} ({unit}) | {} | {} | {} | {} | {} | {} | {} | {} |",
            c.name,
            c.clients,
            med(c, key, Kind::Basalt),
            med(c, key, Kind::MariaDb),
            rat(c, key),
            med(c, LAT_P50.key, Kind::Basalt),
            med(c, LAT_P50.key, Kind::MariaDb),
            med(c, LAT_P99.key, Kind::Basalt),
            med(c, LAT_P99.key, Kind::MariaDb),
        );
    }
    out.push('\n');
}

fn idle_table(out: &mut String, r: &Results) {
    let cases: Vec<&Case> = r.of(Workload::Idle).collect();
    if cases.is_empty() {
        return;
    }
    let threads = crate::idle::THREADS.key;
    out.push_str(
        "## Idle connections\n\n\
         The server's RSS growth per connection after each of N clients ran `SELECT 1` and \
         stayed idle for a second, and the server's threads at that moment \
         (`crates/bench/src/idle.rs`, /proc/PID/status). Both servers in the same thread \
         handling: their default, one thread per connection, unless the notes say \
         otherwise. Medians; lower is better.\n\n\
         | connections | Basalt KB/conn | MariaDB KB/conn | ratio ↓ | Basalt threads | MariaDB threads |\n\
         |---|---|---|---|---|---|\n",
    );
    let key = crate::idle::KB_PER_CONN.key;
    for c in cases.iter().filter(|c| c.name != crate::paced::NAME) {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            c.clients,
            med(c, key, Kind::Basalt),
            med(c, key, Kind::MariaDb),
            rat(c, key),
            med(c, threads, Kind::Basalt),
            med(c, threads, Kind::MariaDb),
        );
    }
    out.push('\n');
}

fn paced_table(out: &mut String, r: &Results) {
    let cases: Vec<&Case> = r
        .of(Workload::Idle)
        .filter(|c| c.name == crate::paced::NAME)
        .collect();
    if cases.is_empty() {
        return;
    }
    out.push_str(
        "## Many connections at one query per second\n\n\
         Each connection runs one primary-key point select per second, the connections \
         spread evenly over the second (`crates/bench/src/paced.rs`): latency from each \
         query's due time, and the server's CPU time per query (/proc/PID/stat). Medians \
         of the rounds; lower is better.\n\n\
         | connections | Basalt p50 ms | MariaDB p50 ms | Basalt p99 ms | MariaDB p99 ms | \
         Basalt CPU µs/query | MariaDB CPU µs/query |\n|---|---|---|---|---|---|---|\n",
    );
    let cpu = crate::paced::CPU_US.key;
    for c in &cases {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            c.clients,
            med(c, LAT_P50.key, Kind::Basalt),
            med(c, LAT_P50.key, Kind::MariaDb),
            med(c, LAT_P99.key, Kind::Basalt),
            med(c, LAT_P99.key, Kind::MariaDb),
            med(c, cpu, Kind::Basalt),
            med(c, cpu, Kind::MariaDb),
        );
    }
    out.push('\n');
}

fn partitions_table(out: &mut String, r: &Results) {
    cases_table(
        out,
        r,
        Workload::Partitions,
        "## Partitioned tables\n\n\
         A table of 1,000 RANGE partitions and 100,000 rows (`crates/bench/src/partitions.rs`): \
         the time of its CREATE TABLE, and one client's primary-key point selects on it and \
         on the same rows unpartitioned. Medians.\n\n\
         | case | table | metric | Basalt | MariaDB | ratio |\n|---|---|---|---|---|---|\n",
    );
}

fn routines_table(out: &mut String, r: &Results) {
    cases_table(
        out,
        r,
        Workload::Routines,
        "## Stored procedures and functions\n\n\
         Routines run by one client (`crates/bench/src/routines.rs`): a 1,000,000-iteration \
         `SET x = x + 1` loop, a 100,000-iteration `SELECT ... INTO` loop over a primary-key \
         read, a stored function called for each row of a 100,000-row scan (`RETURN x * 2`, \
         and a primary-key `SELECT ... INTO`) (times), 5,000 CALLs of a one-statement \
         procedure, prepared `CALL p(?, ?)` with an OUT parameter for 3 s from 1 and 16 \
         clients (calls per second), and sysbench `oltp_insert` (5 s, 10,000-row table) \
         without a trigger and with an AFTER INSERT trigger writing an audit row \
         (`crates/bench/src/trigger_bench.rs`). Medians.\n\n\
         | case | variant | metric | Basalt | MariaDB | ratio |\n|---|---|---|---|---|---|\n",
    );
}

/// A table of a workload's cases, one row each: name, variant, headline
/// metric, both medians and their ratio.
fn cases_table(out: &mut String, r: &Results, w: Workload, intro: &str) {
    let cases: Vec<&Case> = r.of(w).collect();
    if cases.is_empty() {
        return;
    }
    out.push_str(intro);
    for c in &cases {
        let Some((key, better)) = headline(c) else {
            continue;
        };
        let arrow = if better == Better::Lower {
            "↓"
        } else {
            "↑"
        };
        let _ = writeln!(
            out,
            "| {} | {} | {key} | {} | {} | {} {arrow} |",
            c.name,
            c.variant,
            med(c, key, Kind::Basalt),
            med(c, key, Kind::MariaDb),
            rat(c, key),
        );
    }
    out.push('\n');
}

fn alter_table(out: &mut String, r: &Results) {
    let cases: Vec<&Case> = r.of(Workload::Alter).collect();
    if cases.is_empty() {
        return;
    }
    out.push_str(
        "## Schema changes\n\n\
         `ADD COLUMN ... DEFAULT 7` at the end of a sysbench-shaped table, and `ADD INDEX` \
         while four clients run oltp_write_only's transaction (`crates/bench/src/alter.rs`). \
         Median ALTER time (lower is better) and the writers' throughput during the ALTER \
         as a share of the 3 s before it (higher is better).\n\n\
         | change | table | Basalt ms | MariaDB ms | ratio ↓ | Basalt write share | MariaDB write share |\n\
         |---|---|---|---|---|---|---|\n",
    );
    let (ms, share) = (crate::alter::ALTER_MS.key, crate::alter::SHARE.key);
    for c in &cases {
        let shares = if c.series(share).is_some() {
            (
                format!("{}%", med(c, share, Kind::Basalt)),
                format!("{}%", med(c, share, Kind::MariaDb)),
            )
        } else {
            ("".into(), "".into())
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            c.name,
            c.variant,
            med(c, ms, Kind::Basalt),
            med(c, ms, Kind::MariaDb),
            rat(c, ms),
            shares.0,
            shares.1
        );
    }
    out.push('\n');
}

fn tpch_table(out: &mut String, r: &Results) {
    let cases: Vec<&Case> = r.of(Workload::Tpch).collect();
    if cases.is_empty() {
        return;
    }
    out.push_str(
        "## TPC-H-style reporting queries\n\n\
         One client, TPC-H queries in MySQL syntax over TPC-H-style data \
         (`crates/bench/src/tpch/`; not `dbgen`'s rows, so not comparable with \
         published TPC-H results); both servers' result rows are compared. Median ms \
         per query; lower is better (ratio below 1 = Basalt faster).\n\n\
         | query | scale | Basalt ms | MariaDB ms | ratio ↓ |\n|---|---|---|---|---|\n",
    );
    let key = crate::tpch::MS.key;
    for c in &cases {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            c.name,
            c.variant,
            med(c, key, Kind::Basalt),
            med(c, key, Kind::MariaDb),
            rat(c, key)
        );
    }
    out.push('\n');
}

fn cpu_table(out: &mut String, r: &Results) {
    let cases: Vec<&Case> = r.of(Workload::Cpu).collect();
    if cases.is_empty() {
        return;
    }
    out.push_str(
        "## CPU cost of a point select\n\n\
         One client, `select v from t where id = N` on a 1,000-row table, text protocol. \
         Lower is better (ratio below 1 = Basalt cheaper).\n\n\
         | measure | Basalt | MariaDB | ratio ↓ |\n|---|---|---|---|\n",
    );
    let rows = [
        (
            cpu::INSTR.key,
            "instructions per query (server, net of idle)",
        ),
        (
            cpu::INSTR_RAW.key,
            "instructions per query (server, including idle threads)",
        ),
        (
            cpu::CPU_US.key,
            "server CPU time per query, µs (native, /proc)",
        ),
        (cpu::WALL_US.key, "client round trip per query, µs (native)"),
    ];
    for c in &cases {
        let present: Vec<_> = rows.iter().filter(|(k, _)| c.series(k).is_some()).collect();
        if present.is_empty() {
            let _ = writeln!(
                out,
                "| {} | {} | {} | – |",
                c.variant,
                med(c, "", Kind::Basalt),
                med(c, "", Kind::MariaDb)
            );
        }
        for (key, label) in present {
            let _ = writeln!(
                out,
                "| {label} | {} | {} | {} |",
                med(c, key, Kind::Basalt),
                med(c, key, Kind::MariaDb),
                rat(c, key)
            );
        }
    }
    out.push('\n');
}

fn failures(out: &mut String, r: &Results) {
    let all: Vec<(&Case, &crate::results::Failure)> = r
        .cases
        .iter()
        .flat_map(|c| c.failures.iter().map(move |f| (c, f)))
        .collect();
    if all.is_empty() {
        return;
    }
    out.push_str(
        "## Failures\n\nA failed round is recorded, never fatal; a system sits out the \
         remaining rounds of a case after a failure (round 0 = set-up).\n\n\
         | case | server | round | error |\n|---|---|---|---|\n",
    );
    for (c, f) in all {
        let msg: String = f.message.chars().take(400).collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            cell(&c.id()),
            f.server.name(),
            f.round,
            cell(&msg)
        );
    }
    out.push('\n');
}

/// Every sample as CSV: workload,name,variant,clients,metric,unit,server,round,value.
pub fn csv(r: &Results) -> String {
    let mut out = String::from("workload,name,variant,clients,metric,unit,server,round,value\n");
    let q = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
    for c in &r.cases {
        for s in &c.series {
            for kind in Kind::BOTH {
                for (i, v) in s.samples(kind).iter().enumerate() {
                    let _ = writeln!(
                        out,
                        "{},{},{},{},{},{},{},{},{}",
                        c.workload.name(),
                        q(&c.name),
                        q(&c.variant),
                        c.clients,
                        s.metric.key,
                        q(s.metric.unit),
                        kind.name(),
                        i + 1,
                        v
                    );
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::RunInfo;

    fn sample_results() -> Results {
        let mut seed = Case::new(Workload::Seed, "PK", "point", 1);
        seed.record(Kind::Basalt, &[(SECONDS, 1.0), (US_PER_QUERY, 50.0)]);
        seed.record(Kind::MariaDb, &[(SECONDS, 2.0), (US_PER_QUERY, 100.0)]);
        let mut seed32 = Case::new(Workload::Seed, "PK", "point", 32);
        seed32.fail(Kind::Basalt, 1, "ERROR 1064 | syntax");
        seed32.record(Kind::MariaDb, &[(SECONDS, 3.0)]);
        let mut sb = Case::new(Workload::Sysbench, "oltp_point_select", "ps=auto", 8);
        sb.record(Kind::Basalt, &[(QPS, 3000.0), (LAT_P95, 1.0)]);
        sb.record(Kind::MariaDb, &[(QPS, 1000.0), (LAT_P95, 2.0)]);
        let mut commit = Case::new(Workload::Commit, "autocommit INSERT", "flush=1", 16);
        commit.record(Kind::Basalt, &[(COMMITS, 500.0), (LAT_P99, 9.0)]);
        commit.record(Kind::MariaDb, &[(COMMITS, 1000.0), (LAT_P99, 4.0)]);
        Results {
            info: RunInfo {
                rounds: 3,
                cpus: 2,
                command: "basalt-bench --quick".into(),
                notes: vec!["a note".into()],
                ..RunInfo::default()
            },
            cases: vec![seed, seed32, sb, commit],
            sections: vec![("Hot spots".into(), "none".into())],
        }
    }

    #[test]
    fn renders_tables() {
        let md = render(
            &sample_results(),
            &vec![("x-seed.png".into(), "seed".into())],
            "x.csv",
        );
        assert!(
            md.contains("| query | 1 client(s) | 32 client(s) |"),
            "{md}"
        );
        assert!(md.contains("| point PK | 0.50 | FAIL |"), "{md}");
        assert!(
            md.contains("| point PK | 1 | 1.00 | 2.00 | 50.00 | 100.0 | 0.50 |"),
            "{md}"
        );
        assert!(
            md.contains("| oltp_point_select | ps=auto | 8 | 3000 | 1000 | 3.00 |"),
            "{md}"
        );
        assert!(md.contains("| 16 | 500.0 | 1000 | 0.50 |"), "{md}");
        assert!(md.contains("MariaDB storage B/commit |"), "{md}");
        assert!(md.contains("ERROR 1064 \\| syntax"), "{md}");
        assert!(md.contains("![seed](x-seed.png)"));
        assert!(md.contains("## Hot spots"));
        assert!(md.contains("- a note"));
        assert!(md.contains("| seed | 2 | 1 | 0 | 0 | 1 |"), "{md}");
        assert!(md.contains("| sysbench | 1 | 1 | 0 | 0 | 0 |"), "{md}");
        assert!(md.contains("| commit | 1 | 0 | 0 | 1 | 0 |"), "{md}");
    }

    #[test]
    fn csv_has_every_sample() {
        let csv = csv(&sample_results());
        assert!(csv.starts_with("workload,name,"));
        assert!(csv.contains("seed,\"PK\",\"point\",1,seconds,\"s\",Basalt,1,1\n"));
        assert!(csv
            .contains("sysbench,\"oltp_point_select\",\"ps=auto\",8,qps,\"q/s\",MariaDB,1,1000\n"));
        assert_eq!(csv.lines().count(), 1 + 4 + 1 + 4 + 4);
    }

    #[test]
    fn no_summary_for_own_section_workloads_only() {
        let mut c = Case::new(Workload::BinlogDump, "commit to dump client", "", 10);
        c.record(Kind::Basalt, &[(LAT_P50, 1.0)]);
        let r = Results {
            cases: vec![c],
            ..Results::default()
        };
        let md = render(&r, &Vec::new(), "x.csv");
        assert!(!md.contains("## Summary"), "{md}");
        assert!(csv(&r).contains("binlog-dump,\"commit to dump client\""));
    }
}
