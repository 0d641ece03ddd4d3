//! Sequences over TCP: CREATE / ALTER / DROP SEQUENCE, SHOW CREATE SEQUENCE and
//! SHOW CREATE TABLE of a sequence, `SELECT * FROM s`, NEXTVAL / NEXT VALUE FOR,
//! LASTVAL / PREVIOUS VALUE FOR, SETVAL, MariaDB's errors; values never handed
//! out twice across a clean restart, kill -9 and concurrent sessions, and not
//! given back by a rollback; a mariadb-dump of a database with a sequence loads
//! back. Differential (`--ignored`): outputs and errors against a real MariaDB.

use basalt_tests::mariadb::{self, MariaDb};
use basalt_tests::{cell, Basalt};
use mysql::prelude::*;
use mysql::{Conn, Opts};
use std::collections::BTreeSet;

#[path = "seq_engine.rs"]
mod seq_engine;

fn conn(url: &str) -> Conn {
    Conn::new(Opts::from_url(url).expect("url")).expect("connect")
}

fn err(c: &mut Conn, sql: &str) -> (u16, String) {
    match c.query_drop(sql) {
        Err(mysql::Error::MySqlError(e)) => (e.code, e.message),
        other => panic!("{sql}: expected an error, got {other:?}"),
    }
}

fn one(c: &mut Conn, sql: &str) -> Option<String> {
    let row: mysql::Row = c.query_first(sql).expect(sql).expect("a row");
    cell(&row.as_ref(0).expect("a column").clone())
}

fn int(c: &mut Conn, sql: &str) -> i64 {
    one(c, sql).expect("not NULL").parse().expect("an integer")
}

fn setup(c: &mut Conn) {
    c.query_drop("create database sq").expect("create database");
    c.query_drop("use sq").expect("use");
}

#[test]
fn create_show_select_and_values() {
    let b = Basalt::start();
    let mut c = conn(&b.url());
    setup(&mut c);
    c.query_drop("create sequence s").expect("create");
    assert_eq!(
        c.query_first::<(String, String), _>("show create sequence s")
            .expect("show")
            .expect("row")
            .1,
        "CREATE SEQUENCE `s` start with 1 minvalue 1 maxvalue 9223372036854775806 \
         increment by 1 cache 1000 nocycle ENGINE=InnoDB"
    );
    let t: (String, String) = c
        .query_first("show create table s")
        .expect("show")
        .expect("row");
    assert!(t
        .1
        .starts_with("CREATE TABLE `s` (\n  `next_not_cached_value` bigint(21) NOT NULL,"));
    assert!(t.1.ends_with(") ENGINE=InnoDB SEQUENCE=1"), "{}", t.1);
    let row: Vec<mysql::Value> = c
        .query_first::<mysql::Row, _>("select * from s")
        .expect("select")
        .expect("row")
        .unwrap();
    let row: Vec<String> = row.iter().map(|v| cell(v).expect("value")).collect();
    assert_eq!(
        row,
        ["1", "1", "9223372036854775806", "1", "1", "1000", "0", "0"]
    );
    assert_eq!(one(&mut c, "select lastval(s)"), None);
    assert_eq!(int(&mut c, "select nextval(s)"), 1);
    assert_eq!(int(&mut c, "select next value for s"), 2);
    assert_eq!(int(&mut c, "select next value for sq.s"), 3);
    assert_eq!(int(&mut c, "select previous value for s"), 3);
    assert_eq!(int(&mut c, "select lastval(s)"), 3);
    assert_eq!(int(&mut c, "select next_not_cached_value from s"), 1001);
    assert_eq!(int(&mut c, "select setval(s, 100)"), 100);
    assert_eq!(int(&mut c, "select nextval(s)"), 101);
    assert_eq!(one(&mut c, "select setval(s, 50)"), None);
    assert_eq!(int(&mut c, "select setval(s, 200, 0)"), 200);
    assert_eq!(int(&mut c, "select nextval(s)"), 200);
    let many: Vec<i64> = c
        .query("select nextval(s) from (select 1 union select 2 union select 3) q")
        .expect("rows");
    assert_eq!(many, [201, 202, 203]);
    c.query_drop("create table t (a bigint, b int)")
        .expect("table");
    c.query_drop("insert into t values (next value for s, 1), (nextval(s), 2)")
        .expect("insert");
    let got: Vec<(i64, i64)> = c.query("select a, b from t order by b").expect("rows");
    assert_eq!(got, [(204, 1), (205, 2)]);

    let full: Vec<(String, String)> = c.query("show full tables").expect("show");
    assert_eq!(
        full,
        [
            ("s".to_string(), "SEQUENCE".to_string()),
            ("t".to_string(), "BASE TABLE".to_string())
        ]
    );
    let kinds: Vec<(String, String)> = c
        .query("select table_name, table_type from information_schema.tables where table_schema='sq' order by 1")
        .expect("infoschema");
    assert_eq!(kinds[0], ("s".to_string(), "SEQUENCE".to_string()));
}

