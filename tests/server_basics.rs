//! basaltd through real client libraries: connect, define tables, query, and the
//! errors a client can cause (the session stays usable after each).

use basalt_tests::Basalt;
use mysql::prelude::*;
use mysql::{Conn, Opts, Value};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

fn connect(b: &Basalt) -> Conn {
    Conn::new(Opts::from_url(&b.url()).expect("url")).expect("connect")
}

fn err_code(e: mysql::Error) -> u16 {
    match e {
        mysql::Error::MySqlError(e) => e.code,
        other => panic!("expected a server error, got {other:?}"),
    }
}

#[test]
fn connect_create_insert_select() {
    let b = Basalt::start();
    let mut c = connect(&b);
    let comment: String = c
        .query_first("select @@version_comment limit 1")
        .expect("q")
        .expect("row");
    assert_eq!(comment, "Basalt");
    c.query_drop("create database d1").expect("create db");
    c.query_drop("use d1").expect("use");
    let db: Option<String> = c.query_first("select database()").expect("q").expect("row");
    assert_eq!(db.as_deref(), Some("d1"));
    c.query_drop(
        "create table t (id int primary key auto_increment, name varchar(20), n int, key(n))",
    )
    .expect("create table");
    c.query_drop("insert into t (name, n) values ('a', 1), ('b', 2), (null, 3)")
        .expect("insert");
    assert_eq!(c.affected_rows(), 3);
    assert_eq!(c.last_insert_id(), 1);
    let rows: Vec<(i64, Option<String>, i64)> = c
        .query("select id, name, n from t where n >= 2 order by n desc")
        .expect("select");
    assert_eq!(rows, vec![(3, None, 3), (2, Some("b".into()), 2)]);
    let count: i64 = c
        .query_first("select count(*) from t")
        .expect("q")
        .expect("row");
    assert_eq!(count, 3);
    let tables: Vec<String> = c.query("show tables").expect("show");
    assert_eq!(tables, vec!["t".to_string()]);
}

#[test]
fn errors_keep_the_session_usable() {
    let b = Basalt::start();
    let mut c = connect(&b);
    assert_eq!(err_code(c.query_drop("selec 1").expect_err("syntax")), 1064);
    assert_eq!(
        err_code(c.query_drop("select * from nosuch").expect_err("no db")),
        1046
    );
    assert_eq!(
        err_code(c.query_drop("use nosuchdb").expect_err("bad db")),
        1049
    );
    c.query_drop("use test").expect("use test");
    assert_eq!(
        err_code(c.query_drop("select * from nosuch").expect_err("no table")),
        1146
    );
    c.query_drop("create table t (a int primary key, b int)")
        .expect("create");
    assert_eq!(
        err_code(c.query_drop("select nope from t").expect_err("no column")),
        1054
    );
    c.query_drop("insert into t values (1, 1)").expect("insert");
    assert_eq!(
        err_code(
            c.query_drop("insert into t values (2, 2), (1, 3)")
                .expect_err("dup")
        ),
        1062
    );
    // The failed multi-row insert left none of its rows.
    let n: i64 = c
        .query_first("select count(*) from t")
        .expect("q")
        .expect("row");
    assert_eq!(n, 1);
    let one: i64 = c.query_first("select 1").expect("q").expect("row");
    assert_eq!(one, 1);
}

#[test]
fn prepared_statements_round_trip() {
    let b = Basalt::start();
    let mut c = Conn::new(Opts::from_url(&b.url_db("test")).expect("url")).expect("connect");
    c.query_drop("create table p (id int primary key, s varchar(10), d double)")
        .expect("create");
    let stmt = c.prep("insert into p values (?, ?, ?)").expect("prepare");
    c.exec_drop(&stmt, (1, "x", 1.5)).expect("exec");
    c.exec_drop(&stmt, (2, Value::NULL, 2.5)).expect("exec");
    let rows: Vec<(i32, Option<String>, f64)> = c
        .exec("select id, s, d from p where id >= ? order by id", (1,))
        .expect("select");
    assert_eq!(rows, vec![(1, Some("x".into()), 1.5), (2, None, 2.5)]);
}

