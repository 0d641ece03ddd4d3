//! Bounds of a recursive CTE: `max_recursive_iterations` stops the recursion
//! with MariaDB's warning 1931; a runaway recursion fails with 1290 once its
//! rows pass `max_session_mem_used`, with 1969 at `max_statement_time`, and with
//! 1317 on KILL QUERY; the session goes on after each.

use basalt_tests::Basalt;
use mysql::prelude::*;
use mysql::{Conn, Opts};
use std::time::{Duration, Instant};

const RUNAWAY: &str =
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT COUNT(*) FROM r";

fn connect(port: u16) -> Conn {
    Conn::new(Opts::from_url(&format!("mysql://root@127.0.0.1:{port}/")).expect("url"))
        .expect("connect")
}

fn fails_with(c: &mut Conn, sql: &str, code: u16) -> Duration {
    let t = Instant::now();
    match c.query_drop(sql).expect_err(sql) {
        mysql::Error::MySqlError(e) => assert_eq!(e.code, code, "{sql}: {}", e.message),
        other => panic!("{sql}: {other:?}"),
    }
    t.elapsed()
}

fn warnings(c: &mut Conn) -> Vec<(String, u16, String)> {
    c.query("SHOW WARNINGS").expect("warnings")
}

#[test]
fn recursive_cte_stops_at_max_recursive_iterations() {
    let b = Basalt::start();
    let mut c = connect(b.port);
    let n: u64 = c.query_first(RUNAWAY).expect("q").expect("row");
    assert_eq!(n, 1001);
    let w = warnings(&mut c);
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].1, 1931);
    assert_eq!(
        w[0].2,
        "Query execution was interrupted. The query exceeded max_recursive_iterations = 1000. The query result may be incomplete"
    );
    c.query_drop("SET max_recursive_iterations = 10")
        .expect("set");
    let n: u64 = c.query_first(RUNAWAY).expect("q").expect("row");
    assert_eq!(n, 11);
    // A recursion that ends by itself within the limit warns of nothing.
    let n: u64 = c
        .query_first("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10) SELECT COUNT(*) FROM r")
        .expect("q")
        .expect("row");
    assert_eq!(n, 10);
    assert!(warnings(&mut c).is_empty());
}

/// A data change fed by a recursion cut off at the limit fails in strict mode
/// (1931, nothing written) and writes the rows with the warning otherwise, as
/// MariaDB does.
#[test]
fn a_cut_off_recursion_writes_nothing_in_strict_mode() {
    let b = Basalt::start();
    let mut c = connect(b.port);
    c.query_drop("CREATE DATABASE cte").expect("db");
    c.query_drop("CREATE TABLE cte.r (n INT)").expect("table");
    let fill = "INSERT INTO cte.r WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 2000) SELECT n FROM s";
    fails_with(&mut c, fill, 1931);
    let n: u64 = c
        .query_first("SELECT COUNT(*) FROM cte.r")
        .expect("q")
        .expect("row");
    assert_eq!(n, 0);
    c.query_drop(fill.replace("INSERT", "INSERT IGNORE"))
        .expect("insert ignore");
    assert_eq!(warnings(&mut c)[0].1, 1931);
    c.query_drop("TRUNCATE cte.r").expect("truncate");
    c.query_drop("SET sql_mode = ''").expect("set");
    c.query_drop(fill).expect("non-strict insert");
    assert_eq!(warnings(&mut c)[0].1, 1931);
    let n: u64 = c
        .query_first("SELECT COUNT(*) FROM cte.r")
        .expect("q")
        .expect("row");
    assert_eq!(n, 1001);
}

#[test]
fn runaway_recursive_cte_is_stopped_by_memory_time_and_kill() {
    let b = Basalt::start();
    let mut c = connect(b.port);
    c.query_drop("SET max_recursive_iterations = 4294967295")
        .expect("set");
    // Memory: the working and result rows are charged as they grow.
    c.query_drop("SET max_session_mem_used = 2000000")
        .expect("set");
    let took = fails_with(&mut c, RUNAWAY, 1290);
    assert!(took < Duration::from_secs(10), "{took:?}");
    let one: i64 = c.query_first("SELECT 1").expect("q").expect("row");
    assert_eq!(one, 1);
    c.query_drop("SET max_session_mem_used = DEFAULT")
        .expect("set");
    // Time: a recursion whose rows stay small runs until its deadline.
    let small =
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT MAX(n) FROM r";
    let took = fails_with(
        &mut c,
        &format!("SET STATEMENT max_statement_time = 0.3 FOR {small}"),
        1969,
    );
    assert!(took < Duration::from_secs(5), "{took:?}");
    // KILL QUERY from another session.
    let id: u64 = c
        .query_first("SELECT CONNECTION_ID()")
        .expect("q")
        .expect("row");
    let port = b.port;
    let killer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        connect(port)
            .query_drop(format!("KILL QUERY {id}"))
            .expect("kill");
    });
    let took = fails_with(&mut c, small, 1317);
    killer.join().expect("killer thread");
    assert!(took < Duration::from_secs(5), "{took:?}");
    let one: i64 = c.query_first("SELECT 1").expect("q").expect("row");
    assert_eq!(one, 1);
}
