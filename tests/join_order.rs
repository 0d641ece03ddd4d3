//! Join order chosen by cost: many-table joins whose FROM order does not follow
//! the join conditions complete (a 20-table shuffled chain, a 61-table chain,
//! bounded in time by the test harness only), EXPLAIN lists the tables in the
//! order they run, STRAIGHT_JOIN keeps the FROM order, a LEFT JOIN that WHERE
//! makes inner is reordered; and random join graphs (chains, stars, cycles, LEFT
//! JOINs, STRAIGHT_JOIN, filters, shuffled FROM orders) give MariaDB's rows.

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

/// `n` tables `t0..t{n-1}` of 10 rows `(k, k)`.
fn chain_tables(c: &mut Conn, n: usize) {
    let values: Vec<String> = (0..10).map(|k| format!("({k},{k})")).collect();
    for i in 0..n {
        exec(c, &format!("create table t{i} (id int primary key, v int)"));
        exec(c, &format!("insert into t{i} values {}", values.join(",")));
    }
}

/// The FROM order t0, t2, t4, ..., t1, t3, ...: no two neighbours of the chain
/// are adjacent.
fn shuffled(n: usize) -> Vec<usize> {
    (0..n).step_by(2).chain((1..n).step_by(2)).collect()
}

fn chain_query(n: usize, from: &[usize]) -> String {
    let tables: Vec<String> = from.iter().map(|i| format!("t{i}")).collect();
    let conds: Vec<String> = (0..n - 1)
        .map(|i| format!("t{i}.v = t{}.v", i + 1))
        .collect();
    format!(
        "select count(*) from {} where {}",
        tables.join(","),
        conds.join(" and ")
    )
}

/// EXPLAIN's table column, in row order.
fn explain_tables(c: &mut Conn, sql: &str) -> Vec<String> {
    let rows: Vec<mysql::Row> = c
        .query(format!("explain {sql}"))
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    rows.iter()
        .map(|r| r.get::<String, _>("table").expect("table"))
        .collect()
}

fn follows_chain(order: &[String]) -> bool {
    let idx: Vec<i64> = order.iter().map(|t| t[1..].parse().expect("tN")).collect();
    (1..idx.len()).all(|k| idx[..k].iter().any(|p| (p - idx[k]).abs() == 1))
}

#[test]
fn shuffled_chains_of_20_and_61_tables_complete() {
    let b = Basalt::start();
    let mut c = connect(&b.url());
    exec(&mut c, "create database j");
    exec(&mut c, "use j");
    chain_tables(&mut c, 61);
    for n in [8, 20] {
        let q = chain_query(n, &shuffled(n));
        let count: i64 = c.query_first(&q).expect("query").expect("row");
        assert_eq!(count, 10, "{q}");
        let order = explain_tables(&mut c, &q);
        assert_eq!(order.len(), n);
        assert!(follows_chain(&order), "{n} tables run in order {order:?}");
    }
    let from: Vec<usize> = (0..61).rev().collect();
    let q = chain_query(61, &from);
    let count: i64 = c.query_first(&q).expect("query").expect("row");
    assert_eq!(count, 10);
    let q = chain_query(61, &shuffled(61));
    let count: i64 = c.query_first(&q).expect("query").expect("row");
    assert_eq!(count, 10);
}

#[test]
fn straight_join_keeps_the_from_order_and_left_joins_constrain_it() {
    let b = Basalt::start();
    let mut c = connect(&b.url());
    exec(&mut c, "create database j");
    exec(&mut c, "use j");
    chain_tables(&mut c, 4);
    let q = "select straight_join count(*) from t0, t2, t1 where t0.v = t1.v and t1.v = t2.v";
    assert_eq!(explain_tables(&mut c, q), ["t0", "t2", "t1"]);
    // (`v = id` links: `t0.v = t1.v and t1.v = t2.v` would imply `t0.v = t2.v`.)
    let q = "select count(*) from t0, t2, t1 where t0.v = t1.id and t1.v = t2.id";
    assert!(follows_chain(&explain_tables(&mut c, q)));
    // The operator: t2 after t0 (an explicit alias: the parser takes a bare
    // STRAIGHT_JOIN after a table name for its alias).
    let q = "select count(*) from t0 as t0 straight_join t2 on true join t1 \
             on t0.v = t1.v and t1.v = t2.v";
    let order = explain_tables(&mut c, q);
    let pos = |t: &str| order.iter().position(|x| x == t).expect("listed");
    assert!(pos("t0") < pos("t2"), "{order:?}");
    // A LEFT JOIN's inner table runs after its outer tables...
    let q = "select count(*) from t0, t2 left join t1 on t1.v = t2.v";
    let order = explain_tables(&mut c, q);
    let pos = |t: &str| order.iter().position(|x| x == t).expect("listed");
    assert!(pos("t2") < pos("t1"), "{order:?}");
    // ...unless WHERE rejects its NULL rows: then it is an inner join, free to
    // move (t3 is listed first but joins t1 only, so the cheapest order starts
    // elsewhere or follows the chain), and the result is the same.
    let q = "select count(*) from t0 left join t1 on t1.v = t0.v where t1.id = 3";
    assert_eq!(explain_tables(&mut c, q), ["t1", "t0"]);
    let count: i64 = c.query_first(q).expect("query").expect("row");
    assert_eq!(count, 1);
    let q = "select count(*) from t0 left join t1 on t1.v = t0.v where t1.id <=> 3";
    assert_eq!(explain_tables(&mut c, q), ["t0", "t1"]);
    let count: i64 = c.query_first(q).expect("query").expect("row");
    assert_eq!(count, 1);
    let q = "select count(*) from t3 left join t2 on t2.v = t3.v, t0, t1 \
             where t2.v = t1.id and t0.id = t1.v";
    let count: i64 = c.query_first(q).expect("query").expect("row");
    assert_eq!(count, 10);
    let order = explain_tables(&mut c, q);
    assert!(follows_chain(&order), "{order:?}");
    assert_ne!(order.last().map(String::as_str), Some("t2"), "{order:?}");
}

