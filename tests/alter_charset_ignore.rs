//! ALTER TABLE ... CONVERT TO CHARACTER SET and ALTER IGNORE, and the rules that
//! come with them (a too-long non-unique key part cut with note 1071, note 1831
//! for a duplicate key, ALGORITHM= refused for a column type change; a longer
//! VARCHAR is instant), statement by statement against a real MariaDB: the
//! outcome (info text and warnings, or the error code), SHOW CREATE TABLE and the
//! rows' bytes after each step.

use basalt_tests::mariadb::{self, MariaDb};
use basalt_tests::Basalt;
use mysql::prelude::*;
use mysql::{Conn, Opts};

fn connect(url: &str) -> Conn {
    let mut c = Conn::new(Opts::from_url(url).expect("url")).expect("connect");
    c.query_drop("create database if not exists a").expect("db");
    c.query_drop("use a").expect("use");
    c
}

/// What a statement did: OK with its info text ("Records: ..  Duplicates: ..")
/// and warnings, or the error code.
type Outcome = Result<(String, Vec<(u16, String)>), u16>;

fn outcome(c: &mut Conn, q: &str) -> Outcome {
    match c.query_drop(q) {
        Ok(()) => Ok((
            c.info_str().into_owned(),
            c.query::<(String, u16, String), _>("show warnings")
                .expect("warnings")
                .into_iter()
                .map(|(_, code, m)| (code, m))
                .collect(),
        )),
        Err(mysql::Error::MySqlError(m)) => Err(m.code),
        Err(e) => panic!("{q}: {e}"),
    }
}

/// SHOW CREATE TABLE t and every row with each value's bytes in hex (None when
/// there is no table t).
fn state(c: &mut Conn) -> Option<(String, Vec<Vec<Option<String>>>)> {
    let (_, create): (String, String) = c.query_first("show create table t").ok()??;
    let rows: Vec<mysql::Row> = c.query("select * from t order by 1").expect("rows");
    let rows = rows
        .into_iter()
        .map(|r| {
            r.unwrap()
                .into_iter()
                .map(|v| match v {
                    mysql::Value::NULL => None,
                    mysql::Value::Bytes(b) => Some(b.iter().map(|x| format!("{x:02X}")).collect()),
                    other => Some(other.as_sql(true)),
                })
                .collect()
        })
        .collect();
    Some((create, rows))
}

const STEPS: &[&str] = &[
    "create table t (id int primary key, a char(10), b varchar(100), c text, d tinytext, \
     e mediumtext, f enum('x','y'), g set('p','q'), h varbinary(10), i blob, \
     k varchar(20) character set latin1 collate latin1_bin, key kb (b)) default charset=latin1",
    "insert into t values (1,'é','ü','ß','x','y','y','p,q','b','bl','k'), \
     (2,'a','b','c','d','e','x','p',NULL,NULL,'€')",
    "alter table t convert to character set utf8mb4",
    "alter table t convert to character set latin1 collate latin1_bin",
    "alter table t convert to charset utf8mb3",
    "alter table t convert to character set utf8mb4 collate latin1_bin",
    "alter table t convert to character set nope",
    "alter table t convert to character set utf8mb4 collate nope",
    "alter table t convert to character set default",
    "alter table t convert to character set default collate utf8mb4_bin",
    "alter table t convert to character set utf8mb4, modify b varchar(5) character set latin1",
    "alter table t convert to character set utf8mb4, character set latin1",
    "alter table t convert to character set 'utf8mb4' collate 'utf8mb4_unicode_ci'",
    "alter table t convert to character set binary",
    "drop table t",
    "create table t (id int primary key, a varchar(10), c text, e enum('x','y')) charset latin1",
    "insert into t values (1, 'é', 'ü', 'y')",
    "alter table t convert to character set binary",
    "alter table t modify a varchar(10) character set latin1, modify c text character set utf8mb4",
    "alter table t modify a varchar(10) character set latin1",
    "alter table t convert to character set utf8mb4, algorithm=inplace",
    "alter table t modify a varchar(10) character set utf8mb4, algorithm=inplace",
    "drop table t",
    "create table t (id int primary key, b varchar(20000)) charset latin1",
    "alter table t convert to character set utf8mb4",
    "set sql_mode = ''",
    "alter table t convert to character set utf8mb4",
    "set sql_mode = default",
    "drop table t",
    "create table t (id int primary key, b varchar(10), k varchar(1000), key (k)) charset utf8mb4",
    "insert into t values (1, 'aé€😀', 'k'), (2, 'plain', 'ü')",
    "alter table t convert to character set latin1",
    "set sql_mode = ''",
    "alter table t convert to character set latin1",
    "set sql_mode = default",
    "alter table t convert to character set utf8mb4",
    "alter table t add key k2 (k), add key (b), add key b2 (b)",
    "create index k3 on t (k(768))",
    "drop table t",
    "create table t (id int primary key, a int, b varchar(10), key ka (a), key kb (a), \
     unique key (b), unique key u2 (b), key (a, b), unique key (a, b)) charset utf8mb4",
    "drop table t",
    "create table t (a varchar(500), b varchar(500), key (a, b)) charset utf8mb4",
    "create table t (id int primary key, a varchar(2000), key (a)) charset utf8mb4",
    "drop table t",
    "create table t (id int primary key, a varchar(10), n int, key (a)) charset latin1",
    "insert into t values (1, 'abc', 5), (2, 'defghij', -1)",
    "alter table t modify n bigint, algorithm=inplace",
    "alter table t modify n bigint, algorithm=instant",
    "alter table t modify n bigint, algorithm=nocopy",
    "alter table t convert to character set utf8mb4, algorithm=instant",
    "alter table t convert to character set utf8mb4, algorithm=nocopy",
    "alter table t modify a varchar(12), algorithm=instant",
    "alter table t modify a varchar(9), algorithm=inplace",
    "alter table t modify n int unsigned, algorithm=inplace",
    "alter table t modify a varchar(20) not null, algorithm=copy",
];

