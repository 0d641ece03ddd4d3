//! DROP TABLE and TRUNCATE TABLE on the durable engine, through the server: dropping
//! a table gives its file's space back to the filesystem, TRUNCATE empties a table
//! and restarts its AUTO_INCREMENT, and both hold across a clean restart and a
//! SIGKILL.

use basalt_tests::Basalt;
use mysql::prelude::*;
use mysql::{Conn, Opts};
use std::path::Path;

fn conn(b: &Basalt) -> Conn {
    Conn::new(Opts::from_url(&b.url()).expect("url")).expect("connect")
}

/// Bytes in regular files under `dir` (recursively).
fn dir_bytes(dir: &Path) -> u64 {
    let mut total = 0;
    for e in std::fs::read_dir(dir).expect("read_dir").flatten() {
        let m = e.metadata().expect("metadata");
        if m.is_dir() {
            total += dir_bytes(&e.path());
        } else {
            total += m.len();
        }
    }
    total
}

/// Files under `dir` whose name contains `needle`.
fn files_named(dir: &Path, needle: &str) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).expect("read_dir").flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if e.metadata().map(|m| m.is_dir()).unwrap_or(false) {
            out.extend(files_named(&e.path(), needle));
        } else if name.contains(needle) {
            out.push(name);
        }
    }
    out
}

fn fill(c: &mut Conn, table: &str, rows: usize) {
    let pad = "x".repeat(400);
    for chunk in 0..rows / 500 {
        let values: Vec<String> = (0..500)
            .map(|i| format!("({}, '{pad}')", chunk * 500 + i))
            .collect();
        c.query_drop(format!(
            "insert into {table} (k, pad) values {}",
            values.join(",")
        ))
        .expect("insert");
    }
}

#[test]
fn drop_table_returns_space_and_truncate_empties() {
    let mut b = Basalt::start();
    let mut c = conn(&b);
    c.query_drop("create database d").expect("db");
    c.query_drop("use d").expect("use");
    for t in ["big", "keep"] {
        c.query_drop(format!(
            "create table {t} (id int primary key auto_increment, k int not null, \
             pad varchar(500), key (k)) engine=InnoDB"
        ))
        .expect("create");
    }
    fill(&mut c, "big", 12_000);
    fill(&mut c, "keep", 1_000);
    // A clean restart checkpoints the tables into their files.
    drop(c);
    b.restart(false);
    let mut c = conn(&b);
    c.query_drop("use d").expect("use");
    let before = dir_bytes(&b.datadir);
    let files = files_named(&b.datadir, ".bdt");
    assert_eq!(
        files.len(),
        2,
        "each table has a file of its own: {files:?}"
    );

    c.query_drop("drop table big").expect("drop");
    let left = files_named(&b.datadir, ".bdt");
    assert_eq!(left.len(), 1, "the dropped table's file is gone: {left:?}");
    let after = dir_bytes(&b.datadir);
    assert!(
        after + 3_000_000 < before,
        "at least the table's ~5 MB came back: {before} -> {after} bytes"
    );

    // TRUNCATE: empty, AUTO_INCREMENT restarts, the table still works.
    c.query_drop("truncate table keep").expect("truncate");
    let n: u64 = c
        .query_first("select count(*) from keep")
        .expect("count")
        .expect("row");
    assert_eq!(n, 0);
    c.query_drop("insert into keep (k, pad) values (7, 'a')")
        .expect("insert");
    let id: u64 = c
        .query_first("select id from keep where k = 7")
        .expect("q")
        .expect("row");
    assert_eq!(id, 1, "AUTO_INCREMENT restarts after TRUNCATE");

    // Both survive a SIGKILL and the recovery that follows.
    drop(c);
    b.restart(true);
    let mut c = conn(&b);
    c.query_drop("use d").expect("use");
    let tables: Vec<String> = c.query("show tables").expect("show");
    assert_eq!(tables, vec!["keep".to_string()]);
    let rows: Vec<(u64, i64)> = c.query("select id, k from keep").expect("rows");
    assert_eq!(rows, vec![(1, 7)]);
    let n: u64 = c
        .query_first("select count(*) from keep force index (k) where k >= 0")
        .expect("count")
        .expect("row");
    assert_eq!(n, 1, "the secondary index agrees with the table");
    // The name is free again.
    c.query_drop("create table big (id int primary key)")
        .expect("recreate");
    c.query_drop("insert into big values (1)").expect("insert");
    b.stop();
}
