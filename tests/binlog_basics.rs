//! The binary log on a Basalt server: files derived from the WAL, the statements
//! and variables about it, `log_bin` switched at runtime, and crash recovery leaving
//! exactly the committed transactions in the files. Files are read back with
//! MariaDB's own `mariadb-binlog`.

use basalt_tests::{which, Basalt};
use mysql::prelude::*;
use mysql::{Conn, Opts};
use std::process::Command;

fn connect(b: &Basalt) -> Conn {
    Conn::new(Opts::from_url(&b.url()).expect("url")).expect("connect")
}

fn err_code(e: mysql::Error) -> u16 {
    match e {
        mysql::Error::MySqlError(e) => e.code,
        other => panic!("expected a server error, got {other:?}"),
    }
}

/// `mariadb-binlog --verbose` over files of the data directory.
fn decoded(b: &Basalt, files: &[&str]) -> String {
    let mut cmd = Command::new("mariadb-binlog");
    cmd.args(["--verbose", "--base64-output=decode-rows"]);
    for f in files {
        cmd.arg(b.datadir.join(f));
    }
    let out = cmd.output().expect("run mariadb-binlog");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "mariadb-binlog failed: {stderr}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn master_status(c: &mut Conn) -> (String, u64) {
    c.query_first::<(String, u64, String, String), _>("show master status")
        .expect("show master status")
        .map(|(f, p, _, _)| (f, p))
        .expect("a row")
}

#[test]
fn statements_and_variables() {
    let b = Basalt::start_with(&["--log-bin", "--server-id=7"]);
    let mut c = connect(&b);
    let on: i64 = c.query_first("select @@log_bin").expect("q").expect("row");
    assert_eq!(on, 1);
    let (file, pos) = master_status(&mut c);
    assert_eq!(file, "basalt-bin.000001");
    assert!(pos > 4);
    c.query_drop("create table test.t (a int primary key, b varchar(10))")
        .expect("create");
    c.query_drop("insert into test.t values (1, 'one'), (2, 'two')")
        .expect("insert");
    let gtid: String = c
        .query_first("select @@gtid_binlog_pos")
        .expect("q")
        .expect("row");
    assert_eq!(gtid, "0-7-2");
    let (_, pos2) = master_status(&mut c);
    assert!(pos2 > pos);
    let logs: Vec<(String, u64)> = c.query("show binary logs").expect("show binary logs");
    assert_eq!(logs, vec![("basalt-bin.000001".to_string(), pos2)]);
    let events: Vec<(String, u64, String, u32, u64, String)> =
        c.query("show binlog events").expect("show binlog events");
    let kinds: Vec<&str> = events.iter().map(|e| e.2.as_str()).collect();
    assert_eq!(
        &kinds[..3],
        ["Format_desc", "Gtid_list", "Binlog_checkpoint"]
    );
    assert!(kinds.contains(&"Table_map"), "{kinds:?}");
    assert!(kinds.contains(&"Xid"), "{kinds:?}");
    assert!(events
        .iter()
        .any(|e| e.2 == "Query" && e.5.contains("create table test.t")));
    // A prepared statement's rows are annotated with its text and values.
    c.exec_drop("insert into test.t values (?, ?)", (3, "three"))
        .expect("prepared insert");
    let annotated: Vec<(String, u64, String, u32, u64, String)> =
        c.query("show binlog events").expect("events");
    assert!(
        annotated
            .iter()
            .any(|e| e.2 == "Annotate_rows" && e.5.starts_with("insert into test.t values (3, ")),
        "{annotated:?}"
    );
    let limited: Vec<(String, u64, String, u32, u64, String)> = c
        .query("show binlog events in 'basalt-bin.000001' from 4 limit 1, 2")
        .expect("limited");
    assert_eq!(limited.len(), 2);
    assert_eq!(limited[0].2, "Gtid_list");
    assert_eq!(
        err_code(
            c.query_drop("show binlog events in 'nope.000001'")
                .expect_err("unknown file")
        ),
        1220
    );
    assert_eq!(
        err_code(
            c.query_drop("set global binlog_format = 'STATEMENT'")
                .expect_err("row only")
        ),
        1235
    );
    c.query_drop("flush binary logs").expect("flush");
    assert_eq!(master_status(&mut c).0, "basalt-bin.000002");
    assert_eq!(
        err_code(
            c.query_drop("purge binary logs to 'basalt-bin.000009'")
                .expect_err("unknown target")
        ),
        1373
    );
    c.query_drop("purge binary logs to 'basalt-bin.000002'")
        .expect("purge");
    let logs: Vec<(String, u64)> = c.query("show binary logs").expect("show binary logs");
    assert_eq!(logs.len(), 1);
    assert_eq!(logs[0].0, "basalt-bin.000002");
    assert!(!b.datadir.join("basalt-bin.000001").exists());
    c.query_drop("reset master").expect("reset master");
    assert_eq!(master_status(&mut c).0, "basalt-bin.000001");
    let gtid: String = c
        .query_first("select @@gtid_binlog_pos")
        .expect("q")
        .expect("row");
    assert_eq!(gtid, "");
}

