//! Window functions against MariaDB: ranking, offset and value functions,
//! aggregates over ROWS and RANGE frames, named windows, windows over GROUP BY,
//! DISTINCT, window functions in ORDER BY, and the errors MariaDB gives for
//! misplaced windows, bad references and bad frames. For every statement the
//! column names, types and NOT NULL flags, the rows, the warnings and the error code and message
//! are compared. Tables hold NULLs, ties in the window ORDER BY keys, several
//! partitions, case-insensitive strings, dates and decimals.
//!
//! Rows are compared as sorted multisets (an outer ORDER BY is not needed), and
//! every window whose value depends on the order of tied rows (ROW_NUMBER, LAG,
//! ROWS frames, FIRST_VALUE ...) orders by a unique key; RANK, DENSE_RANK,
//! PERCENT_RANK, CUME_DIST and RANGE frames are defined whatever the tie order,
//! and are compared over ties.

use basalt_tests::mariadb::{self, MariaDb};
use basalt_tests::Basalt;
use mysql::consts::ColumnFlags;
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

fn run(c: &mut Conn, sql: &str, ordered: bool) -> Outcome {
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
            .map(|c| {
                let not_null = c.flags().contains(ColumnFlags::NOT_NULL_FLAG);
                let ty = format!(
                    "{:?}{}",
                    c.column_type(),
                    if not_null { " NOT NULL" } else { "" }
                );
                (c.name_str().into_owned(), ty)
            })
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

    fn compare(&mut self, sql: &str, ordered: bool) {
        let b = run(&mut self.basalt, sql, ordered);
        let m = run(&mut self.maria, sql, ordered);
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
            "create database dw",
            "use dw",
            "create table t (id int primary key, g int, v int, d decimal(8,2), \
             s varchar(10), dt date, f double, u bigint unsigned)",
            "insert into t values \
             (1, 1, 10, 1.50, 'a', '2024-01-01', 1.5, 7), \
             (2, 1, 20, 2.50, 'B', '2024-01-03', 2.25, 3), \
             (3, 1, 20, null, 'b', '2024-01-10', null, 12), \
             (4, 1, null, 4.25, 'c', null, 3, null), \
             (5, 2, 5, 1.00, 'C', '2024-02-01', 4, 5), \
             (6, 2, 5, 1.00, 'a', '2024-02-01', -1.5, 5), \
             (7, 2, 7, -3.75, null, '2024-02-05', 0, 1), \
             (8, null, 1, 0.25, 'z', '2023-12-31', 10, 2), \
             (9, null, null, null, 'Q', null, null, 9), \
             (10, 3, 100, 99.99, 'x', '2024-03-01', 1e10, 4), \
             (11, 3, 100, 99.99, 'X', '2024-03-01', 1e10, 4), \
             (12, 3, -100, -99.99, 'y', '2024-03-02', -1e10, 0)",
            "create table e (id int primary key, v int)",
        ] {
            self.both(s);
        }
    }
}