/// A malformed or oversized packet closes only that connection.
#[test]
fn bad_packets_close_only_their_connection() {
    let b = Basalt::start();
    let mut good = connect(&b);
    for garbage in [
        vec![0xff, 0xff, 0xff, 0x00, 0x01, 0x02],
        vec![0x01, 0x00, 0x00, 0x07],
        b"GET / HTTP/1.1\r\n\r\n".to_vec(),
    ] {
        let mut s = TcpStream::connect(("127.0.0.1", b.port)).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(5)))
            .expect("timeout");
        let mut greeting = [0u8; 256];
        let _ = s.read(&mut greeting).expect("greeting");
        let _ = s.write_all(&garbage);
        let _ = s.shutdown(std::net::Shutdown::Write);
        let mut rest = Vec::new();
        let _ = s.read_to_end(&mut rest);
    }
    // A client announcing a packet over max_allowed_packet gets 1153.
    let mut big = connect(&b);
    let huge = "x".repeat(20 << 20);
    let e = big.query_drop(format!("select '{huge}'"));
    assert!(e.is_err());
    let one: i64 = good.query_first("select 1").expect("q").expect("row");
    assert_eq!(one, 1);
}

#[test]
fn client_vanishing_mid_result_does_not_hurt_others() {
    let b = Basalt::start();
    let mut c = connect(&b);
    c.query_drop("use test").expect("use");
    c.query_drop("create table big (id int primary key, pad varchar(200))")
        .expect("create");
    for chunk in 0..20 {
        let values: Vec<String> = (0..500)
            .map(|i| format!("({}, '{}')", chunk * 500 + i, "p".repeat(150)))
            .collect();
        c.query_drop(format!("insert into big values {}", values.join(",")))
            .expect("insert");
    }
    // Ask for everything, read a little, and vanish. Several times, to be sure.
    for _ in 0..5 {
        let mut s = basalt_tests::raw_login(b.port);
        basalt_tests::send_packet(&mut s, 0, b"\x03select * from test.big");
        let mut some = [0u8; 512];
        let _ = s.read(&mut some);
        drop(s);
    }
    let n: i64 = c
        .query_first("select count(*) from big")
        .expect("q")
        .expect("row");
    assert_eq!(n, 10_000);
}

#[test]
fn stops_cleanly_on_sigterm() {
    let mut b = Basalt::start();
    let _c = connect(&b);
    assert_eq!(b.stop(), Some(0), "log:\n{}", b.log());
}

