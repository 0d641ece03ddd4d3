//! Differential test of JSON_TABLE: every statement of `tests/data/json_table.sql`
//! runs on basaltd and on a real MariaDB, and the two must agree on the values,
//! column names and types, warnings and errors (see `basalt_tests::script`):
//! typed columns and their conversion warnings, NESTED PATH, FOR ORDINALITY,
//! EXISTS PATH, ON EMPTY / ON ERROR, documents read from tables to the left
//! (lateral joins, LEFT JOIN, correlated subqueries, views) and bad input.
//! Ignored by default because it needs `mariadb-server`; `scripts/test.sh` runs
//! it with `--ignored`.

use basalt_tests::mariadb::{self, MariaDb};
use basalt_tests::script::compare;
use basalt_tests::Basalt;
use mysql::prelude::*;
use mysql::{Conn, Opts};

const SCRIPT: &str = include_str!("data/json_table.sql");

#[test]
#[ignore = "needs mariadb-server; run by scripts/test.sh"]
fn json_table_matches_mariadb() {
    if !mariadb::available() {
        eprintln!("mariadb-server not installed; skipping");
        return;
    }
    let b = Basalt::start();
    let m = MariaDb::start(&[]);
    let mut basalt = Conn::new(Opts::from_url(&b.url()).expect("url")).expect("basalt");
    let mut maria = Conn::new(Opts::from_url(&m.url()).expect("url")).expect("mariadb");
    for c in [&mut basalt, &mut maria] {
        c.query_drop("create database jt").expect("create database");
        c.query_drop("use jt").expect("use");
    }
    let (compared, differences) = compare(SCRIPT, &mut basalt, &mut maria);
    assert!(compared >= 60, "the script ran ({compared} statements)");
    assert!(
        differences.is_empty(),
        "{} of {compared} statements differ:{}",
        differences.len(),
        differences.concat()
    );
}
