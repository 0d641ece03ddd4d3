//! Common table expressions, WITH RECURSIVE, INTERSECT / EXCEPT and GROUP BY ...
//! WITH ROLLUP against MariaDB: for every statement the column names and types,
//! the rows (compared as sets of rows with their multiplicity unless the
//! statement orders them), the error code and message, and the warnings.
//! Over small tables with NULLs and duplicate rows. Set operations are compared
//! without column types (see [`Pair::same_values`]).

use basalt_tests::mariadb::{self, MariaDb};
use basalt_tests::Basalt;
use mysql::prelude::*;
use mysql::{Conn, Opts};

#[derive(Debug, PartialEq)]
enum Outcome {
    Rows {
        columns: Vec<(String, String)>,
        rows: Vec<Vec<Option<String>>>,
        warnings: Vec<(String, u16, String)>,
    },
    Error(u16, String),
}

fn run(c: &mut Conn, sql: &str) -> Outcome {
    let ordered = sql.to_ascii_lowercase().contains("order by")
        || sql.to_ascii_lowercase().contains("rollup");
    let (columns, mut rows) = {
        let mut result = match c.query_iter(sql) {
            Ok(r) => r,
            Err(mysql::Error::MySqlError(e)) => return Outcome::Error(e.code, e.message),
            Err(e) => panic!("{sql}: {e}"),
        };
        let columns: Vec<(String, String)> = result
            .columns()
            .as_ref()
            .iter()
            .map(|c| (c.name_str().into_owned(), format!("{:?}", c.column_type())))
            .collect();
        let mut rows: Vec<Vec<Option<String>>> = Vec::new();
        for row in result.by_ref() {
            match row {
                Ok(r) => rows.push(r.unwrap().iter().map(basalt_tests::cell).collect()),
                Err(mysql::Error::MySqlError(e)) => return Outcome::Error(e.code, e.message),
                Err(e) => panic!("{sql}: {e}"),
            }
        }
        (columns, rows)
    };
    if !ordered {
        rows.sort();
    }
    let warnings = c
        .query_map("SHOW WARNINGS", |(l, code, m): (String, u16, String)| {
            (l, code, m)
        })
        .expect("show warnings");
    Outcome::Rows {
        columns,
        rows,
        warnings,
    }
}

struct Pair {
    /// Statements whose outcomes differed, with both outcomes.
    diffs: Vec<String>,
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
            diffs: Vec::new(),
            basalt,
            maria,
            _b: b,
            _m: m,
        })
    }

    fn same(&mut self, sql: &str) {
        self.compare(sql, true);
    }

    /// As [`Pair::same`], without the column types: the integer type of a set
    /// operation's result is BIGINT in Basalt where MariaDB keeps INT (as for
    /// UNION).
    fn same_values(&mut self, sql: &str) {
        self.compare(sql, false);
    }

    fn compare(&mut self, sql: &str, types: bool) {
        let mut b = run(&mut self.basalt, sql);
        let mut m = run(&mut self.maria, sql);
        if !types {
            for o in [&mut b, &mut m] {
                if let Outcome::Rows { columns, .. } = o {
                    columns.iter_mut().for_each(|c| c.1.clear());
                }
            }
        }
        if b != m {
            self.diffs
                .push(format!("statement: {sql}\nbasalt:  {b:?}\nmariadb: {m:?}"));
        }
    }

    fn both(&mut self, sql: &str) {
        for c in [&mut self.basalt, &mut self.maria] {
            c.query_drop(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
        }
    }

    fn setup(&mut self) {
        for s in [
            "create database dq",
            "use dq",
            "create table t1 (a int, b varchar(10))",
            "insert into t1 values (1,'x'),(1,'x'),(2,'y'),(null,null),(3,null),(2,'y'),(4,'w')",
            "create table t2 (a int, c varchar(10))",
            "insert into t2 values (1,'x'),(2,'q'),(null,null),(5,'v'),(2,'q')",
            "create table emp (id int primary key, boss int, name varchar(20))",
            "insert into emp values (1,null,'ann'),(2,1,'bob'),(3,1,'cid'),(4,2,'dan'),(5,4,'eve'),(6,null,'fay')",
            "create table edges (src int, dst int)",
            "insert into edges values (1,2),(2,3),(3,1),(3,4)",
        ] {
            self.both(s);
        }
    }
}

const CTE: &[&str] = &[
    "with c as (select a, b from t1 where a > 1) select * from c",
    "with c(x, y) as (select a, b from t1) select y, x from c where x is not null",
    "with c as (select a from t1), d as (select a from c where a > 1) select * from d",
    "with c as (select a, count(*) as n from t1 group by a) select * from c as p, c as q where p.a = q.a",
    "with t2 as (select 42 as z) select * from t2",
    "with c as (select 1 as a) select * from dq.t2 where a = 1",
    "with c as (select a from t1) select a from c where a in (select a from c where a < 3)",
    "with c as (select a from t1) select (select max(a) from c) as m",
    "with c as (select 1 as k) select * from (with d as (select 2 as k) select * from d) as x, c",
    "select * from (with c as (select a from t2) select * from c) as s",
    "with c as (select 1), c as (select 2) select * from c",
    "with c(x, y) as (select 1) select * from c",
    "with c(x, x) as (select 1, 2) select * from c",
    "with a as (select * from b), b as (select 1 as v) select * from a",
    "with c as (select * from nosuchtable) select 1",
    "with recursive a as (select * from b), b as (select 1 as v) select * from a",
    "with c as (select a from t1 union select a from t2) select * from c",
    "with c as (select a, b from t1) select b, count(*) from c group by b order by b",
    "with c as (select a from t1 order by a desc limit 2) select * from c",
];

