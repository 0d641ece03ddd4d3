//! Views over TCP: CREATE / ALTER / DROP VIEW with MariaDB's errors, queries
//! through views (joins, views over views, aggregating views), SHOW CREATE VIEW in
//! MariaDB's normalised form, SHOW FULL TABLES, DROP TABLE / RENAME TABLE of a
//! view, and definitions surviving a restart and kill -9. Differential
//! (`--ignored`): SHOW CREATE VIEW and query results against a real MariaDB.

use basalt_tests::mariadb::{self, MariaDb};
use basalt_tests::Basalt;
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

fn create_view_text(c: &mut Conn, v: &str) -> String {
    let row: (String, String, String, String) = c
        .query_first(format!("show create view {v}"))
        .expect("show create view")
        .expect("row");
    row.1
}

const SETUP: &[&str] = &[
    "create database vt",
    "use vt",
    "create table t (a int primary key, b varchar(10), c int)",
    "create table u (a int, d int)",
    "insert into t values (1,'x',5),(2,'y',15),(3,'z',25)",
    "insert into u values (1,100),(2,200),(2,201)",
];

/// Views whose SHOW CREATE VIEW both servers must print alike.
const VIEWS: &[&str] = &[
    "create view v1 as select * from t",
    "create view v2 (x, y) as select a, b from t where a > 1",
    "create view v3 as select a+1, concat(b,'x') as cc, 'lit', upper(b), a is null from t",
    "create view v4 as select a, count(*) from t group by a having count(*)>0 order by a desc limit 3",
    "create view v5 as select a from t where a in (select a from u) and exists (select 1 from u where u.d = t.c)",
    "create view v6 as select x.a from t x left join u y using (a)",
    "create view v7 as select a from t union select a from u",
    "create view v8 as select distinct b from t, u",
    "create view v9 as select t.a, u.d from t join u on t.a=u.a where t.c = 5 order by u.d",
    "create view v10 as select x from v2 where x < 3",
    "create view v11 as select a, c from t where c > 10 with local check option",
];

/// Queries through the views whose rows both servers must return alike.
const QUERIES: &[&str] = &[
    "select * from v1 order by a",
    "select x, y from v2 order by x",
    "select * from v3 order by 1",
    "select * from v4",
    "select * from v5 order by a",
    "select * from v6 order by a",
    "select * from v7 order by a",
    "select * from v8 order by b",
    "select * from v9",
    "select count(*) from v1 join u on v1.a = u.a",
    "select a from t where a in (select x from v2) order by a",
    "select u.a, v.x from u left join v2 v on v.x = u.a order by 1, 2",
    "select * from t join v2 on t.a = v2.x order by 1",
    "select x from v10 where x = 2",
    "select t.a, u.d, v2.y from ((t join u on t.a = u.a) left join v2 on v2.x = t.a) order by 1, 2",
    "select count(*) from t join (u join v1 on u.a = v1.a) on t.a = u.d - 99",
];

/// Catalog queries both servers must answer alike.
const CATALOG: &[&str] = &[
    "select * from information_schema.views where table_schema = 'vt' order by table_name",
    "select * from information_schema.tables where table_schema = 'vt' and table_type = 'VIEW' order by table_name",
    "select table_name, column_name, ordinal_position, is_nullable, data_type from information_schema.columns where table_schema = 'vt' and table_name in ('v1', 'v2', 'v9') order by table_name, ordinal_position",
    "show full tables from vt",
    "show table status from vt like 'v2'",
    "describe vt.v2",
];

fn setup(c: &mut Conn) {
    for sql in SETUP.iter().chain(VIEWS) {
        c.query_drop(sql).expect(sql);
    }
}

