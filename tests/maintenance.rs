//! Table maintenance statements end to end: CHECK TABLE (including a table whose
//! file is damaged on disk), CHECKSUM TABLE (MariaDB's numbers), ANALYZE,
//! OPTIMIZE and REPAIR TABLE with MariaDB's result rows, and `mariadb-check`.
//! Differential (`--ignored`): the same statements on a real MariaDB give the
//! same rows.

use basalt_tests::mariadb::{self, MariaDb};
use basalt_tests::{which, Basalt};
use mysql::prelude::*;
use mysql::{Conn, Opts};
use std::os::unix::fs::FileExt;
use std::process::{Command, Stdio};

fn conn(url: &str) -> Conn {
    Conn::new(Opts::from_url(url).expect("url")).expect("connect")
}

/// The rows of a statement, every cell as text (NULL as "NULL").
fn rows(c: &mut Conn, sql: &str) -> Vec<Vec<String>> {
    let out: Vec<mysql::Row> = c.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    out.into_iter()
        .map(|r| {
            (0..r.len())
                .map(|i| match r.as_ref(i).expect("cell") {
                    mysql::Value::NULL => "NULL".to_string(),
                    mysql::Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
                    other => other.as_sql(true),
                })
                .collect()
        })
        .collect()
}

fn row(cells: &[&str]) -> Vec<String> {
    cells.iter().map(|s| s.to_string()).collect()
}

/// Tables and rows whose checksums were taken on MariaDB 10.11.
const FIXTURE: &str = "
create table t (id int primary key, v varchar(20), k int, key (k));
insert into t values (1, 'a', 1), (2, 'b''x', 2), (3, null, 3);
create table u (a bigint, b decimal(10,2), c datetime, d blob);
insert into u values (1, 2.5, '2020-01-01 00:00:00', 0x00ff);
create table w (a tinyint, b smallint unsigned, c mediumint, d float, e double,
  g date, h time(3), i timestamp(2) null, j year, k datetime(6), l decimal(20,7),
  m text, n varbinary(10), o binary(3));
insert into w values (-1, 65535, -8388608, 1.5, -2.25, '2024-02-29', '-12:34:56.789',
  '2020-01-01 00:00:01.25', 2024, '2024-05-06 07:08:09.123456', -12345678901.2345678,
  'txt', 0x0001, 'x'), (null, null, null, null, null, null, null, null, null, null,
  null, null, null, null);
create table cs (f char(5) character set utf8mb4, g char(3) character set latin1,
  h char(4) character set utf8mb3);
insert into cs values ('ab', 'é', 'x'), ('', '', null);
create table mem (a int) engine=memory;
";

fn seeded(url: &str) -> Conn {
    let mut c = conn(url);
    c.query_drop("create database d").expect("db");
    c.query_drop("use d").expect("use");
    for stmt in FIXTURE.split(';').filter(|s| !s.trim().is_empty()) {
        c.query_drop(stmt).unwrap_or_else(|e| panic!("{stmt}: {e}"));
    }
    c
}

/// Statements whose results must be MariaDB's, row for row.
const STATEMENTS: &[&str] = &[
    "check table t",
    "check table t, mem, nosuch",
    "check tables t extended",
    "check table t quick fast medium changed",
    "analyze table t",
    "analyze no_write_to_binlog table t, nosuch",
    "optimize table mem",
    "repair table t",
    "repair local table mem quick",
    "checksum table t, u, nosuch",
    "checksum table t extended",
    "checksum table t quick",
    "checksum table w",
    "checksum table cs",
    "checksum table mem",
];

