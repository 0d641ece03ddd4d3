//! Differential tests: the same statements on basaltd and on a real MariaDB (the
//! oracle), comparing result sets (values as text, column names) and error codes.
//! Ignored by default because they need `mariadb-server`; `.ci/run` installs it and
//! runs them with `--ignored`.

use basalt_tests::mariadb::{self, MariaDb};
use basalt_tests::Basalt;
use mysql::prelude::*;
use mysql::{Conn, Opts, Value};

/// What a statement produced, in a form both servers can be compared on.
#[derive(Debug, PartialEq)]
enum Outcome {
    Rows {
        columns: Vec<String>,
        rows: Vec<Vec<Option<String>>>,
    },
    Affected(u64),
    Error(u16),
}

fn text(v: &Value) -> Option<String> {
    match v {
        Value::NULL => None,
        Value::Bytes(b) => Some(String::from_utf8_lossy(b).into_owned()),
        Value::Int(i) => Some(i.to_string()),
        Value::UInt(u) => Some(u.to_string()),
        Value::Float(f) => Some(f.to_string()),
        Value::Double(d) => Some(d.to_string()),
        other => Some(format!("{other:?}")),
    }
}

fn run(c: &mut Conn, sql: &str) -> Outcome {
    match c.query_iter(sql) {
        Err(mysql::Error::MySqlError(e)) => Outcome::Error(e.code),
        Err(e) => panic!("{sql}: {e}"),
        Ok(mut result) => {
            let columns: Vec<String> = result
                .columns()
                .as_ref()
                .iter()
                .map(|c| c.name_str().into_owned())
                .collect();
            let affected = result.affected_rows();
            let mut rows = Vec::new();
            for row in result.by_ref() {
                match row {
                    Ok(r) => rows.push(r.unwrap().iter().map(text).collect()),
                    Err(mysql::Error::MySqlError(e)) => return Outcome::Error(e.code),
                    Err(e) => panic!("{sql}: {e}"),
                }
            }
            if columns.is_empty() {
                Outcome::Affected(affected)
            } else {
                Outcome::Rows { columns, rows }
            }
        }
    }
}

struct Pair {
    basalt: Conn,
    maria: Conn,
    _b: Basalt,
    _m: MariaDb,
}

impl Pair {
    fn start() -> Option<Pair> {
        if !mariadb::available() {
            eprintln!("mariadb-server not installed; skipping");
            return None;
        }
        let b = Basalt::start();
        let m = MariaDb::start(&["--innodb-flush-log-at-trx-commit=2"]);
        let basalt = Conn::new(Opts::from_url(&b.url()).expect("url")).expect("basalt");
        let maria = Conn::new(Opts::from_url(&m.url()).expect("url")).expect("mariadb");
        Some(Pair {
            basalt,
            maria,
            _b: b,
            _m: m,
        })
    }

    /// Runs `sql` on both and asserts the outcomes agree.
    fn same(&mut self, sql: &str) {
        let b = run(&mut self.basalt, sql);
        let m = run(&mut self.maria, sql);
        assert_eq!(b, m, "\nstatement: {sql}\nbasalt:  {b:?}\nmariadb: {m:?}");
    }