/// Ranking, offset and value functions.
const RANKING: &[&str] = &[
    "select id, row_number() over (order by id) from t",
    "select id, row_number() over (partition by g order by id) from t",
    "select id, row_number() over (partition by g order by v, id) as rn from t",
    "select id, row_number() over (partition by g order by v desc, id desc) from t",
    "select id, rank() over (order by v) from t",
    "select id, rank() over (partition by g order by v desc) from t",
    "select id, dense_rank() over (order by v) from t",
    "select id, dense_rank() over (partition by g order by d desc) from t",
    "select id, rank() over (order by s) r, dense_rank() over (order by s) dr from t",
    "select id, percent_rank() over (order by v) from t",
    "select id, percent_rank() over (partition by g order by v) from t",
    "select id, cume_dist() over (order by v) from t",
    "select id, cume_dist() over (partition by g order by dt desc) from t",
    "select id, ntile(3) over (order by id) from t",
    "select id, ntile(5) over (partition by g order by id) from t",
    "select id, ntile(20) over (order by id) from t",
    "select id, ntile(2.5) over (order by id) from t",
    "select ntile(4) over (partition by g) from t where g = 1",
    "select id, lag(v) over (order by id) from t",
    "select id, lag(v, 2) over (partition by g order by id) from t",
    "select id, lead(s) over (order by id) from t",
    "select id, lead(d, 3) over (partition by g order by id desc) from t",
    "select id, lag(v, 0) over (order by id), lag(v, -1) over (order by id) from t",
    "select id, lag(dt) over (order by id), lead(f) over (order by id) from t",
    "select id, lag(v) over (order by id rows 1 preceding) from t",
    "select id, first_value(v) over (order by id) from t",
    "select id, first_value(s) over (partition by g order by id desc) from t",
    "select id, last_value(v) over (order by id) from t",
    "select id, last_value(d) over (partition by g order by v) from t",
    "select id, last_value(v) over (partition by g order by id rows between unbounded preceding and unbounded following) from t",
    "select id, nth_value(v, 2) over (partition by g order by id) from t",
    "select id, nth_value(s, 3) over (order by id rows between unbounded preceding and unbounded following) from t",
    "select id, nth_value(v, 0) over (order by id) from t",
    "select id, nth_value(v, id) over (order by id) from t",
    "select id, first_value(v) over (order by id rows between 2 preceding and 1 preceding), last_value(v) over (order by id rows between 1 following and 3 following) from t",
    "select id, min(id) over (order by v range between 10 preceding and 10 following) from t where id <> 3 and id <> 2",
    "select id, row_number() over () from t where id = 1",
    "select row_number() over (order by id) from t where 1 = 0",
    "select id, first_value(v) over () from t where g = 2 and id = 5",
];

/// Aggregates over frames.
const FRAMES: &[&str] = &[
    "select id, count(*) over (), count(v) over (), sum(v) over (), avg(v) over () from t",
    "select id, sum(v) over (partition by g), avg(d) over (partition by g), count(s) over (partition by g) from t",
    "select id, min(v) over (partition by g), max(s) over (partition by g), min(dt) over (partition by g) from t",
    "select id, bit_and(u) over (partition by g), bit_or(u) over (partition by g), bit_xor(u) over (partition by g) from t",
    "select id, std(v) over (partition by g), stddev(d) over (partition by g), variance(v) over (partition by g) from t",
    "select id, var_pop(v) over (), var_samp(v) over (), stddev_pop(d) over (), stddev_samp(d) over () from t",
    "select id, sum(v) over (order by id) from t",
    "select id, sum(v) over (order by v) from t",
    "select id, count(*) over (order by v) from t",
    "select id, sum(d) over (partition by g order by v desc) from t",
    "select id, avg(v) over (order by s) from t",
    "select id, sum(v) over (order by id rows unbounded preceding) from t",
    "select id, sum(v) over (order by id rows 2 preceding) from t",
    "select id, sum(v) over (order by id rows current row) from t",
    "select id, sum(v) over (order by id rows between 1 preceding and 1 following) from t",
    "select id, avg(d) over (partition by g order by id rows between 1 preceding and 1 following) from t",
    "select id, count(v) over (order by id rows between current row and 2 following) from t",
    "select id, sum(v) over (order by id rows between current row and unbounded following) from t",
    "select id, sum(v) over (order by id rows between 2 following and unbounded following) from t",
    "select id, sum(v) over (order by id rows between 3 preceding and 1 preceding) from t",
    "select id, sum(v) over (order by id rows between 1 following and 2 following) from t",
    "select id, min(v) over (order by id rows between 1 preceding and 1 following), max(v) over (order by id rows between 2 preceding and current row) from t",
    "select id, bit_or(u) over (order by id rows between 1 preceding and 1 following), bit_xor(u) over (order by id rows 2 preceding) from t",
    "select id, min(s) over (partition by g order by id rows between unbounded preceding and 1 following) from t",
    "select id, sum(v) over (order by id rows between unbounded preceding and unbounded following) from t",
    "select id, count(*) over (order by id rows between 100 preceding and 100 following) from t",
    "select id, sum(v) over (order by v range unbounded preceding) from t",
    "select id, sum(v) over (order by v range current row) from t",
    "select id, sum(v) over (order by v range between current row and unbounded following) from t",
    "select id, sum(v) over (order by v range between 5 preceding and 5 following) from t",
    "select id, count(*) over (order by v range between 10 preceding and current row) from t",
    "select id, sum(v) over (order by v desc range between 10 preceding and current row) from t",
    "select id, count(*) over (order by v desc range between 1 following and 20 following) from t",
    "select id, count(*) over (partition by g order by d range between 1 preceding and 1 following) from t",
    "select id, count(*) over (order by d range between 1.5 preceding and 0.5 following) from t",
    "select id, count(*) over (order by f range between 1.5 preceding and 0.75 following) from t",
    "select id, count(*) over (order by u range between current row and 3 following) from t",
    "select id, count(*) over (order by u desc range between 3 preceding and current row) from t",
    "select id, sum(v) over (order by v range between unbounded preceding and 5 preceding) from t",
    "select id, avg(v) over (order by v range between 100 preceding and 50 following) from t",
    "select id, sum(v) over (partition by g order by dt range between unbounded preceding and current row) from t",
    "select id, max(v) over (order by s, id range between unbounded preceding and current row) from t",
];