#[test]
fn log_bin_at_runtime_and_sql_log_bin() {
    let b = Basalt::start();
    let mut c = connect(&b);
    assert_eq!(
        err_code(c.query_drop("show binary logs").expect_err("off")),
        1381
    );
    let rows: Vec<(String, u64, String, String)> = c.query("show master status").expect("status");
    assert!(rows.is_empty());
    c.query_drop("create table test.t (a int primary key)")
        .expect("create");
    c.query_drop("insert into test.t values (1)")
        .expect("insert");
    c.query_drop("set global log_bin = ON").expect("log_bin on");
    c.query_drop("insert into test.t values (2)")
        .expect("insert");
    c.query_drop("set sql_log_bin = 0")
        .expect("sql_log_bin off");
    c.query_drop("insert into test.t values (3)")
        .expect("insert");
    c.query_drop("set sql_log_bin = 1").expect("sql_log_bin on");
    c.query_drop("set global log_bin = OFF")
        .expect("log_bin off");
    c.query_drop("insert into test.t values (4)")
        .expect("insert");
    c.query_drop("set global log_bin = ON").expect("log_bin on");
    c.query_drop("insert into test.t values (5)")
        .expect("insert");
    let gtid: String = c
        .query_first("select @@gtid_binlog_pos")
        .expect("q")
        .expect("row");
    assert_eq!(
        gtid, "0-1-2",
        "no sequence number skipped across the toggle"
    );
    if which("mariadb-binlog").is_none() {
        return;
    }
    let text = decoded(&b, &["basalt-bin.000001", "basalt-bin.000002"]);
    let inserted: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("###   @1="))
        .collect();
    assert_eq!(inserted, ["###   @1=2", "###   @1=5"], "{text}");
}

#[test]
fn rows_decode_with_mariadb_binlog() {
    if which("mariadb-binlog").is_none() {
        return;
    }
    let b = Basalt::start_with(&["--log-bin"]);
    let mut c = connect(&b);
    c.query_drop(
        "create table test.t (id int primary key, name varchar(20), n bigint unsigned, \
         d datetime(3), price decimal(8,2))",
    )
    .expect("create");
    c.query_drop(
        "insert into test.t values (1, 'alpha', 18446744073709551615, \
         '2024-05-06 07:08:09.123', -12.50)",
    )
    .expect("insert");
    c.query_drop("update test.t set name = 'beta' where id = 1")
        .expect("update");
    c.query_drop("begin").expect("begin");
    c.query_drop("insert into test.t (id) values (2)")
        .expect("insert");
    c.query_drop("rollback").expect("rollback");
    c.query_drop("delete from test.t where id = 1")
        .expect("delete");
    let text = decoded(&b, &["basalt-bin.000001"]);
    assert!(text.contains("### INSERT INTO `test`.`t`"), "{text}");
    assert!(text.contains("###   @2='alpha'"), "{text}");
    // mariadb-binlog prints BIGINT UNSIGNED so, as for MariaDB's own files.
    assert!(
        text.contains("###   @3=-1 (18446744073709551615)"),
        "{text}"
    );
    assert!(
        text.contains("###   @4='2024-05-06 07:08:09.123'"),
        "{text}"
    );
    assert!(text.contains("###   @5=-12.50"), "{text}");
    assert!(text.contains("### UPDATE `test`.`t`"), "{text}");
    assert!(text.contains("###   @2='beta'"), "{text}");
    assert!(text.contains("### DELETE FROM `test`.`t`"), "{text}");
    assert!(!text.contains("###   @1=2"), "rolled back: {text}");
}

