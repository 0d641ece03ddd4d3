//! CALL, DO and GET DIAGNOSTICS inside stored functions and triggers, and the
//! diagnostics a function or trigger leaves the statement that called it: on
//! Basalt, and (ignored: needs mariadb-server) the same script compared with
//! MariaDB 10.11.

use basalt_tests::mariadb::{self, MariaDb};
use basalt_tests::Basalt;
use mysql::prelude::*;
use mysql::{Conn, Opts};

const BODIES: &[&str] = &[
    "create database rc character set utf8mb4",
    "use rc",
    "create table a (x int)",
    "create procedure sel() select 1",
    "create procedure ins(in v int) insert into a values (v)",
    "create procedure outp(in v int, out w int) set w = v * 2",
    "create procedure bump(inout q int) set q = q + 10",
    "create procedure com() commit",
    "create procedure dyn() begin prepare s from 'select 1'; end",
    "create procedure rec(n int) begin if n > 0 then call rec(n - 1); end if; insert into a values (100 + n); end",
    "create procedure selh() begin declare continue handler for sqlexception set @h = 1; select 1; end",
    "create procedure warnp() begin insert into a values ('1x'); end",
    "create function f_sel() returns int begin call sel(); return 1; end",
    "create function f_ins(v int) returns int begin declare w int; call ins(v); call outp(v, w); return w; end",
    "create function f_com() returns int begin call com(); return 1; end",
    "create function f_dyn() returns int begin call dyn(); return 1; end",
    "create function f_none() returns int begin call nosuch(); return 1; end",
    "create function f_rec() returns int begin call rec(2); return 1; end",
    "create function f_user() returns int begin call outp(1, @u); return @u; end",
    "create function f_lit() returns int begin call outp(1, 5); return 1; end",
    "create function f_count() returns int begin call outp(1); return 1; end",
    "create function f_bump() returns int begin declare z int default 1; call bump(z); call bump(z); return z; end",
    "create function f_caught() returns int begin declare continue handler for sqlexception begin get diagnostics condition 1 @m = message_text, @e = mysql_errno; end; call sel(); return 2; end",
    "create function f_selh() returns int begin call selh(); return 1; end",
    "create function f_warnp() returns int begin call warnp(); return 1; end",
    "create function f_do() returns int begin do 1/0; get diagnostics @d1 = number; return 3; end",
    "create function f_do_err() returns int begin declare continue handler for sqlexception set @dh = 1; do (select 1 union select 2); get diagnostics @d2 = number; get diagnostics condition 1 @d2m = message_text; return 1; end",
    "create function f_rows() returns int begin declare n int; insert into a values (1), (2); get diagnostics n = row_count; return n; end",
    "create function f_seen() returns int begin get diagnostics @seen = number; return 1; end",
    "create function f_replaced() returns int begin declare v int; set v = 'q'; get diagnostics @rn = number; get diagnostics condition 1 @rm = message_text; return 1; end",
    "create function f_fails() returns int begin declare v int; set v = 'q'; signal sqlstate '45000' set message_text = 'kk'; return 1; end",
    "create function f_handled() returns int begin declare continue handler for sqlstate '45000' begin end; signal sqlstate '45000'; get diagnostics @hn = number; return 1; end",
    "create function f_bad_cond() returns int begin get diagnostics condition 9 @bc = message_text; return 1; end",
    "set sql_mode = 'ERROR_FOR_DIVISION_BY_ZERO'",
    "create function f_warns() returns int begin insert into a values ('3v'); return 1; end",
    "set sql_mode = default",
    "create function f_temporal() returns int begin set @t = cast('2020-01-02 03:04:05.678' as datetime(3)); select cast('01:02:03.45' as time(2)) into @t2; set @t3 = (select cast('2021-01-01' as date)); return 1; end",
    "create table trg (id int, v int)",
    "create trigger trg_b before insert on trg for each row begin call outp(new.id, new.v); end",
    "create table trs (id int)",
    "create trigger trs_b before insert on trs for each row call sel()",
    "create table tro (id int, v int)",
    "create trigger tro_a after insert on tro for each row call outp(new.id, new.v)",
    "create table lg (v int)",
    "create table tw (id int)",
    "create trigger tw_a after insert on tw for each row insert into lg values ('9z')",
];

