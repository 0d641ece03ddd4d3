//! ALTER TABLE end to end: each clause on both engines with SHOW CREATE TABLE as
//! MariaDB prints it afterwards, the rows kept and converted, MariaDB's errors with
//! nothing changed, restarts after an ALTER, metadata locks, re-planned prepared
//! statements, concurrent readers and writers during a copy, and a kill -9 during
//! ALTERs leaving the table as before or as after with no stray files.

use basalt_tests::Basalt;
use mysql::prelude::*;
use mysql::{Conn, Opts};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn conn(b: &Basalt) -> Conn {
    let mut c = Conn::new(Opts::from_url(&b.url()).expect("url")).expect("connect");
    c.query_drop("create database if not exists a").expect("db");
    c.query_drop("use a").expect("use");
    c
}

fn show(c: &mut Conn, t: &str) -> String {
    let row: (String, String) = c
        .query_first(format!("show create table {t}"))
        .expect("show create")
        .expect("a row");
    row.1
}

fn rows(c: &mut Conn, q: &str) -> Vec<Vec<Option<String>>> {
    let got: Vec<mysql::Row> = c.query(q).expect("query");
    got.into_iter()
        .map(|r| {
            r.unwrap()
                .into_iter()
                .map(|v| match v {
                    mysql::Value::NULL => None,
                    mysql::Value::Bytes(b) => Some(String::from_utf8_lossy(&b).into_owned()),
                    other => Some(other.as_sql(true)),
                })
                .collect()
        })
        .collect()
}

fn err(c: &mut Conn, q: &str) -> (u16, String) {
    match c.query_drop(q) {
        Err(mysql::Error::MySqlError(m)) => (m.code, m.message),
        Err(e) => panic!("{q}: expected a server error, got {e}"),
        Ok(()) => panic!("{q}: expected an error, got OK"),
    }
}

fn warnings(c: &mut Conn) -> Vec<(u16, String)> {
    let got: Vec<(String, u16, String)> = c.query("show warnings").expect("warnings");
    got.into_iter().map(|(_, code, m)| (code, m)).collect()
}

fn s(v: &[&str]) -> Vec<Option<String>> {
    v.iter()
        .map(|x| (*x != "NULL").then(|| x.to_string()))
        .collect()
}

const TAIL: &str = "DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci";

#[test]
fn columns_are_added_dropped_moved_and_renamed_on_both_engines() {
    let b = Basalt::start();
    let mut c = conn(&b);
    for engine in ["InnoDB", "MEMORY"] {
        c.query_drop("drop table if exists t").expect("drop");
        c.query_drop(format!(
            "create table t (id int primary key, a varchar(10)) engine={engine}"
        ))
        .expect("create");
        c.query_drop("insert into t values (1,'x'),(2,NULL)")
            .expect("insert");
        c.query_drop(
            "alter table t add column b int not null, add c varchar(5) not null default 'q' first, \
             add d datetime not null after id, add e int",
        )
        .expect("add columns");
        assert_eq!(
            show(&mut c, "t"),
            format!(
                "CREATE TABLE `t` (\n  `c` varchar(5) NOT NULL DEFAULT 'q',\n  `id` int(11) NOT NULL,\n  \
                 `d` datetime NOT NULL,\n  `a` varchar(10) DEFAULT NULL,\n  `b` int(11) NOT NULL,\n  \
                 `e` int(11) DEFAULT NULL,\n  PRIMARY KEY (`id`)\n) ENGINE={engine} {TAIL}"
            )
        );
        assert_eq!(
            rows(&mut c, "select * from t order by id"),
            vec![
                s(&["q", "1", "0000-00-00 00:00:00", "x", "0", "NULL"]),
                s(&["q", "2", "0000-00-00 00:00:00", "NULL", "0", "NULL"]),
            ]
        );
        c.query_drop(
            "alter table t drop column c, drop d, change a aa varchar(20) after e, \
             rename column b to bb, alter column e set default 7",
        )
        .expect("drop, change, rename");
        c.query_drop("insert into t (id, bb) values (3, 0)")
            .expect("insert");
        assert_eq!(
            show(&mut c, "t"),
            format!(
                "CREATE TABLE `t` (\n  `id` int(11) NOT NULL,\n  `bb` int(11) NOT NULL,\n  \
                 `e` int(11) DEFAULT 7,\n  `aa` varchar(20) DEFAULT NULL,\n  PRIMARY KEY (`id`)\n) \
                 ENGINE={engine} {TAIL}"
            )
        );
        assert_eq!(
            rows(&mut c, "select * from t order by id"),
            vec![
                s(&["1", "0", "NULL", "x"]),
                s(&["2", "0", "NULL", "NULL"]),
                s(&["3", "0", "7", "NULL"])
            ]
        );
        c.query_drop("alter table t alter column e drop default")
            .expect("drop default");
        assert!(show(&mut c, "t").contains("`e` int(11) DEFAULT NULL,"));
        assert_eq!(err(&mut c, "alter table t drop column nope").0, 1091);
        assert_eq!(err(&mut c, "alter table t add column bb int").0, 1060);
        assert_eq!(err(&mut c, "alter table t modify nope int").0, 1054);
        assert_eq!(
            err(&mut c, "alter table t drop id, drop bb, drop e, drop aa").0,
            1090
        );
        c.query_drop("alter table t drop column if exists nope")
            .expect("if exists");
        assert_eq!(warnings(&mut c)[0].0, 1091);
    }
}

