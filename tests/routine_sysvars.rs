//! SET of system variables in stored functions and triggers: a session
//! variable keeps its new value after the statement (and is reported to
//! session tracking), sql_mode and the character sets are restored when the
//! function returns (MariaDB runs a routine in its creation context),
//! autocommit is 1445 and an unknown variable 1193 at CREATE, a read-only
//! session variable 1621 when the function runs. On Basalt, and (ignored:
//! needs mariadb-server) the same script compared with MariaDB 10.11.

use super::{rows, s};
use basalt_tests::mariadb;
use basalt_tests::Basalt;
use mysql::prelude::*;
use mysql::{Conn, Opts};

const SCRIPT: &[&str] = &[
    "create database sv",
    "use sv",
    "create table t (a int)",
    "create function s1() returns int begin set time_zone = '+05:00'; return 1; end",
    "select @@time_zone, s1(), @@time_zone",
    "select @@time_zone",
    "set time_zone = 'SYSTEM'",
    "create function s2() returns int begin set sql_mode = 'STRICT_ALL_TABLES'; return 1; end",
    "select s2(), @@sql_mode",
    "create function s3() returns int begin set autocommit = 0; return 1; end",
    "create function s5() returns int begin set @@session.max_sp_recursion_depth = 3; return @@max_sp_recursion_depth; end",
    "select s5(), @@max_sp_recursion_depth",
    "create function s6() returns int begin set max_sp_recursion_depth = default; return @@max_sp_recursion_depth; end",
    "select s6(), @@max_sp_recursion_depth",
    "create function s9() returns int begin set character_set_client = latin1; return 1; end",
    "select s9(), @@character_set_client",
    "create function s11() returns int begin set tx_isolation = 'SERIALIZABLE'; return 1; end",
    "select s11(), @@tx_isolation",
    "set tx_isolation = 'REPEATABLE-READ'",
    "create function s12() returns int begin set nosuchvar = 1; return 1; end",
    "create function s13() returns int begin set last_insert_id = 5; return last_insert_id(); end",
    "select s13()",
    "create function s14() returns int begin set max_allowed_packet = 1048576; return 1; end",
    "do s14()",
    "create function s15() returns int begin set session sql_safe_updates = nosuch_word; return 1; end",
    "select s15()",
    "create trigger tr before insert on t for each row set @@session.div_precision_increment = new.a",
    "insert into t values (6)",
    "select @@div_precision_increment, 1 / 3",
    "insert into t values (99)",
    "select @@div_precision_increment",
];

#[test]
fn functions_set_session_variables() {
    let b = Basalt::start();
    let mut c = Conn::new(Opts::from_url(&b.url()).unwrap()).unwrap();
    for sql in &SCRIPT[..4] {
        c.query_drop(sql).unwrap();
    }
    assert_eq!(
        rows(&mut c, "select s1(), @@time_zone"),
        Ok(vec![vec![s("1"), s("+05:00")]])
    );
    assert_eq!(
        rows(
            &mut c,
            "select @@time_zone, cast(now() - interval 5 hour = utc_timestamp() as int)"
        ),
        Ok(vec![vec![s("+05:00"), s("1")]])
    );
    c.query_drop(SCRIPT[7]).unwrap();
    assert_eq!(
        rows(&mut c, "select s2(), @@sql_mode = @@global.sql_mode"),
        Ok(vec![vec![s("1"), s("1")]])
    );
    for (create, errno) in [(9, 1445), (19, 1193)] {
        assert_eq!(
            rows(&mut c, SCRIPT[create]),
            Err(errno),
            "{}",
            SCRIPT[create]
        );
    }
    c.query_drop(SCRIPT[22]).unwrap();
    assert_eq!(rows(&mut c, "select s14()"), Err(1621));
    for sql in &SCRIPT[26..28] {
        c.query_drop(sql).unwrap();
    }
    assert_eq!(
        rows(&mut c, "select @@div_precision_increment, 1 / 3"),
        Ok(vec![vec![s("6"), s("0.333333")]])
    );
}

#[test]
#[ignore]
fn session_variables_set_as_on_mariadb() {
    let Some((_b, _m, mut bc, mut mc)) = mariadb::paired() else {
        return;
    };
    let diffs = mariadb::differences(&mut bc, &mut mc, SCRIPT, |_, o| o);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}
