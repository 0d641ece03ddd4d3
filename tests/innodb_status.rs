//! The engine seen as InnoDB's monitors show it: information_schema INNODB_TRX,
//! INNODB_LOCKS, INNODB_LOCK_WAITS during a real lock wait, SHOW ENGINE INNODB
//! STATUS's sections, INNODB_BUFFER_POOL_STATS / INNODB_METRICS agreeing with
//! SHOW STATUS, the compression tables, PROCESS being required, and
//! mysqld_exporter's InnoDB collectors scraping Basalt without an error.

use basalt_tests::client::{error, lines, login, ok, root, value};
use basalt_tests::{eventually, global_status, which, Basalt};
use mysql::prelude::*;
use std::process::{Command, Stdio};
use std::time::Duration;

/// trx_id, trx_state, trx_requested_lock_id, trx_mysql_thread_id,
/// trx_rows_modified, trx_query.
type TrxRow = (u64, String, Option<String>, u64, u64, Option<String>);
/// lock_id, lock_trx_id, lock_mode, lock_type, lock_table, lock_index.
type LockRow = (String, u64, String, String, String, Option<String>);

fn setup(b: &Basalt) -> mysql::Conn {
    let mut c = root(b);
    ok(&mut c, "create database d");
    ok(
        &mut c,
        "create table d.t (id int primary key, v int, key kv (v))",
    );
    ok(&mut c, "insert into d.t values (1, 1), (2, 2)");
    c
}

#[test]
fn a_lock_wait_shows_in_innodb_trx_locks_and_status() {
    let b = Basalt::start();
    let mut c = setup(&b);
    let mut holder = root(&b);
    ok(&mut holder, "begin");
    ok(&mut holder, "update d.t set v = 10 where id = 1");
    let holder_id = value(&mut holder, "select connection_id()").expect("id");
    let url = b.url();
    let waiter = std::thread::spawn(move || {
        let mut w = mysql::Conn::new(mysql::Opts::from_url(&url).expect("url")).expect("conn");
        ok(&mut w, "set session innodb_lock_wait_timeout = 20");
        let id: u64 = w.query_first("select connection_id()").unwrap().unwrap();
        ok(&mut w, "update d.t set v = 20 where id = 1");
        id
    });
    assert!(
        eventually(Duration::from_secs(10), || {
            value(
                &mut c,
                "select count(*) from information_schema.innodb_lock_waits",
            )
            .as_deref()
                == Some("1")
        }),
        "no lock wait appeared"
    );
    let trx: Vec<TrxRow> = c
        .query(
            "select trx_id, trx_state, trx_requested_lock_id, trx_mysql_thread_id, \
             trx_rows_modified, trx_query from information_schema.innodb_trx order by trx_id",
        )
        .unwrap();
    assert_eq!(trx.len(), 2, "{trx:?}");
    let (hold, wait) = (&trx[0], &trx[1]);
    assert_eq!(hold.1, "RUNNING");
    assert_eq!(hold.3.to_string(), holder_id);
    assert_eq!(hold.4, 1, "the holder changed one row");
    assert_eq!(wait.1, "LOCK WAIT");
    assert_eq!(
        wait.5.as_deref(),
        Some("update d.t set v = 20 where id = 1")
    );
    let requested = wait.2.clone().expect("requested lock id");
    let waits: Vec<(u64, String, u64, String)> = c
        .query("select * from information_schema.innodb_lock_waits")
        .unwrap();
    assert_eq!(waits.len(), 1);
    assert_eq!((waits[0].0, waits[0].2), (wait.0, hold.0));
    assert_eq!(waits[0].1, requested);
    let locks: Vec<LockRow> = c
        .query(
            "select lock_id, lock_trx_id, lock_mode, lock_type, lock_table, lock_index \
             from information_schema.innodb_locks order by lock_trx_id",
        )
        .unwrap();
    assert_eq!(locks.len(), 2, "{locks:?}");
    assert_eq!(locks[0].0, waits[0].3);
    assert_eq!(locks[1].0, requested);
    assert_eq!(locks[1].4, "`d`.`t`");
    assert_eq!(locks[1].5.as_deref(), Some("PRIMARY"));

    let status: (String, String, String) =
        c.query_first("show engine innodb status").unwrap().unwrap();
    assert_eq!((status.0.as_str(), status.1.as_str()), ("InnoDB", ""));
    let text = status.2;
    for want in [
        "INNODB MONITOR OUTPUT",
        "\n------------\nTRANSACTIONS\n------------\n",
        &format!("---TRANSACTION {}, ACTIVE ", hold.0),
        &format!("---TRANSACTION {}, ACTIVE ", wait.0),
        "LOCK WAIT 0 lock struct(s)",
        "undo log entries 1",
        &format!("MariaDB thread id {holder_id}, "),
        "FOR THIS LOCK TO BE GRANTED:",
        "index PRIMARY of table `d`.`t`",
        "\n--------\nFILE I/O\n--------\n",
        "\nLog sequence number ",
        "\nBuffer pool size   ",
        "read views open inside InnoDB",
        "Number of rows inserted 2, updated 1, deleted 0",
        "END OF INNODB MONITOR OUTPUT",
    ] {
        assert!(text.contains(want), "missing {want:?} in:\n{text}");
    }

    ok(&mut holder, "rollback");
    let waiter_id = waiter.join().expect("waiter");
    assert_ne!(waiter_id.to_string(), holder_id);
    assert_eq!(
        value(&mut c, "select count(*) from information_schema.innodb_trx").as_deref(),
        Some("0")
    );
    assert_eq!(
        value(&mut c, "select v from d.t where id = 1").as_deref(),
        Some("20")
    );
    let waited = global_status(&mut c, "Innodb_row_lock_time");
    assert!(
        waited >= 1,
        "the wait lasted while the holder ran statements"
    );
    assert_eq!(global_status(&mut c, "Innodb_row_lock_time_max"), waited);
    let metric = value(
        &mut c,
        "select count from information_schema.innodb_metrics where name = 'lock_row_lock_time'",
    );
    assert_eq!(metric, Some(waited.to_string()));
}