/// Named windows, several specifications, GROUP BY, DISTINCT, ORDER BY.
const SHAPES: &[&str] = &[
    "select id, row_number() over w, sum(v) over w from t window w as (partition by g order by id)",
    "select id, sum(v) over (w order by id) from t window w as (partition by g)",
    "select id, sum(v) over (w rows 1 preceding) from t window w as (partition by g order by id)",
    "select id, rank() over w2 from t window w1 as (partition by g), w2 as (w1 order by v)",
    "select id, count(*) over w from t window w as ()",
    "select id from t window w as (order by id)",
    "select id, row_number() over (order by id), rank() over (order by v desc), sum(v) over (partition by g), lag(s) over (partition by g order by id) from t",
    "select g, sum(v), sum(sum(v)) over (order by g), rank() over (order by sum(v) desc) from t group by g",
    "select g, count(*), avg(count(*)) over (), max(max(d)) over (order by g rows 1 preceding) from t group by g",
    "select g, row_number() over (order by g) from t group by g having count(*) > 1",
    "select sum(v), row_number() over () from t",
    "select count(*) over () from t group by g",
    "select distinct g, count(*) over (partition by g) from t",
    "select distinct rank() over (order by v) from t",
    "select v * 2 + 1 as x, sum(v) over (order by id) * 2 as y, concat(s, '-', row_number() over (order by id)) as z from t",
    "select id, (select max(v) from t) - sum(v) over (partition by g) from t",
    "select * from (select id, row_number() over (partition by g order by v desc, id) as rn from t) as x where rn <= 2",
    "select id, row_number() over (order by id) from t where v > 5",
    "select a.id, b.id, row_number() over (order by a.id, b.id) from t a join t b on a.g = b.g and a.id < b.id where a.g = 1",
    "select id, sum(v) over (partition by g order by id) from e",
    "select count(*) over (), sum(v) over () from e",
    "select id, sum(v) over (order by id rows 3 preceding) from t",
    "select id, sum(v) over (order by id rows 4 preceding) from t",
    "select g, sum(v), sum(sum(v)) over (), count(*) over () from t group by g with rollup",
    "select id, sum(v) over (order by id) from t limit 0",
    "select id, lead(v, 1) over (order by id), lead(v, 2) over (order by id) from t",
    "select id, sum(f) over (order by id rows between 1 preceding and 1 following), avg(f) over (order by id rows 2 preceding) from t",
    "select s, count(*) over (partition by s) from t",
    "select id, rank() over (partition by s order by id) from t",
    "with c as (select * from t where g is not null) select id, rank() over (order by v) from c",
    "select id, count(*) over (order by dt, id rows 1 preceding), sum(d) over (order by dt, id rows between 1 preceding and current row) from t",
    "select *, rank() over (order by g) from t",
    "select id, sum(v) over (partition by g order by v range between 5 preceding and 5 following) from t",
    "select id, sum(v + 0.5) over (order by id rows between 2 preceding and 2 following) from t",
    "select id, min(s) over (order by id rows between 2 preceding and 2 following), max(s) over (order by id rows between 3 preceding and 1 following) from t",
    "select id, min(d) over (order by v range between 5 preceding and 5 following), max(dt) over (order by id rows between 1 following and 3 following) from t",
    "select id, max(concat(s, id)) over (partition by g order by id rows between 1 preceding and 1 following) from t",
];