#[test]
fn views_are_created_queried_and_shown_as_mariadb_does() {
    let b = Basalt::start();
    let mut c = conn(&b.url());
    setup(&mut c);
    assert_eq!(
        create_view_text(&mut c, "v2"),
        "CREATE ALGORITHM=UNDEFINED DEFINER=`root`@`localhost` SQL SECURITY DEFINER VIEW `v2` AS select `t`.`a` AS `x`,`t`.`b` AS `y` from `t` where `t`.`a` > 1"
    );
    let rows: Vec<(i64, String)> = c.query("select x, y from v2 order by x").expect("v2");
    assert_eq!(rows, vec![(2, "y".into()), (3, "z".into())]);
    let rows: Vec<i64> = c.query("select x from v10").expect("view over view");
    assert_eq!(rows, vec![2]);
    let n: i64 = c
        .query_first("select count(*) from v1 join u on v1.a = u.a")
        .expect("join")
        .expect("row");
    assert_eq!(n, 3);
    let v: Vec<(String, String, String, String)> = c
        .query("select table_name, view_definition, check_option, is_updatable from information_schema.views where table_schema = 'vt' and table_name in ('v2', 'v4', 'v11') order by table_name")
        .expect("views");
    assert_eq!(
        v,
        vec![
            ("v11".into(), "select `vt`.`t`.`a` AS `a`,`vt`.`t`.`c` AS `c` from `vt`.`t` where `vt`.`t`.`c` > 10".into(), "LOCAL".into(), "YES".into()),
            ("v2".into(), "select `vt`.`t`.`a` AS `x`,`vt`.`t`.`b` AS `y` from `vt`.`t` where `vt`.`t`.`a` > 1".into(), "NONE".into(), "YES".into()),
            ("v4".into(), "select `vt`.`t`.`a` AS `a`,count(0) AS `count(*)` from `vt`.`t` group by `vt`.`t`.`a` having count(0) > 0 order by `vt`.`t`.`a` desc limit 3".into(), "NONE".into(), "NO".into()),
        ]
    );
    let kinds: Vec<(String, Option<String>, String)> = c
        .query("select table_type, engine, table_comment from information_schema.tables where table_schema = 'vt' and table_name = 'v1'")
        .expect("tables");
    assert_eq!(kinds, vec![("VIEW".into(), None, "VIEW".into())]);
    let cols: Vec<(String, String)> = c
        .query("select column_name, column_type from information_schema.columns where table_schema = 'vt' and table_name = 'v2'")
        .expect("columns");
    assert_eq!(
        cols,
        vec![
            ("x".into(), "int(11)".into()),
            ("y".into(), "varchar(10)".into())
        ]
    );
    let full: Vec<(String, String)> = c.query("show full tables").expect("full tables");
    assert!(full.contains(&("v1".into(), "VIEW".into())), "{full:?}");
    assert!(
        full.contains(&("t".into(), "BASE TABLE".into())),
        "{full:?}"
    );
    // SHOW CREATE TABLE of a view answers like SHOW CREATE VIEW.
    let row: (String, String, String, String) = c
        .query_first("show create table v2")
        .expect("show create table")
        .expect("row");
    assert!(row.1.starts_with("CREATE ALGORITHM=UNDEFINED"), "{}", row.1);
}

#[test]
fn view_statements_fail_with_mariadbs_errors() {
    let b = Basalt::start();
    let mut c = conn(&b.url());
    setup(&mut c);
    assert_eq!(err(&mut c, "create view t as select 1").0, 1050);
    assert_eq!(err(&mut c, "create view v1 as select 1").0, 1050);
    c.query_drop("create view if not exists v1 as select 1")
        .expect("if not exists");
    assert_eq!(err(&mut c, "alter view t as select 1").0, 1347);
    assert_eq!(err(&mut c, "show create view t").0, 1347);
    assert_eq!(
        err(&mut c, "drop view t"),
        (4092, "Unknown VIEW: 'vt.t'".into())
    );
    assert_eq!(
        err(&mut c, "drop table v1"),
        (1965, "'vt.v1' is a view".into())
    );
    assert_eq!(err(&mut c, "create view vv as select @a").0, 1351);
    assert_eq!(err(&mut c, "create view vv as select 1 a, 2 a").0, 1060);
    assert_eq!(err(&mut c, "create view vv (a, b) as select 1").0, 1353);
    assert_eq!(err(&mut c, "create view vv as select * from nope").0, 1146);
    assert_eq!(
        err(
            &mut c,
            "create algorithm=temptable view vv as select a from t with check option"
        )
        .0,
        1368
    );
    // A definition reaching itself through another view.
    c.query_drop("create view r1 as select 1 a").expect("r1");
    c.query_drop("create view r2 as select a from r1")
        .expect("r2");
    assert_eq!(
        err(&mut c, "create or replace view r1 as select a from r2").0,
        1146
    );
    // A dropped base table makes the view invalid (1356) at use.
    c.query_drop("create table d1 (a int)").expect("d1");
    c.query_drop("create view wd as select a from d1")
        .expect("wd");
    c.query_drop("drop table d1").expect("drop d1");
    assert_eq!(
        err(&mut c, "select * from wd"),
        (1356, "View 'vt.wd' references invalid table(s) or column(s) or function(s) or definer/invoker of view lack rights to use them".into())
    );
    // DROP VIEW IF EXISTS: notes for the missing ones.
    c.query_drop("drop view if exists nope, wd")
        .expect("drop if exists");
    let w: Vec<(String, u16, String)> = c.query("show warnings").expect("warnings");
    assert_eq!(
        w,
        vec![("Note".into(), 4092, "Unknown VIEW: 'vt.nope'".into())]
    );
    // Another definer: created, with note 1449.
    c.query_drop("create definer=bob@localhost view vb as select 1")
        .expect("definer");
    let w: Vec<(String, u16, String)> = c.query("show warnings").expect("warnings");
    assert_eq!(w[0].1, 1449);
    assert!(create_view_text(&mut c, "vb").contains("DEFINER=`bob`@`localhost`"));
    // ALTER VIEW and RENAME TABLE of a view.
    c.query_drop("alter view v1 as select a from t where a = 1")
        .expect("alter view");
    let rows: Vec<i64> = c.query("select * from v1").expect("altered");
    assert_eq!(rows, vec![1]);
    c.query_drop("rename table v1 to v1r").expect("rename view");
    let rows: Vec<i64> = c.query("select * from v1r").expect("renamed");
    assert_eq!(rows, vec![1]);
    // DROP DATABASE takes its views.
    c.query_drop("drop database vt").expect("drop database");
    c.query_drop("create database vt").expect("again");
    assert_eq!(err(&mut c, "show create view vt.v2").0, 1146);
}

