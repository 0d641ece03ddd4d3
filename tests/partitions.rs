//! Partitioned tables over TCP: CREATE TABLE ... PARTITION BY RANGE / LIST /
//! HASH / KEY, rows routed and read back, `t PARTITION (p)`, EXPLAIN PARTITIONS,
//! information_schema.PARTITIONS, ALTER TABLE partition management, restart and
//! a dump that loads back. Differential (`--ignored`): tests/data/partitions.sql
//! against a real MariaDB.

use basalt_tests::mariadb::{self, MariaDb};
use basalt_tests::{cell, script, Basalt};
use mysql::prelude::*;
use mysql::{Conn, Opts};

fn conn(url: &str) -> Conn {
    Conn::new(Opts::from_url(url).expect("url")).expect("connect")
}

fn err(c: &mut Conn, sql: &str) -> (u16, String) {
    match c.query_drop(sql) {
        Err(mysql::Error::MySqlError(e)) => (e.code, e.message),
        other => panic!("{sql}: expected an error, got {other:?}"),
    }
}

fn rows(c: &mut Conn, sql: &str) -> Vec<Vec<Option<String>>> {
    let got: Vec<mysql::Row> = c.query(sql).expect(sql);
    got.into_iter()
        .map(|r| r.unwrap().iter().map(cell).collect())
        .collect()
}