/// Ordered outcomes: window functions in ORDER BY, LIMIT.
const ORDERED: &[&str] = &[
    "select id from t order by row_number() over (order by id desc)",
    "select id, v from t order by rank() over (order by v), id",
    "select id, row_number() over (order by id) rn from t order by rn desc limit 3",
    "select id, sum(v) over (order by id) as s from t order by s desc, id limit 2, 3",
    "select g, sum(v) from t group by g order by sum(sum(v)) over (order by g) desc",
];

/// Errors.
const ERRORS: &[&str] = &[
    "select id from t where row_number() over () > 1",
    "select id from t group by row_number() over ()",
    "select id from t having row_number() over () > 1",
    "select sum(row_number() over ()) from t",
    "select lag(row_number() over (order by id)) over (order by id) from t",
    "select row_number() over (partition by row_number() over ()) from t",
    "select row_number() over w from t",
    "select row_number() over w from t window w as (), w as ()",
    "select row_number() over (w order by id) from t window w as (order by v)",
    "select sum(v) over (w) from t window w as (order by id rows unbounded preceding)",
    "select row_number() over (w) from t window w as (partition by g), w2 as (w partition by id)",
    "select row_number() over (w) from t window w as (w2), w2 as (order by id)",
    "select rank() over () from t",
    "select dense_rank() over (partition by g) from t",
    "select lag(v) over (partition by g) from t",
    "select lead(v) over () from t",
    "select percent_rank() over (), cume_dist() over () from t",
    "select row_number() over (order by id rows 1 preceding) from t",
    "select rank() over (order by id rows unbounded preceding) from t",
    "select ntile(0) over (order by id) from t",
    "select ntile(-2) over (order by id) from t",
    "select ntile(null) over (order by id) from t",
    "select sum(v) over (range 1 preceding) from t",
    "select sum(v) over (order by v, id range 1 preceding) from t",
    "select sum(v) over (order by s range 1 preceding) from t",
    "select sum(v) over (order by dt range 1 preceding) from t",
    "select sum(v) over (order by id rows between current row and 1 preceding) from t",
    "select sum(v) over (order by id rows between unbounded following and current row) from t",
    "select sum(v) over (order by id rows between 1 following and current row) from t",
    "select sum(v) over (order by id rows between current row and unbounded preceding) from t",
    "select sum(v) over (order by id rows 1.5 preceding) from t",
    "select group_concat(v) over () from t",
    "select count(distinct v) over () from t",
    "select sum(distinct v) over () from t",
    "select id, sum(v) over (order by nosuch) from t",
    "select id, row_number() over (order by id) rn from t having rn > 3",
    "select g, count(*) over () c from t group by g having c > 0",
    "select id, row_number() over (order by id) rn from t group by rn",
    "select id, row_number() over (order by id) rn from t where rn > 1",
    "select abs(v) over () from t",
    "select json_arrayagg(v) over () from t",
    "select count(v, id) over () from t",
    "select row_number(1) over () from t",
    "select lag() over (order by id) from t",
    "select nth_value(v) over (order by id) from t",
    "select lead(v, 1, 0) over (order by id) from t",
    "select sum() over () from t",
];

#[test]
#[ignore = "needs mariadb-server; run by .ci/run"]
fn window_functions_match_mariadb() {
    let Some(mut p) = Pair::start() else { return };
    p.setup();
    for q in RANKING.iter().chain(FRAMES).chain(SHAPES).chain(ERRORS) {
        p.compare(q, false);
    }
    for q in ORDERED {
        p.compare(q, true);
    }
    p.compare(
        "select sql_calc_found_rows id, row_number() over (order by id) from t order by id limit 2",
        true,
    );
    p.compare("select found_rows()", false);
    p.both("insert into e select id, row_number() over (order by id desc) from t");
    p.compare("select * from e", false);
    p.both("update t set v = v");
    p.compare("update t set v = row_number() over ()", false);
    p.compare("delete from t where rank() over (order by id) = 1", false);
    assert!(p.diffs.is_empty(), "\n{}", p.diffs.join("\n\n"));
}
