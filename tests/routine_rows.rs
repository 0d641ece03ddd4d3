//! MariaDB's ROW variables and FOR loops over cursors and queries: `ROW (..)`,
//! `ROW TYPE OF` a table or a cursor, `TYPE OF` a column or a variable, the
//! fields read as `r.f`, FETCH and SELECT ... INTO a whole row, rows compared
//! as tuples, and FOR loops that open, fetch into their record and close, in
//! procedures, functions and triggers. On Basalt, and (ignored: needs
//! mariadb-server) the same script compared with MariaDB 10.11.

use super::{code, results, s};
use basalt_tests::mariadb;
use basalt_tests::Basalt;
use mysql::prelude::*;
use mysql::{Conn, Opts};

const SCRIPT: &[&str] = &[
    "create database rr",
    "use rr",
    "create table t (a int, b varchar(10), c decimal(5,2))",
    "insert into t values (1, 'x', 1.5), (2, 'y', 2.25), (3, 'z', 0)",
    "create procedure p1() begin for r in (select a, b from t order by a) do select r.a, r.b; end for; end",
    "call p1()",
    "create procedure p2() begin declare c cursor for select a, b, c from t order by a; for r in c do select r.a, r.b, r.c; end for; end",
    "call p2()",
    "create procedure p3(x int) begin declare c cursor(m int) for select a from t where a > m order by a; for r in c(x) do select r.a; end for; end",
    "call p3(1)",
    "create procedure p4() begin declare r row(a int, b varchar(10)) default row(5, 'q'); select r.a, r.b; set r.a = 7; select r.a; set r = row(8, 'z'); select r.a, r.b; end",
    "call p4()",
    "create procedure p5() begin declare r row type of t; select * into r from t where a = 1; select r.a, r.b, r.c; end",
    "call p5()",
    "create procedure p6() begin declare c cursor for select a, b from t order by a; begin declare r row type of c; open c; fetch c into r; fetch c into r; select r.a, r.b; close c; end; end",
    "call p6()",
    "create procedure p7() begin declare v type of t.b default 'abcdefghijklmnop'; select v; end",
    "call p7()",
    "create procedure p8() begin declare r row(a int); select r; end",
    "call p8()",
    "create procedure p9() begin for r in (select a from t) do select r.zz; end for; end",
    "call p9()",
    "create procedure p10() begin for r in (select a from nosuch) do select r.a; end for; end",
    "call p10()",
    "create procedure p11() begin declare c cursor for select a from t; open c; for r in c do select r.a; end for; end",
    "call p11()",
    "create function f1() returns int begin declare s int default 0; for r in (select a from t) do set s = s + r.a; end for; return s; end",
    "select f1()",
    "create function f2() returns varchar(100) begin declare s varchar(100) default ''; declare c cursor for select a, b from t order by a; for r in c do set s = concat(s, r.b, r.a); end for; return s; end",
    "select f2()",
    "create function f3() returns int begin declare r row type of t; select * into r from t where a = 2; return r.a * 10; end",
    "select f3()",
    "create procedure p13() begin for r in (select a, a from t) do select r.a; end for; end",
    "call p13()",
    "create procedure p14() begin declare r row(a int, b int) default 5; end",
    "call p14()",
    "create procedure p15() begin declare r1 row(a int, b int) default row(1, 2); declare r2 row(a int, b int); set r2 = r1; select r2.a, r2.b, r1 = r2, r1 = row(1, 2), r1 <> row(1, 3); end",
    "call p15()",
    "create procedure p16() begin declare c cursor for select a from t order by a; l: for r in c do if r.a = 2 then leave l; end if; select r.a; end for; for r in c do select r.a + 10; end for; end",
    "call p16()",
    "create procedure p17() begin declare r row(a int, b int); select 1, 2 into r; select r.a, r.b; select 1 into r; end",
    "call p17()",
    "create procedure p18() b: begin for r in (select a from t order by a) do if r.a = 2 then leave b; end if; select r.a; end for; select 'after'; end",
    "call p18()",
    "create procedure p19() begin l: for r in (select a from t order by a) do if r.a = 2 then iterate l; end if; for s in (select b from t where a = r.a) do select r.a, s.b; end for; end for; end",
    "call p19()",
    "create procedure p20() begin if 0 then begin declare r row type of nosuch; select 1; end; end if; select 'ok'; end",
    "call p20()",
    "create procedure p21() begin declare x int default 5; declare y type of x default 6; select x, y; end",
    "call p21()",
    "create procedure p22() begin declare r row(a int, b int); declare r int; end",
    "create procedure p23() begin declare c cursor for select a, b from t; declare exit handler for not found select 'nf'; begin declare r row(a int); open c; fetch c into r; end; end",
    "call p23()",
    "create procedure p24() begin declare r row(a int, b int) default row(1, 2); declare s row(a int, b int) default r; select s.a, s.b; end",
    "call p24()",
    "create procedure p25() begin declare exit handler for sqlexception select 'caught'; for r in (select a from t) do signal sqlstate '45000'; end for; end",
    "call p25()",
    "create procedure p26() begin declare r row(a int, b varchar(1)); set r.b = 'long'; select r.b; end",
    "call p26()",
    "create procedure p27() begin declare v type of t.zz; select v; end",
    "call p27()",
    "create procedure p28() begin declare r row type of t; set r = row(1, 'a', 3); select r.a, r.b, r.c; set r.nope = 1; end",
    "call p28()",
    "create procedure p29() begin declare r row(a int); select r.zz; end",
    "create procedure p30() begin declare r row(a int); set r.zz = 1; end",
    "create procedure p31() begin declare r row(a int); if r.a is null then select `r`.`a` from t limit 1; end if; end",
    "call p31()",
    "create table audit (x int)",
    "create trigger tr after insert on t for each row begin for r in (select count(*) n from t) do insert into audit values (r.n + new.a); end for; end",
    "insert into t (a, b) values (10, 'w')",
    "select * from audit",
    "begin not atomic for r in (select b from t where a < 3 order by a) do select r.b; end for; end",
];