#[test]
fn modify_converts_by_sql_mode() {
    let b = Basalt::start();
    let mut c = conn(&b);
    c.query_drop("create table t (id int primary key, a int, b varchar(10))")
        .expect("create");
    c.query_drop("insert into t values (1,1,'x'),(2,NULL,'yy'),(3,300,'abcdefghij')")
        .expect("insert");
    let before = show(&mut c, "t");
    let data = rows(&mut c, "select * from t order by id");
    let cases = [
        ("alter table t modify a int not null", 1265, "row 2"),
        ("alter table t modify a tinyint", 1264, "row 3"),
        ("alter table t modify b varchar(3)", 1265, "row 3"),
    ];
    for (q, code, at) in cases {
        let (got, msg) = err(&mut c, q);
        assert_eq!(got, code, "{q}: {msg}");
        assert!(msg.ends_with(at), "{q}: {msg}");
        assert_eq!(show(&mut c, "t"), before, "{q} changed nothing");
        assert_eq!(rows(&mut c, "select * from t order by id"), data);
    }
    c.query_drop("set sql_mode=''").expect("mode");
    c.query_drop("alter table t modify a int not null, modify b varchar(3)")
        .expect("non-strict");
    assert_eq!(
        warnings(&mut c),
        vec![
            (1265, "Data truncated for column 'a' at row 2".to_string()),
            (1265, "Data truncated for column 'b' at row 3".to_string()),
        ]
    );
    assert_eq!(
        rows(&mut c, "select * from t order by id"),
        vec![
            s(&["1", "1", "x"]),
            s(&["2", "0", "yy"]),
            s(&["3", "300", "abc"])
        ]
    );
}

#[test]
fn keys_are_added_dropped_and_renamed_and_duplicates_change_nothing() {
    let b = Basalt::start();
    let mut c = conn(&b);
    c.query_drop("create table t (a int, b int not null, c int, key kc(c), unique key ua(a))")
        .expect("create");
    c.query_drop("insert into t values (1,1,5),(2,2,5)")
        .expect("insert");
    let before = show(&mut c, "t");
    let (code, msg) = err(
        &mut c,
        "alter table t add column z int, add unique key uc (c)",
    );
    assert_eq!(
        (code, msg.as_str()),
        (1062, "Duplicate entry '5' for key 'uc'")
    );
    assert_eq!(show(&mut c, "t"), before);
    c.query_drop("alter table t add unique key ub (b), add key k2 (a, b), rename index kc to kc2")
        .expect("keys");
    assert_eq!(
        show(&mut c, "t"),
        format!(
            "CREATE TABLE `t` (\n  `a` int(11) DEFAULT NULL,\n  `b` int(11) NOT NULL,\n  \
             `c` int(11) DEFAULT NULL,\n  UNIQUE KEY `ub` (`b`),\n  UNIQUE KEY `ua` (`a`),\n  \
             KEY `kc2` (`c`),\n  KEY `k2` (`a`,`b`)\n) ENGINE=InnoDB {TAIL}"
        )
    );
    let (code, _) = err(&mut c, "alter table t drop primary key");
    assert_eq!(code, 1091);
    c.query_drop("alter table t add primary key (a), drop index ua, drop key k2")
        .expect("primary key");
    assert_eq!(
        rows(&mut c, "select a, b from t where a = 2"),
        vec![s(&["2", "2"])]
    );
    assert!(show(&mut c, "t").contains("  `a` int(11) NOT NULL,\n"));
    assert!(show(&mut c, "t")
        .contains("PRIMARY KEY (`a`),\n  UNIQUE KEY `ub` (`b`),\n  KEY `kc2` (`c`)\n"));
    assert_eq!(err(&mut c, "alter table t add primary key (b)").0, 1068);
    assert_eq!(err(&mut c, "alter table t rename index nope to x").0, 1176);
    assert_eq!(err(&mut c, "alter table t rename key ub to kc2").0, 1061);
    assert_eq!(err(&mut c, "alter table t drop index nope").0, 1091);
    assert_eq!(err(&mut c, "alter table t add key kc2 (b)").0, 1061);
    c.query_drop("alter table t drop primary key")
        .expect("drop pk");
    assert!(!show(&mut c, "t").contains("PRIMARY"));
    assert_eq!(rows(&mut c, "select count(*) from t"), vec![s(&["2"])]);
}

