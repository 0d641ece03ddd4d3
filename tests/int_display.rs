//! Integer display widths and ZEROFILL over TCP: the width a client reads in the
//! column metadata (`tinyint(1)` is what drivers and ORMs take for a boolean),
//! zero padding in the text protocol and none in the binary one, DEFAULT and
//! information_schema text, 1439 past 255, and definitions surviving a restart.
//! The same statements are compared against MariaDB in differential_types.rs.

use basalt_tests::Basalt;
use mysql::consts::ColumnFlags;
use mysql::prelude::*;
use mysql::{Conn, Opts};

fn conn(b: &Basalt) -> Conn {
    let mut c = Conn::new(Opts::from_url(&b.url()).expect("url")).expect("connect");
    c.query_drop("create database if not exists d").expect("db");
    c.query_drop("use d").expect("use");
    c
}

fn show_create(c: &mut Conn, t: &str) -> String {
    let row: (String, String) = c
        .query_first(format!("show create table {t}"))
        .expect("show")
        .expect("row");
    row.1
}

const DDL: &str = "create table z (id int primary key, flag boolean, b tinyint(1), \
                   n int(5) zerofill not null default 42, m bigint unsigned)";

#[test]
fn widths_and_zerofill_reach_the_client() {
    let b = Basalt::start();
    let mut c = conn(&b);
    c.query_drop(DDL).expect("create");
    c.query_drop("insert into z values (1, true, 0, 7, 9), (2, false, 1, 123456, 0)")
        .expect("insert");
    let text = show_create(&mut c, "z");
    assert!(text.contains("`flag` tinyint(1) DEFAULT NULL"), "{text}");
    assert!(text.contains("`b` tinyint(1) DEFAULT NULL"), "{text}");
    assert!(
        text.contains("`n` int(5) unsigned zerofill NOT NULL DEFAULT 00042"),
        "{text}"
    );
    assert!(
        text.contains("`m` bigint(20) unsigned DEFAULT NULL"),
        "{text}"
    );

    let result = c
        .query_iter("select flag, b, n, n + 0 from z order by id")
        .expect("q");
    let cols = result.columns();
    let cols = cols.as_ref();
    let lens: Vec<u32> = cols.iter().map(|c| c.column_length()).collect();
    assert_eq!(lens, [1, 1, 5, 11]);
    assert!(cols[2]
        .flags()
        .contains(ColumnFlags::ZEROFILL_FLAG | ColumnFlags::UNSIGNED_FLAG));
    assert!(!cols[3].flags().contains(ColumnFlags::ZEROFILL_FLAG));
    drop(result);
    let rows: Vec<(String, String, String, String)> = c
        .query("select flag, b, n, n + 0 from z order by id")
        .expect("rows");
    assert_eq!(
        rows,
        [
            ("1".into(), "0".into(), "00007".into(), "7".into()),
            ("0".into(), "1".into(), "123456".into(), "123456".into())
        ]
    );
    // The binary protocol sends the number; padding is the client's business.
    let n: u64 = c
        .exec_first("select n from z where id = ?", (1,))
        .expect("exec")
        .expect("row");
    assert_eq!(n, 7);
    let d: (String, String) = c
        .query_first(
            "select column_type, column_default from information_schema.columns \
             where table_schema = 'd' and table_name = 'z' and column_name = 'n'",
        )
        .expect("is")
        .expect("row");
    assert_eq!(d, ("int(5) unsigned zerofill".into(), "00042".into()));
    match c.query_drop("create table w (a int(256))") {
        Err(mysql::Error::MySqlError(e)) => {
            assert_eq!(
                (e.code, e.message.as_str()),
                (1439, "Display width out of range for 'a' (max = 255)")
            )
        }
        other => panic!("expected 1439, got {other:?}"),
    }
}

#[test]
fn widths_survive_restart_alter_and_create_select() {
    let mut b = Basalt::start();
    let mut c = conn(&b);
    c.query_drop(DDL).expect("create");
    c.query_drop("insert into z (id, n) values (1, 3)")
        .expect("insert");
    c.query_drop("alter table z modify b tinyint(3) unsigned zerofill")
        .expect("alter");
    c.query_drop("create table z2 as select n, b from z")
        .expect("ctas");
    let before = (show_create(&mut c, "z"), show_create(&mut c, "z2"));
    assert!(before
        .0
        .contains("`b` tinyint(3) unsigned zerofill DEFAULT NULL"));
    assert!(before.1.contains("`n` int(5) unsigned zerofill NOT NULL"));
    drop(c);
    b.restart(true);
    let mut c = conn(&b);
    assert_eq!(
        (show_create(&mut c, "z"), show_create(&mut c, "z2")),
        before
    );
    let n: String = c.query_first("select n from z2").expect("q").expect("row");
    assert_eq!(n, "00003");
}