    fn both(&mut self, sql: &str) {
        for c in [&mut self.basalt, &mut self.maria] {
            c.query_drop(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
        }
    }
}

#[test]
#[ignore = "needs mariadb-server; run by .ci/run"]
fn seed_benchmark_matches_mariadb() {
    let Some(mut p) = Pair::start() else { return };
    p.both("create database test1");
    p.both("use test1");
    for stmt in basalt_tests::seed_ddl()
        .lines()
        .filter(|l| !l.trim().is_empty())
    {
        p.same(stmt);
    }
    p.same("select count(*), min(i), sum(j = i), sum(k = i) from foo");
    // Ids above 1,000 depend on AUTO_INCREMENT batch allocation in INSERT ... SELECT.
    p.same("select count(*) from foo where i <= 1000");
    p.same("select i, j, k, l from foo where i between 990 and 1000 order by i");
    for q in [
        "select j from foo where i = 100",
        "select j from foo FORCE INDEX(`PRIMARY`) where i = 100",
        "select k from foo where j = 100",
        "select k from foo FORCE INDEX(`xj`) where j = 100",
        "select k from foo FORCE INDEX(`xjk`) where j = 100",
        "select j from foo where i >= 100 order by i limit 10",
        "select j from foo where i >= 100 order by i limit 100",
        "select k from foo FORCE INDEX(`xj`) where j >= 100 order by j limit 10",
        "select k from foo FORCE INDEX(`xj`) where j >= 100 order by j limit 100",
        "select k from foo FORCE INDEX(`xjk`) where j >= 100 order by j limit 10",
        "select k from foo FORCE INDEX(`xjk`) where j >= 100 order by j limit 100",
    ] {
        p.same(q);
    }
    // LIMIT 1000 crosses id 1,000; Basalt allocates AUTO_INCREMENT values for
    // INSERT ... SELECT in MariaDB's batches, so even those ids agree.
    p.same("select max(i) from foo");
    for q in [
        "select j from foo where i >= 100 order by i limit 1000",
        "select k from foo FORCE INDEX(`xj`) where j >= 100 order by j limit 1000",
        "select k from foo FORCE INDEX(`xjk`) where j >= 100 order by j limit 1000",
    ] {
        p.same(q);
    }
}

#[test]
#[ignore = "needs mariadb-server; run by .ci/run"]
fn sql_slice_matches_mariadb() {
    let Some(mut p) = Pair::start() else { return };
    let script = [
        "create database if not exists d1",
        "create database d1",
        "drop database if exists nosuch",
        "drop database nosuch",
        "use nosuch",
        "select * from t",
        "use d1",
        "select database()",
        "create table t (id int primary key auto_increment, a tinyint, b smallint unsigned, c bigint, \
         d decimal(10,2), e double, f float, g char(5), h varchar(20) not null default 'x', \
         i text, j blob, k date, l datetime, m timestamp null, n int default 7, key (a), unique key (h)) engine=InnoDB",
        "create table t (x int)",
        "create table if not exists t (x int)",
        "create table mem (k int primary key, v varchar(10)) engine=MEMORY",
        "insert into t (a, b, c, d, e, f, g, h, i, j, k, l) values \
         (1, 2, 3, 4.5, 6.25, 7.5, 'g1', 'h1', 'text', 'blob', '2024-01-02', '2024-01-02 03:04:05')",
        "insert into t (a, h) values (2, 'h2'), (3, 'h3'), (null, 'h4')",
        "insert into t (id, a, h) values (0, 5, 'h5')",
        "insert into t (id, a, h) values (null, 6, 'h6')",
        "insert into t (id, a, h) values (100, 7, 'h7')",
        "insert into t (a, h) values (8, 'h8')",
        "insert into t (a, h) values (9, 'h1')",
        "insert into t (a, h) values (10, 'h9'), (11, 'h1')",
        "insert into t (nosuch) values (1)",
        "insert into t (a, h) values (1)",
        "insert into t (a, h) values (1, null)",
        "select id, a, b, c, d, e, f, g, h, i, j, k, l, n from t order by id",
        "select count(*), sum(a), min(a), max(a), avg(a) from t",
        "select id from t where a is null",
        "select id from t where a in (1, 3, 5) order by id desc",
        "select id from t where a between 2 and 6 and h like 'h%' order by id limit 2 offset 1",
        "select id from t where not (a > 3) or h = 'h8' order by id",
        "select id, h from t where h like 'H_' order by h",
        "select id from t force index (a) where a >= 3 order by a",
        "select id from t use index (a) where a = 3",
        "select id from t ignore index (a) where a = 3",
        "select nosuch from t",
        "select id from t where nosuch = 1",
        "select id from t order by nosuch",
        "update t set a = a + 10 where id <= 3",
        "select id, a from t order by id",
        "update t set a = 0 order by id desc limit 2",
        "select id, a from t order by id",
        "update t set h = 'h2' where id = 1",
        "delete from t where a = 0",
        "delete from t order by id limit 1",
        "select id, a, h from t order by id",
        "insert into mem values (1, 'a'), (2, 'b')",
        "select * from mem order by k",
        "create index ix_c on t (c)",
        "create index ix_c on t (c)",
        "drop index ix_c on t",
        "drop index ix_c on t",
        "show tables",
        "show columns from t",
        "describe mem",
        "show create table mem",
        "show variables like 'max_allowed_packet'",
        "set @@session.sql_mode = 'STRICT_TRANS_TABLES'",
        "select @@sql_mode",
        "set autocommit = 0",
        "select @@autocommit",
        "set autocommit = 1",
        "set names utf8mb4",
        "select @@character_set_client, @@collation_connection",
        "select @@max_allowed_packet, @@wait_timeout",
        "select @@nosuchvar",
        "drop table nosuch",
        "drop table if exists nosuch",
        "drop table mem, t",
        "show tables",
        "drop database d1",
    ];
    for sql in script {
        p.same(sql);
    }
}

/// Multi-row INSERT and REPLACE of same-shaped literal rows (planned once per shape)
/// against MariaDB: values, DEFAULT and NULL, errors and warnings naming the row,
/// atomicity of a failed statement, IGNORE and REPLACE counts, thousands of rows.
#[test]
#[ignore = "needs mariadb-server; run by .ci/run"]
fn bulk_inserts_match_mariadb() {
    let Some(mut p) = Pair::start() else { return };
    p.both("create database bulk");
    p.both("use bulk");
    p.both(
        "create table t (id int primary key auto_increment, a tinyint, s varchar(8) not null default 'd', \
         d decimal(6,2), f double, u int unsigned, key (a))",
    );
    let big: Vec<String> = (0..2500)
        .map(|i| {
            format!(
                "({}, 'r{}', {}.5, {}e-1, {})",
                i % 100,
                i % 977,
                i,
                i,
                i * 7
            )
        })
        .collect();
    let script = [
        "insert into t (a, s, d, f, u) values (1, 'a', 1.25, 0.5, 1), (2, 'b\\'q', 2.5, 1e3, 2), (3, 'c', 3, 2, 3)".to_string(),
        "select last_insert_id()".to_string(),
        "insert into t (a, s) values (4, DEFAULT), (5, DEFAULT)".to_string(),
        "insert into t (a, s, d) values (NULL, 'n', NULL), (NULL, 'm', NULL)".to_string(),
        "insert into t (a, s) values (-1, 'neg'), (-2, 'neg2')".to_string(),
        "insert into t (id, a, s) values (100, 1, 'x'), (2, 1, 'dup'), (101, 1, 'y')".to_string(),
        "insert into t (a, s) values (1, 'ok'), (300, 'big'), (2, 'ok')".to_string(),
        "set session sql_mode = ''".to_string(),
        "insert into t (a, s) values (1, 'ok'), (300, 'toolongvalue'), (2, 'ok')".to_string(),
        "show warnings".to_string(),
        "set session sql_mode = 'STRICT_TRANS_TABLES'".to_string(),
        "insert ignore into t (id, a, s) values (1, 1, 'i1'), (200, 1, 'i2'), (2, 1, 'i3')".to_string(),
        "show warnings".to_string(),
        "replace into t (id, a, s) values (1, 9, 'r1'), (300, 9, 'r2'), (3, 9, 'r3')".to_string(),
        "insert into t (id, a, s) values (400, 1, 'v'), (401, 2, 'w');".to_string(),
        format!("insert into t (a, s, d, f, u) values {}", big.join(",")),
        "select count(*), sum(a), sum(d), sum(f), sum(u), count(distinct s) from t".to_string(),
        "select id, a, s, d, f, u from t where id < 1000 or id > 2900 order by id".to_string(),
    ];
    for sql in &script {
        p.same(sql);
    }
}

/// DISTINCT, GROUP BY and UNION compare strings under each column's collation
/// (case and trailing spaces), numbers by value.
#[test]
#[ignore = "needs mariadb-server; run by .ci/run"]
fn grouping_follows_column_collations() {
    let Some(mut p) = Pair::start() else { return };
    p.both("create database coll");
    p.both("use coll");
    p.both(
        "create table t (id int primary key, b varchar(10) collate utf8mb4_bin, \
         c varchar(10), v varbinary(10), n decimal(5,2))",
    );
    p.both(
        "insert into t values (1, 'a', 'a', 'a', 1), (2, 'A', 'A', 'A', 1.00), \
         (3, 'a ', 'a ', 'a ', 2.5), (4, 'b', 'B', 'b', 2.50), (5, NULL, NULL, NULL, NULL)",
    );
    for q in [
        "select distinct b from t order by b",
        "select distinct c from t order by c",
        "select distinct hex(v) from t order by 1",
        "select distinct n from t order by n",
        "select b, count(*) from t group by b order by b",
        "select c, count(*) from t group by c order by c",
        "select hex(v), count(*) from t group by v order by 1",
        "select n, count(*) from t group by n order by n",
        "select count(distinct b), count(distinct c), count(distinct v), count(distinct n) from t",
        "select b from t union select c from t order by 1",
        "select distinct b, c from t order by b, c",
        "select hex(b), count(*) from t group by 1 order by 1",
    ] {
        p.same(q);
    }
}

/// SQL `EXECUTE ... USING` with literals (numbers, signed numbers, strings, NULL)
/// as well as user variables.
#[test]
#[ignore = "needs mariadb-server; run by .ci/run"]
fn execute_using_literals_matches_mariadb() {
    let Some(mut p) = Pair::start() else { return };
    for sql in [
        "create database pe",
        "use pe",
        "create table t (id int primary key, s varchar(10), d decimal(5,2))",
        "prepare ins from 'insert into t values (?, ?, ?)'",
        "execute ins using 1, 'a', 1.5",
        "execute ins using 2, 'b\\'c', -2.25",
        "execute ins using 3, NULL, NULL",
        "set @x = 4",
        "execute ins using @x, 'x', 0",
        "execute ins using 1, 'dup', 0",
        "execute ins using 5, 'y'",
        "prepare q from 'select id, s, d from t where id >= ? order by id'",
        "execute q using 2",
        "execute q using -1",
        "execute q using '3'",
        "select id, s, d from t order by id",
        "deallocate prepare ins",
        "execute ins using 1, 'a', 1",
    ] {
        p.same(sql);
    }
}