#[test]
fn table_options_rename_engine_and_checks() {
    let b = Basalt::start();
    let mut c = conn(&b);
    c.query_drop("create database if not exists other")
        .expect("db");
    c.query_drop("create table t (id int primary key auto_increment, v int)")
        .expect("create");
    c.query_drop("insert into t (v) values (1),(2),(3)")
        .expect("insert");
    c.query_drop("alter table t comment='kept', auto_increment=100, engine=memory")
        .expect("options");
    assert_eq!(
        show(&mut c, "t"),
        format!(
            "CREATE TABLE `t` (\n  `id` int(11) NOT NULL AUTO_INCREMENT,\n  `v` int(11) DEFAULT NULL,\n  \
             PRIMARY KEY (`id`)\n) ENGINE=MEMORY AUTO_INCREMENT=100 {TAIL} COMMENT='kept'"
        )
    );
    c.query_drop("insert into t (v) values (4)")
        .expect("insert");
    assert_eq!(rows(&mut c, "select max(id) from t"), vec![s(&["100"])]);
    c.query_drop("alter table t engine=InnoDB, rename to other.t2")
        .expect("rename across databases");
    assert_eq!(err(&mut c, "select * from t").0, 1146);
    assert!(show(&mut c, "other.t2").contains(") ENGINE=InnoDB AUTO_INCREMENT=101"));
    assert_eq!(
        rows(&mut c, "select count(*) from other.t2"),
        vec![s(&["4"])]
    );
    assert_eq!(
        err(
            &mut c,
            "alter table other.t2 add constraint pos check (v > 1)"
        )
        .0,
        4025
    );
    c.query_drop("alter table other.t2 add constraint pos check (v > 0), add check (id < 1000)")
        .expect("checks");
    let text = show(&mut c, "other.t2");
    assert!(text.contains("  CONSTRAINT `pos` CHECK (`v` > 0),\n  CONSTRAINT `CONSTRAINT_1` CHECK (`id` < 1000)\n"), "{text}");
    assert_eq!(err(&mut c, "insert into other.t2 (v) values (0)").0, 4025);
    c.query_drop("alter table other.t2 drop constraint pos")
        .expect("drop check");
    c.query_drop("insert into other.t2 (v) values (0)")
        .expect("allowed now");
    assert_eq!(
        err(&mut c, "alter table other.t2 drop constraint pos").0,
        1091
    );
}

#[test]
fn algorithm_lock_and_unsupported_forms() {
    let b = Basalt::start();
    let mut c = conn(&b);
    c.query_drop("create table t (id int primary key, v int)")
        .expect("create");
    let (code, msg) = err(&mut c, "alter table t modify v bigint, algorithm=inplace");
    assert_eq!(code, 1846);
    assert_eq!(
        msg,
        "ALGORITHM=INPLACE is not supported. Reason: Cannot change column type. Try \
         ALGORITHM=COPY"
    );
    let (code, msg) = err(&mut c, "alter table t modify id bigint, lock=none");
    assert_eq!(code, 1846);
    assert_eq!(
        msg,
        "LOCK=NONE is not supported. Reason: COPY algorithm requires a lock. Try LOCK=SHARED"
    );
    assert!(!show(&mut c, "t").contains("`z`"));
    c.query_drop("alter table t rename column v to w, algorithm=instant, lock=none")
        .expect("in place");
    c.query_drop("alter table t add column z int, algorithm=copy, lock=shared")
        .expect("copy");
    c.query_drop("alter table t order by w").expect("order by");
    assert_eq!(
        warnings(&mut c),
        vec![(
            1105,
            "ORDER BY ignored as there is a user-defined clustered index in the table 't'".into()
        )]
    );
    c.query_drop("create table nopk (a int)").expect("create");
    assert_eq!(err(&mut c, "alter table nopk order by a").0, 1235);
    assert_eq!(
        err(
            &mut c,
            "alter table t exchange partition p0 with table nopk"
        )
        .0,
        1235
    );
}

