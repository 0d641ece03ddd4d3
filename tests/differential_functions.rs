//! Differential test of the built-in function library: every statement of
//! `tests/data/functions.sql` runs on basaltd and on a real MariaDB, and the two
//! must agree on the values (as text), the column names, the column types as the
//! client sees them (protocol type, length, decimals, character set, UNSIGNED),
//! the warnings (level, code, message) and the errors (code, SQLSTATE, message).
//!
//! A line starting with `~ ` is compared without column lengths and error
//! messages: those are lengths MariaDB derives from the values of constant
//! arguments (which Basalt does not) and messages of errors whose wording comes
//! from a different library (regular expressions). A line starting with `? ` compares
//! them only against the reference MariaDB release (`mariadb::REFERENCE_VERSION`):
//! other 10.11 patch releases give those columns other lengths. Ignored by default because it
//! needs `mariadb-server`; `scripts/test.sh` runs it with `--ignored`.

use basalt_tests::mariadb::{self, MariaDb};
use basalt_tests::script::{compare, run, Outcome};
use basalt_tests::Basalt;
use mysql::prelude::*;
use mysql::{Conn, Opts};

const SCRIPT: &str = include_str!("data/functions.sql");

#[test]
#[ignore = "needs mariadb-server; run by scripts/test.sh"]
fn function_library_matches_mariadb() {
    if !mariadb::available() {
        eprintln!("mariadb-server not installed; skipping");
        return;
    }
    let b = Basalt::start();
    let m = MariaDb::start(&[]);
    let mut basalt = Conn::new(Opts::from_url(&b.url()).expect("url")).expect("basalt");
    let mut maria = Conn::new(Opts::from_url(&m.url()).expect("url")).expect("mariadb");
    for c in [&mut basalt, &mut maria] {
        c.query_drop("create database fx").expect("create database");
        c.query_drop("use fx").expect("use");
    }
    // The warning count must reach the comparison (a zero on both sides would
    // hide every difference in warnings).
    match run(&mut maria, "select 1/0", true) {
        Outcome::Rows { warnings, .. } => assert_eq!(warnings.len(), 1, "warnings are read"),
        other => panic!("select 1/0: {other:?}"),
    }
    let (compared, differences) = compare(SCRIPT, &mut basalt, &mut maria);
    assert!(compared > 100, "the script ran ({compared} statements)");
    assert!(
        differences.is_empty(),
        "{} of {compared} statements differ:{}",
        differences.len(),
        differences.concat()
    );
}
