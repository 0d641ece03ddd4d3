//! The slow query log: switched on and off at runtime, `long_query_time`,
//! `log_queries_not_using_indexes`, `min_examined_row_limit`, a session's own
//! `slow_query_log`, `log_slow_verbosity=query_plan`, FLUSH LOGS, `Slow_queries`,
//! a file that cannot be opened (1231), and pt-query-digest reading the file.

use basalt_tests::Basalt;
use mysql::prelude::*;
use mysql::Conn;
use std::path::Path;
use std::process::Command;

fn slow_queries(c: &mut Conn) -> u64 {
    let row: Option<(String, u64)> = c
        .query_first("show session status like 'Slow_queries'")
        .expect("status");
    row.expect("Slow_queries").1
}

fn entries(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.split("# User@Host: ")
        .skip(1)
        .map(str::to_string)
        .collect()
}

fn turn_on(c: &mut Conn, path: &Path) {
    c.query_drop(format!(
        "set global slow_query_log_file = '{}'",
        path.display()
    ))
    .expect("file");
    c.query_drop("set global slow_query_log = ON").expect("on");
}

#[test]
fn slow_statements_are_logged_in_mariadbs_format() {
    let b = Basalt::start();
    let path = b.datadir.join("slow-test.log");
    let mut admin = b.conn();
    admin
        .query_drop("create database s")
        .and_then(|_| admin.query_drop("create table s.t (a int primary key, b int)"))
        .and_then(|_| admin.query_drop("insert into s.t values (1,1),(2,2),(3,3)"))
        .expect("setup");
    turn_on(&mut admin, &path);
    // long_query_time is read at connect (a session copies the global).
    admin
        .query_drop("set global long_query_time = 0.05")
        .expect("long_query_time");
    let mut c = b.conn();
    c.query_drop("use s").expect("use");
    let before = slow_queries(&mut c);
    c.query_drop("select 1").expect("fast");
    c.query_drop("select sleep(0.1)").expect("slow");
    assert_eq!(slow_queries(&mut c) - before, 1);
    let logged = entries(&path);
    assert_eq!(logged.len(), 1, "{logged:?}");
    let e = &logged[0];
    assert!(e.starts_with("root[root] @  [127.0.0.1]\n"), "{e}");
    assert!(e.contains("  Schema: s  QC_hit: No\n"), "{e}");
    assert!(e.contains("# Query_time: 0.1"), "{e}");
    assert!(e.contains("  Rows_sent: 1  Rows_examined: 0\n# Rows_affected: 0  Bytes_sent: "));
    assert!(e.contains("use `s`;\nSET timestamp="), "{e}");
    assert!(e.ends_with("select sleep(0.1);\n"), "{e}");

    // Queries that read a table whole, with the plan notes.
    c.query_drop("set log_queries_not_using_indexes = ON, log_slow_verbosity = 'query_plan'")
        .expect("set");
    c.query_drop("select * from s.t where a = 1")
        .expect("by key");
    c.query_drop("select * from s.t order by b").expect("scan");
    let logged = entries(&path);
    assert_eq!(logged.len(), 2, "{logged:?}");
    let e = &logged[1];
    assert!(e.contains("Rows_sent: 3  Rows_examined: 3\n"), "{e}");
    assert!(e.contains("# Full_scan: Yes  Full_join: No"), "{e}");
    assert!(
        e.contains("# Filesort: Yes  Filesort_on_disk: No  Merge_passes: 0"),
        "{e}"
    );
    // ... unless they read fewer rows than min_examined_row_limit.
    c.query_drop("set min_examined_row_limit = 10")
        .expect("set");
    c.query_drop("select * from s.t").expect("scan");
    assert_eq!(entries(&path).len(), 2);
    // A session may keep itself out of the log.
    c.query_drop("set min_examined_row_limit = 0, slow_query_log = OFF")
        .expect("set");
    c.query_drop("select * from s.t").expect("scan");
    assert_eq!(entries(&path).len(), 2);
    // Unsupported verbosity parts are refused.
    let e = c
        .query_drop("set log_slow_verbosity = 'explain'")
        .expect_err("explain");
    assert!(
        matches!(e, mysql::Error::MySqlError(ref m) if m.code == 1235),
        "{e}"
    );

    // FLUSH LOGS reopens the file: a rotated log is replaced.
    let rotated = b.datadir.join("slow-test.log.1");
    std::fs::rename(&path, &rotated).expect("rotate");
    admin.query_drop("flush logs").expect("flush");
    let mut c2 = b.conn();
    c2.query_drop("set log_queries_not_using_indexes = ON")
        .expect("set");
    c2.query_drop("select * from s.t").expect("scan");
    assert_eq!(entries(&path).len(), 1);
    assert!(std::fs::read_to_string(&path)
        .expect("new file")
        .contains("started with:\n"));

    // Off: nothing more is written; a file that cannot be opened is 1231.
    admin
        .query_drop("set global slow_query_log = OFF")
        .expect("off");
    c2.query_drop("select * from s.t").expect("scan");
    assert_eq!(entries(&path).len(), 1);
    let e = admin
        .query_drop("set global slow_query_log_file = '/nonexistent/dir/x.log'")
        .and_then(|_| admin.query_drop("set global slow_query_log = ON"))
        .expect_err("bad file");
    assert!(
        matches!(e, mysql::Error::MySqlError(ref m) if m.code == 1231),
        "{e}"
    );
}