#[test]
fn altered_tables_survive_restarts() {
    let mut b = Basalt::start();
    let mut c = conn(&b);
    c.query_drop("create table t (id int primary key, v varchar(10), key kv (v))")
        .expect("create");
    c.query_drop("insert into t values (1,'a'),(2,'b'),(3,'c')")
        .expect("insert");
    c.query_drop("alter table t add column n int not null default 5 after id, drop key kv, add unique key uv (v)")
        .expect("alter");
    let want = show(&mut c, "t");
    let data = rows(&mut c, "select * from t order by id");
    drop(c);
    for kill in [false, true] {
        b.restart(kill);
        let mut c = conn(&b);
        assert_eq!(show(&mut c, "t"), want, "after restart (kill: {kill})");
        assert_eq!(
            rows(&mut c, "select v from t force index (uv) where v = 'b'"),
            vec![s(&["b"])]
        );
        assert_eq!(rows(&mut c, "select * from t order by id"), data);
        assert_eq!(err(&mut c, "insert into t values (4, 1, 'a')").0, 1062);
        c.query_drop(if kill {
            "alter table t modify v varchar(12)"
        } else {
            "alter table t force"
        })
        .expect("again");
    }
    let files = std::fs::read_dir(b.datadir.join("tables"))
        .expect("tables dir")
        .count();
    assert_eq!(files, 1, "one table, one file");
}

#[test]
fn alter_waits_for_transactions_that_used_the_table() {
    let b = Basalt::start();
    let mut c = conn(&b);
    c.query_drop("create table t (id int primary key, v int)")
        .expect("create");
    c.query_drop("insert into t values (1, 1)").expect("insert");
    let mut reader = conn(&b);
    reader.query_drop("begin").expect("begin");
    let _: Vec<(i32, i32)> = reader.query("select * from t").expect("read");
    c.query_drop("set lock_wait_timeout = 1").expect("timeout");
    let started = Instant::now();
    assert_eq!(err(&mut c, "alter table t add column z int").0, 1205);
    assert!(started.elapsed() >= Duration::from_millis(900));
    assert!(!show(&mut c, "t").contains("`z`"));
    let _: Vec<(i32, i32)> = reader.query("select * from t").expect("still readable");
    reader.query_drop("commit").expect("commit");
    c.query_drop("alter table t add column z int")
        .expect("after commit");
    // A snapshot older than the copy cannot read the copy (which keeps only the
    // newest versions): MariaDB's 1412, and the transaction can be retried.
    c.query_drop("create table u (id int primary key)")
        .expect("create u");
    reader
        .query_drop("start transaction with consistent snapshot")
        .expect("begin");
    let _: Vec<i32> = reader.query("select id from u").expect("read u");
    c.query_drop("update t set v = 2 where id = 1")
        .expect("update");
    c.query_drop("alter table t modify v bigint")
        .expect("alter");
    let (code, msg) = err(&mut reader, "select * from t");
    assert_eq!(
        (code, msg.as_str()),
        (
            1412,
            "Table definition has changed, please retry transaction"
        )
    );
    reader.query_drop("rollback").expect("rollback");
    let got: Vec<(i32, i32)> = reader.query("select id, v from t").expect("after retry");
    assert_eq!(got, vec![(1, 2)]);
}