#[test]
fn kill9_keeps_exactly_the_committed_transactions() {
    if which("mariadb-binlog").is_none() {
        return;
    }
    let mut b = Basalt::start_with(&["--log-bin"]);
    let mut open = connect(&b);
    open.query_drop("create table test.t (a int primary key)")
        .expect("create");
    for i in 0..50 {
        open.query_drop(format!("insert into test.t values ({i})"))
            .expect("insert");
    }
    // In flight when the server dies: never committed, never in the binary log.
    open.query_drop("begin").expect("begin");
    open.query_drop("insert into test.t values (1000)")
        .expect("insert");
    b.restart(true);
    drop(open);
    let mut c = connect(&b);
    let n: i64 = c
        .query_first("select count(*) from test.t")
        .expect("q")
        .expect("row");
    assert_eq!(n, 50);
    c.query_drop("insert into test.t values (50)")
        .expect("insert");
    let gtid: String = c
        .query_first("select @@gtid_binlog_pos")
        .expect("q")
        .expect("row");
    assert_eq!(gtid, "0-1-52");
    let text = decoded(&b, &["basalt-bin.000001", "basalt-bin.000002"]);
    let inserted: Vec<String> = text
        .lines()
        .filter(|l| l.starts_with("###   @1="))
        .map(|l| l.to_string())
        .collect();
    let expected: Vec<String> = (0..=50).map(|i| format!("###   @1={i}")).collect();
    assert_eq!(inserted, expected);
}

#[test]
fn create_select_and_cascades_log_as_mariadb_does() {
    if which("mariadb-binlog").is_none() {
        return;
    }
    let b = Basalt::start_with(&["--log-bin"]);
    let mut c = connect(&b);
    c.query_drop("create table test.p (id int primary key)")
        .expect("parent");
    c.query_drop(
        "create table test.ch (id int primary key, p int, \
         foreign key (p) references test.p (id) on delete cascade)",
    )
    .expect("child");
    c.query_drop("insert into test.p values (1), (2)")
        .expect("parents");
    c.query_drop("insert into test.ch values (10, 1), (20, 2)")
        .expect("children");
    c.query_drop("delete from test.p where id = 1")
        .expect("delete");
    c.query_drop("create table test.copy select * from test.ch")
        .expect("create ... select");
    let text = decoded(&b, &["basalt-bin.000001"]);
    // The cascaded delete of child 10 is the replica's engine's business.
    assert!(!text.contains("### DELETE FROM `test`.`ch`"), "{text}");
    assert!(text.contains("### DELETE FROM `test`.`p`"), "{text}");
    // CREATE TABLE ... SELECT: the definition, then the rows.
    let create = text.find("CREATE TABLE `copy`").expect("definition logged");
    let rows = text
        .find("### INSERT INTO `test`.`copy`")
        .expect("rows logged");
    assert!(create < rows, "{text}");
    // Its text only annotates the rows (`#Q>`); it is never a statement to run.
    assert!(
        !text
            .lines()
            .any(|l| l.starts_with("create table test.copy select")),
        "{text}"
    );
}

#[test]
fn expired_files_go_when_the_log_moves_on() {
    let b = Basalt::start_with(&["--log-bin"]);
    let mut c = connect(&b);
    c.query_drop("flush binary logs").expect("flush");
    c.query_drop("set global binlog_expire_logs_seconds = 1")
        .expect("expire");
    let days: f64 = c
        .query_first("select @@expire_logs_days")
        .expect("q")
        .expect("row");
    assert!((days - 1.0 / 86400.0).abs() < 1e-6, "{days}");
    std::thread::sleep(std::time::Duration::from_millis(2100));
    c.query_drop("flush binary logs").expect("flush");
    let logs: Vec<(String, u64)> = c.query("show binary logs").expect("logs");
    // File 2 was last written by the rotation just now (its ROTATE event).
    let names: Vec<&str> = logs.iter().map(|l| l.0.as_str()).collect();
    assert_eq!(names, ["basalt-bin.000002", "basalt-bin.000003"]);
    assert!(!b.datadir.join("basalt-bin.000001").exists());
    c.query_drop("set global expire_logs_days = 0")
        .expect("never");
    let secs: u64 = c
        .query_first("select @@binlog_expire_logs_seconds")
        .expect("q")
        .expect("row");
    assert_eq!(secs, 0);
}