#[test]
fn pt_query_digest_reads_the_log() {
    if Command::new("pt-query-digest")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("pt-query-digest not installed; skipped");
        return;
    }
    let b = Basalt::start();
    let path = b.datadir.join("digest.log");
    let mut admin = b.conn();
    admin
        .query_drop("set global long_query_time = 0")
        .expect("all statements");
    turn_on(&mut admin, &path);
    let mut c = b.conn();
    c.query_drop("create database q").expect("db");
    c.query_drop("create table q.t (a int primary key, b int)")
        .expect("table");
    for i in 0..20 {
        c.query_drop(format!("insert into q.t values ({i}, {})", i * 2))
            .expect("insert");
    }
    for i in 0..10 {
        c.query_drop(format!("select b from q.t where a = {i}"))
            .expect("select");
    }
    let out = Command::new("pt-query-digest")
        .args(["--limit", "100%", "--no-version-check"])
        .arg(&path)
        .output()
        .expect("pt-query-digest");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Its fingerprints group the statements by shape.
    assert!(text.contains("INSERT q.t"), "{text}");
    assert!(text.contains("SELECT q.t"), "{text}");
    assert!(
        text.contains("# Count         ") && text.contains(" 20 "),
        "{text}"
    );
    assert!(text.contains("select b from q.t where a = "), "{text}");
}

#[test]
fn admin_statements_stay_out_when_asked() {
    let b = Basalt::start();
    let path = b.datadir.join("admin.log");
    let mut admin = b.conn();
    admin
        .query_drop("set global long_query_time = 0")
        .expect("all statements");
    turn_on(&mut admin, &path);
    let mut c = b.conn();
    c.query_drop("create database a").expect("db");
    c.query_drop("create table a.t (a int primary key, b int)")
        .expect("table");
    c.query_drop("set log_slow_admin_statements = OFF")
        .expect("off");
    c.query_drop("alter table a.t add index (b)")
        .expect("alter");
    c.query_drop("optimize table a.t").expect("optimize");
    c.query_drop("set log_slow_admin_statements = ON")
        .expect("on");
    c.query_drop("alter table a.t drop index b").expect("alter");
    let text = std::fs::read_to_string(&path).expect("log");
    assert!(!text.contains("add index"), "{text}");
    assert!(!text.contains("optimize table"), "{text}");
    assert!(text.contains("alter table a.t drop index b;"), "{text}");
}

#[test]
fn lock_time_is_the_statements_lock_wait() {
    let b = Basalt::start();
    let path = b.datadir.join("slow-lock.log");
    let mut admin = b.conn();
    admin
        .query_drop("create database l")
        .and_then(|_| admin.query_drop("create table l.t (a int primary key, b int)"))
        .and_then(|_| admin.query_drop("insert into l.t values (1,1)"))
        .and_then(|_| admin.query_drop("set global long_query_time = 0"))
        .expect("setup");
    turn_on(&mut admin, &path);
    let mut holder = b.conn();
    holder
        .query_drop("begin")
        .and_then(|_| holder.query_drop("select * from l.t where a = 1 for update"))
        .expect("lock the row");
    let mut c = b.conn();
    let release = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(200));
        holder.query_drop("commit").expect("commit");
    });
    c.query_drop("update l.t set b = 3 where a = 1")
        .expect("waits, then updates");
    release.join().expect("holder");
    c.query_drop("select 'no wait'").expect("select");
    let logged = entries(&path);
    let lock_time = |text: &str| -> f64 {
        let e = logged
            .iter()
            .find(|e| e.ends_with(&format!("{text};\n")))
            .unwrap_or_else(|| panic!("{text} not logged: {logged:?}"));
        let after = e.split("Lock_time: ").nth(1).expect("Lock_time");
        after
            .split_whitespace()
            .next()
            .and_then(|v| v.parse().ok())
            .expect("a number")
    };
    let waited = lock_time("update l.t set b = 3 where a = 1");
    assert!(waited >= 0.15, "Lock_time {waited}");
    assert!(lock_time("select 'no wait'") < 0.05);
}
