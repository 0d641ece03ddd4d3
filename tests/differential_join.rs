//! `JOIN ... USING` and `NATURAL JOIN` against MariaDB: the columns `SELECT *`
//! shows (names and order), the rows, unqualified and qualified references to the
//! joined columns, INNER/LEFT/RIGHT joins, chains of three tables, comma joins,
//! NATURAL joins without common columns, and the errors (1054, 1052 with
//! MariaDB's messages). Also the query Prometheus' mysqld_exporter runs for
//! auto_increment columns, and the exporter itself against basaltd.

use basalt_tests::mariadb::{self, MariaDb};
use basalt_tests::{http_get, which, Basalt, KillOnDrop};
use mysql::prelude::*;
use mysql::{Conn, Opts, Value};
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Column names and rows, or the error (code and message).
#[derive(Debug, PartialEq)]
enum Outcome {
    Rows(Vec<String>, Vec<Vec<Option<String>>>),
    Error(u16, String),
}

fn run(c: &mut Conn, sql: &str, ordered: bool) -> Outcome {
    let mut result = match c.query_iter(sql) {
        Ok(r) => r,
        Err(mysql::Error::MySqlError(e)) => return Outcome::Error(e.code, e.message),
        Err(e) => panic!("{sql}: {e}"),
    };
    let names = result
        .columns()
        .as_ref()
        .iter()
        .map(|c| c.name_str().into_owned())
        .collect();
    let mut rows = Vec::new();
    for row in result.by_ref() {
        let row = match row {
            Ok(r) => r,
            Err(mysql::Error::MySqlError(e)) => return Outcome::Error(e.code, e.message),
            Err(e) => panic!("{sql}: {e}"),
        };
        rows.push(
            row.unwrap()
                .into_iter()
                .map(|v| match v {
                    Value::NULL => None,
                    Value::Bytes(b) => Some(String::from_utf8_lossy(&b).into_owned()),
                    other => Some(format!("{other:?}")),
                })
                .collect(),
        );
    }
    if !ordered {
        rows.sort();
    }
    Outcome::Rows(names, rows)
}

const SETUP: &[&str] = &[
    "create table t1 (a int, b int, x varchar(5))",
    "create table t2 (a int, c int, x varchar(5))",
    "create table t3 (b int, c int, x varchar(5))",
    "create table t4 (p int, q int)",
    "create table u1 (ID int primary key, name varchar(10))",
    "create table u2 (id int primary key, Name varchar(10), n int)",
    "insert into t1 values (1,1,'a'),(2,2,'b'),(null,3,'c'),(4,null,'A')",
    "insert into t2 values (1,10,'A'),(3,30,'d'),(null,40,'e'),(4,40,null)",
    "insert into t3 values (1,10,'a'),(2,30,'x'),(3,40,'A'),(null,10,null)",
    "insert into t4 values (1,2),(3,4)",
    "insert into u1 values (1,'one'),(2,'two'),(3,'three')",
    "insert into u2 values (1,'ONE',10),(3,'drei',30),(4,'vier',40)",
];

/// Each statement; `true` when its ORDER BY makes the row order total.
const QUERIES: &[(&str, bool)] = &[
    ("select * from t1 join t2 using (a)", false),
    ("select * from t1 inner join t2 using (a, x)", false),
    ("select * from t1 left join t2 using (a)", false),
    ("select * from t1 right join t2 using (a)", false),
    ("select * from t1 left outer join t2 using (x)", false),
    ("select * from t1 right outer join t2 using (x)", false),
    ("select * from t1 natural join t2", false),
    ("select * from t1 natural left join t2", false),
    ("select * from t1 natural right join t2", false),
    ("select * from t1 natural join t3", false),
    ("select * from t1 natural join t4", false),
    (
        "select * from t1 join t2 using (a) join t3 using (c)",
        false,
    ),
    (
        "select * from t1 join t2 using (a) join t3 using (b)",
        false,
    ),
    (
        "select * from t1 join t2 using (a) left join t3 using (x)",
        false,
    ),
    (
        "select * from t1 left join t2 using (a) left join t3 using (c)",
        false,
    ),
    ("select * from t1 natural join t2 natural join t3", false),
    ("select * from t1, t2 join t3 using (c)", false),
    ("select * from t4, t1 natural join t2", false),
    ("select * from t1 join t2 using (a, a)", false),
    (
        "select * from t1 natural join (select 5 as q, 1 as a) d",
        false,
    ),
    ("select t1.*, t2.* from t1 join t2 using (a)", false),
    ("select t2.*, a from t1 left join t2 using (a)", false),
    ("select a, t1.a, t2.a from t1 left join t2 using (a)", false),
    (
        "select a, t1.a, t2.a from t1 right join t2 using (a)",
        false,
    ),
    ("select x, t1.x, t2.x from t1 join t2 using (x)", false),
    ("select x from t1 right join t2 using (x)", false),
    (
        "select a, x from t1 join t2 using (a) where a > 0 order by a",
        true,
    ),
    (
        "select a, count(*) from t1 left join t2 using (a) group by a order by a",
        true,
    ),
    ("select a from t1 join t2 using (a) order by a desc", true),
    (
        "select c, a, b from t1 join t2 using (a) join t3 using (c) order by c",
        true,
    ),
    ("select id from u1 join u2 using (id)", false),
    ("select ID, name, n from u1 join u2 using (ID)", false),
    ("select * from u1 join u2 using (id)", false),
    ("select * from u1 natural join u2", false),
    ("select * from u1 natural left join u2", false),
    (
        "select id, n from u1 left join u2 using (id) where n is null",
        false,
    ),
    ("select u1.id, u2.id from u1 join u2 using (id)", false),
    (
        "select a, (select count(*) from t3 where t3.b = a) from t1 join t2 using (a)",
        false,
    ),
    (
        "select a from t1 join t2 using (a) where a in (select b from t3)",
        false,
    ),
    // Errors.
    ("select * from t1 join t2 using (b)", false),
    ("select * from t1 join t2 using (zz)", false),
    (
        "select * from t1 join t2 on t1.a = t2.a join t3 using (x)",
        false,
    ),
    ("select a from t1 join t2 using (a), t3", false),
    ("select a from t1 join t2 on true", false),
    (
        "select c from t1 join t2 using (a) join t3 using (b)",
        false,
    ),
    ("select a from t1, t2 join t3 using (b)", false),
    ("select t3.a from t1 natural join t2", false),
];

