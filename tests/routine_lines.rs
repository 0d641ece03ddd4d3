//! Where an error in a stored program is reported: a syntax error in a
//! CREATE PROCEDURE / FUNCTION / TRIGGER / EVENT or a compound statement fails
//! it naming the line of the whole statement, and an error that leaves a
//! routine gets Note 4094 `At line N in db.name` per routine it leaves (the
//! line counted in the routine's SHOW CREATE text). On Basalt, and (ignored:
//! needs mariadb-server) the same script compared with MariaDB 10.11.

use basalt_tests::mariadb;
use basalt_tests::Basalt;
use mysql::prelude::*;
use mysql::{Conn, Opts};

const SCRIPT: &[&str] = &[
    "create database rl",
    "use rl",
    "create table t (a int primary key)",
    // Syntax errors: the line of the whole statement, the text from there on.
    "create procedure pe()\nbegin\n  declare x int;\n  set x = 1;\n  selec x;\nend",
    "create procedure pe2()\nbegin\n  declare x int;\n  select x frm t where;\nend",
    "create procedure pf()\nbegin\n  declare x int;\n  if x then\n    select 1;\n  end;\nend",
    "create procedure pg() begin select 1; selec 2; end",
    "create function fx() returns int\nbegin\n  return (select a fro t);\nend",
    "create function fy() returns int\nbegin\n  declare x int default (1 +);\n  return x;\nend",
    "create trigger tr0 before insert on t for each row\nbegin\n  set new.a = 1;\n  sellect 2;\nend",
    "create event ev0 on schedule every 1 day do\nbegin\n  insert into t values (1);\n  insert t valuez (2);\nend",
    "begin not atomic\n  select 1;\n  selec 2;\nend",
    "create procedure pw()\nbegin\n  while (1 +) do select 1; end while;\nend",
    // Errors leaving routines.
    "create procedure inner_p(x int)\n  comment 'c'\n  deterministic\nbegin\n  select 1 into @q;\n  insert into t values (x);\nend",
    "create procedure outer_p()\nbegin\n  call inner_p(1);\n  call inner_p(1);\nend",
    "call outer_p()",
    "create function f() returns int\nbegin\n  insert into t values (5);\n  return 1;\nend",
    "select f()",
    "select f()",
    "create procedure onel() insert into nosuch values (1)",
    "call onel()",
    "create trigger tr after insert on t for each row\nbegin\n  if new.a = 7 then\n    signal sqlstate '45000' set message_text = 'seven';\n  end if;\nend",
    "insert into t values (7)",
    "create procedure resig()\nbegin\n  declare exit handler for sqlexception resignal;\n  insert into nosuch values (1);\nend",
    "call resig()",
    "create procedure pcallf()\nbegin\n  declare x int;\n  set x = f();\nend",
    "call pcallf()",
    "create procedure pin() begin\n  insert into t values (9);\nend",
    "create function fcallp() returns int\nbegin\n  call pin();\n  return 2;\nend",
    "select fcallp()",
    "select fcallp()",
    "create procedure pexpr()\nbegin\n  declare x int;\n  set x = (select a from nosuch);\nend",
    "call pexpr()",
    "create procedure pcond()\nbegin\n  if (select a from nosuch2) then select 1; end if;\nend",
    "call pcond()",
    "create function w() returns int begin declare x int; set x = 'abc'; return x; end",
    "select w()",
    "create function r3() returns tinyint unsigned\nreturn 300",
    "select r3()",
    "do f()",
    "begin not atomic\n  declare x int;\n  set x = 'a';\nend",
    "set sql_notes = 0",
    "call pexpr()",
    "set sql_notes = 1",
];

/// The error code and message of `sql`, or None when it succeeds.
fn error(c: &mut Conn, sql: &str) -> Option<(u16, String)> {
    match c.query::<mysql::Row, _>(sql) {
        Ok(_) => None,
        Err(mysql::Error::MySqlError(e)) => Some((e.code, e.message)),
        Err(e) => panic!("{sql}: {e}"),
    }
}

fn notes(c: &mut Conn) -> Vec<String> {
    let w: Vec<(String, u16, String)> = c.query("show warnings").unwrap();
    w.into_iter().filter(|w| w.1 == 4094).map(|w| w.2).collect()
}

#[test]
fn errors_name_their_lines() {
    let b = Basalt::start();
    let mut c = Conn::new(Opts::from_url(&b.url()).unwrap()).unwrap();
    for sql in &SCRIPT[..3] {
        c.query_drop(sql).unwrap();
    }
    let (code, msg) = error(&mut c, SCRIPT[3]).expect("selec is a syntax error");
    assert_eq!(code, 1064);
    assert!(msg.ends_with("near 'x;\nend' at line 5"), "{msg}");
    let (_, msg) = error(&mut c, SCRIPT[7]).expect("fro t is a syntax error");
    assert!(msg.ends_with("near 't);\nend' at line 3"), "{msg}");
    for sql in &SCRIPT[13..15] {
        c.query_drop(sql).unwrap();
    }
    assert_eq!(error(&mut c, "call outer_p()").map(|e| e.0), Some(1062));
    assert_eq!(
        notes(&mut c),
        ["At line 6 in rl.inner_p", "At line 4 in rl.outer_p"]
    );
    c.query_drop("set sql_notes = 0").unwrap();
    assert_eq!(error(&mut c, "call outer_p()").map(|e| e.0), Some(1062));
    assert!(notes(&mut c).is_empty());
}

#[test]
#[ignore]
fn error_lines_as_on_mariadb() {
    let Some((_b, _m, mut bc, mut mc)) = mariadb::paired() else {
        return;
    };
    let diffs = mariadb::differences_by(&mut bc, &mut mc, SCRIPT, error);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}
