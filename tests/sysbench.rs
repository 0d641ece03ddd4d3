//! sysbench 1.0 (the Debian package) against basaltd: every bundled OLTP script with
//! `prepare`, `run` and `cleanup`, prepared (`--db-ps-mode=auto`) and text
//! (`--db-ps-mode=disable`), at 1, 8 and 64 threads spread over the scripts. sysbench
//! must exit 0 with no error but the deadlock-style ones it ignores itself (1213,
//! 1205, 1020); after each run the tables are checked through SQL: row counts
//! consistent with what the script did, the secondary index agreeing with the
//! table. Skipped (with a message) when `sysbench` is not installed.

use basalt_tests::{which, Basalt};
use mysql::prelude::*;
use mysql::{Conn, Opts};
use std::path::PathBuf;
use std::process::Command;

const TABLE_SIZE: u64 = 1000;

fn sysbench() -> Option<PathBuf> {
    let bin = which("sysbench");
    if bin.is_none() {
        println!("skipped: sysbench is not installed");
    }
    bin
}

/// What one `sysbench run` reported.
#[derive(Debug, Default)]
struct Report {
    reads: u64,
    writes: u64,
    transactions: u64,
    ignored_errors: u64,
    reconnects: u64,
}

fn field(out: &str, label: &str) -> u64 {
    out.lines()
        .find_map(|l| {
            let l = l.trim();
            let rest = l.strip_prefix(label)?.trim_start();
            rest.split_whitespace().next()?.parse().ok()
        })
        .unwrap_or_else(|| panic!("no {label:?} in sysbench output:\n{out}"))
}

fn parse_report(out: &str) -> Report {
    Report {
        reads: field(out, "read:"),
        writes: field(out, "write:"),
        transactions: field(out, "transactions:"),
        ignored_errors: field(out, "ignored errors:"),
        reconnects: field(out, "reconnects:"),
    }
}

struct Bench<'a> {
    bin: &'a PathBuf,
    port: u16,
    script: &'a str,
    tables: u32,
    db: String,
}

impl Bench<'_> {
    /// Runs one sysbench command; asserts exit 0 and no error output; returns stdout.
    fn cmd(&self, command: &str, mode: &str, threads: u32, extra: &[&str]) -> String {
        let out = Command::new(self.bin)
            .arg(self.script)
            .arg("--db-driver=mysql")
            .arg("--mysql-host=127.0.0.1")
            .arg(format!("--mysql-port={}", self.port))
            .arg("--mysql-user=root")
            .arg(format!("--mysql-db={}", self.db))
            .arg("--mysql-ignore-errors=1213,1205,1020")
            .arg(format!("--db-ps-mode={mode}"))
            .arg(format!("--threads={threads}"))
            .arg(format!("--tables={}", self.tables))
            .arg(format!("--table-size={TABLE_SIZE}"))
            .arg("--rand-seed=1")
            .args(extra)
            .arg(command)
            .output()
            .expect("run sysbench");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let what = format!(
            "sysbench {} {command} --db-ps-mode={mode} --threads={threads}",
            self.script
        );
        assert!(
            out.status.success(),
            "{what} failed ({}):\n{stdout}\n{stderr}",
            out.status
        );
        for line in stdout.lines().chain(stderr.lines()) {
            let l = line.to_ascii_lowercase();
            assert!(
                !l.contains("fatal") && !l.contains("error:") && !l.contains("failed"),
                "{what}: {line}\n{stdout}\n{stderr}"
            );
        }
        stdout
    }
}

fn connect(b: &Basalt, db: &str) -> Conn {
    Conn::new(Opts::from_url(&b.url_db(db)).expect("url")).expect("connect")
}

fn count(c: &mut Conn, sql: &str) -> u64 {
    c.query_first::<u64, _>(sql)
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .unwrap_or(0)
}

/// The secondary index `k_N` of table `sbtestN` agrees with the table: same rows,
/// same `k` values.
fn check_index(c: &mut Conn, n: u32) -> u64 {
    let table = format!("sbtest{n}");
    let k = format!("k_{n}");
    let by_pk = count(
        c,
        &format!("select count(*) from {table} force index (primary)"),
    );
    let by_k = count(
        c,
        &format!("select count(*) from {table} force index ({k})"),
    );
    assert_eq!(
        by_pk, by_k,
        "{table}: PRIMARY and {k} disagree on row count"
    );
    let sum = |c: &mut Conn, idx: &str| -> Option<String> {
        c.query_first(format!(
            "select concat(coalesce(sum(k), 0), '/', coalesce(sum(id), 0)) \
             from {table} force index ({idx}) where k > 0"
        ))
        .expect("sum")
    };
    assert_eq!(sum(c, "primary"), sum(c, &k), "{table}: sums differ");
    let rows_over_k: u64 = count(
        c,
        &format!(
            "select count(*) from {table} force index ({k}) where k between 1 and {}",
            TABLE_SIZE / 2
        ),
    );
    let rows_over_pk: u64 = count(
        c,
        &format!(
            "select count(*) from {table} ignore index ({k}) where k between 1 and {}",
            TABLE_SIZE / 2
        ),
    );
    assert_eq!(
        rows_over_k, rows_over_pk,
        "{table}: k range via index vs scan"
    );
    // Every row readable by key through the index.
    let dup: u64 = count(
        c,
        &format!("select count(*) from (select id from {table} group by id having count(*) > 1) d"),
    );
    assert_eq!(dup, 0, "{table}: duplicate ids");
    by_pk
}