#[test]
fn session_settings_shape_the_events() {
    let b = Basalt::start_with(&["--log-bin"]);
    let mut c = connect(&b);
    c.query_drop("create table test.t (id int primary key, a int, note text)")
        .expect("create");
    c.query_drop("insert into test.t values (1, 10, 'x')")
        .expect("insert");
    c.query_drop(
        "set gtid_domain_id = 3, server_id = 9, binlog_annotate_row_events = 0, \
         binlog_row_image = 'MINIMAL'",
    )
    .expect("session settings");
    c.query_drop("update test.t set a = 11 where id = 1")
        .expect("update");
    let events: Vec<(String, u64, String, u32, u64, String)> =
        c.query("show binlog events").expect("events");
    let last_gtid = events
        .iter()
        .rev()
        .find(|e| e.2 == "Gtid")
        .expect("a GTID event");
    assert_eq!(last_gtid.5, "BEGIN GTID 3-9-1");
    assert_eq!(last_gtid.3, 9, "the session's server_id");
    let after: Vec<&str> = events
        .iter()
        .skip_while(|e| e.5 != "BEGIN GTID 3-9-1")
        .map(|e| e.2.as_str())
        .collect();
    assert!(!after.contains(&"Annotate_rows"), "{after:?}");
    let pos: String = c
        .query_first("select @@gtid_binlog_pos")
        .expect("q")
        .expect("row");
    assert_eq!(pos, "0-1-2,3-9-1");
    if which("mariadb-binlog").is_some() {
        let text = decoded(&b, &["basalt-bin.000001"]);
        let update = &text[text.find("### UPDATE").expect("update logged")..];
        let update: Vec<&str> = update.lines().take(5).collect();
        // MINIMAL: the primary key before, the changed column after.
        assert_eq!(
            update,
            [
                "### UPDATE `test`.`t`",
                "### WHERE",
                "###   @1=1",
                "### SET",
                "###   @2=11"
            ]
        );
    }
    // max_binlog_size: the log moves to a new file once a file passes it.
    c.query_drop("set global max_binlog_size = 4096")
        .expect("size");
    for i in 2..40 {
        c.query_drop(format!(
            "insert into test.t values ({i}, {i}, repeat('n', 200))"
        ))
        .expect("insert");
    }
    let logs: Vec<(String, u64)> = c.query("show binary logs").expect("logs");
    assert!(logs.len() >= 3, "{logs:?}");
    assert!(
        logs[..logs.len() - 1].iter().all(|l| l.1 < 4096 + 1024),
        "{logs:?}"
    );
}

#[test]
fn do_and_ignore_db_filter_at_runtime() {
    let b = Basalt::start_with(&["--log-bin", "--binlog-ignore-db=skipped"]);
    let mut c = connect(&b);
    for db in ["skipped", "kept"] {
        c.query_drop(format!("create database {db}"))
            .expect("create db");
    }
    c.query_drop("create table skipped.t (a int primary key)")
        .expect("create in skipped (no default database: logged)");
    c.query_drop("create table kept.t (a int primary key)")
        .expect("create in kept");
    c.query_drop("insert into skipped.t values (1)")
        .expect("insert");
    c.query_drop("insert into kept.t values (2)")
        .expect("insert");
    let status: (String, u64, String, String) = c
        .query_first("show master status")
        .expect("status")
        .expect("row");
    assert_eq!(status.3, "skipped");
    c.query_drop("set global binlog_ignore_db = ''")
        .expect("clear");
    c.query_drop("set global binlog_do_db = 'skipped'")
        .expect("do-list");
    c.query_drop("insert into skipped.t values (3)")
        .expect("insert");
    c.query_drop("insert into kept.t values (4)")
        .expect("insert");
    // A default database the do-list lacks keeps DDL out.
    c.query_drop("use kept").expect("use");
    c.query_drop("create table kept.u (a int)").expect("create");
    if which("mariadb-binlog").is_none() {
        return;
    }
    let text = decoded(&b, &["basalt-bin.000001"]);
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("### INSERT INTO") || l.starts_with("###   @1="))
        .collect();
    assert_eq!(
        rows,
        [
            "### INSERT INTO `kept`.`t`",
            "###   @1=2",
            "### INSERT INTO `skipped`.`t`",
            "###   @1=3"
        ],
        "{text}"
    );
    assert!(!text.contains("create table kept.u"), "{text}");
}

fn binary_logs(c: &mut Conn) -> Vec<String> {
    c.query_map("show binary logs", |(name, _size): (String, u64)| name)
        .expect("show binary logs")
}

