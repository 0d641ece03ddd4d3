//! Differential test of the built-in function library: every statement of
//! `tests/data/functions.sql` runs on basaltd and on a real MariaDB, and the two
//! must agree on the values (as text), the column names, the column types as the
//! client sees them (protocol type, length, decimals, character set, UNSIGNED),
//! the warnings (level, code, message) and the errors (code, SQLSTATE, message).
//!
//! A line starting with `~ ` is compared without column lengths and error
//! messages: those are lengths MariaDB derives from the values of constant
//! arguments (which Basalt does not) and messages of errors whose wording comes
//! from a different library (regular expressions). Ignored by default because it
//! needs `mariadb-server`; `scripts/test.sh` runs it with `--ignored`.

use basalt_tests::mariadb::{self, MariaDb};
use basalt_tests::Basalt;
use mysql::consts::ColumnFlags;
use mysql::prelude::*;
use mysql::{Conn, Opts, Value};

const SCRIPT: &str = include_str!("data/functions.sql");

#[derive(Debug, PartialEq)]
struct Column {
    name: String,
    kind: u8,
    /// None when the statement does not compare lengths.
    len: Option<u32>,
    decimals: u8,
    charset: u16,
    unsigned: bool,
}

#[derive(Debug, PartialEq)]
enum Outcome {
    Rows {
        columns: Vec<Column>,
        rows: Vec<Vec<Option<String>>>,
        warnings: Vec<(String, u16, String)>,
    },
    Done {
        warnings: Vec<(String, u16, String)>,
    },
    Error {
        code: u16,
        state: String,
        message: Option<String>,
    },
}

fn text(v: &Value) -> Option<String> {
    match v {
        Value::NULL => None,
        Value::Bytes(b) => Some(String::from_utf8_lossy(b).into_owned()),
        other => Some(format!("{other:?}")),
    }
}

fn warnings(c: &mut Conn, count: u16) -> Vec<(String, u16, String)> {
    if count == 0 {
        return Vec::new();
    }
    let rows: Vec<(String, u16, String)> = c.query("show warnings").expect("show warnings");
    rows
}

fn run(c: &mut Conn, sql: &str, strict: bool) -> Outcome {
    let error = |e: mysql::Error| match e {
        mysql::Error::MySqlError(e) => Outcome::Error {
            code: e.code,
            state: e.state,
            message: strict.then_some(e.message),
        },
        e => panic!("{sql}: {e}"),
    };
    let mut result = match c.query_iter(sql) {
        Ok(r) => r,
        Err(e) => return error(e),
    };
    let columns: Vec<Column> = result
        .columns()
        .as_ref()
        .iter()
        .map(|c| Column {
            name: c.name_str().into_owned(),
            kind: c.column_type() as u8,
            len: strict.then_some(c.column_length()),
            decimals: c.decimals(),
            charset: c.character_set(),
            unsigned: c.flags().contains(ColumnFlags::UNSIGNED_FLAG),
        })
        .collect();
    let mut rows = Vec::new();
    for row in result.by_ref() {
        match row {
            Ok(r) => rows.push(r.unwrap().iter().map(text).collect()),
            Err(e) => return error(e),
        }
    }
    drop(result);
    let count = c.warnings();
    let warnings = warnings(c, count);
    if columns.is_empty() {
        Outcome::Done { warnings }
    } else {
        Outcome::Rows {
            columns,
            rows,
            warnings,
        }
    }
}

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
    let mut compared = 0;
    let mut differences = Vec::new();
    for line in SCRIPT.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (strict, sql) = match line.strip_prefix("~ ") {
            Some(rest) => (false, rest),
            None => (true, line),
        };
        let got = run(&mut basalt, sql, strict);
        let want = run(&mut maria, sql, strict);
        compared += 1;
        if got != want {
            differences.push(format!(
                "\nstatement: {sql}\nbasalt:  {got:?}\nmariadb: {want:?}"
            ));
        }
    }
    assert!(compared > 100, "the script ran ({compared} statements)");
    assert!(
        differences.is_empty(),
        "{} of {compared} statements differ:{}",
        differences.len(),
        differences.concat()
    );
}