const SCRIPT: &[&str] = &[
    "select f_sel()",
    "select f_temporal()",
    "select @t, @t2, @t3, @t + 0, @t2 + 0",
    "select f_ins(3)",
    "select * from a order by x",
    "select f_com()",
    "select f_dyn()",
    "select f_none()",
    "select f_rec()",
    "set max_sp_recursion_depth = 5",
    "select f_rec()",
    "set max_sp_recursion_depth = default",
    "select * from a order by x",
    "select f_user()",
    "select @u",
    "select f_lit()",
    "select f_count()",
    "select f_bump()",
    "select f_caught()",
    "select @m, @e",
    "select f_selh()",
    "select f_warnp()",
    "insert into trg (id) values (7)",
    "select * from trg",
    "insert into trs values (1)",
    "insert into tro values (1, 1)",
    "set sql_mode = 'ERROR_FOR_DIVISION_BY_ZERO'",
    "select f_do()",
    "select @d1",
    "set @dh = 0",
    "select f_do_err()",
    "select @d2, @d2m, @dh",
    "select f_rows()",
    "select 1/0, f_seen()",
    "select @seen",
    "select 1/0, f_replaced()",
    "select @rn, @rm",
    "select 1/0, f_fails()",
    "select f_fails()",
    "select 1/0, f_handled()",
    "select @hn",
    "select f_bad_cond()",
    "select 1/0, f_warns()",
    "select f_warns(), 1/0",
    "insert into lg select 1/0",
    "set sql_mode = ''",
    "insert into tw values (1)",
    "insert into tw values ('2q')",
    "set sql_mode = default",
    "do (select 1 union select 2)",
    "do nosuchfunc()",
    "do 1, (select x from nosuch)",
    "do 1/0",
    "create function f_ac() returns int begin set autocommit = 0; return 1; end",
];

fn connect(b: &Basalt) -> Conn {
    Conn::new(Opts::from_url(&b.url()).unwrap()).unwrap()
}

fn one(c: &mut Conn, sql: &str) -> Result<Option<String>, u16> {
    match c.query_first::<mysql::Row, _>(sql) {
        Ok(r) => Ok(r.and_then(|r| basalt_tests::cell(&r.unwrap()[0]))),
        Err(mysql::Error::MySqlError(e)) => Err(e.code),
        Err(e) => panic!("{sql}: {e}"),
    }
}

fn warnings(c: &mut Conn) -> Vec<u16> {
    let w: Vec<(String, u16, String)> = c.query("show warnings").unwrap();
    w.into_iter().map(|w| w.1).collect()
}

#[test]
fn functions_and_triggers_call_procedures() {
    let b = Basalt::start();
    let mut c = connect(&b);
    for sql in BODIES {
        c.query_drop(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let s = |v: &str| Ok(Some(v.to_string()));
    assert_eq!(one(&mut c, "select f_ins(3)"), s("6"));
    assert_eq!(one(&mut c, "select count(*) from a where x = 3"), s("1"));
    assert_eq!(one(&mut c, "select f_bump()"), s("21"));
    assert_eq!(one(&mut c, "select f_user()"), s("2"));
    c.query_drop("insert into trg (id) values (7)").unwrap();
    assert_eq!(one(&mut c, "select v from trg"), s("14"));
    // What MariaDB refuses, in its order and with its errors.
    for (sql, code) in [
        ("select f_sel()", 1415),
        ("select f_com()", 1422),
        ("select f_dyn()", 1336),
        ("select f_none()", 1305),
        ("select f_rec()", 1456),
        ("select f_lit()", 1414),
        ("select f_count()", 1318),
        ("insert into trs values (1)", 1415),
        ("insert into tro values (1, 1)", 1414),
    ] {
        assert_eq!(one(&mut c, sql), Err(code), "{sql}");
    }
    c.query_drop("set max_sp_recursion_depth = 5").unwrap();
    assert_eq!(one(&mut c, "select f_rec()"), s("1"));
    assert_eq!(
        one(
            &mut c,
            "select group_concat(x order by x) from a where x > 99"
        ),
        s("100,101,102")
    );
    // A handler in the function sees the condition it caught.
    assert_eq!(one(&mut c, "select f_caught()"), s("2"));
    assert_eq!(one(&mut c, "select @e"), s("1415"));
    // A function that returns leaves the caller's diagnostics as they were.
    c.query_drop("set sql_mode = 'ERROR_FOR_DIVISION_BY_ZERO'")
        .unwrap();
    assert_eq!(one(&mut c, "select f_warns()"), s("1"));
    assert_eq!(warnings(&mut c), Vec::<u16>::new());
    c.query_drop("select 1/0, f_warns()").unwrap();
    assert_eq!(warnings(&mut c), [1365]);
    // One that fails adds its failing instruction's conditions, then the
    // note naming the line it failed at.
    assert_eq!(one(&mut c, "select 1/0, f_fails()"), Err(1366));
    assert_eq!(warnings(&mut c), [1365, 1366, 4094]);
    assert_eq!(one(&mut c, "select f_rows()"), s("2"));
    // DO lists an error its evaluation raises and ends OK.
    c.query_drop("do (select 1 union select 2)").unwrap();
    assert_eq!(warnings(&mut c), [1242]);
    assert_eq!(one(&mut c, "do nosuchfunc()"), Err(1305));
}

#[test]
#[ignore]
fn calls_and_diagnostics_in_bodies_as_on_mariadb() {
    if !mariadb::available() {
        eprintln!("mariadb-server not installed; skipping");
        return;
    }
    let b = Basalt::start();
    let m = MariaDb::start(&[]);
    let mut bc = connect(&b);
    let mut mc = Conn::new(Opts::from_url(&m.url()).unwrap()).unwrap();
    let script: Vec<&str> = BODIES.iter().chain(SCRIPT).copied().collect();
    let diffs = mariadb::differences(&mut bc, &mut mc, &script, |_, o| o);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}