const RECURSIVE: &[&str] = &[
    "with recursive r(n) as (select 1 union all select n + 1 from r where n < 10) select * from r",
    "with recursive r as (select 1 as n union select n + 1 from r where n < 5) select sum(n) from r",
    "with recursive r(n) as (select 1 union all select n + 1 from r) select count(*) from r",
    "with recursive r(n) as (select 1 union all select n + 1 from r where n < 1000) select count(*) from r",
    "with recursive r(n) as (select 1 union all select n + 1 from r where n < 1001) select count(*) from r",
    "with recursive chain(id, name, depth) as (select id, name, 0 from emp where boss is null union all select e.id, e.name, c.depth + 1 from emp e join chain c on e.boss = c.id) select * from chain",
    "with recursive reach(n) as (select 1 union select dst from edges join reach on src = n) select * from reach",
    "with recursive reach(n) as (select 1 union all select dst from edges join reach on src = n where n < 3) select * from reach",
    "with recursive r(n) as (select 1 union all select n + 1 from r where n < 3 union all select n + 10 from r where n < 3) select * from r",
    "with recursive r(n) as (select 1 union all select n + 1 from (select * from r) d where n < 4) select * from r",
    "with recursive r(n) as (select 1 union all select n + 1 from r where n < 3) select * from r as p, r as q",
    "with recursive r(n) as (select 1 union all select n + 1 from r where n < 3) select * from r where n in (select n from r)",
    "with recursive r(s) as (select 'a' union all select concat(s, 'a') from r where length(s) < 5) select * from r",
    "with recursive r(n) as (select 1 union all select count(*) from r) select * from r",
    "with recursive r(n) as (select n from r) select * from r",
    "with recursive r(n) as (select 1 union all select n + 1 from t1 left join r on r.n = t1.a where n < 3) select * from r",
    "with recursive r(n) as (select 1 union all select n + 1 from r where n < 3 and n in (select n from r)) select * from r",
    "with recursive r(n) as (select 1 union all select n + 1 from r where n < 3 order by n limit 2) select * from r",
    "with recursive a as (select * from b), b as (select * from a) select * from a",
    "with recursive r(n) as (select 1 union all select n + 1, 2 from r where n < 3) select * from r",
    "with recursive r(n, m) as (select 1 union all select n + 1 from r) select * from r",
    "with r(n) as (select 1 union all select n + 1 from r where n < 3) select * from r",
];

const SETOPS: &[&str] = &[
    "select a from t1 intersect select a from t2",
    "select a from t1 intersect all select a from t2",
    "select a from t1 intersect distinct select a from t2",
    "select a from t1 except select a from t2",
    "select a from t1 except all select a from t2",
    "select a, b from t1 except select a, c from t2",
    "select a, b from t1 intersect select a, c from t2",
    "select a from t1 union select a from t2 intersect select a from t2 where a > 1",
    "select a from t2 intersect select a from t1 union select 7",
    "select a from t1 except select a from t2 union select 5",
    "select a from t1 union all select a from t2 except select a from t2 where a = 2",
    "(select a from t1 order by a limit 3) intersect (select a from t2)",
    "select a from t1 intersect select a from t2 order by a desc",
    "select a from t1 except all select a from t2 order by 1 limit 2",
    "(select a from t1 except select a from t2) union all (select a from t1 intersect select a from t2) order by a",
    "select a from t1 intersect select a, c from t2",
    "select b from t1 intersect select c from t2",
    "select 1 intersect select 1",
    "select 1 except select null",
    "with c as (select a from t1 intersect select a from t2) select * from c",
];

const ROLLUP: &[&str] = &[
    "select a, count(*), sum(a) from t1 group by a with rollup",
    "select a, b, count(*) from t1 group by a, b with rollup",
    "select b, count(*) from t1 group by b with rollup",
    "select a, b, count(*) from t1 group by a, b with rollup having count(*) > 1",
    "select a + 1 as x, count(*) from t1 group by a with rollup",
    "select a, count(*) from t1 where 1 = 0 group by a with rollup",
    "select a, count(*) from t1 group by a with rollup limit 2",
    "select a, count(*) from t1 group by a with rollup order by a",
    "select a, max(b), min(b) from t1 group by a with rollup",
];

#[test]
#[ignore = "needs mariadb-server; run by .ci/run"]
fn ctes_set_operations_and_rollup_match_mariadb() {
    let Some(mut p) = Pair::start() else { return };
    p.setup();
    for q in CTE.iter().chain(RECURSIVE).chain(ROLLUP) {
        p.same(q);
    }
    for q in SETOPS {
        p.same_values(q);
    }
    p.both("set max_recursive_iterations = 5");
    p.same("select @@max_recursive_iterations, @@session.max_recursive_iterations");
    p.same("with recursive r(n) as (select 1 union all select n + 1 from r) select * from r");
    p.both("set max_recursive_iterations = default");
    p.both("create table sink (a int)");
    p.both("insert into sink with recursive r(n) as (select 1 union all select n + 1 from r where n < 4) select n from r");
    p.same("select * from sink");
    p.both("update sink set a = a * 10 where a in (with c as (select 2 union select 3) select * from c)");
    p.same("select * from sink");
    p.same("delete from sink where a in (with c as (select 20) select * from c)");
    p.same("select * from sink");
    p.same("with c as (select 1 as a) update sink set a = 0");
    assert!(p.diffs.is_empty(), "\n{}", p.diffs.join("\n\n"));
}
