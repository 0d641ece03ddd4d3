//! CREATE TEMPORARY TABLE over TCP: tables private to their session that shadow
//! base tables of the same name (DML, DESCRIBE, SHOW CREATE TABLE, ALTER, RENAME,
//! TRUNCATE, indexes), DROP [TEMPORARY] TABLE, transactions (DML rolls back,
//! CREATE / DROP TEMPORARY do not commit), plans and prepared statements that must
//! not cross the overlay, LOCK TABLES, the end of the session (disconnect,
//! COM_RESET_CONNECTION, COM_CHANGE_USER), a restart after kill -9, many sessions
//! and many tables. Differential (`--ignored`): statements, errors and SHOW output
//! against a real MariaDB.

use basalt_tests::mariadb::{self, MariaDb};
use basalt_tests::{cell, Basalt};
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

/// Every row of `sql`, cells as text (NULL as "NULL"), joined by ",".
fn rows(c: &mut Conn, sql: &str) -> Vec<String> {
    let rs: Vec<mysql::Row> = c.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    rs.into_iter()
        .map(|r| {
            r.unwrap()
                .iter()
                .map(|v| cell(v).unwrap_or_else(|| "NULL".into()))
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect()
}

fn one(c: &mut Conn, sql: &str) -> String {
    rows(c, sql).into_iter().next().expect("a row")
}

fn setup(b: &Basalt) -> Conn {
    let mut c = conn(&b.url());
    c.query_drop("create database tt").expect("db");
    c.query_drop("use tt").expect("use");
    c.query_drop("create table t (a int primary key, b varchar(10))")
        .expect("base");
    c.query_drop("insert into t values (1,'base')")
        .expect("base row");
    c
}

#[test]
fn temporary_table_shadows_the_base_table_in_its_session_only() {
    let b = Basalt::start();
    let mut c = setup(&b);
    let mut other = conn(&b.url_db("tt"));
    c.query_drop("create temporary table t (a int primary key, c int) engine=memory")
        .expect("create temporary");
    assert!(rows(&mut c, "select * from t").is_empty());
    c.query_drop("insert into t values (1,10),(2,20),(3,30)")
        .unwrap();
    c.query_drop("update t set c = c + 1 where a = 2").unwrap();
    c.query_drop("delete from t where a = 3").unwrap();
    assert_eq!(rows(&mut c, "select * from t order by a"), ["1,10", "2,21"]);
    assert_eq!(one(&mut c, "select c from t where a = 2"), "21");
    assert_eq!(
        rows(&mut c, "describe t"),
        ["a,int(11),NO,PRI,NULL,", "c,int(11),YES,,NULL,"]
    );
    let create = one(&mut c, "show create table t");
    assert!(
        create.starts_with("t,CREATE TEMPORARY TABLE `t` (") && create.contains("ENGINE=MEMORY"),
        "{create}"
    );
    // Not listed anywhere, and invisible to the other session.
    assert_eq!(rows(&mut c, "show tables"), ["t"]);
    assert_eq!(
        one(
            &mut c,
            "select count(*) from information_schema.tables where table_schema='tt'"
        ),
        "1"
    );
    assert_eq!(rows(&mut other, "select * from t"), ["1,base"]);
    assert!(one(&mut other, "show create table t").starts_with("t,CREATE TABLE `t`"));
    // TRUNCATE empties the temporary table, not the base one.
    c.query_drop("truncate table t").unwrap();
    assert!(rows(&mut c, "select * from t").is_empty());
    assert_eq!(rows(&mut other, "select * from t"), ["1,base"]);
    // DROP TABLE drops the temporary table first; the base one shows again.
    c.query_drop("drop table t").unwrap();
    assert_eq!(rows(&mut c, "select * from t"), ["1,base"]);
}

#[test]
fn create_like_select_and_errors() {
    let b = Basalt::start();
    let mut c = setup(&b);
    c.query_drop("create temporary table k (a int primary key, b int, key(b))")
        .unwrap();
    assert_eq!(
        err(&mut c, "create temporary table k (a int)"),
        (1050, "Table 'k' already exists".into())
    );
    c.query_drop("create temporary table if not exists k (a int)")
        .unwrap();
    assert_eq!(
        rows(&mut c, "show warnings"),
        ["Note,1050,Table 'k' already exists"]
    );
    c.query_drop("insert into k values (1,1),(2,2)").unwrap();
    c.query_drop("insert into k select a + 10, b from k")
        .unwrap();
    assert_eq!(one(&mut c, "select count(*) from k"), "4");
    c.query_drop("create temporary table k2 like k").unwrap();
    assert!(one(&mut c, "show create table k2").contains("KEY `b` (`b`)"));
    c.query_drop("create temporary table k3 like t").unwrap();
    c.query_drop("create temporary table k4 as select a, b from k where a > 10")
        .unwrap();
    assert_eq!(
        rows(&mut c, "select * from k4 order by a"),
        ["11,1", "12,2"]
    );
    c.query_drop("create temporary table k5 select 1 as x")
        .unwrap();
    assert_eq!(one(&mut c, "select x from k5"), "1");
    // InnoDB refuses foreign keys on temporary tables.
    let formed = "(errno: 150 \"Foreign key constraint is incorrectly formed\")";
    assert_eq!(
        err(
            &mut c,
            "create temporary table f (a int, foreign key (a) references k (a))"
        ),
        (1005, format!("Can't create table `tt`.`f` {formed}"))
    );
    assert_eq!(
        err(
            &mut c,
            "alter table k5 add foreign key (x) references k (a)"
        ),
        (1005, format!("Can't create table `tt`.`k5` {formed}"))
    );
    assert_eq!(
        err(&mut c, "create temporary table k6 like nosuch"),
        (1146, "Table 'tt.nosuch' doesn't exist".into())
    );
    // A failed CREATE ... SELECT leaves no table behind.
    assert_eq!(
        err(&mut c, "create temporary table k7 select 1 as a, 2 as a").0,
        1060
    );
    assert_eq!(err(&mut c, "select * from k7").0, 1146);
    // A temporary table may be named twice in one query (MariaDB reopens it).
    assert_eq!(one(&mut c, "select count(*) from k x join k y"), "16");
    assert_eq!(
        one(
            &mut c,
            "select count(*) from k where a in (select a from k)"
        ),
        "4"
    );
    // Views never read temporary tables: CREATE VIEW refuses them, and a view's
    // body reads the base table a temporary one shadows.
    assert_eq!(
        err(&mut c, "create view vk as select * from k"),
        (1352, "View's SELECT refers to a temporary table 'k'".into())
    );
    c.query_drop("create view vt as select b from t").unwrap();
    c.query_drop("create temporary table t (a int, b varchar(10))")
        .unwrap();
    c.query_drop("insert into t values (5, 'temp')").unwrap();
    assert_eq!(rows(&mut c, "select * from vt"), ["base"]);
    assert_eq!(rows(&mut c, "select b from t"), ["temp"]);
    // CHECKSUM TABLE reads the temporary table; CHECK / ANALYZE are refused.
    let base = one(&mut c, "checksum table k");
    c.query_drop("insert into k values (100, 100)").unwrap();
    assert_ne!(one(&mut c, "checksum table k"), base);
    assert_eq!(
        rows(&mut c, "analyze table k"),
        [
            "tt.k,analyze,Error,This version of MariaDB doesn't yet support 'ANALYZE TABLE of a temporary table'",
            "tt.k,analyze,status,Operation failed"
        ]
    );
    c.query_drop("delete from k where a = 100").unwrap();
    c.query_drop("create index ib on k (b)").unwrap();
    assert!(one(&mut c, "show create table k").contains("KEY `ib` (`b`)"));
    c.query_drop("drop index ib on k").unwrap();
    assert!(!one(&mut c, "show create table k").contains("`ib`"));
}

#[test]
fn drop_temporary_table_drops_only_temporary_tables() {
    let b = Basalt::start();
    let mut c = setup(&b);
    assert_eq!(
        err(&mut c, "drop temporary table t"),
        (1051, "Unknown table 'tt.t'".into())
    );
    assert_eq!(rows(&mut c, "select * from t"), ["1,base"]);
    c.query_drop("drop temporary table if exists t").unwrap();
    assert_eq!(
        rows(&mut c, "show warnings"),
        ["Note,1051,Unknown table 'tt.t'"]
    );
    c.query_drop("create temporary table q1 (a int)").unwrap();
    c.query_drop("create temporary table q2 (a int)").unwrap();
    assert_eq!(
        err(&mut c, "drop temporary table q1, nosuch"),
        (1051, "Unknown table 'tt.nosuch'".into())
    );
    assert_eq!(err(&mut c, "select * from q1").0, 1146);
    c.query_drop("drop temporary table q2").unwrap();
    assert_eq!(err(&mut c, "select * from q2").0, 1146);
}

#[test]
fn transactions_roll_back_temporary_rows_and_create_drop_do_not_commit() {
    let b = Basalt::start();
    let mut c = setup(&b);
    c.query_drop("create temporary table m (a int)").unwrap();
    c.query_drop("insert into m values (1),(2)").unwrap();
    c.query_drop("begin").unwrap();
    c.query_drop("insert into m values (3)").unwrap();
    c.query_drop("insert into t values (2,'txn')").unwrap();
    c.query_drop("create temporary table x1 (a int)").unwrap();
    assert_eq!(one(&mut c, "select @@in_transaction"), "1");
    c.query_drop("drop temporary table x1").unwrap();
    assert_eq!(one(&mut c, "select @@in_transaction"), "1");
    c.query_drop("rollback").unwrap();
    assert_eq!(rows(&mut c, "select a from m order by a"), ["1", "2"]);
    assert_eq!(rows(&mut c, "select a from t"), ["1"]);
    // ALTER and TRUNCATE of a temporary table commit, as MariaDB's do.
    c.query_drop("begin").unwrap();
    c.query_drop("insert into m values (4)").unwrap();
    c.query_drop("alter table m add column b int").unwrap();
    assert_eq!(one(&mut c, "select @@in_transaction"), "0");
    c.query_drop("rollback").unwrap();
    assert_eq!(
        rows(&mut c, "select * from m order by a"),
        ["1,NULL", "2,NULL", "4,NULL"]
    );
}

#[test]
fn rename_and_alter_of_temporary_tables() {
    let b = Basalt::start();
    let mut c = setup(&b);
    c.query_drop("create temporary table r (x int)").unwrap();
    c.query_drop("insert into r values (7)").unwrap();
    c.query_drop("rename table r to r2").unwrap();
    assert_eq!(one(&mut c, "select x from r2"), "7");
    assert_eq!(err(&mut c, "select * from r").0, 1146);
    // Renamed onto a base table's name, it shadows it.
    c.query_drop("rename table r2 to t").unwrap();
    assert_eq!(one(&mut c, "select * from t"), "7");
    c.query_drop("alter table t add column y int default 5, rename to r3")
        .unwrap();
    assert_eq!(one(&mut c, "select * from r3"), "7,5");
    assert_eq!(one(&mut c, "select * from t"), "1,base");
    assert!(one(&mut c, "show create table r3").starts_with(
        "r3,CREATE TEMPORARY TABLE `r3` (\n  `x` int(11) DEFAULT NULL,\n  `y` int(11) DEFAULT 5"
    ));
    c.query_drop("alter table r3 modify x bigint, add primary key (x)")
        .unwrap();
    assert_eq!(err(&mut c, "insert into r3 values (7, 1)").0, 1062);
    c.query_drop("create temporary table r4 (a int)").unwrap();
    assert_eq!(err(&mut c, "rename table r3 to r4").0, 1050);
    assert_eq!(err(&mut c, "alter table r3 rename to r4").0, 1050);
    assert_eq!(one(&mut c, "select x from r3"), "7");
}

#[test]
fn lock_tables_does_not_cover_temporary_tables() {
    let b = Basalt::start();
    let mut c = setup(&b);
    c.query_drop("create temporary table q (a int)").unwrap();
    c.query_drop("lock tables t read").unwrap();
    c.query_drop("insert into q values (1)").unwrap();
    assert_eq!(one(&mut c, "select count(*) from q"), "1");
    c.query_drop("create temporary table q3 (a int)").unwrap();
    c.query_drop("insert into q3 select * from q").unwrap();
    c.query_drop("drop temporary table q3").unwrap();
    assert_eq!(err(&mut c, "insert into t values (5,'x')").0, 1099);
    c.query_drop("unlock tables").unwrap();
    c.query_drop("lock tables q write").unwrap();
    assert_eq!(one(&mut c, "select count(*) from q"), "1");
    c.query_drop("unlock tables").unwrap();
}

#[test]
fn sessions_each_have_their_own_table_of_one_name() {
    let b = Basalt::start();
    let _c = setup(&b);
    let mut conns: Vec<Conn> = (0..8).map(|_| conn(&b.url_db("tt"))).collect();
    for (i, c) in conns.iter_mut().enumerate() {
        c.query_drop("create temporary table tmp (a int primary key, s int)")
            .unwrap();
        c.query_drop(format!("insert into tmp values (1, {i}), (2, {i})"))
            .unwrap();
    }
    for (i, c) in conns.iter_mut().enumerate() {
        // The same text in every session: no shared plan may cross sessions.
        assert_eq!(one(c, "select s from tmp where a = 1"), i.to_string());
        assert_eq!(one(c, "select sum(s) from tmp"), (2 * i).to_string());
    }
}

#[test]
fn cached_and_prepared_plans_follow_the_overlay() {
    let b = Basalt::start();
    let mut c = setup(&b);
    let mut other = conn(&b.url_db("tt"));
    for _ in 0..3 {
        assert_eq!(one(&mut c, "select b from t where a = 1"), "base");
        assert_eq!(one(&mut other, "select b from t where a = 1"), "base");
    }
    let stmt = c.prep("select b from t where a = ?").unwrap();
    let before: Option<String> = c.exec_first(&stmt, (1,)).unwrap();
    assert_eq!(before.as_deref(), Some("base"));
    c.query_drop("create temporary table t (a int primary key, b varchar(10))")
        .unwrap();
    c.query_drop("insert into t values (1,'temp')").unwrap();
    for _ in 0..3 {
        assert_eq!(one(&mut c, "select b from t where a = 1"), "temp");
        assert_eq!(one(&mut other, "select b from t where a = 1"), "base");
    }
    let during: Option<String> = c.exec_first(&stmt, (1,)).unwrap();
    assert_eq!(during.as_deref(), Some("temp"));
    let ostmt = other.prep("select b from t where a = ?").unwrap();
    let seen: Option<String> = other.exec_first(&ostmt, (1,)).unwrap();
    assert_eq!(seen.as_deref(), Some("base"));
    c.query_drop("drop temporary table t").unwrap();
    assert_eq!(one(&mut c, "select b from t where a = 1"), "base");
    let after: Option<String> = c.exec_first(&stmt, (1,)).unwrap();
    assert_eq!(after.as_deref(), Some("base"));
}

#[test]
fn temporary_tables_end_with_the_session_reset_and_change_user() {
    let b = Basalt::start();
    let mut c = setup(&b);
    c.query_drop("create temporary table gone (a int)").unwrap();
    drop(c);
    let mut c = conn(&b.url_db("tt"));
    assert_eq!(err(&mut c, "select * from gone").0, 1146);
    c.query_drop("create temporary table gone (a int)").unwrap();
    c.reset().expect("COM_RESET_CONNECTION");
    c.query_drop("use tt").unwrap();
    assert_eq!(err(&mut c, "select * from gone").0, 1146);
    c.query_drop("create temporary table gone (a int)").unwrap();
    c.change_user(mysql::ChangeUserOpts::default().with_db_name(Some("tt".into())))
        .expect("COM_CHANGE_USER");
    assert_eq!(err(&mut c, "select * from gone").0, 1146);
}

/// Resident memory of a process, in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .expect("VmRSS")
}

#[test]
fn a_thousand_temporary_tables_are_released_at_disconnect() {
    let b = Basalt::start();
    let mut watcher = setup(&b);
    // The server drops a session's tables when it sees the disconnect: wait for
    // that, so rounds do not overlap and RSS is read with only `watcher` open.
    let mut settled = || {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while one(
            &mut watcher,
            "select count(*) from information_schema.processlist",
        ) != "1"
        {
            assert!(
                std::time::Instant::now() < deadline,
                "a session did not end"
            );
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    };
    let round = || {
        let mut c = conn(&b.url_db("tt"));
        for i in 0..1000 {
            c.query_drop(format!(
                "create temporary table m{i} (a int primary key, s varchar(200))"
            ))
            .unwrap();
            c.query_drop(format!(
                "insert into m{i} values (1, repeat('x', 200)), (2, repeat('y', 200))"
            ))
            .unwrap();
        }
        assert_eq!(one(&mut c, "select count(*) from m999"), "2");
    };
    round();
    settled();
    let after_first = rss_kib(b.pid());
    for _ in 0..2 {
        round();
        settled();
    }
    let after_third = rss_kib(b.pid());
    // Each round holds well over 1 MiB of tables; what is released is reused.
    assert!(
        after_third < after_first + 8 * 1024,
        "RSS grew from {after_first} KiB to {after_third} KiB"
    );
    let mut c = conn(&b.url_db("tt"));
    assert_eq!(err(&mut c, "select * from m0").0, 1146);
}

/// The names of every file under the data directory, sorted.
fn datadir_files(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in walk(dir) {
        let name = e
            .strip_prefix(dir)
            .expect("under datadir")
            .display()
            .to_string();
        out.push(name);
    }
    out.sort();
    out
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).expect("read dir").flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn nothing_is_left_after_kill9_and_restart() {
    let mut b = Basalt::start();
    let mut c = setup(&b);
    c.query_drop("create table kept (a int primary key)")
        .unwrap();
    c.query_drop("insert into kept values (1)").unwrap();
    let before = datadir_files(&b.datadir);
    c.query_drop("create temporary table crash1 (a int primary key, s text)")
        .unwrap();
    c.query_drop("create temporary table kept (a int)").unwrap();
    c.query_drop("insert into crash1 values (1, repeat('z', 5000))")
        .unwrap();
    c.query_drop("insert into kept values (9)").unwrap();
    assert_eq!(
        datadir_files(&b.datadir),
        before,
        "no file for a temporary table"
    );
    drop(c);
    b.kill9();
    b.restart(false);
    let mut c = conn(&b.url_db("tt"));
    assert_eq!(err(&mut c, "select * from crash1").0, 1146);
    assert_eq!(rows(&mut c, "select * from kept"), ["1"]);
    assert_eq!(rows(&mut c, "show tables"), ["kept", "t"]);
}

/// Statements run in order on one connection to each server: results and errors
/// (errno and message) must match, SHOW output included.
const SCRIPT: &[&str] = &[
    "create table t (a int primary key, b varchar(10))",
    "insert into t values (1,'base')",
    "create temporary table t (a int primary key, c int) engine=memory",
    "show tables",
    "show full tables",
    "select table_name from information_schema.tables where table_schema='dt'",
    "show create table t",
    "describe t",
    "show columns from t",
    "select * from t",
    "insert into t values (1, 10), (2, 20)",
    "select * from t a join t b on a.a = b.a order by a.a",
    "create temporary table t2 like t",
    "show create table t2",
    "create temporary table t3 select * from t",
    "show create table t3",
    "create temporary table t4 as select 1 as x",
    "select * from t4",
    "create temporary table t5 (a int) engine=innodb",
    "show create table t5",
    "create temporary table t5 (a int)",
    "create temporary table if not exists t5 (a int)",
    "show warnings",
    "drop temporary table nosuch",
    "drop temporary table if exists nosuch",
    "show warnings",
    "create table base1 (a int)",
    "drop temporary table base1",
    "drop temporary table t5, nosuch",
    "select * from t5",
    "create temporary table k6 like nosuch",
    // (t3 is InnoDB: MariaDB's MEMORY tables are not transactional, Basalt's are.)
    "begin",
    "insert into t3 values (3, 30)",
    "insert into t values (3, 30)",
    "create temporary table x1 (a int)",
    "select @@in_transaction",
    "drop temporary table x1",
    "select @@in_transaction",
    "rollback",
    "select * from t3 order by a",
    "truncate table t",
    "select * from t",
    "drop temporary table t2",
    "create temporary table t2 like t3",
    "rename table t2 to t2b",
    "show create table t2b",
    "alter table t2b add column d int default 4, rename to t2c",
    "show create table t2c",
    "create index ic on t2c (c)",
    "show index from t2c",
    "drop table t",
    "select * from t",
    "show create table t",
    "create temporary table vt (a int)",
    "create view v1 as select * from vt",
    "create table vb (a int)",
    "insert into vb values (1)",
    "create view vbv as select * from vb",
    "create temporary table vb (a int)",
    "insert into vb values (2)",
    "select * from vbv",
    "select * from vb",
];

#[derive(Debug, PartialEq)]
enum Outcome {
    Rows(Vec<String>),
    Err(u16, String),
}

fn run_script(url: &str) -> Vec<(String, Outcome)> {
    let mut c = conn(url);
    c.query_drop("create database dt").unwrap();
    c.query_drop("use dt").unwrap();
    SCRIPT
        .iter()
        .map(|sql| {
            let out = match c.query::<mysql::Row, _>(*sql) {
                Ok(rs) => Outcome::Rows(
                    rs.into_iter()
                        .map(|r| {
                            r.unwrap()
                                .iter()
                                .map(|v| cell(v).unwrap_or_else(|| "NULL".into()))
                                .collect::<Vec<_>>()
                                .join("|")
                        })
                        .collect(),
                ),
                Err(mysql::Error::MySqlError(e)) => Outcome::Err(e.code, e.message),
                Err(e) => panic!("{sql}: {e}"),
            };
            (sql.to_string(), out)
        })
        .collect()
}

#[test]
#[ignore]
fn differential_temporary_tables_against_mariadb() {
    if !mariadb::available() {
        eprintln!("skipped: mariadb-server not installed");
        return;
    }
    let m = MariaDb::start(&[]);
    let b = Basalt::start();
    let theirs = run_script(&m.url());
    let ours = run_script(&b.url());
    let mut diffs = Vec::new();
    for ((sql, t), (_, o)) in theirs.iter().zip(&ours) {
        if t != o {
            diffs.push(format!("{sql}\n  mariadb: {t:?}\n  basalt:  {o:?}"));
        }
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

#[test]
fn default_tmp_storage_engine_applies_to_temporary_tables_only() {
    let b = Basalt::start();
    let mut c = setup(&b);
    assert_eq!(
        one(&mut c, "select @@default_tmp_storage_engine is null"),
        "1"
    );
    c.query_drop("set default_tmp_storage_engine = memory")
        .expect("set");
    assert_eq!(one(&mut c, "select @@default_tmp_storage_engine"), "MEMORY");
    c.query_drop("create temporary table m (a int)")
        .expect("temp");
    c.query_drop("create table d (a int)").expect("base");
    c.query_drop("create temporary table i (a int) engine=innodb")
        .expect("explicit");
    let engine = |c: &mut Conn, t: &str| {
        let r: Vec<(String, String)> = c.query(format!("show create table {t}")).expect("show");
        let text = &r[0].1;
        let at = text.find("ENGINE=").expect("engine") + 7;
        text[at..].split(' ').next().unwrap_or_default().to_string()
    };
    assert_eq!(engine(&mut c, "m"), "MEMORY");
    assert_eq!(engine(&mut c, "d"), "InnoDB");
    assert_eq!(engine(&mut c, "i"), "InnoDB");
    c.query_drop("insert into m values (1), (2)")
        .expect("insert");
    assert_eq!(one(&mut c, "select sum(a) from m"), "3");
    assert_eq!(err(&mut c, "set default_tmp_storage_engine = ''").0, 1286);
    c.query_drop("set default_tmp_storage_engine = NULL")
        .expect("null");
    c.query_drop("create temporary table n (a int)")
        .expect("temp");
    assert_eq!(engine(&mut c, "n"), "InnoDB");
}