/// ALTER IGNORE: rows clashing in a new unique key (or in a key whose values a
/// conversion made equal) left out and counted, conversion errors as warnings.
const IGNORE_STEPS: &[&str] = &[
    "create table t (id int primary key, a int, b varchar(5)) charset utf8mb4",
    "insert into t values (1,1,'x'),(2,1,'y'),(3,2,'zzzzz'),(4,NULL,'w'),(5,NULL,'v'),(6,2,'q')",
    "alter ignore table t add unique key ua (a)",
    "alter table t add unique key ub (b)",
    "insert into t values (7, 3, 'zzzzy')",
    "alter table t modify b varchar(2)",
    "alter ignore table t modify b varchar(2)",
    "alter ignore table t add unique key uc (b, a), algorithm=inplace",
    "alter ignore table t add unique key uc (b, a), algorithm=instant",
    "alter ignore table t add unique key uc (b, a), lock=none",
    "alter ignore table t add unique key uc (b, a), algorithm=copy",
    "alter ignore table t add column c int",
    "alter ignore table t add column d int first, lock=none",
    "alter ignore table t add key kd (d), lock=none",
    "alter ignore table t drop primary key, add primary key (id, d)",
    "alter ignore table t modify a tinyint unsigned",
    "drop table t",
    "create temporary table t (id int primary key, a int) engine=memory",
    "insert into t values (1, 5), (2, 5), (3, 6)",
    "alter ignore table t add unique (a)",
];

fn run_steps(steps: &[&str]) {
    if !mariadb::available() {
        eprintln!("mariadbd not installed; skipping");
        return;
    }
    let mut m = MariaDb::start(&[]);
    let b = Basalt::start();
    let (mut bc, mut mc) = (connect(&b.url()), connect(&m.url()));
    for q in steps {
        let (got, want) = (outcome(&mut bc, q), outcome(&mut mc, q));
        assert_eq!(got, want, "{q}");
        if !q.starts_with("set") && !q.starts_with("drop") {
            assert_eq!(state(&mut bc), state(&mut mc), "after {q}");
        }
    }
    m.stop();
}

#[test]
#[ignore = "needs mariadb-server"]
fn convert_to_character_set_matches_mariadb() {
    run_steps(STEPS);
}

#[test]
#[ignore = "needs mariadb-server"]
fn alter_ignore_matches_mariadb() {
    run_steps(IGNORE_STEPS);
}
