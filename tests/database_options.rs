//! Database comments kept across a restart, KILL of an expression acting on the
//! connection it names, and the clock functions' precision limit (included in
//! the `column_types` binary).

use super::{conn, err_of, strings};
use basalt_tests::Basalt;
use mysql::prelude::*;

#[test]
fn database_comment_survives_restart() {
    let mut b = Basalt::start();
    {
        let mut c = conn(&b);
        c.query_drop("create database dcom comment 'orders, v2' character set latin1")
            .unwrap();
        c.query_drop("create or replace database dcom2 comment = 'x'")
            .unwrap();
        c.query_drop("alter database dcom2 comment 'it''s'")
            .unwrap();
        c.query_drop("create table dcom2.t (a int)").unwrap();
        // OR REPLACE drops the old database with its tables.
        c.query_drop("create or replace database dcom2 comment 'fresh'")
            .unwrap();
    }
    b.restart(true);
    let mut c = conn(&b);
    assert_eq!(
        strings(&mut c, "show create database dcom"),
        ["dcom|CREATE DATABASE `dcom` /*!40100 DEFAULT CHARACTER SET latin1 COLLATE latin1_swedish_ci */ COMMENT 'orders, v2'"]
    );
    assert_eq!(
        strings(
            &mut c,
            "select schema_name, schema_comment from information_schema.schemata where schema_name like 'dcom%' order by 1"
        ),
        ["dcom|orders, v2", "dcom2|fresh"]
    );
    assert_eq!(
        strings(&mut c, "show tables from dcom2"),
        Vec::<String>::new()
    );
    let long = format!("create database dlong comment '{}'", "x".repeat(1025));
    assert_eq!(err_of(&mut c, &long).0, 4160);
}

#[test]
fn kill_takes_an_expression() {
    let b = Basalt::start();
    let mut c = conn(&b);
    let mut victim = conn(&b);
    let id: u64 = victim
        .query_first("select connection_id()")
        .unwrap()
        .unwrap();
    c.query_drop(format!("set @victim = {id} - 1")).unwrap();
    c.query_drop("kill connection @victim + 1").unwrap();
    assert!(victim.query_drop("select 1").is_err());
    assert_eq!(err_of(&mut c, "kill 'abc'").0, 1094);
    assert_eq!(err_of(&mut c, "kill (select 1)").0, 1970);
    assert_eq!(err_of(&mut c, "select now(7)").0, 1426);
    assert_eq!(err_of(&mut c, "select utc_time(9)").0, 1426);
}