#[test]
fn buffer_pool_metrics_and_compression_tables_agree_with_status() {
    let b = Basalt::start();
    let mut c = setup(&b);
    ok(&mut c, "select * from d.t");
    let pool: (u64, u64, u64, u64) = c
        .query_first(
            "select pool_size, free_buffers, database_pages, number_pages_get \
             from information_schema.innodb_buffer_pool_stats",
        )
        .unwrap()
        .unwrap();
    assert_eq!(
        pool.0,
        global_status(&mut c, "Innodb_buffer_pool_pages_total")
    );
    assert_eq!(pool.0, pool.1 + pool.2);
    assert!(pool.3 > 0, "page requests are counted");
    let requests = global_status(&mut c, "Innodb_buffer_pool_read_requests");
    ok(&mut c, "select * from d.t where id = 2");
    assert!(global_status(&mut c, "Innodb_buffer_pool_read_requests") > requests);

    let inserted = value(
        &mut c,
        "select count from information_schema.innodb_metrics where name = 'dml_inserts'",
    );
    assert_eq!(inserted.as_deref(), Some("2"));
    let size = value(
        &mut c,
        "select count from information_schema.innodb_metrics where name = 'innodb_page_size'",
    );
    assert_eq!(size.as_deref(), Some("16384"));
    assert_eq!(global_status(&mut c, "Innodb_page_size"), 16384);
    // Every table stays open; each was opened once.
    let open = global_status(&mut c, "Open_tables");
    assert!(open >= 1, "d.t is open");
    assert!(global_status(&mut c, "Opened_tables") >= open);
    // Listed in information_schema.COLUMNS, which exporters check first.
    assert_eq!(
        lines(
            &mut c,
            "select column_name from information_schema.columns where table_schema = \
             'information_schema' and table_name = 'INNODB_METRICS' and column_name in \
             ('status', 'enabled')"
        ),
        ["ENABLED"]
    );

    for t in [
        "innodb_cmp",
        "innodb_cmp_reset",
        "innodb_cmpmem",
        "innodb_cmpmem_reset",
    ] {
        let sizes = lines(
            &mut c,
            &format!("select page_size from information_schema.{t}"),
        );
        assert_eq!(sizes, ["1024", "2048", "4096", "8192", "16384"], "{t}");
    }
    let ops = value(
        &mut c,
        "select sum(compress_ops + uncompress_ops) from information_schema.innodb_cmp",
    );
    assert_eq!(ops.as_deref(), Some("0"));
}