/// A multi-row INSERT is planned once per row shape: later INSERTs of that shape,
/// with any number of rows, reuse the plan; a failing row leaves nothing behind.
#[test]
fn bulk_inserts_reuse_one_plan_per_shape() {
    let b = Basalt::start();
    let mut c = connect(&b);
    c.query_drop("create database d").expect("db");
    c.query_drop("use d").expect("use");
    c.query_drop("create table t (id int primary key, s varchar(10), n int default 5)")
        .expect("create");
    let hits = |c: &mut Conn| -> u64 {
        let r: Vec<(String, String)> = c
            .query("show global status like 'Plan_cache_hits'")
            .expect("status");
        r[0].1.parse().expect("number")
    };
    let rows = |from: usize, n: usize| -> String {
        (from..from + n)
            .map(|i| format!("({i}, 'v{i}', DEFAULT)"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    c.query_drop(format!("insert into t (id, s, n) values {}", rows(0, 3)))
        .expect("first");
    let before = hits(&mut c);
    for (from, n) in [(3, 2), (5, 1000), (1005, 7)] {
        c.query_drop(format!("insert into t (id, s, n) values {}", rows(from, n)))
            .expect("bulk");
        assert_eq!(c.affected_rows(), n as u64);
    }
    assert!(hits(&mut c) >= before + 3, "the one-row plan was reused");
    let e = c
        .query_drop(format!(
            "insert into t (id, s, n) values {}, (7, 'dup', DEFAULT), {}",
            rows(2000, 5),
            rows(3000, 5)
        ))
        .expect_err("duplicate");
    assert_eq!(err_code(e), 1062);
    let (count, sum, fives): (i64, i64, i64) = c
        .query_first("select count(*), sum(id), sum(n = 5) from t")
        .expect("q")
        .expect("row");
    assert_eq!((count, sum, fives), (1012, (0..1012).sum::<i64>(), 1012));
    let s: String = c
        .query_first("select s from t where id = 1004")
        .expect("q")
        .expect("row");
    assert_eq!(s, "v1004");
}

/// `SHUTDOWN` (what `mariadb-admin shutdown` sends today) and COM_SHUTDOWN (what
/// older clients send) stop the server cleanly, keeping what was committed.
#[test]
fn shutdown_statement_and_command_stop_cleanly() {
    let mut b = Basalt::start();
    {
        let mut c = connect(&b);
        c.query_drop("create database d").expect("db");
        c.query_drop("create table d.t (a int primary key)")
            .expect("create");
        c.query_drop("insert into d.t values (1), (2)")
            .expect("insert");
        assert_eq!(
            err_code(c.query_drop("shutdown now").expect_err("syntax")),
            1064
        );
        c.query_drop("SHUTDOWN").expect("shutdown");
    }
    assert_eq!(b.wait_exit(Duration::from_secs(60)), Some(0));
    assert!(
        b.log().contains("SHUTDOWN requested by connection"),
        "{}",
        b.log()
    );
    b.restart(false);
    let mut c = connect(&b);
    let n: i64 = c
        .query_first("select count(*) from d.t")
        .expect("q")
        .expect("row");
    assert_eq!(n, 2);
    let mut s = basalt_tests::raw_login(b.port);
    basalt_tests::send_packet(&mut s, 0, &[0x08, 0x00]);
    let reply = basalt_tests::read_packet(&mut s).expect("reply");
    assert_eq!(reply[0], 0x00, "OK packet");
    assert_eq!(b.wait_exit(Duration::from_secs(60)), Some(0));
    assert!(b.log().contains("COM_SHUTDOWN from connection"));
}

/// MariaDB clears the diagnostics list only for statements that use tables or
/// raise diagnostics of their own: after a SET or USE, SHOW WARNINGS still lists
/// the previous statement's warnings, while the SET's OK packet counts none.
#[test]
fn statements_without_tables_keep_the_previous_diagnostics() {
    let b = Basalt::start();
    let mut c = connect(&b);
    c.query_drop("CREATE DATABASE kd").unwrap();
    c.query_drop("CREATE TABLE kd.t (a INT)").unwrap();
    let warnings = |c: &mut Conn| -> Vec<u32> {
        let rows: Vec<mysql::Row> = c.query("SHOW WARNINGS").unwrap();
        rows.iter().map(|r| r.get::<u32, _>(1).unwrap()).collect()
    };
    c.query_drop("INSERT INTO kd.t VALUES ('x' + 0)").unwrap();
    assert_eq!(c.warnings(), 1);
    c.query_drop("SET @a = 1").unwrap();
    assert_eq!(c.warnings(), 0);
    c.query_drop("USE kd").unwrap();
    c.query_drop("BEGIN").unwrap();
    c.query_drop("COMMIT").unwrap();
    assert_eq!(warnings(&mut c), vec![1292]);
    let count: Option<u64> = c.query_first("SELECT @@warning_count").unwrap();
    assert_eq!(count, Some(1));
    // A SET that raises its own diagnostic replaces the list.
    c.query_drop("SET @@optimizer_search_depth = 100").unwrap();
    assert_eq!(c.warnings(), 1);
    assert_eq!(warnings(&mut c), vec![1292]);
    let msg: Option<String> = c
        .query_first("SHOW WARNINGS")
        .unwrap()
        .map(|r: mysql::Row| r.get(2).unwrap());
    assert!(msg.unwrap().contains("optimizer_search_depth"));
    // A statement that reads a table clears it.
    c.query_drop("SELECT * FROM kd.t").unwrap();
    assert!(warnings(&mut c).is_empty());
}