#[test]
fn cycle_alter_restart_and_run_out() {
    let b = Basalt::start();
    let mut c = conn(&b.url());
    setup(&mut c);
    c.query_drop(
        "create sequence s2 start with 10 increment by 5 minvalue 1 maxvalue 20 cache 2 cycle",
    )
    .expect("create");
    let v: Vec<i64> = (0..5).map(|_| int(&mut c, "select nextval(s2)")).collect();
    assert_eq!(v, [10, 15, 20, 1, 6]);
    assert_eq!(int(&mut c, "select cycle_count from s2"), 1);
    c.query_drop("create sequence s3 maxvalue 2 nocache")
        .expect("create");
    assert_eq!(int(&mut c, "select nextval(s3)"), 1);
    assert_eq!(int(&mut c, "select nextval(s3)"), 2);
    assert_eq!(
        err(&mut c, "select nextval(s3)"),
        (4084, "Sequence 'sq.s3' has run out".into())
    );
    c.query_drop("create or replace sequence s start with 5")
        .expect("create");
    assert_eq!(int(&mut c, "select nextval(s)"), 5);
    c.query_drop("alter sequence s restart").expect("restart");
    assert_eq!(int(&mut c, "select nextval(s)"), 5);
    c.query_drop("alter sequence s restart with 50")
        .expect("restart with");
    assert_eq!(int(&mut c, "select nextval(s)"), 50);
    c.query_drop("alter sequence s increment by 10")
        .expect("alter");
    assert_eq!(int(&mut c, "select nextval(s)"), 1050);
    assert_eq!(int(&mut c, "select nextval(s)"), 1060);
    let show: (String, String) = c
        .query_first("show create sequence s")
        .expect("show")
        .expect("row");
    assert!(show.1.contains("start with 5 minvalue 1"), "{}", show.1);
    assert!(show.1.contains("increment by 10 cache 1000"), "{}", show.1);
    c.query_drop("create sequence n increment by -1 nocache")
        .expect("create");
    assert_eq!(int(&mut c, "select nextval(n)"), -1);
    assert_eq!(int(&mut c, "select nextval(n)"), -2);
}

#[test]
fn errors_are_mariadbs() {
    let b = Basalt::start();
    let mut c = conn(&b.url());
    setup(&mut c);
    c.query_drop("create sequence s").expect("create");
    c.query_drop("create table t (a int)").expect("table");
    let cases: &[(&str, u16, &str)] = &[
        (
            "create sequence e minvalue 10 maxvalue 5",
            4085,
            "Sequence 'sq.e' has out of range value for options",
        ),
        (
            "create sequence e start with 100 maxvalue 50",
            4085,
            "Sequence 'sq.e' has out of range value for options",
        ),
        (
            "create sequence e maxvalue 9223372036854775807",
            4085,
            "Sequence 'sq.e' has out of range value for options",
        ),
        (
            "create sequence e increment by 1 increment by 2",
            1225,
            "Option 'INCREMENT' used twice in statement",
        ),
        ("create sequence s", 1050, "Table 's' already exists"),
        ("select nextval(nosuch)", 4091, "Unknown SEQUENCE: 'nosuch'"),
        ("select nextval(t)", 4089, "'sq.t' is not a SEQUENCE"),
        (
            "alter sequence nosuch restart",
            4091,
            "Unknown SEQUENCE: 'nosuch'",
        ),
        ("drop sequence t", 4090, "'sq.t' is not a SEQUENCE"),
        (
            "drop sequence nosuch",
            4091,
            "Unknown SEQUENCE: 'sq.nosuch'",
        ),
        ("show create sequence t", 4089, "'sq.t' is not a SEQUENCE"),
        (
            "update s set cycle_count = 1",
            1031,
            "Storage engine SEQUENCE of the table `sq`.`s` doesn't have this option",
        ),
        (
            "delete from s",
            1031,
            "Storage engine SEQUENCE of the table `sq`.`s` doesn't have this option",
        ),
        (
            "truncate table s",
            1031,
            "Storage engine SEQUENCE of the table `sq`.`s` doesn't have this option",
        ),
        (
            "alter sequence s maxvalue 0",
            4085,
            "Sequence 'sq.s' has out of range value for options",
        ),
    ];
    for (sql, code, msg) in cases {
        assert_eq!(err(&mut c, sql), (*code, msg.to_string()), "{sql}");
    }
    c.query_drop("create sequence if not exists s")
        .expect("if not exists");
    c.query_drop("drop sequence if exists nosuch")
        .expect("if exists");
    let w: Vec<(String, u16, String)> = c.query("show warnings").expect("warnings");
    assert_eq!(w[0].1, 4091);
    assert_eq!(w[0].2, "Unknown SEQUENCE: 'sq.nosuch'");
    c.query_drop("drop table s")
        .expect("drop table of a sequence");
    assert_eq!(err(&mut c, "select nextval(s)").0, 4091);
}