/// What the table should hold after a run of `script`.
fn expect_rows(script: &str, rows: u64, report: &Report, tables: u32) {
    let per_table_max = TABLE_SIZE;
    match script {
        "oltp_delete" => assert!(rows <= per_table_max * tables as u64, "{script}: {rows}"),
        "oltp_insert" => {
            let want = TABLE_SIZE * tables as u64 + report.writes;
            if report.ignored_errors == 0 {
                assert_eq!(rows, want, "{script}: every insert adds a row");
            } else {
                assert!(rows <= want && rows >= TABLE_SIZE * tables as u64);
            }
        }
        // Delete+insert of the same id in one transaction, updates: the count stays.
        _ => assert_eq!(rows, TABLE_SIZE * tables as u64, "{script}: row count"),
    }
}

/// prepare, run, check, cleanup for each (mode, threads) combination.
fn run_script(script: &str, tables: u32, combos: &[(&str, u32)], extra: &[&str]) {
    let Some(bin) = sysbench() else { return };
    let b = Basalt::start();
    let db = format!("sb_{script}");
    let mut admin = Conn::new(Opts::from_url(&b.url()).expect("url")).expect("connect");
    admin
        .query_drop(format!("create database {db}"))
        .expect("create database");
    let bench = Bench {
        bin: &bin,
        port: b.port,
        script,
        tables,
        db: db.clone(),
    };
    for &(mode, threads) in combos {
        // bulk_insert builds one multi-row INSERT per thread for as long as it runs:
        // bound it by events (rows) rather than time.
        let mut run_args = if script == "bulk_insert" {
            vec!["--time=0", "--events=20000"]
        } else {
            vec!["--time=2"]
        };
        run_args.extend_from_slice(extra);
        bench.cmd("prepare", mode, threads, extra);
        let mut c = connect(&b, &db);
        let bulk = script == "bulk_insert";
        let made = if bulk { threads } else { tables };
        for t in 1..=made {
            let n = count(&mut c, &format!("select count(*) from sbtest{t}"));
            assert_eq!(
                n,
                if bulk { 0 } else { TABLE_SIZE },
                "sbtest{t} after prepare"
            );
        }
        let out = bench.cmd("run", mode, threads, &run_args);
        let report = parse_report(&out);
        println!("{script} --db-ps-mode={mode} --threads={threads}: {report:?}");
        assert_eq!(report.reconnects, 0, "{script}: reconnects\n{out}");
        assert!(
            report.transactions > 0 || report.reads + report.writes > 0,
            "{script}: nothing ran\n{out}"
        );
        if bulk {
            for t in 1..=threads {
                let n = count(&mut c, &format!("select count(*) from sbtest{t}"));
                let max = count(
                    &mut c,
                    &format!("select coalesce(max(id), 0) from sbtest{t}"),
                );
                let sum_k = count(
                    &mut c,
                    &format!("select coalesce(sum(k), 0) from sbtest{t}"),
                );
                // Each thread inserts ids 1, 2, 3, ... with k = id.
                assert_eq!(n, max, "sbtest{t}: ids 1..n");
                assert_eq!(sum_k, n * (n + 1) / 2, "sbtest{t}: k = id");
            }
        } else {
            let mut rows = 0;
            for t in 1..=tables {
                rows += check_index(&mut c, t);
            }
            expect_rows(script, rows, &report, tables);
        }
        drop(c);
        bench.cmd("cleanup", mode, threads, extra);
        let left: Vec<String> = admin
            .query(format!("show tables from {db}"))
            .expect("show tables");
        assert!(left.is_empty(), "cleanup left {left:?}");
    }
    // The server is still healthy.
    let one: Option<i32> = admin.query_first("select 1").expect("select 1");
    assert_eq!(one, Some(1));
}

#[test]
fn oltp_point_select() {
    run_script(
        "oltp_point_select",
        2,
        &[("auto", 1), ("disable", 64), ("auto", 64)],
        &[],
    );
}

#[test]
fn oltp_read_only() {
    run_script("oltp_read_only", 2, &[("auto", 64), ("disable", 8)], &[]);
}

#[test]
fn oltp_read_write() {
    run_script(
        "oltp_read_write",
        2,
        &[("auto", 8), ("disable", 1), ("auto", 64)],
        &[],
    );
}

#[test]
fn oltp_write_only() {
    run_script("oltp_write_only", 2, &[("auto", 64), ("disable", 8)], &[]);
}

#[test]
fn oltp_update_index() {
    run_script("oltp_update_index", 2, &[("auto", 8), ("disable", 64)], &[]);
}

#[test]
fn oltp_update_non_index() {
    run_script(
        "oltp_update_non_index",
        2,
        &[("auto", 64), ("disable", 1)],
        &[],
    );
}

#[test]
fn oltp_delete() {
    run_script("oltp_delete", 2, &[("auto", 8), ("disable", 64)], &[]);
}

#[test]
fn oltp_insert() {
    run_script("oltp_insert", 2, &[("auto", 64), ("disable", 8)], &[]);
}

#[test]
fn select_random_points() {
    // These two scripts support one table only.
    run_script(
        "select_random_points",
        1,
        &[("auto", 64), ("disable", 1)],
        &[],
    );
}

#[test]
fn select_random_ranges() {
    run_script(
        "select_random_ranges",
        1,
        &[("auto", 8), ("disable", 64)],
        &[],
    );
}

#[test]
fn bulk_insert() {
    run_script("bulk_insert", 1, &[("auto", 8), ("disable", 1)], &[]);
}