#[test]
fn maintenance_statements_answer_with_mariadbs_rows() {
    let b = Basalt::start();
    let mut c = seeded(&b.url());
    assert_eq!(
        rows(&mut c, "check table t"),
        [row(&["d.t", "check", "status", "OK"])]
    );
    assert_eq!(
        rows(&mut c, "check table t, mem, nosuch"),
        [
            row(&["d.t", "check", "status", "OK"]),
            row(&[
                "d.mem",
                "check",
                "note",
                "The storage engine for the table doesn't support check"
            ]),
            row(&[
                "d.nosuch",
                "check",
                "Error",
                "Table 'd.nosuch' doesn't exist"
            ]),
            row(&["d.nosuch", "check", "status", "Operation failed"]),
        ]
    );
    assert_eq!(
        rows(&mut c, "repair table t"),
        [row(&[
            "d.t",
            "repair",
            "note",
            "The storage engine for the table doesn't support repair"
        ])]
    );
    assert_eq!(
        rows(&mut c, "optimize table t"),
        [
            row(&[
                "d.t",
                "optimize",
                "note",
                "Table does not support optimize, doing recreate + analyze instead"
            ]),
            row(&["d.t", "optimize", "status", "OK"]),
        ]
    );
    assert_eq!(
        rows(&mut c, "analyze table t, nosuch"),
        [
            row(&["d.t", "analyze", "status", "OK"]),
            row(&[
                "d.nosuch",
                "analyze",
                "Error",
                "Table 'd.nosuch' doesn't exist"
            ]),
            row(&["d.nosuch", "analyze", "status", "Operation failed"]),
        ]
    );
    // CHECKSUM TABLE gives MariaDB 10.11's numbers for the same rows.
    for (table, sum) in [
        ("t", "118463012"),
        ("u", "2339659227"),
        ("cs", "4039980058"),
    ] {
        assert_eq!(
            rows(&mut c, &format!("checksum table {table}")),
            [row(&[&format!("d.{table}"), sum])],
            "{table}"
        );
    }
    assert_eq!(
        rows(&mut c, "checksum table t quick"),
        [row(&["d.t", "NULL"])]
    );
    assert_eq!(
        rows(&mut c, "checksum table nosuch"),
        [row(&["d.nosuch", "NULL"])]
    );
    let w: Vec<(String, u16, String)> = c.query("show warnings").expect("warnings");
    assert_eq!(
        w,
        [(
            "Error".into(),
            1146,
            "Table 'd.nosuch' doesn't exist".into()
        )]
    );
    // The checksum follows the data.
    c.query_drop("update t set k = 4 where id = 3")
        .expect("update");
    assert_ne!(
        rows(&mut c, "checksum table t"),
        [row(&["d.t", "118463012"])]
    );
    // Unsupported forms say so.
    let e = c
        .query_drop("analyze table t persistent for all")
        .expect_err("persistent");
    assert!(
        matches!(e, mysql::Error::MySqlError(ref m) if m.code == 1235),
        "{e}"
    );
    let e = c.query_drop("check table").expect_err("no table");
    assert!(
        matches!(e, mysql::Error::MySqlError(ref m) if m.code == 1064),
        "{e}"
    );
}

#[test]
fn analyze_table_refreshes_the_statistics_the_planner_uses() {
    let b = Basalt::start();
    let mut c = seeded(&b.url());
    let values: Vec<String> = (10..1010).map(|i| format!("({i}, 'x', 7)")).collect();
    c.query_drop(format!("insert into t values {}", values.join(",")))
        .expect("insert");
    c.query_drop("analyze table t").expect("analyze");
    let card: Vec<(String, u64)> = c
        .query("select index_name, cardinality from information_schema.statistics where table_schema = 'd' and table_name = 't' order by index_name")
        .expect("statistics");
    assert_eq!(card, [("k".to_string(), 4), ("PRIMARY".to_string(), 1003)]);
}

/// The file of the table with id `id`.
fn table_file(b: &Basalt, name: &str) -> std::path::PathBuf {
    let catalog = std::fs::read_to_string(b.datadir.join("catalog.json")).expect("catalog");
    // Tables are listed as `"id": N, "schema": "...", "name": "..."` (in order).
    let needle = format!("\"name\": \"{name}\"");
    let at = catalog.find(&needle).expect("table in the catalog");
    let id_at = catalog[..at].rfind("\"id\": ").expect("id before the name");
    let id: String = catalog[id_at + 6..]
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    b.datadir.join(format!("tables/{id}.bdt"))
}

#[test]
fn optimize_table_rebuilds_the_table_with_its_rows() {
    let b = Basalt::start();
    let mut c = seeded(&b.url());
    c.query_drop("create table big (id int primary key, pad varchar(200), key (pad))")
        .expect("create");
    for chunk in 0..20 {
        let values: Vec<String> = (0..1000)
            .map(|i| format!("({}, repeat('p', 200))", chunk * 1000 + i))
            .collect();
        c.query_drop(format!("insert into big values {}", values.join(",")))
            .expect("insert");
    }
    c.query_drop("delete from big where id % 20 <> 0")
        .expect("delete");
    let sum = "select count(*), sum(id), sum(length(pad)) from big";
    let before: Vec<(u64, u64, u64)> = c.query(sum).expect("sum");
    let file_before = table_file(&b, "big");
    assert_eq!(
        rows(&mut c, "optimize table big"),
        [
            row(&[
                "d.big",
                "optimize",
                "note",
                "Table does not support optimize, doing recreate + analyze instead"
            ]),
            row(&["d.big", "optimize", "status", "OK"]),
        ]
    );
    let after: Vec<(u64, u64, u64)> = c.query(sum).expect("sum");
    assert_eq!(before, after);
    assert_eq!(after[0].0, 1000);
    // Rebuilt: a new file holding the 1,000 rows left (20,000 rows took 4 MB).
    let file_after = table_file(&b, "big");
    assert_ne!(file_before, file_after);
    assert!(!file_before.exists(), "the old file is gone");
    let size = std::fs::metadata(&file_after).expect("new file").len();
    assert!(size < 2 << 20, "{size} bytes for 1,000 rows");
    assert_eq!(rows(&mut c, "check table big")[0][3], "OK");
}

