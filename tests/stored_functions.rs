//! Stored functions over the wire: CREATE FUNCTION with RETURNS and
//! characteristics, calls anywhere an expression stands (select lists, WHERE,
//! SET, CALL arguments, prepared statements), bodies that read and change
//! tables inside the calling statement's transaction, handlers, cursors and
//! SIGNAL, MariaDB's errors, definer rights, SHOW / information_schema, and
//! (ignored: needs mariadb-server) the same script compared with MariaDB.

#[path = "routine_calls.rs"]
mod routine_calls;
#[path = "routine_sysvars.rs"]
mod routine_sysvars;

use basalt_tests::mariadb;
use basalt_tests::Basalt;
use mysql::prelude::*;
use mysql::{Conn, Opts};

fn code(c: &mut Conn, sql: &str) -> u16 {
    match c.query_drop(sql) {
        Err(mysql::Error::MySqlError(e)) => e.code,
        other => panic!("{sql}: expected an error, got {other:?}"),
    }
}

fn rows(c: &mut Conn, sql: &str) -> Result<Vec<Vec<Option<String>>>, u16> {
    match c.query::<mysql::Row, _>(sql) {
        Ok(rs) => Ok(rs
            .into_iter()
            .map(|r| r.unwrap().iter().map(basalt_tests::cell).collect())
            .collect()),
        Err(mysql::Error::MySqlError(e)) => Err(e.code),
        Err(e) => panic!("{sql}: {e}"),
    }
}

fn s(v: &str) -> Option<String> {
    Some(v.to_string())
}

const SETUP: &[&str] = &[
    "create database fn",
    "use fn",
    "create table t (id int primary key, v int)",
    "insert into t values (1, 10), (2, 20), (3, 30)",
    "create table audit (n int auto_increment primary key, what varchar(20))",
    "create function dbl(x int) returns int deterministic return x * 2",
    "create function getv(k int) returns int reads sql data
     begin
       declare r int default -1;
       declare continue handler for not found set r = -2;
       select v into r from t where id = k;
       return r;
     end",
    "create function total() returns int reads sql data
     begin
       declare n, a int default 0;
       declare done int default 0;
       declare c cursor for select v from t order by id;
       declare continue handler for not found set done = 1;
       open c;
       l: loop
         fetch c into a;
         if done then leave l; end if;
         set n = n + a;
       end loop;
       close c;
       return n;
     end",
    "create function logged(w varchar(20)) returns int modifies sql data
     begin
       insert into audit (what) values (w);
       return last_insert_id();
     end",
    "create function checked(x int) returns int
     begin
       if x < 0 then
         signal sqlstate '45000' set message_text = 'negative', mysql_errno = 1644;
       end if;
       return x;
     end",
];