#[test]
fn checksum_off_and_on_at_runtime() {
    let mut b = Basalt::start_with(&["--log-bin"]);
    let mut c = connect(&b);
    c.query_drop("create table test.t (a int primary key)")
        .expect("create");
    c.query_drop("set global binlog_checksum = NONE")
        .expect("checksum off");
    let v: String = c
        .query_first("select @@global.binlog_checksum")
        .expect("q")
        .expect("row");
    assert_eq!(v, "NONE");
    c.query_drop("insert into test.t values (1)")
        .expect("insert");
    // As in MariaDB, every SET moves the log to a new file, also to the same value.
    c.query_drop("set global binlog_checksum = CRC32")
        .expect("checksum on");
    c.query_drop("insert into test.t values (2)")
        .expect("insert");
    let files = binary_logs(&mut c);
    assert_eq!(
        files,
        [
            "basalt-bin.000001",
            "basalt-bin.000002",
            "basalt-bin.000003"
        ]
    );
    let events: Vec<String> = c
        .query_map(
            "show binlog events in 'basalt-bin.000002'",
            |row: mysql::Row| row.get::<String, _>(2).expect("Event_type"),
        )
        .expect("events of the file without checksums");
    assert!(events.iter().any(|e| e == "Write_rows_v1"), "{events:?}");
    if which("mariadb-binlog").is_some() {
        let text = decoded(
            &b,
            &[
                "basalt-bin.000001",
                "basalt-bin.000002",
                "basalt-bin.000003",
            ],
        );
        assert!(
            text.contains("###   @1=1") && text.contains("###   @1=2"),
            "{text}"
        );
        let remote = Command::new("mariadb-binlog")
            .args(["--read-from-remote-server", "--to-last-log", "--verbose"])
            .args(["--base64-output=decode-rows", "-h127.0.0.1", "-uroot"])
            .arg(format!("-P{}", b.port))
            .arg("basalt-bin.000001")
            .output()
            .expect("run mariadb-binlog");
        let remote_text = String::from_utf8_lossy(&remote.stdout);
        assert!(
            remote.status.success(),
            "{}",
            String::from_utf8_lossy(&remote.stderr)
        );
        assert!(
            remote_text.contains("###   @1=1") && remote_text.contains("###   @1=2"),
            "{remote_text}"
        );
    }
    drop(c);
    b.restart(false);
    let mut c = connect(&b);
    let size: u64 = c
        .query_map("show binary logs", |(name, size): (String, u64)| {
            (name, size)
        })
        .expect("show binary logs")
        .into_iter()
        .find_map(|(name, size)| (name == "basalt-bin.000002").then_some(size))
        .expect("the file without checksums");
    let pos: String = c
        .query_first(format!(
            "select binlog_gtid_pos('basalt-bin.000002', {size})"
        ))
        .expect("q")
        .expect("row");
    assert_eq!(pos, "0-1-2", "read from the file without checksums");
    c.query_drop("insert into test.t values (3)")
        .expect("insert");
    let gtid: String = c
        .query_first("select @@gtid_binlog_pos")
        .expect("q")
        .expect("row");
    assert_eq!(gtid, "0-1-4");
}

#[test]
fn reset_master_to_a_file_number() {
    let b = Basalt::start_with(&["--log-bin"]);
    let mut c = connect(&b);
    c.query_drop("create table test.t (a int primary key)")
        .expect("create");
    c.query_drop("reset master to 5").expect("reset to 5");
    assert_eq!(binary_logs(&mut c), ["basalt-bin.000005"]);
    c.query_drop("insert into test.t values (1)")
        .expect("insert");
    c.query_drop("flush binary logs").expect("flush");
    assert_eq!(
        binary_logs(&mut c),
        ["basalt-bin.000005", "basalt-bin.000006"]
    );
    let gtid: String = c
        .query_first("select @@gtid_binlog_pos")
        .expect("q")
        .expect("row");
    assert_eq!(gtid, "0-1-1", "the GTID state starts again");
    let e = c
        .query_drop("reset master to 2147483648")
        .expect_err("past the last file number");
    assert_eq!(err_code(e), 1098);
    assert_eq!(
        binary_logs(&mut c),
        ["basalt-bin.000005", "basalt-bin.000006"],
        "the log stays open"
    );
    c.query_drop("reset master to 0")
        .expect("to 0 is plain RESET MASTER");
    assert_eq!(binary_logs(&mut c), ["basalt-bin.000001"]);
}
