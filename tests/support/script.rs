//! Statement scripts run on basaltd and on a real MariaDB, compared on what a
//! client sees: the values (as text), the column names, the column types
//! (protocol type, length, decimals, character set, UNSIGNED), the warnings
//! (level, code, message) and the errors (code, SQLSTATE, message).
//!
//! A script has one statement a line; `#` starts a comment line. A line starting
//! with `~ ` is compared without column lengths and error messages (lengths
//! MariaDB derives from constant values, messages worded by another library); a
//! line starting with `? ` compares them only against the reference MariaDB
//! release ([`super::mariadb::REFERENCE_VERSION`]). Against another release, such
//! lines also leave out the columns' decimals and UNSIGNED flags and the warnings'
//! messages (other 10.11 patch releases type some constant folds differently and
//! name JSON_TABLE's columns otherwise in warnings).

use mysql::consts::ColumnFlags;
use mysql::prelude::*;
use mysql::{Conn, Value};

#[derive(Debug, PartialEq)]
pub struct Column {
    pub name: String,
    pub kind: u8,
    /// None when the statement does not compare lengths.
    pub len: Option<u32>,
    pub decimals: u8,
    pub charset: u16,
    pub unsigned: bool,
}

#[derive(Debug, PartialEq)]
pub enum Outcome {
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

fn warnings(c: &mut Conn, count: u16, loose: bool) -> Vec<(String, u16, String)> {
    if count == 0 {
        return Vec::new();
    }
    let mut w: Vec<(String, u16, String)> = c.query("show warnings").expect("show warnings");
    if loose {
        w.iter_mut().for_each(|(_, _, m)| m.clear());
    }
    w
}

/// Runs one statement; `strict` compares column lengths and error messages.
pub fn run(c: &mut Conn, sql: &str, strict: bool) -> Outcome {
    let loose = !strict && !super::mariadb::is_reference();
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
            decimals: if loose { 0 } else { c.decimals() },
            charset: c.character_set(),
            unsigned: !loose && c.flags().contains(ColumnFlags::UNSIGNED_FLAG),
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
    let warnings = warnings(c, count, loose);
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

/// Runs every statement of `script` on both connections; returns how many ran
/// and the differences, one text each.
pub fn compare(script: &str, basalt: &mut Conn, maria: &mut Conn) -> (usize, Vec<String>) {
    let mut compared = 0;
    let mut differences = Vec::new();
    for line in script.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (strict, sql) = if let Some(rest) = line.strip_prefix("~ ") {
            (false, rest)
        } else if let Some(rest) = line.strip_prefix("? ") {
            (super::mariadb::is_reference(), rest)
        } else {
            (true, line)
        };
        let got = run(basalt, sql, strict);
        let want = run(maria, sql, strict);
        compared += 1;
        if got != want {
            differences.push(format!(
                "\nstatement: {sql}\nbasalt:  {got:?}\nmariadb: {want:?}"
            ));
        }
    }
    (compared, differences)
}