fn setup(c: &mut Conn) {
    for sql in SETUP {
        c.query_drop(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
}

#[test]
fn functions_run_where_expressions_stand() {
    let b = Basalt::start();
    let mut c = b.conn();
    setup(&mut c);
    assert_eq!(
        rows(
            &mut c,
            "select dbl(21), dbl(id), getv(id), getv(9) from t order by id"
        )
        .unwrap(),
        vec![
            vec![s("42"), s("2"), s("10"), s("-2")],
            vec![s("42"), s("4"), s("20"), s("-2")],
            vec![s("42"), s("6"), s("30"), s("-2")],
        ]
    );
    assert_eq!(rows(&mut c, "select total()").unwrap(), vec![vec![s("60")]]);
    assert_eq!(
        rows(&mut c, "select id from t where v = dbl(getv(1))").unwrap(),
        vec![vec![s("2")]]
    );
    // SET, CALL arguments and procedures' expressions.
    c.query_drop("set @x = getv(3) + total()").unwrap();
    assert_eq!(rows(&mut c, "select @x").unwrap(), vec![vec![s("90")]]);
    c.query_drop("create procedure p(in a int, out b int) set b = getv(a) * dbl(2)")
        .unwrap();
    c.query_drop("call p(getv(1) / 10, @o)").unwrap();
    assert_eq!(rows(&mut c, "select @o").unwrap(), vec![vec![s("40")]]);
    // A prepared statement with the call.
    let st = c.prep("select getv(?) + ?").unwrap();
    let v: Option<i64> = c.exec_first(&st, (2, 1)).unwrap();
    assert_eq!(v, Some(21));
    // UPDATE / INSERT ... SELECT calling functions.
    c.query_drop("update t set v = dbl(v) where id = 3")
        .unwrap();
    assert_eq!(rows(&mut c, "select getv(3)").unwrap(), vec![vec![s("60")]]);
    // A function reached from a view.
    c.query_drop("create view vw as select id, dbl(v) as d from t")
        .unwrap();
    assert_eq!(
        rows(&mut c, "select d from vw where id = 1").unwrap(),
        vec![vec![s("20")]]
    );
    // Qualified names, and replaced functions seen by cached statements.
    assert_eq!(
        rows(&mut c, "select fn.dbl(5)").unwrap(),
        vec![vec![s("10")]]
    );
    c.query_drop("create or replace function dbl(x int) returns int return x * 3")
        .unwrap();
    assert_eq!(
        rows(&mut c, "select fn.dbl(5)").unwrap(),
        vec![vec![s("15")]]
    );
}

#[test]
fn function_writes_belong_to_the_calling_statement() {
    let b = Basalt::start();
    let mut c = b.conn();
    setup(&mut c);
    assert_eq!(
        rows(&mut c, "select logged('a'), logged('b')").unwrap(),
        vec![vec![s("1"), s("2")]]
    );
    // A statement that fails takes its functions' writes with it.
    assert_eq!(code(&mut c, "select logged('c'), checked(-1)"), 1644);
    assert_eq!(
        rows(&mut c, "select count(*) from audit").unwrap(),
        vec![vec![s("2")]]
    );
    // Inside a transaction: ROLLBACK undoes them.
    c.query_drop("begin").unwrap();
    c.query_drop("select logged('d')").unwrap();
    c.query_drop("rollback").unwrap();
    assert_eq!(
        rows(&mut c, "select group_concat(what order by n) from audit").unwrap(),
        vec![vec![s("a,b")]]
    );
    // A SET whose function writes commits it under autocommit.
    c.query_drop("set @n = logged('e')").unwrap();
    let mut other = b.conn();
    assert_eq!(
        rows(&mut other, "select what from fn.audit where what = 'e'").unwrap(),
        vec![vec![s("e")]]
    );
}

#[test]
fn function_errors_are_mariadbs() {
    let b = Basalt::start();
    let mut c = b.conn();
    setup(&mut c);
    assert_eq!(code(&mut c, "select dbl(1, 2)"), 1318);
    assert_eq!(code(&mut c, "select nosuch(1)"), 1305);
    assert_eq!(code(&mut c, "select checked(-5)"), 1644);
    assert_eq!(
        rows(&mut c, "select checked(5)").unwrap(),
        vec![vec![s("5")]]
    );
    for (sql, errno) in [
        (
            "create function f1() returns int begin select 1; return 1; end",
            1415,
        ),
        (
            "create function f2() returns int begin commit; return 1; end",
            1422,
        ),
        (
            "create function f3() returns int begin set @a = 1; end",
            1320,
        ),
        (
            "create function f4() returns int begin prepare s from 'select 1'; return 1; end",
            1336,
        ),
        (
            "create function f7() returns int begin execute immediate 'select 1'; return 1; end",
            1336,
        ),
        ("create function f5() returns nosuchtype return 1", 4161),
        ("create function f6(out a int) returns int return 1", 1064),
        ("create function dbl(x int) returns int return x", 1304),
    ] {
        assert_eq!(code(&mut c, sql), errno, "{sql}");
    }
    c.query_drop("create function rec(n int) returns int return if(n <= 0, 0, rec(n - 1) + 1)")
        .unwrap();
    assert_eq!(code(&mut c, "select rec(3)"), 1424);
    c.query_drop(
        "create function noret(n int) returns int begin if n > 0 then return 1; end if; end",
    )
    .unwrap();
    assert_eq!(code(&mut c, "select noret(0)"), 1321);
    assert_eq!(rows(&mut c, "select noret(1)").unwrap(), vec![vec![s("1")]]);
    // A missing table is an error only when its statement runs.
    c.query_drop(
        "create function lazy(x int) returns int reads sql data begin if x then select v into x from nosuch; end if; return x; end",
    )
    .unwrap();
    assert_eq!(rows(&mut c, "select lazy(0)").unwrap(), vec![vec![s("0")]]);
    assert_eq!(code(&mut c, "select lazy(1)"), 1146);
    // Strict mode: a value too long for the RETURNS type.
    c.query_drop("create function short(x varchar(10)) returns varchar(2) return x")
        .unwrap();
    assert_eq!(code(&mut c, "select short('abc')"), 1406);
    assert_eq!(
        code(&mut c, "create table g (a int, b int as (dbl(a)))"),
        1901
    );
    assert_eq!(code(&mut c, "return 1"), 1064);
    assert_eq!(code(&mut c, "end"), 1064);
    c.query_drop("drop function dbl").unwrap();
    assert_eq!(code(&mut c, "select dbl(1)"), 1305);
    assert_eq!(code(&mut c, "drop function dbl"), 1305);
}

#[test]
fn functions_are_described_as_mariadb_does() {
    let b = Basalt::start();
    let mut c = b.conn();
    setup(&mut c);
    let row: (String, String, String) = c
        .query_first("show create function dbl")
        .unwrap()
        .map(|r: mysql::Row| {
            (
                r.get::<String, _>(0).unwrap(),
                r.get::<String, _>(1).unwrap(),
                r.get::<String, _>(2).unwrap(),
            )
        })
        .unwrap();
    assert_eq!(row.0, "dbl");
    assert!(
        row.2.starts_with(
            "CREATE DEFINER=`root`@`localhost` FUNCTION `dbl`(x int) RETURNS int(11)\n    DETERMINISTIC\nreturn x * 2"
        ),
        "{}",
        row.2
    );
    assert_eq!(
        rows(
            &mut c,
            "select routine_name, data_type, dtd_identifier, numeric_precision from information_schema.routines where routine_schema = 'fn' and routine_type = 'FUNCTION' order by 1"
        )
        .unwrap()[0],
        vec![s("checked"), s("int"), s("int(11)"), s("10")]
    );
    let status = rows(&mut c, "show function status where db = 'fn'").unwrap();
    assert_eq!(status.len(), 5);
}

/// Definer functions run with their definer's rights; EXECUTE is needed.
#[test]
fn function_rights() {
    let b = Basalt::start();
    let mut c = b.conn();
    for sql in [
        "create database secfn",
        "use secfn",
        "create table secret (a int)",
        "insert into secret values (42)",
        "create function peek() returns int reads sql data return (select a from secret)",
        "create function peek_inv() returns int reads sql data sql security invoker return (select a from secret)",
        "create user 'fu'@'%'",
        "create user 'fv'@'%'",
        "grant execute on secfn.* to 'fu'@'%'",
    ] {
        c.query_drop(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let url = |user: &str| format!("mysql://{user}@127.0.0.1:{}/", b.port);
    let mut u = Conn::new(Opts::from_url(&url("fu")).unwrap()).unwrap();
    assert_eq!(
        rows(&mut u, "select secfn.peek()").unwrap(),
        vec![vec![s("42")]]
    );
    assert_eq!(code(&mut u, "select secfn.peek_inv()"), 1142);
    let mut v = Conn::new(Opts::from_url(&url("fv")).unwrap()).unwrap();
    assert_eq!(code(&mut v, "select secfn.peek()"), 1370);
}

/// With the binary log on, a function that may change data must say so
/// (1418) unless `log_bin_trust_function_creators`; its writes are logged
/// with the calling statement.
#[test]
fn functions_under_binary_logging() {
    let b = Basalt::start_with(&["--log-bin", "--server-id=9"]);
    let mut c = b.conn();
    c.query_drop("create database lb").unwrap();
    c.query_drop("use lb").unwrap();
    c.query_drop("create table t (a int)").unwrap();
    let body = "returns int modifies sql data begin insert into t values (1); return 1; end";
    assert_eq!(code(&mut c, &format!("create function w1() {body}")), 1418);
    c.query_drop("create function r1() returns int reads sql data return (select count(*) from t)")
        .unwrap();
    c.query_drop("create function d1() returns int deterministic return 1")
        .unwrap();
    c.query_drop("set global log_bin_trust_function_creators = 1")
        .unwrap();
    c.query_drop(format!("create function w1() {body}"))
        .unwrap();
    c.query_drop("set global log_bin_trust_function_creators = 0")
        .unwrap();
    assert_eq!(
        rows(&mut c, "select w1(), r1()").unwrap(),
        vec![vec![s("1"), s("1")]]
    );
    let events: Vec<mysql::Row> = c.query("show binlog events").unwrap();
    let kinds: Vec<String> = events
        .iter()
        .map(|r| r.get::<String, _>(2).unwrap())
        .collect();
    assert!(kinds.iter().any(|k| k == "Write_rows_v1"), "{kinds:?}");
}

#[test]
#[ignore]
fn functions_behave_as_on_mariadb() {
    let Some((_b, _m, mut bc, mut mc)) = mariadb::paired() else {
        return;
    };
    let script: Vec<&str> = SETUP
        .iter()
        .copied()
        .chain([
            "select dbl(21), dbl(id), getv(id), getv(9) from t order by id",
            "select total(), checked(4)",
            "select checked(-4)",
            "select logged('x'), logged('y')",
            "select * from audit",
            "select logged('z'), checked(-1)",
            "select * from audit",
            "set @q = getv(2)",
            "select @q",
            "select dbl(1, 2)",
            "select nope()",
            "create function r1() returns varchar(10) return 'abc'",
            "create function r2() returns decimal(10,2) return 1.005",
            "create function r3() returns tinyint unsigned return 300",
            "select r1(), r2()",
            "select r3()",
            "set sql_mode = ''",
            "create function r4() returns tinyint return 300",
            "select r4()",
            "set sql_mode = default",
            "select r4()",
            "create function w() returns int begin declare x int; set x = 'abc'; return x; end",
            "select w()",
            "create function bad() returns int begin select 1; return 1; end",
            "create function bad2() returns int begin commit; return 1; end",
            "create function bad3() returns int begin set @a = 1; end",
            "create function bad4() returns int begin prepare s from 'select 1'; return 1; end",
            "create function noret(n int) returns int begin if n > 0 then return 1; end if; end",
            "select noret(0)",
            "select noret(1)",
            "select * from t where id = 0",
            "create function h() returns int begin declare continue handler for sqlexception return -1; insert into t values (1, 1); return 0; end",
            "select h()",
            // 1442: a function changing a table the calling statement uses.
            "create function upd_t() returns int begin update t set v = v + 1 where id = 1; return 1; end",
            "create table t2 (a int)",
            "create trigger t2_ai after insert on t2 for each row update t set v = v + 100 where id = 2",
            "select logged(what) from audit",
            "select count(*) from audit",
            "update t set v = logged('u') where id = 1",
            "insert into t select 10 + n, logged('i') from audit where n = 1",
            "select t.id, logged('j') from t join audit on audit.n = t.id order by t.id",
            "select upd_t() from t where id = 1",
            "insert into audit (what) values (upd_t())",
            "select v from t where id = 1",
            "insert into t2 select id from t where id = 3",
            "insert into t2 values (upd_t())",
            "select * from t2",
            "select v from t where id in (1, 2) order by id",
            "select routine_name, data_type, dtd_identifier, character_maximum_length, numeric_precision, numeric_scale from information_schema.routines where routine_schema = 'fn' order by 1",
            "select specific_name, ordinal_position, parameter_mode, parameter_name, data_type from information_schema.parameters where specific_schema = 'fn' order by 1, 2",
            "create table g (a int, b int as (dbl(a)))",
            "drop function dbl",
            "select dbl(1)",
            "drop function if exists dbl",
        ])
        .collect();
    let diffs = mariadb::differences(&mut bc, &mut mc, &script, |_, o| o);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}
