//! Columns of the wide and 8-bit character sets kept across a kill -9 restart:
//! values, their bytes in each set, index look-ups and order under each
//! collation (included in the
//! `column_types` binary).

use super::{conn, err_of, strings};
use basalt_tests::Basalt;
use mysql::prelude::*;

#[test]
fn wide_and_eight_bit_columns_survive_restart() {
    let mut b = Basalt::start();
    {
        let mut c = conn(&b);
        c.query_drop("create database cs").unwrap();
        c.query_drop(
            "create table cs.t (id int primary key, u varchar(10) character set ucs2, \
             w text character set utf32, k varchar(10) character set koi8r collate koi8r_bin, \
             r char(5) character set cp1251, l varchar(8) character set latin7 collate latin7_general_cs, \
             key(u), unique key(r), key(k))",
        )
        .unwrap();
        c.query_drop(
            "insert into cs.t values (1, 'b', 'x😀', 'Жук', 'Ёж', 'ą'), (2, 'A', 'y', 'жук', 'ёЖИК', 'Ą'), \
             (3, 'é', '', 'ЖУК', 'а', 'z')",
        )
        .unwrap();
    }
    b.restart(true);
    let mut c = conn(&b);
    assert_eq!(
        strings(
            &mut c,
            "select id, hex(u), hex(w), hex(k), hex(r), hex(l) from cs.t order by id"
        ),
        [
            "1|0062|000000780001F600|F6D5CB|A8E6|E0",
            "2|0041|00000079|D6D5CB|B8C6C8CA|C0",
            "3|00E9||F6F5EB|E0|7A",
        ]
    );
    assert_eq!(
        strings(&mut c, "select id from cs.t force index(u) where u = 'a'"),
        ["2"]
    );
    assert_eq!(
        strings(&mut c, "select id from cs.t order by u"),
        ["2", "1", "3"]
    );
    // koi8r_bin: byte order (Ж is 0xF6, ж 0xD6).
    assert_eq!(
        strings(&mut c, "select id from cs.t order by k"),
        ["2", "1", "3"]
    );
    assert_eq!(
        strings(&mut c, "select id from cs.t force index(k) where k = 'жук'"),
        ["2"]
    );
    // cp1251_general_ci folds case: the unique key refuses another case of 'Ёж'.
    assert_eq!(
        err_of(&mut c, "insert into cs.t (id, r) values (4, 'ёЖ')").0,
        1062
    );
    assert_eq!(
        err_of(&mut c, "insert into cs.t (id, r) values (5, 'é')").0,
        1366,
        "cp1251 has no é"
    );
    assert_eq!(
        strings(
            &mut c,
            "select length(u), char_length(u), length(w), length(r) from cs.t where id = 2"
        ),
        ["2|1|4|4"]
    );
    assert_eq!(err_of(&mut c, "set names utf32").0, 1231);
    assert_eq!(
        err_of(&mut c, "create table cs.x (a char(1) character set big5)").0,
        1115
    );
}