/// The query of Prometheus' mysqld_exporter (collector/info_schema_auto_increment.go).
const EXPORTER_AUTO_INCREMENT: &str = "
    SELECT table_schema, table_name, column_name, auto_increment,
      pow(2, case data_type
        when 'tinyint'   then 7
        when 'smallint'  then 15
        when 'mediumint' then 23
        when 'int'       then 31
        when 'bigint'    then 63
        end+(column_type like '% unsigned'))-1 as max_int
      FROM information_schema.tables t
      JOIN information_schema.columns c USING (table_schema,table_name)
      WHERE c.extra = 'auto_increment' AND t.auto_increment IS NOT NULL";

fn setup_auto_increment(c: &mut Conn) {
    for s in [
        "create table ai (id int unsigned auto_increment primary key, v int)",
        "create table ai2 (k bigint auto_increment primary key)",
        "create table ai3 (k tinyint auto_increment primary key)",
        "insert into ai (v) values (1), (2)",
        "insert into ai2 values (), (), ()",
    ] {
        c.query_drop(s).unwrap_or_else(|e| panic!("{s}: {e}"));
    }
}

#[test]
#[ignore = "needs mariadb-server; run by .ci/run"]
fn using_and_natural_joins_match_mariadb() {
    if !mariadb::available() {
        eprintln!("mariadb-server not installed; skipping");
        return;
    }
    let b = Basalt::start();
    let m = MariaDb::start(&["--innodb-flush-log-at-trx-commit=2"]);
    let mut conns =
        [&b.url(), &m.url()].map(|u| Conn::new(Opts::from_url(u).expect("url")).expect("connect"));
    for c in conns.iter_mut() {
        c.query_drop("create database j").expect("create database");
        c.query_drop("use j").expect("use");
        for s in SETUP {
            c.query_drop(s).unwrap_or_else(|e| panic!("{s}: {e}"));
        }
        setup_auto_increment(c);
    }
    let [basalt, maria] = &mut conns;
    for (q, ordered) in QUERIES {
        let (x, y) = (run(basalt, q, *ordered), run(maria, q, *ordered));
        assert_eq!(x, y, "\nquery: {q}\nbasalt:  {x:?}\nmariadb: {y:?}");
    }
    // The exporter's query, on this test's schema (MariaDB also lists its own
    // system tables).
    let q = format!("{EXPORTER_AUTO_INCREMENT} AND t.table_schema = 'j'");
    let (x, y) = (run(basalt, &q, false), run(maria, &q, false));
    assert_eq!(x, y, "\nquery: {q}");
    let Outcome::Rows(_, rows) = x else {
        panic!("exporter query failed: {x:?}");
    };
    assert_eq!(rows.len(), 3, "{rows:?}");
}

#[test]
fn mysqld_exporter_reports_auto_increment_columns() {
    let Some(bin) = which("prometheus-mysqld-exporter") else {
        eprintln!("prometheus-mysqld-exporter not installed; skipping");
        return;
    };
    let b = Basalt::start();
    let mut c = Conn::new(Opts::from_url(&b.url()).expect("url")).expect("connect");
    c.query_drop("create database j").expect("create database");
    c.query_drop("use j").expect("use");
    setup_auto_increment(&mut c);
    let port = basalt_tests::free_port();
    let child = Command::new(bin)
        .env(
            "DATA_SOURCE_NAME",
            format!("root@tcp(127.0.0.1:{})/", b.port),
        )
        .arg(format!("--web.listen-address=127.0.0.1:{port}"))
        .arg("--collect.auto_increment.columns")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start mysqld_exporter");
    let mut exporter = KillOnDrop(child);
    let deadline = Instant::now() + Duration::from_secs(20);
    let metrics = loop {
        if let Some(body) = http_get(port, "/metrics") {
            break body;
        }
        assert!(Instant::now() < deadline, "mysqld_exporter did not answer");
        std::thread::sleep(Duration::from_millis(100));
    };
    let _ = exporter.0.kill();
    let mut log = String::new();
    if let Some(mut e) = exporter.0.stderr.take() {
        let _ = e.read_to_string(&mut log);
    }
    for want in [
        r#"mysql_info_schema_auto_increment_column{column="id",schema="j",table="ai"} 3"#,
        r#"mysql_info_schema_auto_increment_column{column="k",schema="j",table="ai2"} 4"#,
        r#"mysql_info_schema_auto_increment_column_max{column="id",schema="j",table="ai"} 4.294967295e+09"#,
        r#"mysql_info_schema_auto_increment_column_max{column="k",schema="j",table="ai3"} 127"#,
    ] {
        assert!(
            metrics.lines().any(|l| l == want),
            "missing {want}\nmetrics:\n{}\nexporter log:\n{log}",
            metrics
                .lines()
                .filter(|l| l.contains("auto_increment"))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
    assert!(
        !log.contains("Error from scraper\" scraper=auto_increment.columns"),
        "the auto_increment scraper failed:\n{log}"
    );
}