#[test]
fn check_table_reports_a_damaged_page_of_the_tables_file() {
    let b = Basalt::start();
    let mut c = conn(&b.url());
    c.query_drop("create database x").expect("db");
    c.query_drop("create table x.big (id int primary key, v varchar(100), k int, key (k))")
        .expect("create");
    c.query_drop("create table x.other (id int primary key)")
        .expect("create");
    c.query_drop("insert into x.other values (1), (2)")
        .expect("insert");
    let values: Vec<String> = (0..3000)
        .map(|i| format!("({i}, '{}', {})", "x".repeat(80), i % 7))
        .collect();
    c.query_drop(format!("insert into x.big values {}", values.join(",")))
        .expect("insert");
    // Write the tables' pages into their files (a checkpoint).
    c.query_drop("flush engine logs").expect("checkpoint");
    assert_eq!(
        rows(&mut c, "check table x.big"),
        [row(&["x.big", "check", "status", "OK"])]
    );
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(table_file(&b, "big"))
        .expect("table file");
    let at = 10 * 16384 + 5000;
    let mut byte = [0u8];
    file.read_exact_at(&mut byte, at).expect("read");
    byte[0] ^= 0x20;
    file.write_all_at(&byte, at).expect("damage");
    let out = rows(&mut c, "check table x.big, x.other");
    assert_eq!(out.len(), 3, "{out:?}");
    assert_eq!(&out[0][..3], ["x.big", "check", "Warning"]);
    assert!(out[0][3].contains("checksum mismatch"), "{out:?}");
    assert_eq!(out[1], row(&["x.big", "check", "error", "Corrupt"]));
    assert_eq!(out[2], row(&["x.other", "check", "status", "OK"]));
}

fn run_check(port: u16, args: &[&str]) -> (i32, String) {
    let out = Command::new("mariadb-check")
        .args(["-h127.0.0.1", "-uroot", "--skip-ssl"])
        .arg(format!("-P{port}"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run mariadb-check");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn mariadb_check_checks_analyzes_optimizes_and_repairs() {
    if which("mariadb-check").is_none() {
        eprintln!("skipped: mariadb-check not installed");
        return;
    }
    let b = Basalt::start();
    drop(seeded(&b.url()));
    let (code, out) = run_check(b.port, &["--check", "d"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("d.t                                                OK"),
        "{out}"
    );
    assert!(
        out.contains("The storage engine for the table doesn't support check"),
        "{out}"
    );
    let (code, out) = run_check(b.port, &["--analyze", "--databases", "d"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("d.u                                                OK"),
        "{out}"
    );
    let (code, out) = run_check(b.port, &["--optimize", "d", "t"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("doing recreate + analyze instead"), "{out}");
    let (code, out) = run_check(b.port, &["--repair", "d", "t"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("doesn't support repair"), "{out}");
    let (code, out) = run_check(b.port, &["--all-databases"]);
    assert_eq!(code, 0, "{out}");
}

#[test]
#[ignore]
fn differential_maintenance_results_match_mariadb() {
    if !mariadb::available() {
        eprintln!("skipped: MariaDB not installed");
        return;
    }
    let b = Basalt::start();
    let m = MariaDb::start(&[]);
    let mut cb = seeded(&b.url());
    let mut cm = seeded(&m.url());
    for sql in STATEMENTS {
        assert_eq!(rows(&mut cb, sql), rows(&mut cm, sql), "{sql}");
    }
    // OPTIMIZE rebuilds the table on both, with InnoDB's rows.
    let ob = rows(&mut cb, "optimize table t");
    let om = rows(&mut cm, "optimize table t");
    assert_eq!(ob, om);
    assert_eq!(
        om[0][3],
        "Table does not support optimize, doing recreate + analyze instead"
    );
}