/// `a.x = b.y and b.y = c.z` implies `a.x = c.z` (TPC-H Q5's nation keys): the
/// planner may read `c` by its index on `z` right after `a`. Strings compared
/// across collations or with numbers imply nothing.
#[test]
fn implied_equalities_let_tables_join_without_their_go_between() {
    let b = Basalt::start();
    let mut c = connect(&b.url());
    exec(&mut c, "create database q");
    exec(&mut c, "use q");
    exec(
        &mut c,
        "create table region (r int primary key, name varchar(10))",
    );
    exec(
        &mut c,
        "create table nation (n int primary key, r int, key (r))",
    );
    exec(
        &mut c,
        "create table supplier (s int primary key, n int, key (n))",
    );
    exec(
        &mut c,
        "create table customer (cu int primary key, n int, key (n))",
    );
    exec(&mut c, "insert into region values (0, 'A'), (1, 'B')");
    exec(
        &mut c,
        "insert into nation values (0, 0), (1, 0), (2, 1), (3, 1)",
    );
    let sup: Vec<String> = (0..40).map(|s| format!("({s}, {})", s % 4)).collect();
    exec(
        &mut c,
        &format!("insert into supplier values {}", sup.join(",")),
    );
    let cus: Vec<String> = (0..400).map(|k| format!("({k}, {})", k % 4)).collect();
    exec(
        &mut c,
        &format!("insert into customer values {}", cus.join(",")),
    );
    let q = "select count(*) from customer, supplier, nation, region \
             where customer.n = supplier.n and supplier.n = nation.n \
             and nation.r = region.r and region.name = 'A'";
    let rows: Vec<mysql::Row> = c.query(format!("explain {q}")).expect("explain");
    let plan: Vec<(String, String, Option<String>)> = rows
        .iter()
        .map(|r| {
            (
                r.get("table").expect("table"),
                r.get("type").expect("type"),
                r.get("ref").expect("ref"),
            )
        })
        .collect();
    let customer = plan.iter().find(|p| p.0 == "customer").expect("customer");
    assert_eq!(customer.1, "ref", "{plan:?}");
    let count: i64 = c.query_first(q).expect("query").expect("row");
    assert_eq!(count, 2 * 100 * 10);
    // A string equal to a number is no equality between the numbers' columns.
    exec(&mut c, "create table s (v varchar(10), key (v))");
    exec(&mut c, "insert into s values ('1'), ('1.0'), ('01')");
    let q = "select count(*) from nation a, s, nation b where a.n = s.v and s.v = b.n";
    let count: i64 = c.query_first(q).expect("query").expect("row");
    assert_eq!(count, 3);
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, pct: usize) -> bool {
        self.below(100) < pct
    }
    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below(i + 1));
        }
    }
}

