//! Column options with computed values: DEFAULT expressions, generated columns
//! (VIRTUAL / STORED) and INVISIBLE columns, through the protocol; a differential
//! test compares results, SHOW CREATE TABLE text, warnings and errors with MariaDB.

use basalt_tests::mariadb::{self, MariaDb};
use basalt_tests::Basalt;
use mysql::prelude::*;
use mysql::{Conn, Opts};

fn conn(url: &str) -> Conn {
    Conn::new(Opts::from_url(url).expect("url")).expect("connect")
}

fn setup(url: &str) -> Conn {
    let mut c = conn(url);
    ok(&mut c, "create database d");
    ok(&mut c, "use d");
    c
}

fn ok(c: &mut Conn, sql: &str) {
    c.query_drop(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
}

fn err(c: &mut Conn, sql: &str) -> (u16, String) {
    match c.query_drop(sql) {
        Err(mysql::Error::MySqlError(e)) => (e.code, e.message),
        Err(e) => panic!("{sql}: not a server error: {e:?}"),
        Ok(()) => panic!("{sql}: succeeded, expected an error"),
    }
}

/// Every row as text cells (NULL as "NULL").
fn rows(c: &mut Conn, sql: &str) -> Vec<Vec<String>> {
    let got: Vec<mysql::Row> = c.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    got.into_iter()
        .map(|r| {
            (0..r.len())
                .map(|i| match r.as_ref(i) {
                    Some(mysql::Value::NULL) | None => "NULL".to_string(),
                    Some(mysql::Value::Bytes(b)) => String::from_utf8_lossy(b).into_owned(),
                    Some(v) => v.as_sql(true),
                })
                .collect()
        })
        .collect()
}

fn show_create(c: &mut Conn, t: &str) -> String {
    rows(c, &format!("show create table {t}"))[0][1].clone()
}

fn warnings(c: &mut Conn) -> Vec<Vec<String>> {
    rows(c, "show warnings")
}

#[test]
fn default_expressions_are_evaluated_per_row_and_shown() {
    let b = Basalt::start();
    let mut c = setup(&b.url());
    ok(
        &mut c,
        "create table t (a int, b int default (a + 1), c varchar(36) default uuid(), \
         d datetime default (now() + interval 1 day), e int default -5)",
    );
    let shown = show_create(&mut c, "t");
    assert!(shown.contains("`b` int(11) DEFAULT (`a` + 1),"), "{shown}");
    assert!(shown.contains("`c` varchar(36) DEFAULT uuid(),"), "{shown}");
    assert!(
        shown.contains("`d` datetime DEFAULT (current_timestamp() + interval 1 day),"),
        "{shown}"
    );
    ok(&mut c, "insert into t (a) values (1), (2)");
    ok(
        &mut c,
        "insert into t values (3, default, default, default, default)",
    );
    ok(&mut c, "insert into t (a) select 20");
    assert_eq!(
        rows(
            &mut c,
            "select a, b, length(c), d > now(), e from t order by a"
        ),
        [
            ["1", "2", "36", "1", "-5"],
            ["2", "3", "36", "1", "-5"],
            ["3", "4", "36", "1", "-5"],
            ["20", "21", "36", "1", "-5"]
        ]
    );
    assert_eq!(
        rows(&mut c, "select count(distinct c) from t"),
        [["4"]],
        "uuid() per row"
    );
    assert_eq!(
        rows(
            &mut c,
            "select column_default from information_schema.columns \
             where table_name = 't' and column_name in ('b', 'c') order by column_name"
        ),
        [["(`a` + 1)"], ["uuid()"]]
    );
    let (code, msg) = err(
        &mut c,
        "create table f (a int default (b), b int default (a))",
    );
    assert_eq!(code, 4029, "{msg}");
    ok(&mut c, "alter table t add column z int default (a * 100)");
    assert_eq!(
        rows(&mut c, "select a, z from t order by a limit 2"),
        [["1", "100"], ["2", "200"]]
    );
    ok(&mut c, "create sequence s");
    ok(
        &mut c,
        "create table q (a int default nextval(s), b int default (next value for s))",
    );
    ok(&mut c, "insert into q () values (), ()");
    assert_eq!(rows(&mut c, "select a, b from q"), [["1", "2"], ["3", "4"]]);
    assert!(show_create(&mut c, "q").contains("DEFAULT nextval(`d`.`s`)"));
}

#[test]
fn generated_columns_follow_their_inputs_and_survive_restart() {
    let mut b = Basalt::start();
    let mut c = setup(&b.url());
    ok(
        &mut c,
        "create table g (id int primary key, a int, b int, c int as (a + b) virtual, \
         d int generated always as (a * 2) stored, key (c), key (d), check (d < 100))",
    );
    ok(
        &mut c,
        "insert into g (id, a, b) values (1, 1, 2), (2, 2, 3)",
    );
    ok(&mut c, "insert into g values (3, 4, 4, default, default)");
    let (code, _) = err(&mut c, "insert into g values (4, 1, 1, 7, default)");
    assert_eq!(code, 1906);
    ok(&mut c, "update g set a = 10 where id = 1");
    assert_eq!(
        rows(&mut c, "select id, c, d from g where c = 12"),
        [["1", "12", "20"]]
    );
    assert_eq!(rows(&mut c, "select id from g where d = 8"), [["3"]]);
    let (code, msg) = err(&mut c, "update g set a = 60 where id = 2");
    assert_eq!(code, 4025, "CHECK sees the computed value: {msg}");
    ok(&mut c, "set sql_mode = ''");
    ok(&mut c, "update g set c = 5 where id = 2");
    assert_eq!(warnings(&mut c)[0][1], "1906");
    ok(&mut c, "set sql_mode = default");
    let shown = show_create(&mut c, "g");
    assert!(
        shown.contains("`c` int(11) GENERATED ALWAYS AS (`a` + `b`) VIRTUAL,"),
        "{shown}"
    );
    assert!(
        shown.contains("`d` int(11) GENERATED ALWAYS AS (`a` * 2) STORED,"),
        "{shown}"
    );
    assert_eq!(
        rows(
            &mut c,
            "select extra, is_generated, generation_expression from information_schema.columns \
             where table_name = 'g' and column_name in ('c', 'd') order by column_name"
        ),
        [
            ["VIRTUAL GENERATED", "ALWAYS", "`a` + `b`"],
            ["STORED GENERATED", "ALWAYS", "`a` * 2"]
        ]
    );
    for (sql, want) in [
        ("create table e1 (a int, b int as (c), c int as (a))", 4029),
        ("create table e2 (a int, b int as ((select 1)))", 1901),
        (
            "create table e3 (a int, b datetime as (now()) stored)",
            1901,
        ),
        ("create table e4 (a int, b int as (zz + 1))", 1054),
    ] {
        assert_eq!(err(&mut c, sql).0, want, "{sql}");
    }
    ok(
        &mut c,
        "alter table g add column e int as (id * 1000) virtual",
    );
    drop(c);
    b.restart(false);
    let mut c = conn(&b.url_db("d"));
    ok(&mut c, "insert into g (id, a, b) values (5, 1, 1)");
    assert_eq!(
        rows(&mut c, "select c, d, e from g where id = 5"),
        [["2", "2", "5000"]]
    );
}

#[test]
fn invisible_columns_are_left_out_of_star_and_insert() {
    let b = Basalt::start();
    let mut c = setup(&b.url());
    ok(&mut c, "create table v (a int invisible default 7, b int)");
    ok(&mut c, "insert into v values (1)");
    assert_eq!(rows(&mut c, "select * from v"), [["1"]]);
    assert_eq!(rows(&mut c, "select a, b from v"), [["7", "1"]]);
    assert!(show_create(&mut c, "v").contains("`a` int(11) INVISIBLE DEFAULT 7,"));
    assert_eq!(err(&mut c, "create table w (a int invisible)").0, 1113);
    assert_eq!(
        err(&mut c, "create table w (a int not null invisible, b int)").0,
        4108
    );
}

const SCRIPT: &[&str] = &[
    "create table t (a int, b int default (a + 1), e int default -5, \
     g int as (a * 3) virtual, h int as (a - b) stored, i int invisible default 4, key (g))",
    "insert into t (a) values (1), (2)",
    "insert into t values (3, default, default, default, default)",
    "insert into t values (4, 1, 1, 9, default)",
    "set sql_mode = ''",
    "insert into t values (5, 1, 1, 9, default)",
    "set sql_mode = default",
    "update t set a = a + 10 where a < 3",
    "create table f1 (a int default (b), b int default (a))",
    "create table f2 (a int, b int as (c) virtual, c int as (a) virtual)",
    "create table f3 (a int, b int as ((select 1)) virtual)",
    "create table f4 (a int, b datetime as (now()) stored)",
    "create table f5 (a int invisible)",
    "update t set b = default, h = default where a = 4",
    "update t set e = 7 where a = 11",
    "update t set e = default, g = default where a = 11",
    "create table p (a int, b int as (a + 1) persistent)",
    "insert into p (a) values (1)",
    "create table n (x int not null, y int default 3, z int)",
    "insert into n values (1, 2, 3)",
    "update n set x = default",
    "update n set y = default, z = default",
    "insert into n values (2, 2, 2) on duplicate key update y = default",
];

fn transcript(url: &str) -> Vec<String> {
    let mut c = setup(url);
    let mut out = Vec::new();
    for sql in SCRIPT {
        match c.query_drop(sql) {
            Ok(()) => out.push(format!("{sql}: ok {:?}", warnings(&mut c))),
            Err(mysql::Error::MySqlError(e)) => {
                out.push(format!("{sql}: {} {}", e.code, e.message))
            }
            Err(e) => panic!("{sql}: {e}"),
        }
    }
    out.push(format!(
        "{:?}",
        rows(&mut c, "select *, i from t order by a")
    ));
    out.push(show_create(&mut c, "t"));
    out.push(show_create(&mut c, "p"));
    for q in [
        "select a, default(b), default(e), default(i), default(t.e) from t order by a",
        "select * from p",
        "select * from n",
        "select default(x) from n",
    ] {
        out.push(match c.query::<mysql::Row, _>(q) {
            Ok(_) => format!("{q}: {:?}", rows(&mut c, q)),
            Err(e) => format!("{q}: {e}"),
        });
    }
    out.push(format!(
        "{:?}",
        rows(
            &mut c,
            "select column_name, column_default, extra, is_generated, generation_expression \
             from information_schema.columns where table_schema = 'd' and table_name = 't' \
             order by ordinal_position"
        )
    ));
    out
}

#[test]
#[ignore = "needs mariadb-server"]
fn differential_against_mariadb() {
    assert!(mariadb::available(), "mariadb-server not installed");
    let m = MariaDb::start(&[]);
    let b = Basalt::start();
    let want = transcript(&m.url());
    let got = transcript(&b.url());
    for (w, g) in want.iter().zip(&got) {
        assert_eq!(g, w);
    }
    assert_eq!(got.len(), want.len());
}