#[test]
fn prepared_statements_are_planned_again_after_alter() {
    let b = Basalt::start();
    let mut c = conn(&b);
    c.query_drop("create table t (id int primary key, v int)")
        .expect("create");
    c.query_drop("insert into t values (1, 10)")
        .expect("insert");
    let stmt = c.prep("select * from t where id = ?").expect("prepare");
    let ins = c
        .prep("insert into t (id, v) values (?, ?)")
        .expect("prepare");
    let got: Vec<mysql::Row> = c.exec(&stmt, (1,)).expect("execute");
    assert_eq!(got[0].len(), 2);
    c.query_drop("alter table t add column w int default 3")
        .expect("alter");
    let got: Vec<mysql::Row> = c.exec(&stmt, (1,)).expect("execute again");
    assert_eq!(got[0].len(), 3);
    c.exec_drop(&ins, (2, 20)).expect("insert after alter");
    assert_eq!(
        rows(&mut c, "select * from t order by id"),
        vec![s(&["1", "10", "3"]), s(&["2", "20", "3"])]
    );
}

#[test]
fn readers_and_writers_keep_working_during_alters() {
    let b = Basalt::start();
    let mut c = conn(&b);
    c.query_drop("create table t (id int primary key, v int, key kv (v))")
        .expect("create");
    let values: Vec<String> = (1..=3000).map(|i| format!("({i},{i})")).collect();
    c.query_drop(format!("insert into t values {}", values.join(",")))
        .expect("load");
    let stop = Arc::new(AtomicBool::new(false));
    let mut workers = Vec::new();
    for w in 0..4u32 {
        let stop = stop.clone();
        let mut wc = conn(&b);
        workers.push(std::thread::spawn(move || {
            let mut done = 0u32;
            let mut next = 10_000 + w * 100_000;
            while !stop.load(Ordering::Relaxed) && done < 20_000 {
                if w < 2 {
                    next += 1;
                    wc.query_drop(format!("insert into t (id, v) values ({next}, 1)"))
                        .expect("insert during alter");
                    wc.query_drop(format!(
                        "update t set v = v + 1 where id = {}",
                        next % 3000 + 1
                    ))
                    .expect("update during alter");
                } else {
                    let n: Option<i64> = wc.query_first("select count(*) from t").expect("read");
                    assert!(n.expect("count") >= 3000);
                }
                done += 1;
            }
            next - 10_000 - w * 100_000
        }));
    }
    for q in [
        "alter table t add column z int not null default 1",
        "alter table t add key kz (z, v)",
        "alter table t modify v bigint",
        "alter table t drop column z",
    ] {
        std::thread::sleep(Duration::from_millis(100));
        c.query_drop(q).expect(q);
    }
    stop.store(true, Ordering::Relaxed);
    let inserted: u32 = workers.into_iter().map(|h| h.join().expect("worker")).sum();
    let n: Option<u32> = c.query_first("select count(*) from t").expect("count");
    assert_eq!(n, Some(3000 + inserted));
    assert!(show(&mut c, "t").contains("`v` bigint(20) DEFAULT NULL"));
}

/// 0 when every row of the 20,000 is there and intact (read through each index).
fn damaged_rows(c: &mut Conn) -> i64 {
    let n: Option<i64> = c.query_first("select count(*) from t").expect("count");
    let bad: Option<i64> = c
        .query_first("select count(*) from t where v <> concat('v', id) or w <> id")
        .expect("scan");
    let by_w: Option<i64> = c
        .query_first("select count(*) from t where w between 1 and 20000")
        .expect("by w");
    (20_000 - n.expect("n")).abs() + bad.expect("bad") + (20_000 - by_w.expect("w")).abs()
}

