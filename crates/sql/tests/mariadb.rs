//! Differential tests against recorded MariaDB 10.11 output.
//!
//! Each `tests/mariadb/NAME.sql` (one statement per line) runs in a fresh engine,
//! after the same prologue the recording used, and its output, formatted as
//! `mariadb --batch --force` prints it (a header line and tab-separated rows per
//! non-empty result, `ERROR <code> (<state>) at line <n>: <message>` per error),
//! must equal `NAME.expected`. `generate.sh` records new expectations from a real
//! server.

mod common;
use basalt_sql::QueryResult;
use common::Db;
use std::path::Path;

const PROLOGUE: &[&str] = &[
    "drop database if exists cmpdb;",
    "create database cmpdb;",
    "use cmpdb;",
];

fn cell(v: &basalt_common::Value, decimals: u8) -> String {
    match v.to_text(if decimals <= 6 { decimals } else { 0 }) {
        None => "NULL".into(),
        Some(b) => String::from_utf8_lossy(&b)
            .replace('\\', "\\\\")
            .replace('\n', "\\n")
            .replace('\t', "\\t")
            .replace('\0', "\\0"),
    }
}

fn run_script(sql: &str) -> String {
    let db = Db::new();
    let mut s = db.engine.new_session(1, "root", "localhost");
    let mut out = String::new();
    let lines: Vec<&str> = PROLOGUE.iter().copied().chain(sql.lines()).collect();
    for (n, line) in lines.iter().enumerate() {
        let stmt = line.trim();
        if stmt.is_empty() || stmt.starts_with("--") {
            continue;
        }
        for r in s.execute(stmt) {
            match r {
                Ok(QueryResult::Rows { columns, rows }) if !rows.is_empty() => {
                    let header: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
                    out.push_str(&header.join("\t"));
                    out.push('\n');
                    for r in rows {
                        let cells: Vec<String> = r
                            .iter()
                            .zip(columns.iter())
                            .map(|(v, c)| cell(v, c.decimals))
                            .collect();
                        out.push_str(&cells.join("\t"));
                        out.push('\n');
                    }
                }
                Ok(_) => {}
                Err(e) => out.push_str(&format!(
                    "ERROR {} ({}) at line {}: {}\n",
                    e.code,
                    e.state,
                    n + 1,
                    e.message
                )),
            }
        }
    }
    out
}

fn check(name: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mariadb");
    let sql = std::fs::read_to_string(dir.join(format!("{name}.sql"))).expect("script");
    let expected =
        std::fs::read_to_string(dir.join(format!("{name}.expected"))).expect("expected output");
    let got = run_script(&sql);
    if got != expected {
        let diff = got
            .lines()
            .zip(expected.lines())
            .enumerate()
            .find(|(_, (g, e))| g != e)
            .map(|(i, (g, e))| {
                format!(
                    "first difference at output line {}:\n  basalt:  {g}\n  mariadb: {e}",
                    i + 1
                )
            })
            .unwrap_or_else(|| {
                format!(
                    "outputs differ in length: basalt {} lines, mariadb {}",
                    got.lines().count(),
                    expected.lines().count()
                )
            });
        panic!("{name}: {diff}\n--- basalt output ---\n{got}");
    }
}

macro_rules! scripts {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                check(stringify!($name));
            }
        )*
    };
}

scripts!(
    app_queries,
    basics,
    correlated,
    create_select,
    ddl_dml,
    ddl_errors,
    derived,
    dml_errors,
    functions,
    group_concat,
    information_schema,
    joins_functions,
    like_ranges,
    seed_benchmark,
    show,
    sql_mode,
    subqueries,
    union,
    variables,
);