#[test]
fn the_monitors_need_process_and_a_known_engine() {
    let b = Basalt::start();
    let mut c = setup(&b);
    ok(&mut c, "create user watcher identified by 'pw'");
    ok(&mut c, "grant select on d.* to watcher");
    let mut w = login(&b, "watcher", "pw").expect("login");
    for sql in [
        "select * from information_schema.innodb_trx",
        "select * from information_schema.innodb_lock_waits",
        "select * from information_schema.innodb_metrics",
        "show engine innodb status",
    ] {
        let (code, msg) = error(&mut w, sql);
        assert_eq!(code, 1227, "{sql}: {msg}");
        assert!(msg.contains("PROCESS"), "{msg}");
    }
    ok(&mut c, "grant process on *.* to watcher");
    let mut w = login(&b, "watcher", "pw").expect("login");
    ok(&mut w, "select * from information_schema.innodb_trx");
    ok(&mut w, "show engine innodb status");
    assert_eq!(error(&mut c, "show engine nosuch status").0, 1286);
    let rows: Vec<mysql::Row> = c.query("show engine memory status").unwrap();
    assert!(rows.is_empty());
    let rows: Vec<mysql::Row> = c.query("show engine innodb mutex").unwrap();
    assert!(rows.is_empty());
    assert_eq!(error(&mut c, "show engine innodb").0, 1064);
    // MariaDB 10.11 has no innodb_version variable; tools take that to mean
    // its InnoDB is the server's own.
    assert_eq!(error(&mut c, "select @@innodb_version").0, 1193);
}

#[test]
fn mysqld_exporter_scrapes_every_default_and_innodb_collector() {
    let Some(bin) = which("prometheus-mysqld-exporter") else {
        eprintln!("prometheus-mysqld-exporter not installed; skipping");
        return;
    };
    let b = Basalt::start();
    let mut c = setup(&b);
    ok(&mut c, "update d.t set v = v + 1");
    let (metrics, log) = basalt_tests::scrape_with_exporter(
        &bin,
        b.port,
        &[
            "info_schema.innodb_metrics",
            "engine_innodb_status",
            "info_schema.processlist",
            "info_schema.userstats",
            "info_schema.clientstats",
            "info_schema.tablestats",
            "info_schema.schemastats",
        ],
    );
    assert!(metrics.contains("\nmysql_up 1\n"), "{metrics}");
    let errors: Vec<&str> = metrics
        .lines()
        .filter(|l| l.starts_with("mysql_exporter_scrape_errors_total{"))
        .collect();
    assert!(errors.is_empty(), "{errors:?}\n{log}");
    assert!(!log.contains("Error from scraper"), "{log}");
    for want in [
        "mysql_info_schema_innodb_metrics_dml_dml_inserts_total 2",
        "mysql_info_schema_innodb_metrics_buffer_pool_pages{state=\"data\"}",
        "mysql_engine_innodb_read_views_open_inside_innodb",
        "mysql_global_status_commands_total{command=\"update\"} 1",
        "mysql_global_status_innodb_page_size 16384",
        "mysql_info_schema_user_statistics_total_connections{user=\"root\"}",
        "mysql_info_schema_client_statistics_total_connections{client=\"127.0.0.1\"}",
        "mysql_info_schema_table_statistics_rows_changed_total{schema=\"d\",table=\"t\"} 4",
    ] {
        assert!(
            metrics.contains(want),
            "missing {want}\n{}",
            metrics
                .lines()
                .filter(|l| l.contains("innodb"))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

#[test]
fn pt_mysql_summary_runs_without_a_shell_error() {
    let Some(bin) = which("pt-mysql-summary") else {
        eprintln!("pt-mysql-summary not installed; skipping");
        return;
    };
    let b = Basalt::start();
    let _c = setup(&b);
    let out = Command::new(bin)
        .args(["--sleep", "1", "--host", "127.0.0.1", "--user", "root"])
        .args(["--port", &b.port.to_string()])
        .stdin(Stdio::null())
        .output()
        .expect("run pt-mysql-summary");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}\n{stdout}");
    assert!(stderr.trim().is_empty(), "shell errors:\n{stderr}");
    for want in ["# Report On Port", "# Table cache", "# The End"] {
        assert!(stdout.contains(want), "missing {want}:\n{stdout}");
    }
    assert!(
        !stdout.contains("Usage | %"),
        "table cache usage:\n{stdout}"
    );
}