fn flat(c: &mut Conn, sql: &str) -> Vec<String> {
    rows(c, sql)
        .into_iter()
        .map(|r| {
            r.into_iter()
                .map(|v| v.unwrap_or_else(|| "NULL".into()))
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect()
}

fn setup(c: &mut Conn) {
    c.query_drop("create database pt").expect("create database");
    c.query_drop("use pt").expect("use");
}

#[test]
fn range_table_routes_selects_and_restarts() {
    let mut b = Basalt::start();
    let mut c = conn(&b.url());
    setup(&mut c);
    c.query_drop(
        "create table r (a int primary key, b varchar(10), key kb (b)) partition by range (a) \
         (partition p0 values less than (10), partition p1 values less than (100), \
         partition p2 values less than maxvalue)",
    )
    .expect("create");
    c.query_drop("insert into r values (1,'x'),(5,'y'),(10,'z'),(50,'x'),(100,'w'),(-5,'u')")
        .expect("insert");
    assert_eq!(
        flat(&mut c, "select a from r partition (p1) order by a"),
        ["10", "50"]
    );
    assert_eq!(
        flat(&mut c, "select a from r partition (p0, P2) order by a"),
        ["-5", "1", "5", "100"]
    );
    assert_eq!(
        err(&mut c, "insert into r partition (p0) values (50, 'no')"),
        (
            1748,
            "Found a row not matching the given partition set".into()
        )
    );
    assert_eq!(
        err(&mut c, "select * from r partition (nosuch)"),
        (1735, "Unknown partition 'nosuch' in table 'r'".into())
    );
    assert_eq!(
        err(&mut c, "insert into r values (50, 'dup')"),
        (1062, "Duplicate entry '50' for key 'PRIMARY'".into())
    );
    c.query_drop("update r set a = 500 where a = 5")
        .expect("move");
    assert_eq!(
        flat(&mut c, "select a from r partition (p2) order by a"),
        ["100", "500"]
    );
    let plan = rows(&mut c, "explain partitions select * from r where a = 50");
    assert_eq!(plan[0][3].as_deref(), Some("p1"), "{plan:?}");
    let plan = rows(&mut c, "explain partitions select * from r where a < 20");
    assert_eq!(plan[0][3].as_deref(), Some("p0,p1"), "{plan:?}");
    let plan = rows(&mut c, "explain partitions select * from r");
    assert_eq!(plan[0][3].as_deref(), Some("p0,p1,p2"), "{plan:?}");
    let plan = rows(&mut c, "explain partitions select * from r partition (p1)");
    assert_eq!(plan[0][3].as_deref(), Some("p1"), "{plan:?}");
    c.query_drop("create table np (a int)").expect("create");
    assert_eq!(
        err(&mut c, "select * from np partition (p0)"),
        (1747, "PARTITION () clause on non partitioned table".into())
    );
    let before = flat(&mut c, "select * from r order by a");
    let show: (String, String) = c
        .query_first("show create table r")
        .expect("show")
        .expect("row");
    b.restart(true);
    let mut c = conn(&b.url_db("pt"));
    assert_eq!(flat(&mut c, "select * from r order by a"), before);
    let again: (String, String) = c
        .query_first("show create table r")
        .expect("show")
        .expect("row");
    assert_eq!(again, show);
    assert_eq!(
        flat(&mut c, "select a from r partition (p0) order by a"),
        ["-5", "1"]
    );
}

#[test]
fn hash_list_key_and_errors() {
    let b = Basalt::start();
    let mut c = conn(&b.url());
    setup(&mut c);
    c.query_drop("create table h (a int, b int, key(b)) partition by hash(a) partitions 4")
        .expect("hash");
    c.query_drop("insert into h values (1,1),(2,2),(3,3),(4,4),(5,5),(null,6)")
        .expect("insert");
    assert_eq!(
        flat(&mut c, "select a from h partition (p1) order by a"),
        ["1", "5"]
    );
    assert_eq!(
        flat(&mut c, "select a from h partition (p0) order by b"),
        ["4", "NULL"]
    );
    c.query_drop("create table l (a int, b int) partition by list (a) (partition x values in (1,2), partition y values in (3,null))")
        .expect("list");
    assert_eq!(
        err(&mut c, "insert into l values (4, 1)"),
        (1526, "Table has no partition for value 4".into())
    );
    c.query_drop("insert into l values (1,1),(3,2),(null,3)")
        .expect("insert");
    assert_eq!(
        flat(&mut c, "select b from l partition (y) order by b"),
        ["2", "3"]
    );
    c.query_drop("create table k (a int primary key, b int) partition by key() partitions 3")
        .expect("key");
    c.query_drop("insert into k values (1,1),(2,2),(3,3),(4,4)")
        .expect("insert");
    assert_eq!(flat(&mut c, "select count(*) from k"), ["4"]);
    let (code, _) = err(
        &mut c,
        "create table bad (a int primary key, b int) partition by hash(b) partitions 2",
    );
    assert_eq!(code, 1503);
    let (code, _) = err(
        &mut c,
        "create temporary table tt (a int) partition by hash(a) partitions 2",
    );
    assert_eq!(code, 1562);
}

/// information_schema is complete from a connection's first statement (the
/// grants it filters by were loaded only by the first privilege check).
#[test]
fn information_schema_from_the_first_statement() {
    let b = Basalt::start();
    let mut c = conn(&b.url());
    setup(&mut c);
    c.query_drop("create table h (a int primary key) partition by hash (a) partitions 3")
        .expect("create");
    let mut fresh = conn(&b.url());
    assert_eq!(
        flat(
            &mut fresh,
            "select partition_name, partition_method from information_schema.partitions \
             where table_schema = 'pt' order by 1"
        ),
        ["p0,HASH", "p1,HASH", "p2,HASH"]
    );
}

#[test]
fn alter_partitions_and_restart() {
    let mut b = Basalt::start();
    let mut c = conn(&b.url());
    setup(&mut c);
    c.query_drop(
        "create table t (a int primary key, b int, key (b)) partition by range (a) \
         (partition p0 values less than (100), partition p1 values less than (200))",
    )
    .expect("create");
    let values: Vec<String> = (0..200).map(|i| format!("({i},{})", i % 7)).collect();
    c.query_drop(format!("insert into t values {}", values.join(",")))
        .expect("insert");
    c.query_drop("alter table t add partition (partition p2 values less than maxvalue)")
        .expect("add");
    c.query_drop("insert into t values (1000, 1)")
        .expect("insert");
    c.query_drop("alter table t drop partition p0")
        .expect("drop");
    assert_eq!(flat(&mut c, "select count(*), min(a) from t"), ["101,100"]);
    assert_eq!(flat(&mut c, "select count(*) from t where b = 3"), ["15"]);
    c.query_drop("insert into t values (5, 5)")
        .expect("p1 now starts at the bottom");
    assert_eq!(
        flat(&mut c, "select a from t partition (p1) order by a limit 2"),
        ["5", "100"]
    );
    c.query_drop("alter table t partition by hash (a) partitions 4")
        .expect("repartition");
    c.query_drop("alter table t add column c int default 7")
        .expect("add column");
    assert_eq!(
        err(&mut c, "alter table t exchange partition p0 with table t"),
        (
            1235,
            "This version of MariaDB doesn't yet support 'EXCHANGE PARTITION'".into()
        )
    );
    let before = flat(&mut c, "select * from t order by a");
    assert_eq!(before.len(), 102);
    b.restart(true);
    let mut c = conn(&b.url_db("pt"));
    assert_eq!(flat(&mut c, "select * from t order by a"), before);
    assert_eq!(
        flat(&mut c, "select count(*) from t partition (p1)"),
        flat(&mut c, "select count(*) from t where a % 4 = 1")
    );
    c.query_drop("alter table t remove partitioning")
        .expect("remove");
    assert_eq!(flat(&mut c, "select * from t order by a"), before);
}

#[test]
#[ignore]
fn differential_partitions_against_mariadb() {
    if !mariadb::available() {
        eprintln!("mariadbd not installed; skipped");
        return;
    }
    let text =
        std::fs::read_to_string(basalt_tests::workspace_root().join("tests/data/partitions.sql"))
            .expect("script");
    let mut m = MariaDb::start(&[]);
    let b = Basalt::start();
    let mut mc = conn(&m.url());
    let mut bc = conn(&b.url());
    for c in [&mut mc, &mut bc] {
        setup(c);
    }
    let (n, diffs) = script::compare(&text, &mut bc, &mut mc);
    m.stop();
    assert!(n > 40, "{n} statements compared");
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}
