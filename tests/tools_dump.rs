//! MariaDB's own tools against Basalt, unchanged: `mariadb-dump` (default options,
//! `--all-databases`, `--single-transaction`) completes without warnings and its
//! output reloads through the `mariadb` client into identical tables;
//! `mariadb-admin` commands answer as on MariaDB. Differential (`--ignored`): a
//! Basalt dump loads into MariaDB with the same rows, and a MariaDB dump of the
//! same schema loads into Basalt.

use basalt_tests::mariadb::{self, MariaDb};
use basalt_tests::{mariadb_cli, which, Basalt};
use mysql::prelude::*;
use mysql::{Conn, Opts};
use std::process::{Command, Stdio};

const SCHEMA: &str = "
create database shop character set latin1;
create table shop.items (
  id int primary key auto_increment,
  name varchar(40) not null,
  price decimal(10,2),
  added datetime,
  note text,
  raw blob,
  qty bigint unsigned default 0,
  key by_name (name)
) comment='stock';
insert into shop.items (name, price, added, note, raw, qty) values
  ('bolt', 0.25, '2024-01-02 03:04:05', 'it''s \"quoted\"\\nand multi-line', x'00ff10', 100),
  ('nut', null, null, null, null, 0),
  ('washer', 1234567.89, '1999-12-31 23:59:59', 'ünïcødé', '', 18446744073709551615);
create database logs;
create table logs.events (ts bigint not null, seq int not null, msg varchar(200), primary key (ts, seq));
insert into logs.events values (1, 1, 'a'), (1, 2, 'b'), (2, 1, null);
create table logs.empty_one (x int);
";

fn tools_present(tools: &[&str]) -> bool {
    for t in tools {
        if which(t).is_none() {
            eprintln!("skipped: {t} not installed");
            return false;
        }
    }
    true
}

fn conn(url: &str) -> Conn {
    Conn::new(Opts::from_url(url).expect("url")).expect("connect")
}

