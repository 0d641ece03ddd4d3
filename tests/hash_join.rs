//! Hash joins: equi-joins on columns no index serves give MariaDB's rows, with
//! MariaDB's comparison semantics (`'a' = 'A '` under a `_ci` collation, PAD
//! SPACE under `_bin`, signed against unsigned integers, integers against
//! strings compared as numbers and so never hashed), through LEFT JOINs and
//! chains; EXPLAIN marks the hashed levels; a table too big for the memory
//! budget is joined by nested loop instead of failing.

use basalt_tests::mariadb::{self, MariaDb};
use basalt_tests::Basalt;
use mysql::prelude::*;
use mysql::{Conn, Opts};

fn connect(url: &str) -> Conn {
    Conn::new(Opts::from_url(url).expect("url")).expect("connect")
}

fn exec(c: &mut Conn, sql: &str) {
    c.query_drop(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
}

type Rows = Vec<Vec<Option<String>>>;

fn rows(c: &mut Conn, sql: &str) -> Result<Rows, (u16, String)> {
    let got: Result<Vec<mysql::Row>, _> = c.query(sql);
    let got = match got {
        Ok(r) => r,
        Err(mysql::Error::MySqlError(e)) => return Err((e.code, e.message)),
        Err(e) => panic!("{sql}: {e}"),
    };
    let mut out: Rows = got
        .into_iter()
        .map(|r| {
            r.unwrap()
                .into_iter()
                .map(|v| basalt_tests::cell(&v))
                .collect()
        })
        .collect();
    out.sort();
    Ok(out)
}

/// EXPLAIN's Extra column per table.
fn extras(c: &mut Conn, sql: &str) -> Vec<(String, String)> {
    let got: Vec<mysql::Row> = c
        .query(format!("explain {sql}"))
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    got.iter()
        .map(|r| {
            (
                r.get::<String, _>("table").expect("table"),
                r.get::<Option<String>, _>("Extra")
                    .expect("Extra")
                    .unwrap_or_default(),
            )
        })
        .collect()
}

fn hashed(c: &mut Conn, sql: &str) -> bool {
    extras(c, sql)
        .iter()
        .any(|(_, e)| e.contains("Using join buffer (flat, BNLH join)"))
}

const SETUP: &[&str] = &[
    "create table h1 (id int primary key, i int, u bigint unsigned, \
     s varchar(5) collate utf8mb4_general_ci, b varchar(5) collate utf8mb4_bin, t varchar(5))",
    "create table h2 (id int primary key, i bigint, u int unsigned, \
     s varchar(5) collate utf8mb4_general_ci, b varchar(5) collate utf8mb4_bin, t varchar(5))",
    "create table h3 (id int primary key, i int, s varchar(5) collate utf8mb4_general_ci)",
    "insert into h1 values (1, 1, 1, 'a', 'a', '1'), (2, -1, 18446744073709551615, 'A ', 'a ', '1.0'), \
     (3, 2, 2, 'b', 'A', ' 2'), (4, null, null, null, null, null), (5, 7, 7, 'c', 'b', '7x')",
    "insert into h2 values (10, 1, 1, 'A', 'a', '1'), (11, 18, 4294967295, 'a', 'a  ', '01'), \
     (12, 2, 2, 'B ', 'B', '2'), (13, null, null, null, null, null), (14, 7, 7, 'a', 'b', '7')",
    "insert into h3 values (20, 1, 'a'), (21, 2, 'b'), (22, 7, 'A'), (23, null, null)",
];

/// Each query, and whether Basalt must hash it.
const QUERIES: &[(&str, bool)] = &[
    ("select h1.id, h2.id from h1, h2 where h1.s = h2.s", true),
    ("select h1.id, h2.id from h1, h2 where h1.b = h2.b", true),
    ("select h1.id, h2.id from h1, h2 where h1.i = h2.i", true),
    ("select h1.id, h2.id from h1, h2 where h1.u = h2.u", true),
    (
        "select h1.id, h2.id from h1, h2 where h1.i = h2.u and h2.i = h1.u",
        true,
    ),
    ("select h1.id, h2.id from h1, h2 where h1.t = h2.t", true),
    // Integer against string: compared as numbers, never hashed.
    ("select h1.id, h2.id from h1, h2 where h1.i = h2.t", false),
    ("select h1.id, h2.id from h1, h2 where h1.t = h2.i", false),
    // Integer against a string expression: not hashed.
    (
        "select h1.id, h2.id from h1, h2 where h1.i = concat(h2.t, '')",
        false,
    ),
    (
        "select h1.id, h2.id from h1 left join h2 on h1.s = h2.s and h2.i > 1",
        true,
    ),
    (
        "select h1.id, h2.id, h3.id from h1, h2, h3 where h1.s = h2.s and h2.i = h3.i",
        true,
    ),
    (
        "select h1.id, h2.id from h1, h2 where h1.s = h2.s and h1.i < h2.i",
        true,
    ),
    (
        "select count(*), sum(h2.i) from h1 join h2 on h2.s = h1.s where h1.id > 1",
        true,
    ),
];

#[test]
#[ignore = "needs mariadb-server; run by .ci/run"]
fn hash_joins_match_mariadb() {
    if !mariadb::available() {
        eprintln!("mariadb-server not installed; skipping");
        return;
    }
    let b = Basalt::start();
    let m = MariaDb::start(&["--innodb-flush-log-at-trx-commit=2"]);
    let mut conns = [connect(&b.url()), connect(&m.url())];
    for c in conns.iter_mut() {
        exec(c, "create database hj");
        exec(c, "use hj");
        for s in SETUP {
            exec(c, s);
        }
    }
    let [basalt, maria] = &mut conns;
    for (q, hash) in QUERIES {
        let (x, y) = (rows(basalt, q), rows(maria, q));
        assert_eq!(x, y, "\nquery: {q}");
        if x.is_ok() {
            assert_eq!(hashed(basalt, q), *hash, "{q}: {:?}", extras(basalt, q));
        }
    }
}

/// `hj.big`: 10,000 rows, `k` = id % 100 (no index), and `hj.small`.
fn big_tables(c: &mut Conn) {
    exec(c, "create database hj");
    exec(c, "use hj");
    exec(c, "create table d (x int primary key)");
    exec(
        c,
        "insert into d values (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)",
    );
    exec(
        c,
        "create table big (id int primary key, k int, pad varchar(200))",
    );
    exec(
        c,
        "insert into big select a.x * 1000 + b.x * 100 + e.x * 10 + f.x, \
         (a.x * 1000 + b.x * 100 + e.x * 10 + f.x) % 100, repeat('p', 200) \
         from d a, d b, d e, d f",
    );
    exec(c, "create table small (id int primary key, k int)");
    exec(c, "insert into small values (1, 5), (2, 6), (3, 500)");
}

#[test]
fn a_table_past_the_memory_budget_is_joined_by_nested_loop() {
    let b = Basalt::start();
    let mut c = connect(&b.url());
    big_tables(&mut c);
    let q = "select count(*), sum(big.id) from small, big where big.k = small.k";
    assert!(hashed(&mut c, q), "{:?}", extras(&mut c, q));
    let want: (i64, i64) = c.query_first(q).expect("query").expect("row");
    assert_eq!(want.0, 200);
    // 10,000 rows of 200 bytes do not fit in 1 MB: the same answer by nested loop.
    exec(&mut c, "set max_session_mem_used = 1048576");
    let got: (i64, i64) = c.query_first(q).expect("query").expect("row");
    assert_eq!(got, want);
    // The budget is whole again afterwards: a sort within it still runs.
    let n: Option<i64> = c
        .query_first("select id from small order by k desc limit 1")
        .expect("sort");
    assert_eq!(n, Some(3));
}

#[test]
fn max_statement_time_ends_a_hash_join() {
    let b = Basalt::start();
    let mut c = connect(&b.url());
    big_tables(&mut c);
    // 10,000 x 100 x 100 joined rows: far longer than the limit.
    let q = "select count(*) from big a, big b, big e where b.k = a.k and e.k = b.k";
    let plan = extras(&mut c, q);
    assert!(
        plan.iter().filter(|(_, e)| e.contains("BNLH")).count() == 2,
        "{plan:?}"
    );
    exec(&mut c, "set max_statement_time = 0.3");
    let t = std::time::Instant::now();
    match c.query_first::<i64, _>(q) {
        Err(mysql::Error::MySqlError(e)) => assert_eq!(e.code, 1969, "{}", e.message),
        other => panic!("expected 1969, got {other:?}"),
    }
    assert!(
        t.elapsed() < std::time::Duration::from_secs(10),
        "{:?}",
        t.elapsed()
    );
    let one: i64 = c.query_first("select 1").expect("q").expect("row");
    assert_eq!(one, 1);
}