#[test]
fn values_are_not_repeated_after_restart_kill9_or_rollback() {
    let mut b = Basalt::start();
    let mut seen = BTreeSet::new();
    {
        let mut c = conn(&b.url());
        setup(&mut c);
        c.query_drop("create sequence s cache 10").expect("create");
        for _ in 0..15 {
            assert!(seen.insert(int(&mut c, "select nextval(s)")));
        }
        c.query_drop("begin").expect("begin");
        assert!(seen.insert(int(&mut c, "select nextval(s)")));
        c.query_drop("rollback").expect("rollback");
        let after = int(&mut c, "select nextval(s)");
        assert_eq!(after, 17, "a rollback gives no value back");
        seen.insert(after);
    }
    b.restart(false);
    {
        let mut c = conn(&b.url_db("sq"));
        let v = int(&mut c, "select nextval(s)");
        assert!(
            v > *seen.last().expect("values"),
            "{v} after a clean restart"
        );
        assert_eq!(v, 21, "a restart starts after the reserved range");
        seen.insert(v);
        for _ in 0..4 {
            assert!(seen.insert(int(&mut c, "select nextval(s)")));
        }
    }
    b.restart(true);
    let mut c = conn(&b.url_db("sq"));
    let v = int(&mut c, "select nextval(s)");
    assert!(
        v > *seen.last().expect("values"),
        "{v} after kill -9 repeats a value"
    );
    assert!(v <= 41, "{v}: skipped more than the cache");
    assert_eq!(int(&mut c, "select lastval(s)"), v);
}

