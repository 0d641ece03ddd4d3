//! A batch-mode SQL shell over an in-process engine, printing results the way
//! `mariadb --batch --force` does (tab-separated rows with a header line, errors as
//! `ERROR <code> (<state>) at line <n>: <message>`), so its output can be diffed
//! against MariaDB's for the same script.
//!
//! Usage: `sqlsh [datadir] < script.sql` (one statement per line; without a
//! datadir a temporary one is used). `--types` also prints each result's column
//! types.

use basalt_sql::{Engine, GlobalConfig, QueryResult};
use basalt_storage::{Storage, StorageConfig};
use std::io::{BufRead, Write};

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

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let types = args.iter().any(|a| a == "--types");
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| tmp.path().to_path_buf());
    let storage = Storage::open(StorageConfig::new(dir)).expect("open storage");
    let engine = Engine::new(storage, GlobalConfig::default());
    let mut s = engine.new_session(1, "root", "localhost");
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for (n, line) in std::io::stdin().lock().lines().enumerate() {
        let line = line.expect("read");
        let sql = line.trim();
        if sql.is_empty() || sql.starts_with("--") {
            continue;
        }
        for r in s.execute(sql) {
            match r {
                Ok(QueryResult::Rows { columns, rows }) => {
                    if types {
                        for c in columns.iter() {
                            let _ = writeln!(
                                out,
                                "# {} {:?} len={} dec={} flags={} charset={}",
                                c.name, c.column_type, c.length, c.decimals, c.flags, c.charset
                            );
                        }
                    }
                    let header: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
                    if !rows.is_empty() {
                        let _ = writeln!(out, "{}", header.join("\t"));
                    }
                    for r in rows {
                        let cells: Vec<String> = r
                            .iter()
                            .zip(columns.iter())
                            .map(|(v, c)| cell(v, c.decimals))
                            .collect();
                        let _ = writeln!(out, "{}", cells.join("\t"));
                    }
                }
                Ok(QueryResult::Ok { .. }) => {}
                Err(e) => {
                    let _ = out.flush();
                    eprintln!(
                        "ERROR {} ({}) at line {}: {}",
                        e.code,
                        e.state,
                        n + 1,
                        e.message
                    );
                }
            }
        }
    }
}