#[test]
fn view_definitions_survive_restart_and_kill9() {
    let mut b = Basalt::start();
    {
        let mut c = conn(&b.url());
        setup(&mut c);
    }
    b.restart(false);
    let mut c = conn(&b.url());
    c.query_drop("use vt").expect("use");
    let before = create_view_text(&mut c, "v9");
    let rows: Vec<(i64, i64)> = c.query("select * from v9").expect("v9");
    assert_eq!(rows, vec![(1, 100)]);
    c.query_drop("create view after_restart as select b from t where a = 3")
        .expect("create");
    drop(c);
    b.kill9();
    b.restart(false);
    let mut c = conn(&b.url());
    c.query_drop("use vt").expect("use");
    assert_eq!(create_view_text(&mut c, "v9"), before);
    let z: String = c
        .query_first("select b from after_restart")
        .expect("select")
        .expect("row");
    assert_eq!(z, "z");
}

#[test]
#[ignore]
fn views_match_mariadb() {
    if !mariadb::available() {
        eprintln!("skipped: mariadb-server is not installed");
        return;
    }
    let m = MariaDb::start(&[]);
    let b = Basalt::start();
    let mut mc = conn(&m.url());
    let mut bc = conn(&b.url());
    mc.query_drop("set names utf8mb4").expect("names");
    bc.query_drop("set names utf8mb4").expect("names");
    setup(&mut mc);
    setup(&mut bc);
    for v in VIEWS {
        let name = v.split_whitespace().nth(2).expect("view name");
        assert_eq!(
            create_view_text(&mut bc, name),
            create_view_text(&mut mc, name),
            "SHOW CREATE VIEW {name}"
        );
    }
    for q in CATALOG {
        let mr: Vec<mysql::Row> = mc.query(q).expect(q);
        let br: Vec<mysql::Row> = bc.query(q).expect(q);
        let show = |rows: &[mysql::Row]| -> Vec<Vec<mysql::Value>> {
            rows.iter().map(|r| r.clone().unwrap()).collect()
        };
        assert_eq!(show(&br), show(&mr), "{q}");
    }
    for q in QUERIES {
        let mr: Vec<mysql::Row> = mc.query(q).expect(q);
        let br: Vec<mysql::Row> = bc.query(q).expect(q);
        let show = |rows: &[mysql::Row]| -> Vec<Vec<mysql::Value>> {
            rows.iter().map(|r| r.clone().unwrap()).collect()
        };
        assert_eq!(show(&br), show(&mr), "{q}");
    }
}

#[test]
fn point_select_through_a_merged_view_uses_the_primary_key() {
    let b = Basalt::start();
    let mut c = conn(&b.url());
    setup(&mut c);
    for (q, want) in [
        ("select x from v2 where x = 3", vec![3i64]),
        // A view over a view merges twice.
        ("select x from v10 where x = 2", vec![2]),
    ] {
        let rows: Vec<i64> = c.query(q).expect(q);
        assert_eq!(rows, want, "{q}");
        let plan: Vec<mysql::Row> = c.query(format!("explain {q}")).expect("explain");
        let ty: String = plan[0].get("type").expect("type");
        let key: Option<String> = plan[0].get("key").expect("key");
        assert_eq!(
            (ty.as_str(), key.as_deref()),
            ("const", Some("PRIMARY")),
            "{q}"
        );
    }
    // The view's WHERE still filters: a = 1 is outside v2 (a > 1).
    let rows: Vec<i64> = c.query("select x from v2 where x = 1").expect("filtered");
    assert!(rows.is_empty());
    // On the inner side of an outer join the view's WHERE joins, not filters.
    let rows: Vec<(i64, Option<i64>)> = c
        .query("select u.a, v.x from u left join v2 v on v.x = u.a order by 1, 2")
        .expect("outer join");
    assert_eq!(rows, vec![(1, None), (2, Some(2)), (2, Some(2))]);
    assert_eq!(err(&mut c, "select * from v1 force index (k)").0, 1176);
}