/// Rows as strings, sorted (the join order decides the row order).
fn rows(c: &mut Conn, sql: &str) -> Result<Vec<Vec<Option<String>>>, String> {
    let got: Result<Vec<mysql::Row>, _> = c.query(sql);
    let mut out: Vec<Vec<Option<String>>> = got
        .map_err(|e| e.to_string())?
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

/// Tables r0..r{n-1} with random small contents; some have an index on `v`.
fn random_schema(rng: &mut Rng, n: usize) -> Vec<String> {
    let mut sql = Vec::new();
    for i in 0..n {
        let key = if rng.chance(50) { ", key (v)" } else { "" };
        sql.push(format!(
            "create table r{i} (id int primary key, v int, w int, s varchar(4) collate utf8mb4_general_ci{key})"
        ));
        let rows = rng.below(9);
        let mut vals = Vec::new();
        for k in 0..rows {
            let small = |rng: &mut Rng| {
                if rng.chance(15) {
                    "null".to_string()
                } else {
                    rng.below(5).to_string()
                }
            };
            let (v, w) = (small(rng), small(rng));
            let s = ["'a'", "'A '", "'b'", "null"][rng.below(4)];
            vals.push(format!("({k},{v},{w},{s})"));
        }
        if !vals.is_empty() {
            sql.push(format!("insert into r{i} values {}", vals.join(",")));
        }
    }
    sql
}

fn edge(rng: &mut Rng, a: usize, b: usize) -> String {
    let col = |rng: &mut Rng| ["v", "w", "s", "v"][rng.below(4)];
    let (x, y) = (col(rng), col(rng));
    let (x, y) = if (x == "s") != (y == "s") {
        (x, x)
    } else {
        (x, y)
    };
    let op = if rng.chance(85) { "=" } else { "<=>" };
    format!("r{a}.{x} {op} r{b}.{y}")
}

fn filter(rng: &mut Rng, t: usize) -> String {
    match rng.below(6) {
        0 => format!("r{t}.w > {}", rng.below(4)),
        1 => format!("r{t}.v is not null"),
        2 => format!("r{t}.w is null"),
        3 => format!("r{t}.s = 'a'"),
        4 => format!("(r{t}.v < 2 or r{t}.w = 3)"),
        _ => format!("r{t}.id >= {}", rng.below(3)),
    }
}

/// A random query over r0..r{n-1}: a join graph (chain, star or cycle), some
/// edges as LEFT JOIN ... ON, filters, the FROM items shuffled.
fn random_query(rng: &mut Rng, n: usize) -> String {
    let mut edges: Vec<(usize, usize)> = match rng.below(3) {
        0 => (1..n).map(|i| (i - 1, i)).collect(),
        1 => (1..n).map(|i| (0, i)).collect(),
        _ => (0..n).map(|i| (i, (i + 1) % n)).collect(),
    };
    rng.shuffle(&mut edges);
    let mut items: Vec<String> = Vec::new();
    let mut used = vec![false; n];
    let mut conds: Vec<String> = Vec::new();
    // LEFT JOIN pairs: the right table appears only inside its item.
    for &(a, b) in &edges {
        if !used[a] && !used[b] && rng.chance(40) {
            used[a] = true;
            used[b] = true;
            let kind = if rng.chance(20) {
                "straight_join"
            } else {
                "left join"
            };
            items.push(format!("r{a} as r{a} {kind} r{b} on {}", edge(rng, a, b)));
        } else {
            conds.push(edge(rng, a, b));
        }
    }
    for (t, u) in used.iter().enumerate() {
        if !u {
            items.push(format!("r{t}"));
        }
    }
    for _ in 0..rng.below(3) {
        let t = rng.below(n);
        conds.push(filter(rng, t));
    }
    rng.shuffle(&mut items);
    let cols: Vec<String> = (0..n).map(|t| format!("r{t}.id")).collect();
    let modifier = if rng.chance(10) { "straight_join " } else { "" };
    let mut q = format!(
        "select {modifier}{} from {}",
        cols.join(", "),
        items.join(", ")
    );
    if !conds.is_empty() {
        q.push_str(" where ");
        q.push_str(&conds.join(" and "));
    }
    q
}

#[test]
#[ignore = "needs mariadb-server; run by .ci/run"]
fn random_join_graphs_match_mariadb() {
    if !mariadb::available() {
        eprintln!("mariadb-server not installed; skipping");
        return;
    }
    let b = Basalt::start();
    let m = MariaDb::start(&["--innodb-flush-log-at-trx-commit=2"]);
    let mut conns = [connect(&b.url()), connect(&m.url())];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut compared = 0;
    for round in 0..12 {
        let n = 3 + rng.below(5);
        let schema = random_schema(&mut rng, n);
        for c in conns.iter_mut() {
            exec(c, &format!("drop database if exists g{round}"));
            exec(c, &format!("create database g{round}"));
            exec(c, &format!("use g{round}"));
            for s in &schema {
                exec(c, s);
            }
        }
        for _ in 0..15 {
            let q = random_query(&mut rng, n);
            let [basalt, maria] = &mut conns;
            let (x, y) = (rows(basalt, &q), rows(maria, &q));
            if let (Err(_), Err(_)) = (&x, &y) {
                continue;
            }
            assert_eq!(x, y, "\nschema: {schema:#?}\nquery: {q}");
            compared += 1;
        }
    }
    assert!(compared > 100, "only {compared} queries compared");
}