/// The script's CREATE of routine `name`.
fn create(name: &str) -> &'static str {
    let words = [format!("procedure {name}("), format!("function {name}(")];
    SCRIPT
        .iter()
        .find(|s| words.iter().any(|w| s.contains(w.as_str())))
        .expect("the script creates it")
}

#[test]
fn rows_and_for_loops() {
    let b = Basalt::start();
    let mut c = Conn::new(Opts::from_url(&b.url()).unwrap()).unwrap();
    for sql in &SCRIPT[..4] {
        c.query_drop(sql).unwrap();
    }
    let mut run = |sql: &str| results(&mut c, sql);
    run(create("p1")).unwrap();
    assert_eq!(
        run("call p1()").unwrap(),
        [
            vec![vec![s("1"), s("x")]],
            vec![vec![s("2"), s("y")]],
            vec![vec![s("3"), s("z")]]
        ]
    );
    run(create("p4")).unwrap();
    assert_eq!(
        run("call p4()").unwrap(),
        [
            vec![vec![s("5"), s("q")]],
            vec![vec![s("7")]],
            vec![vec![s("8"), s("z")]]
        ]
    );
    run(create("f1")).unwrap();
    assert_eq!(run("select f1()").unwrap(), [vec![vec![s("6")]]]);
    // A FOR loop's cursor is closed at its end and by LEAVE: the second loop
    // opens it again.
    run(create("p16")).unwrap();
    assert_eq!(
        run("call p16()").unwrap(),
        [
            vec![vec![s("1")]],
            vec![vec![s("11")]],
            vec![vec![s("12")]],
            vec![vec![s("13")]]
        ]
    );
    for (name, errno) in [
        ("p9", 4082),
        ("p10", 1146),
        ("p11", 1325),
        ("p8", 1241),
        ("p14", 1241),
        ("p17", 1222),
    ] {
        results(&mut c, create(name)).unwrap();
        let call = format!("call {name}()");
        assert_eq!(results(&mut c, &call), Err(errno), "{call}");
    }
    // ROW TYPE OF reads the table as it is when the procedure compiles: after
    // ALTER TABLE the new column is a field (MariaDB keeps the cached
    // procedure's old structure until it is flushed).
    let mut run = |sql: &str| results(&mut c, sql);
    run(create("p5")).unwrap();
    assert_eq!(
        run("call p5()").unwrap(),
        [vec![vec![s("1"), s("x"), s("1.50")]]]
    );
    run("alter table t add column d int default 7").unwrap();
    run("create procedure pd() begin declare r row type of t; select * into r from t where a = 1; select r.d; end").unwrap();
    assert_eq!(run("call pd()").unwrap(), [vec![vec![s("7")]]]);
    assert_eq!(
        run("call p5()").unwrap(),
        [vec![vec![s("1"), s("x"), s("1.50")]]]
    );
    run("alter table t drop column d").unwrap();
    assert_eq!(code(&mut c, "call pd()"), 4082);
}

#[test]
#[ignore]
fn rows_and_for_loops_as_on_mariadb() {
    let Some((_b, _m, mut bc, mut mc)) = mariadb::paired() else {
        return;
    };
    let diffs = mariadb::differences_by(&mut bc, &mut mc, SCRIPT, results);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}