/// INSERT / UPDATE / DELETE through views, and the errors of views that cannot
/// take them; each statement's outcome and the table afterwards.
const DML: &[&str] = &[
    "create view m as select a, b from t",
    "insert into m values (10, 'q')",
    "insert into m (b, a) values ('r', 11)",
    "update m set b = 'z' where a = 10",
    "update v2 set y = 'yy' where x = 2",
    "update v2 set y = 'no' where x = 1",
    "delete from v2 where x = 11",
    "delete from v2 where x = 1",
    "insert into v10 values (20)",
    "update v4 set a = 1",
    "delete from v4",
    "insert into v4 values (1, 2)",
    "create view ex as select a, a + 1 as e from t",
    "update ex set e = 3",
    "insert into ex (e) values (1)",
    "update ex set a = a + 100 where e = 4",
];

/// Runs `sql` and returns its error code (0 for success) and the table's rows.
fn outcome(c: &mut Conn, sql: &str) -> (u16, Vec<(i64, Option<String>)>) {
    let code = match c.query_drop(sql) {
        Ok(()) => 0,
        Err(mysql::Error::MySqlError(e)) => e.code,
        Err(e) => panic!("{sql}: {e}"),
    };
    (
        code,
        c.query("select a, b from t order by a").expect("rows"),
    )
}

#[test]
fn dml_goes_through_merged_views() {
    let b = Basalt::start();
    let mut c = conn(&b.url());
    setup(&mut c);
    let codes: Vec<u16> = DML.iter().map(|q| outcome(&mut c, q).0).collect();
    assert_eq!(
        codes,
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 1288, 1288, 1471, 0, 1348, 1471, 0]
    );
    let rows: Vec<(i64, Option<String>)> = c.query("select a, b from t order by a").expect("rows");
    assert_eq!(
        rows,
        vec![
            (1, Some("x".into())),
            (2, Some("yy".into())),
            (10, Some("z".into())),
            (20, None),
            (103, Some("z".into()))
        ]
    );
}

#[test]
#[ignore]
fn dml_through_views_matches_mariadb() {
    if !mariadb::available() {
        eprintln!("skipped: mariadb-server is not installed");
        return;
    }
    let m = MariaDb::start(&[]);
    let b = Basalt::start();
    let mut mc = conn(&m.url());
    let mut bc = conn(&b.url());
    setup(&mut mc);
    setup(&mut bc);
    for q in DML {
        assert_eq!(outcome(&mut bc, q), outcome(&mut mc, q), "{q}");
    }
}

/// `mariadb-dump` of a database with views (it locks every table and view with
/// LOCK TABLES, writes stand-in views first, then the real definitions) reloads
/// into the same view definitions and rows.
#[test]
fn mariadb_dump_of_views_reloads_into_the_same_views() {
    if basalt_tests::which("mariadb-dump").is_none() {
        eprintln!("skipping: mariadb-dump not installed");
        return;
    }
    let b = Basalt::start();
    let mut c = conn(&b.url());
    setup(&mut c);
    let names: Vec<String> = (1..=VIEWS.len()).map(|i| format!("v{i}")).collect();
    let before: Vec<String> = names.iter().map(|v| create_view_text(&mut c, v)).collect();
    let rows = |c: &mut Conn| -> Vec<Vec<String>> {
        QUERIES
            .iter()
            .map(|q| {
                c.query_map(*q, |r: mysql::Row| format!("{r:?}"))
                    .unwrap_or_else(|e| panic!("{q}: {e}"))
            })
            .collect()
    };
    let rows_before = rows(&mut c);
    c.query_drop("lock tables v10 read, t read")
        .expect("LOCK TABLES on a view");
    c.query_drop("unlock tables").expect("unlock");
    let out = std::process::Command::new("mariadb-dump")
        .args(["-h127.0.0.1", "-uroot", "--skip-ssl", "--databases", "vt"])
        .arg(format!("-P{}", b.port))
        .output()
        .expect("run mariadb-dump");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && err.is_empty(),
        "mariadb-dump: {err}"
    );
    c.query_drop("drop database vt").expect("drop");
    let (code, _, err) =
        basalt_tests::mariadb_cli(b.port, &[], &String::from_utf8_lossy(&out.stdout));
    assert_eq!(code, 0, "reload: {err}");
    c.query_drop("use vt").expect("use");
    let after: Vec<String> = names.iter().map(|v| create_view_text(&mut c, v)).collect();
    assert_eq!(before, after);
    assert_eq!(rows_before, rows(&mut c));
}