/// Runs `tool -h127.0.0.1 -P port -uroot args`: (exit code, stdout, stderr).
fn run_tool(tool: &str, port: u16, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(tool)
        .args(["-h127.0.0.1", "-uroot", "--skip-ssl"])
        .arg(format!("-P{port}"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("run {tool}: {e}"));
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn dump(port: u16, args: &[&str]) -> String {
    let (code, out, err) = run_tool("mariadb-dump", port, args);
    assert_eq!(code, 0, "mariadb-dump {args:?} failed: {err}");
    assert!(err.is_empty(), "mariadb-dump {args:?} warned: {err}");
    out
}

fn load(port: u16, sql: &str) {
    let (code, _, err) = mariadb_cli(port, &[], sql);
    assert_eq!(code, 0, "loading the dump failed: {err}");
}

/// Every row of the test tables, as text, in key order; and their definitions.
fn snapshot(c: &mut Conn) -> Vec<String> {
    let mut out = Vec::new();
    for (t, order) in [
        ("shop.items", "id"),
        ("logs.events", "ts, seq"),
        ("logs.empty_one", "x"),
    ] {
        let rows: Vec<mysql::Row> = c
            .query(format!("select * from {t} order by {order}"))
            .expect("select");
        for r in rows {
            let cells: Vec<String> = (0..r.len())
                .map(|i| format!("{:?}", r.as_ref(i).expect("cell")))
                .collect();
            out.push(format!("{t}: {}", cells.join(" | ")));
        }
    }
    out
}

fn definitions(c: &mut Conn) -> Vec<String> {
    let mut out = Vec::new();
    for t in ["shop.items", "logs.events", "logs.empty_one"] {
        let (_, ddl): (String, String) = c
            .query_first(format!("show create table {t}"))
            .expect("show create")
            .expect("row");
        out.push(ddl);
    }
    let (_, db): (String, String) = c
        .query_first("show create database shop")
        .expect("show create database")
        .expect("row");
    out.push(db);
    out
}

fn seeded_basalt() -> Basalt {
    let b = Basalt::start();
    let (code, _, err) = mariadb_cli(b.port, &[], SCHEMA);
    assert_eq!(code, 0, "{err}");
    b
}

#[test]
fn default_all_databases_and_single_transaction_dumps_reload_into_identical_tables() {
    if !tools_present(&["mariadb-dump", "mariadb"]) {
        return;
    }
    let src = seeded_basalt();
    let mut c = conn(&src.url());
    let rows = snapshot(&mut c);
    let defs = definitions(&mut c);
    assert_eq!(rows.len(), 6);
    for args in [
        vec!["--databases", "shop", "logs"],
        vec!["--all-databases"],
        vec!["--single-transaction", "--databases", "shop", "logs"],
    ] {
        let text = dump(src.port, &args);
        assert!(text.contains("-- Dump completed"), "{args:?}: {text}");
        let dst = Basalt::start();
        load(dst.port, &text);
        let mut d = conn(&dst.url());
        assert_eq!(snapshot(&mut d), rows, "{args:?}");
        assert_eq!(definitions(&mut d), defs, "{args:?}");
        // Loading the same dump again replaces the tables (DROP TABLE IF EXISTS).
        load(dst.port, &text);
        assert_eq!(snapshot(&mut d), rows, "{args:?} twice");
    }
    // One database without options: its tables, into an existing database.
    let text = dump(src.port, &["logs"]);
    let dst = Basalt::start();
    mariadb_cli(dst.port, &["-e", "create database logs"], "");
    let (code, _, err) = mariadb_cli(dst.port, &["logs"], &text);
    assert_eq!(code, 0, "{err}");
    let n: i64 = conn(&dst.url())
        .query_first("select count(*) from logs.events")
        .expect("count")
        .expect("row");
    assert_eq!(n, 3);
}

#[test]
fn the_schema_queries_mariadb_dump_sends_answer_as_on_mariadb() {
    let b = seeded_basalt();
    let mut c = conn(&b.url());
    c.query_drop("use shop").expect("use");
    // Empty results with MariaDB's columns where Basalt has no such objects.
    let trig: Vec<String> = c
        .query("SELECT TRIGGER_NAME FROM INFORMATION_SCHEMA.TRIGGERS WHERE EVENT_OBJECT_SCHEMA = DATABASE() AND EVENT_OBJECT_TABLE = 'items'")
        .expect("triggers");
    assert!(trig.is_empty());
    let files: Vec<mysql::Row> = c
        .query("SELECT LOGFILE_GROUP_NAME, FILE_NAME, TOTAL_EXTENTS, INITIAL_SIZE, ENGINE, EXTRA FROM INFORMATION_SCHEMA.FILES WHERE FILE_TYPE = 'UNDO LOG' AND FILE_NAME IS NOT NULL AND LOGFILE_GROUP_NAME IS NOT NULL GROUP BY LOGFILE_GROUP_NAME, FILE_NAME, ENGINE, TOTAL_EXTENTS, INITIAL_SIZE ORDER BY LOGFILE_GROUP_NAME")
        .expect("files");
    assert!(files.is_empty());
    let ts: Vec<mysql::Row> = c
        .query("SELECT DISTINCT TABLESPACE_NAME, FILE_NAME, LOGFILE_GROUP_NAME, EXTENT_SIZE, INITIAL_SIZE, ENGINE FROM INFORMATION_SCHEMA.FILES WHERE FILE_TYPE = 'DATAFILE' AND TABLESPACE_NAME IN (SELECT DISTINCT TABLESPACE_NAME FROM INFORMATION_SCHEMA.PARTITIONS WHERE TABLE_SCHEMA IN ('shop')) ORDER BY TABLESPACE_NAME, LOGFILE_GROUP_NAME")
        .expect("tablespaces");
    assert!(ts.is_empty());
    // PARTITIONS has a row per (unpartitioned) table, as MariaDB shows.
    let parts: Vec<(String, Option<String>, u64)> = c
        .query("select table_name, partition_name, table_rows from information_schema.partitions where table_schema = 'shop'")
        .expect("partitions");
    assert_eq!(parts.len(), 1);
    assert_eq!(
        (parts[0].0.as_str(), parts[0].1.as_deref()),
        ("items", None)
    );
    let views: Vec<mysql::Row> = c
        .query("SELECT CHECK_OPTION, DEFINER, SECURITY_TYPE, CHARACTER_SET_CLIENT, COLLATION_CONNECTION FROM information_schema.views WHERE table_name='items' AND table_schema='shop'")
        .expect("views");
    assert!(views.is_empty());
    for (sql, cols) in [
        ("show package status", 11),
        ("show package body status", 11),
        ("show procedure status where db = 'shop'", 11),
        ("show function status", 11),
        ("show triggers", 11),
        ("show events", 15),
    ] {
        let r = c.query_iter(sql).expect(sql);
        assert_eq!(r.columns().as_ref().len(), cols, "{sql}");
    }
    // SHOW COLUMNS reads information_schema tables too.
    let trig_cols: Vec<mysql::Row> = c
        .query("show columns from information_schema.triggers")
        .expect("show columns");
    assert_eq!(trig_cols.len(), 22);
    // The userstat tables have MariaDB's columns (and the seeded rows' changes).
    let stats: Vec<(String, String, i64, i64, i64)> = c
        .query("select * from information_schema.table_statistics")
        .expect("userstat");
    assert!(
        stats
            .iter()
            .any(|s| s.0 == "shop" && s.1 == "items" && s.3 > 0),
        "{stats:?}"
    );
    // The mysql database's log tables exist (empty: logs go to files).
    let n: i64 = c
        .query_first("select count(*) from mysql.general_log")
        .expect("general_log")
        .expect("row");
    assert_eq!(n, 0);
    let (_, ddl): (String, String) = c
        .query_first("show create table mysql.slow_log")
        .expect("slow_log")
        .expect("row");
    assert!(ddl.contains("`sql_text` mediumtext NOT NULL"), "{ddl}");
    let (_, text): (String, String) = c
        .query_first("show create database if not exists shop")
        .expect("show create database")
        .expect("row");
    assert_eq!(
        text,
        "CREATE DATABASE /*!32312 IF NOT EXISTS*/ `shop` /*!40100 DEFAULT CHARACTER SET latin1 COLLATE latin1_swedish_ci */"
    );
}

#[test]
fn mariadb_admin_commands() {
    if !tools_present(&["mariadb-admin"]) {
        return;
    }
    let mut b = Basalt::start();
    let port = b.port;
    let admin = |args: &[&str]| {
        let (code, out, err) = run_tool("mariadb-admin", port, args);
        assert_eq!(code, 0, "mariadb-admin {args:?}: {err}");
        out
    };
    assert_eq!(admin(&["ping"]), "mysqld is alive\n");
    assert!(admin(&["status"]).starts_with("Uptime: "));
    assert!(admin(&["version"]).contains("10.11.99-MariaDB-Basalt"));
    assert!(admin(&["processlist"]).contains("| Id | User | Host"));
    assert!(admin(&["variables"]).contains("| max_allowed_packet "));
    assert!(admin(&["extended-status"]).contains("| Uptime "));
    for cmd in [
        "refresh",
        "flush-threads",
        "flush-hosts",
        "flush-logs",
        "flush-privileges",
        "flush-tables",
        "flush-status",
        "flush-binary-log",
        "flush-engine-log",
        "flush-error-log",
        "flush-general-log",
        "flush-relay-log",
        "flush-slow-log",
        "flush-user-resources",
        "flush-table-statistics",
        "flush-index-statistics",
        "flush-user-statistics",
        "flush-client-statistics",
        "flush-all-statistics",
        "flush-all-status",
    ] {
        admin(&[cmd]);
    }
    // flush-status resets Max_used_connections to the connections open now.
    let mut c = conn(&b.url());
    let conns: Vec<Conn> = (0..3).map(|_| conn(&b.url())).collect();
    drop(conns);
    let used = |c: &mut Conn| -> u64 {
        let (_, v): (String, u64) = c
            .query_first("show global status like 'Max_used_connections'")
            .expect("status")
            .expect("row");
        v
    };
    assert!(used(&mut c) >= 4);
    admin(&["flush-status"]);
    // `c` and mariadb-admin's own connection were open when it flushed.
    assert_eq!(used(&mut c), 2);
    admin(&["shutdown"]);
    assert_eq!(
        b.wait_exit(std::time::Duration::from_secs(30)),
        Some(0),
        "shutdown"
    );
}

#[test]
#[ignore]
fn differential_a_basalt_dump_loads_into_mariadb_and_a_mariadb_dump_into_basalt() {
    if !mariadb::available() || !tools_present(&["mariadb-dump", "mariadb"]) {
        eprintln!("skipped: MariaDB not installed");
        return;
    }
    let src = seeded_basalt();
    let rows = snapshot(&mut conn(&src.url()));
    let text = dump(src.port, &["--databases", "shop", "logs"]);
    let m = MariaDb::start(&[]);
    load(m.port, &text);
    let mut mc = conn(&m.url());
    assert_eq!(snapshot(&mut mc), rows, "Basalt's dump loaded into MariaDB");
    // And back: MariaDB's dump of those tables into a fresh Basalt.
    let (code, back, err) = run_tool("mariadb-dump", m.port, &["--databases", "shop", "logs"]);
    assert_eq!(code, 0, "{err}");
    let dst = Basalt::start();
    load(dst.port, &back);
    let mut d = conn(&dst.url());
    assert_eq!(snapshot(&mut d), rows, "MariaDB's dump loaded into Basalt");
    assert_eq!(definitions(&mut d), definitions(&mut conn(&src.url())));
}
