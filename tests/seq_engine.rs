//! MariaDB's SEQUENCE engine tables (`seq_1_to_10`, `seq_10_to_1_step_3`) over
//! TCP: reads, key ranges and lookups, joins, INSERT ... SELECT from them,
//! views, SHOW CREATE TABLE / DESCRIBE, SHOW ENGINES / PLUGINS, and the
//! errors of writes and bad names; compared with MariaDB (`--ignored`).
//! Included in the `sequences` test binary.

use basalt_tests::mariadb;
use basalt_tests::Basalt;
use mysql::prelude::*;
use mysql::{Conn, Opts};

const SCRIPT: &[&str] = &[
    "create database sq",
    "use sq",
    "select * from seq_1_to_5",
    "select * from seq_5_to_1_step_2",
    "select * from seq_6_to_1_step_2 order by seq",
    "select * from seq_1_to_10_step_3 where seq > 4",
    "select * from seq_1_to_100 where seq = 42",
    "select * from seq_1_to_100 where seq = 142",
    "select * from seq_0_to_20_step_5 where seq in (5, 6, 15)",
    "select seq from seq_0_to_3 s1 join seq_2_to_4 s2 using (seq)",
    "select count(*), sum(seq), min(seq), max(seq) from seq_1_to_100000",
    "select * from seq_1_to_10_step_20",
    "select * from seq_01_to_03",
    "select * from seq_18446744073709551614_to_18446744073709551615",
    "select * from seq_1_to_3 order by seq desc limit 2",
    "select * from test.seq_1_to_2",
    "create table t (a int primary key, b int)",
    "insert into t select seq, seq * seq from seq_1_to_5",
    "select * from t",
    "create view v as select seq * 2 as x from seq_1_to_3",
    "select * from v",
    "show create table seq_1_to_3",
    "show create table seq_3_to_1",
    "describe seq_1_to_3",
    "select * from information_schema.engines where engine = 'SEQUENCE'",
    "select plugin_name, plugin_status, plugin_type, plugin_description from information_schema.plugins where plugin_name in ('SEQUENCE', 'partition')",
    "insert into seq_1_to_3 values (7)",
    "update seq_1_to_3 set seq = 5",
    "delete from seq_1_to_3",
    "replace into seq_1_to_3 values (1)",
    "select * from seq_1_to_3_step_0",
    "select * from seq_a_to_3",
    "select * from seq_1_to_3x",
    "select * from Seq_1_To_3",
];

fn conn(url: &str) -> Conn {
    Conn::new(Opts::from_url(url).expect("url")).expect("connect")
}

#[test]
fn sequence_tables_read_without_storing() {
    let b = Basalt::start();
    let mut c = conn(&b.url());
    c.query_drop("create database sq").expect("db");
    c.query_drop("use sq").expect("use");
    let all: Vec<u64> = c.query("select seq from seq_1_to_5").expect("q");
    assert_eq!(all, [1, 2, 3, 4, 5]);
    let down: Vec<u64> = c.query("select seq from seq_9_to_1_step_4").expect("q");
    assert_eq!(down, [9, 5, 1]);
    let ranged: Vec<u64> = c
        .query("select seq from seq_9_to_1 where seq between 3 and 5 order by seq")
        .expect("q");
    assert_eq!(ranged, [3, 4, 5]);
    // (MariaDB 10.11 answers only 4 here: its engine's backward range read.)
    let backwards: Vec<u64> = c
        .query("select seq from seq_1_to_10_step_3 where seq between 2 and 8 order by seq desc")
        .expect("q");
    assert_eq!(backwards, [7, 4]);
    // A billion rows cost nothing until read; a key range reads only its part.
    let n: u64 = c
        .query_first("select count(*) from seq_1_to_1000000000 where seq > 999999990")
        .expect("q")
        .expect("row");
    assert_eq!(n, 10);
    let e = c
        .query_drop("insert into seq_1_to_3 values (4)")
        .unwrap_err();
    let mysql::Error::MySqlError(e) = e else {
        panic!("{e}")
    };
    assert_eq!(e.code, 1031);
    assert_eq!(
        e.message,
        "Storage engine SEQUENCE of the table `sq`.`seq_1_to_3` doesn't have this option"
    );
    // A real table of the same name comes first.
    c.query_drop("create table seq_1_to_2 (a int)")
        .expect("create");
    c.query_drop("insert into seq_1_to_2 values (7)")
        .expect("insert");
    let real: Vec<i64> = c.query("select * from seq_1_to_2").expect("q");
    assert_eq!(real, [7]);
}

#[test]
#[ignore]
fn sequence_tables_as_on_mariadb() {
    let Some((_b, _m, mut bc, mut mc)) = mariadb::paired() else {
        return;
    };
    let diffs = mariadb::differences(&mut bc, &mut mc, SCRIPT, |_, o| o);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}