#[test]
fn sigkill_during_alter_leaves_the_table_before_or_after() {
    let mut b = Basalt::start();
    let mut c = conn(&b);
    c.query_drop("create table t (id int primary key, v varchar(20), w int, key kv (v))")
        .expect("create");
    let values: Vec<String> = (1..=20_000).map(|i| format!("({i},'v{i}',{i})")).collect();
    c.query_drop(format!("insert into t values {}", values.join(",")))
        .expect("load");
    drop(c);
    let alters = [
        "alter table t add column x int not null default 9 first",
        "alter table t drop column x, add unique key uw (w)",
        "alter table t modify v varchar(30), drop key kv",
        "alter table t add key kv (v), drop key uw, comment='c'",
    ];
    let mut after = 0;
    for round in 0..8 {
        let q = alters[round % alters.len()];
        let mut c = conn(&b);
        let before = show(&mut c, "t");
        drop(c);
        let port = b.port;
        let runner = std::thread::spawn(move || {
            let url = format!("mysql://root@127.0.0.1:{port}/a");
            // The kill may come before the connection or the statement.
            Conn::new(Opts::from_url(&url).expect("url")).is_ok_and(|mut c| c.query_drop(q).is_ok())
        });
        // From before the copy starts to after it ends (an ALTER here takes a few
        // hundred milliseconds).
        let delays = [5, 40, 120, 250, 400, 600, 900, 1500];
        std::thread::sleep(Duration::from_millis(delays[round]));
        b.kill9();
        let acknowledged = runner.join().expect("runner");
        b.restart(false);
        let mut c = conn(&b);
        let now = show(&mut c, "t");
        assert_eq!(
            damaged_rows(&mut c),
            0,
            "round {round}: rows lost or damaged"
        );
        let files = std::fs::read_dir(b.datadir.join("tables"))
            .expect("dir")
            .count();
        assert_eq!(files, 1, "round {round}: stray table files");
        if now == before {
            assert!(
                !acknowledged,
                "round {round}: an acknowledged ALTER was lost"
            );
            // Leave the table as the next ALTER of the sequence expects.
            c.query_drop(q).expect("the ALTER again");
        } else {
            after += 1;
        }
        c.query_drop("alter table t force")
            .expect("the table is usable");
        assert_eq!(damaged_rows(&mut c), 0, "round {round}: after a rebuild");
    }
    assert!(after > 0, "no ALTER completed before a kill");
}

/// What a statement did: OK with its warnings, or the error code.
fn outcome(c: &mut Conn, q: &str) -> Result<Vec<(u16, String)>, u16> {
    match c.query_drop(q) {
        Ok(()) => Ok(warnings(c)),
        Err(mysql::Error::MySqlError(m)) => Err(m.code),
        Err(e) => panic!("{q}: {e}"),
    }
}

#[test]
#[ignore = "needs mariadb-server"]
fn differential_alter_sequence_matches_mariadb() {
    use basalt_tests::mariadb::{self, MariaDb};
    if !mariadb::available() {
        eprintln!("mariadbd not installed; skipping");
        return;
    }
    let mut m = MariaDb::start(&[]);
    let b = Basalt::start();
    let mut bc = conn(&b);
    let mut mc = Conn::new(Opts::from_url(&m.url()).expect("url")).expect("connect mariadb");
    mc.query_drop("create database if not exists a")
        .expect("db");
    mc.query_drop("use a").expect("use");
    let steps = [
        "create table t (id int primary key auto_increment, a int, b varchar(10), c int, \
         key kc (c), unique key ua (a)) default charset=utf8mb4",
        "insert into t (a, b, c) values (1,'x',5),(NULL,'yy',5),(300,'abcdefghij',6)",
        "alter table t modify a int not null",
        "alter table t modify a tinyint",
        "alter table t modify b varchar(3)",
        "alter table t add unique key uc (c)",
        "set sql_mode = ''",
        "alter table t modify a int not null, modify b varchar(3)",
        "set sql_mode = default",
        "alter table t add column d int not null, add e varchar(5) not null default 'q' first, \
         add f datetime not null after id, add g int",
        "alter table t drop column e, change b bb varchar(20) after g, rename column d to dd",
        "alter table t alter column g set default 7, alter column c drop default",
        "alter table t add unique key ub (bb), add key k2 (a, dd), rename index kc to kc2",
        "alter table t drop key k2, drop index ua",
        "alter table t add constraint pos check (a >= 0), add check (c < 1000)",
        "alter table t add constraint neg check (a < 0)",
        "alter table t drop constraint pos",
        "alter table t comment = 'hello', auto_increment = 50",
        "insert into t (a, f, dd) values (7, '2024-01-01', 1)",
        "alter table t engine = memory",
        "alter table t engine = InnoDB, drop primary key",
        "alter table t engine = InnoDB",
        "alter table t modify id int not null, drop primary key",
        "alter table t add primary key (id, a)",
        "alter table t drop column nope",
        "alter table t rename index nope to x",
        "alter table t rename column g to gg, algorithm = instant",
        "alter table t drop column if exists nope",
        "alter table t add column if not exists gg int",
        "drop table t",
        "create table t (a int, b varchar(20), c text, key kab (a, b)) default charset=utf8mb4",
        "insert into t values (1,'x','t'),(2,'y','u')",
        "alter table t drop column a",
        "alter table t add column d int unique comment 'dd', \
         modify b varchar(30) not null default 'z' comment 'bee', add key kc (c(10))",
        "alter table t change d dd bigint unsigned, add primary key (b)",
        "alter table t rename column dd to d2, alter column b set default 'w', drop index dd",
        "alter table t add column e int first, add column f int after e, drop column c",
        "alter table t modify b int",
        "alter table t drop primary key, add unique key (b)",
        "alter table t add column q int, drop column q",
        "alter table t add index n2 (b), drop index n2",
        "alter table t add column id int auto_increment primary key first",
        "alter table t modify f int check (f > 5)",
        "alter table t modify f bigint",
        "drop table t",
        "create table t (id int primary key, b varchar(5), d varchar(20))",
        "insert into t values (1,'x','2020-13-01'),(2,'12abc','zz'),(3,'7','2021-02-03')",
        "alter table t modify b int",
        "alter table t modify d date",
        "set sql_mode = ''",
        "alter table t modify b int, modify d date",
        "set sql_mode = default",
    ];
    for q in steps {
        let (mut got, mut want) = (outcome(&mut bc, q), outcome(&mut mc, q));
        if !mariadb::is_reference() {
            // Some 10.11 patch releases leave out the column and row of a datetime
            // conversion warning during ALTER's copy.
            for w in [&mut got, &mut want].into_iter().flatten().flatten() {
                if let Some(at) = w.1.find("' for column ") {
                    w.1.truncate(at + 1);
                }
            }
        }
        assert_eq!(got, want, "{q}");
        if q.starts_with("set") {
            continue;
        }
        if q.starts_with("drop") {
            continue;
        }
        assert_eq!(show(&mut bc, "t"), show(&mut mc, "t"), "after {q}");
        let all = "select * from t order by 1, 2";
        assert_eq!(rows(&mut bc, all), rows(&mut mc, all), "rows after {q}");
    }
    m.stop();
}