#[test]
fn concurrent_sessions_get_distinct_values() {
    let b = Basalt::start();
    let mut c = conn(&b.url());
    setup(&mut c);
    c.query_drop("create sequence s cache 7").expect("create");
    let url = b.url_db("sq");
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let url = url.clone();
            std::thread::spawn(move || {
                let mut c = conn(&url);
                (0..150)
                    .map(|_| int(&mut c, "select nextval(s)"))
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let mut all = BTreeSet::new();
    for t in threads {
        for v in t.join().expect("thread") {
            assert!(all.insert(v), "{v} handed out twice");
        }
    }
    assert_eq!(all.len(), 600);
    assert_eq!(*all.last().expect("values"), 600);
}

#[test]
fn mariadb_dump_of_a_sequence_reloads() {
    if basalt_tests::which("mariadb-dump").is_none() {
        eprintln!("mariadb-dump not installed; skipped");
        return;
    }
    let b = Basalt::start();
    let mut c = conn(&b.url());
    setup(&mut c);
    c.query_drop("create sequence s start with 10 increment by 3 cache 5")
        .expect("create");
    for _ in 0..4 {
        c.query_drop("select nextval(s)").expect("nextval");
    }
    let out = std::process::Command::new("mariadb-dump")
        .args(["-h127.0.0.1", "-uroot", "--skip-ssl"])
        .arg(format!("-P{}", b.port))
        .args(["--databases", "sq"])
        .output()
        .expect("mariadb-dump");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dump = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(dump.contains("CREATE SEQUENCE"), "{dump}");
    c.query_drop("drop database sq").expect("drop");
    let (code, _, e) = basalt_tests::mariadb_cli(b.port, &[], &dump);
    assert_eq!(code, 0, "reload failed: {e}");
    let mut c = conn(&b.url_db("sq"));
    let v = int(&mut c, "select nextval(s)");
    assert!(v > 19, "{v}: the reloaded sequence repeats values");
    let show: (String, String) = c
        .query_first("show create sequence s")
        .expect("show")
        .expect("row");
    assert!(show.1.contains("start with 10"), "{}", show.1);
    assert!(show.1.contains("increment by 3 cache 5"), "{}", show.1);
}

/// Statements run on both servers; each gives the same rows or the same error.
const DIFF: &[&str] = &[
    "create sequence s",
    "show create sequence s",
    "show create table s",
    "select * from s",
    "select nextval(s), next value for s, lastval(s), previous value for s",
    "select setval(s, 100)",
    "select nextval(s)",
    "select setval(s, 50)",
    "select setval(s, 200, 0)",
    "select nextval(s)",
    "select setval(s, 300, 1, 0)",
    "select * from s",
    "create sequence s2 start with 10 increment by 5 minvalue 1 maxvalue 20 cache 2 cycle",
    "show create sequence s2",
    "select nextval(s2), nextval(s2), nextval(s2), nextval(s2), nextval(s2)",
    "select * from s2",
    "create sequence s3 maxvalue 2 nocache",
    "select nextval(s3)",
    "select nextval(s3)",
    "select nextval(s3)",
    "create sequence e1 minvalue 10 maxvalue 5",
    "create sequence e4 increment by 0",
    "select nextval(e4), nextval(e4)",
    "create sequence n increment by -1",
    "show create sequence n",
    "select nextval(n)",
    "create sequence b start with 9223372036854775806",
    "select nextval(b)",
    "select nextval(b)",
    "create or replace sequence s start with 5",
    "alter sequence s restart with 50",
    "select nextval(s)",
    "alter sequence s increment by 10",
    "select nextval(s), nextval(s)",
    "select * from s",
    "alter sequence nosuch restart",
    "select nextval(nosuch)",
    "create table t (a int)",
    "select nextval(t)",
    "drop sequence t",
    "show full tables",
    "select table_name, table_type from information_schema.tables where table_schema = database() order by 1",
    "create sequence y start with 1 minvalue 1 maxvalue 10 cycle",
    "select nextval(y)",
    "select setval(y, 5, 1, 3)",
    "select * from y",
    "select setval(y, 5, 1, 1)",
    "update y set cycle_count = 1",
    "create sequence c cache 0",
    "show create sequence c",
    "create sequence z2 comment 'hi'",
    "show create sequence z2",
    "drop sequence s, s2",
    "drop sequence if exists s",
    "show warnings",
];

fn outcome(c: &mut Conn, sql: &str) -> String {
    match c.query_iter(sql) {
        Ok(mut r) => {
            let mut out = Vec::new();
            if let Some(set) = r.iter() {
                for row in set {
                    let row = match row {
                        Ok(r) => r,
                        Err(mysql::Error::MySqlError(e)) => {
                            return format!("ERROR {} {}", e.code, e.message)
                        }
                        Err(e) => panic!("{sql}: {e}"),
                    };
                    let cells: Vec<String> = row
                        .unwrap()
                        .iter()
                        .map(|v| cell(v).unwrap_or_else(|| "NULL".into()))
                        .collect();
                    out.push(cells.join("|"));
                }
            }
            out.join("\n")
        }
        Err(mysql::Error::MySqlError(e)) => format!("ERROR {} {}", e.code, e.message),
        Err(e) => panic!("{sql}: {e}"),
    }
}

#[test]
#[ignore]
fn differential_sequences_against_mariadb() {
    if !mariadb::available() {
        eprintln!("mariadbd not installed; skipped");
        return;
    }
    let mut m = MariaDb::start(&[]);
    let b = Basalt::start();
    let mut mc = conn(&m.url());
    let mut bc = conn(&b.url());
    for c in [&mut mc, &mut bc] {
        setup(c);
    }
    let mut diffs = Vec::new();
    for sql in DIFF {
        let want = outcome(&mut mc, sql);
        let got = outcome(&mut bc, sql);
        if want != got {
            diffs.push(format!("{sql}\n  mariadb: {want}\n  basalt:  {got}"));
        }
    }
    m.stop();
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}