#[test]
fn django_add_alter_and_remove_field_migrations() {
    use std::process::Command;
    let importable = Command::new("python3")
        .args(["-c", "import django, pymysql"])
        .status()
        .is_ok_and(|s| s.success());
    if !importable {
        println!("skipped: python3 with django and pymysql is not installed");
        return;
    }
    let b = Basalt::start();
    let dir = basalt_tests::workspace_root().join("tests/drivers/python");
    let out = Command::new("python3")
        .current_dir(&dir)
        .arg(dir.join("django_alter.py"))
        .arg(b.port.to_string())
        .output()
        .expect("run python3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("OK django alter"),
        "django_alter.py failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
}

#[test]
fn drops_name_what_the_table_had_and_modify_replaces_a_column_check() {
    let b = Basalt::start();
    let mut c = conn(&b);
    c.query_drop("create table z (id int primary key, a int check (a > 0), b int)")
        .expect("create");
    c.query_drop("insert into z values (1, 1, 1)")
        .expect("insert");
    for (q, what) in [
        (
            "alter table z add column q int, drop column q",
            "COLUMN `q`",
        ),
        (
            "alter table z add index n2 (a), drop index n2",
            "INDEX `n2`",
        ),
        (
            "alter table z add constraint cz check (b > 0), drop constraint cz",
            "CONSTRAINT `cz`",
        ),
    ] {
        let (code, msg) = err(&mut c, q);
        assert_eq!(
            (code, msg),
            (1091, format!("Can't DROP {what}; check that it exists"))
        );
    }
    // As MariaDB: the new column definition's CHECK replaces the old one and the
    // existing rows are not checked against it; a definition without one drops it.
    c.query_drop("alter table z modify a int check (a > 5)")
        .expect("modify");
    assert!(show(&mut c, "z").contains("`a` int(11) DEFAULT NULL CHECK (`a` > 5),"));
    c.query_drop("alter table z modify a bigint")
        .expect("modify");
    assert!(!show(&mut c, "z").contains("CHECK"));
    c.query_drop("alter table if exists nosuch add c int")
        .expect("if exists");
    let w: Vec<(String, u16, String)> = c.query("show warnings").expect("warnings");
    assert_eq!(
        w,
        vec![(
            "Error".into(),
            1146,
            "Table 'a.nosuch' doesn't exist".into()
        )]
    );
}
