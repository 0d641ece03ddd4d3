//! performance_schema and sys: statement digests (text as MariaDB prints it,
//! counts, rows, errors, latency histogram), statement events of each
//! session, threads and accounts, table and index I/O, row-lock waits, the
//! sys views over them, and `--performance-schema=OFF`.

use basalt_tests::client::{error, lines, ok, root, value};
use basalt_tests::mariadb::{self, MariaDb};
use basalt_tests::Basalt;
use mysql::prelude::*;
use std::time::Duration;

/// (digest text, COUNT_STAR, SUM_ROWS_SENT, SUM_ERRORS, SUM_WARNINGS) of
/// digests in `db`.
fn digests(c: &mut mysql::Conn, db: &str) -> Vec<(String, u64, u64, u64, u64)> {
    c.query(format!(
        "select digest_text, count_star, sum_rows_sent, sum_errors, sum_warnings \
         from performance_schema.events_statements_summary_by_digest \
         where schema_name = '{db}' order by digest_text"
    ))
    .unwrap()
}

fn count_of(rows: &[(String, u64, u64, u64, u64)], text: &str) -> Option<(u64, u64, u64, u64)> {
    rows.iter()
        .find(|r| r.0 == text)
        .map(|r| (r.1, r.2, r.3, r.4))
}

#[test]
fn statement_digests_count_each_normalised_statement() {
    let b = Basalt::start();
    let mut c = root(&b);
    ok(&mut c, "create database ps");
    ok(
        &mut c,
        "create table ps.t (a int primary key, b varchar(10), key kb (b))",
    );
    let mut s = mysql::Conn::new(b.url_db("ps").as_str()).unwrap();
    for i in 1..=5 {
        ok(&mut s, &format!("insert into t values ({i}, 'v{i}')"));
        let _: Vec<i64> = s.query(format!("select a from t where a = {i}")).unwrap();
    }
    let _: Vec<i64> = s.query("select a from t where a in (1, 2, 3)").unwrap();
    let _ = error(&mut s, "select nope from t");
    ok(&mut s, "insert ignore into t values (1, 'dup')");
    // Prepared statements count under their text with `?`.
    let stmt = s.prep("select b from t where a = ?").unwrap();
    for i in 1..=3 {
        let _: Vec<String> = s.exec(&stmt, (i,)).unwrap();
    }
    let _: Vec<(i64, i64)> = s
        .query("select a % 2, count(*) from t group by a % 2")
        .unwrap();
    let tmp = value(
        &mut c,
        "select sum_created_tmp_tables from performance_schema.events_statements_summary_by_digest \
         where digest_text like '%GROUP BY `a` % ?%'",
    );
    assert_eq!(tmp.as_deref(), Some("1"));
    // COM_INIT_DB is no statement: the next one counts in the new schema.
    let mut d = root(&b);
    d.select_db("ps").unwrap();
    ok(&mut d, "set @x = 1");
    let rows = digests(&mut c, "ps");
    assert_eq!(
        count_of(&rows, "INSERT INTO `t` VALUES (...) "),
        Some((5, 0, 0, 0)),
        "{rows:#?}"
    );
    assert_eq!(
        count_of(&rows, "SELECT `a` FROM `t` WHERE `a` = ? "),
        Some((5, 5, 0, 0))
    );
    assert_eq!(
        count_of(&rows, "SELECT `a` FROM `t` WHERE `a` IN (...) "),
        Some((1, 3, 0, 0))
    );
    assert_eq!(
        count_of(&rows, "SELECT `nope` FROM `t` "),
        Some((1, 0, 1, 0))
    );
    assert_eq!(
        count_of(&rows, "INSERT IGNORE INTO `t` VALUES (...) "),
        Some((1, 0, 0, 1))
    );
    assert_eq!(
        count_of(&rows, "SELECT `b` FROM `t` WHERE `a` = ? "),
        Some((3, 3, 0, 0))
    );
    assert_eq!(count_of(&rows, "SET @? = ? "), Some((1, 0, 0, 0)));

    // Timers, first and last seen, and the histogram's buckets adding up.
    let (sum, min, max, ok_seen): (u64, u64, u64, i64) = c
        .query_first(
            "select sum_timer_wait, min_timer_wait, max_timer_wait, \
             last_seen >= first_seen from performance_schema.events_statements_summary_by_digest \
             where digest_text = 'SELECT `a` FROM `t` WHERE `a` = ? '",
        )
        .unwrap()
        .unwrap();
    assert!(min > 0 && min <= max && max <= sum, "{min} {max} {sum}");
    assert_eq!(ok_seen, 1);
    let (buckets, total, quantile): (u64, u64, f64) = c
        .query_first(
            "select count(*), sum(h.count_bucket), max(h.bucket_quantile) \
             from performance_schema.events_statements_histogram_by_digest h \
             join performance_schema.events_statements_summary_by_digest d using (digest) \
             where d.digest_text = 'SELECT `a` FROM `t` WHERE `a` = ? '",
        )
        .unwrap()
        .unwrap();
    assert_eq!((buckets, total, quantile), (32, 5, 1.0));

    // sys reads the digests.
    let n: u64 = c
        .query_first(
            "select exec_count from sys.statement_analysis \
             where query = 'SELECT `a` FROM `t` WHERE `a` = ? '",
        )
        .unwrap()
        .unwrap();
    assert_eq!(n, 5);
    let errs: Vec<String> = lines(
        &mut c,
        "select query from sys.statements_with_errors_or_warnings where db = 'ps'",
    );
    assert!(errs.iter().any(|q| q.contains("nope")), "{errs:?}");

    ok(
        &mut c,
        "truncate table performance_schema.events_statements_summary_by_digest",
    );
    assert!(digests(&mut c, "ps").is_empty());
}

#[test]
fn statement_events_of_each_session() {
    let b = Basalt::start();
    let mut c = root(&b);
    let mut s = b.conn();
    let sid: u64 = s.query_first("select connection_id()").unwrap().unwrap();
    for i in 0..12 {
        let _: Vec<i64> = s.query(format!("select {i}")).unwrap();
    }
    let _ = error(&mut s, "select * from no_db.no_table");
    let hist: Vec<(u64, String, String, u64)> = c
        .query(format!(
            "select event_id, event_name, sql_text, mysql_errno \
             from performance_schema.events_statements_history where thread_id = {sid} \
             order by event_id"
        ))
        .unwrap();
    assert_eq!(hist.len(), 10, "{hist:?}");
    let last = hist.last().unwrap();
    assert_eq!(
        (last.1.as_str(), last.2.as_str(), last.3),
        ("statement/sql/select", "select * from no_db.no_table", 1146)
    );
    assert!(hist.windows(2).all(|w| w[0].0 < w[1].0));

    // A running statement is the session's current event.
    let url = b.url();
    let t = std::thread::spawn(move || {
        let mut s = mysql::Conn::new(url.as_str()).unwrap();
        let _: Vec<i64> = s.query("select sleep(2)").unwrap();
    });
    let mut running = String::new();
    basalt_tests::eventually(Duration::from_secs(5), || {
        running = value(
            &mut c,
            "select group_concat(sql_text) from performance_schema.events_statements_current \
             where sql_text like 'select sleep%' and end_event_id is null",
        )
        .unwrap_or_default();
        !running.is_empty()
    });
    assert_eq!(running, "select sleep(2)");
    let who: Vec<String> = lines(
        &mut c,
        "select conn_id from sys.processlist where current_statement = 'select sleep(2)'",
    );
    assert_eq!(who.len(), 1, "{who:?}");
    t.join().unwrap();

    // Threads and connections per account.
    let threads: u64 = c
        .query_first(format!(
            "select count(*) from performance_schema.threads where processlist_id = {sid} \
             and type = 'FOREGROUND' and processlist_user = 'root'"
        ))
        .unwrap()
        .unwrap();
    assert_eq!(threads, 1);
    let (now, total): (i64, i64) = c
        .query_first(
            "select current_connections, total_connections from performance_schema.users \
             where user = 'root'",
        )
        .unwrap()
        .unwrap();
    assert!(now >= 2 && total >= 3, "{now} {total}");
    let summary: Vec<(String, u64)> = c
        .query("select user, statements from sys.user_summary where user = 'root'")
        .unwrap();
    assert!(summary[0].1 > 10, "{summary:?}");
}

#[test]
fn table_io_unused_indexes_and_lock_waits() {
    let b = Basalt::start();
    let mut c = root(&b);
    ok(&mut c, "create database io");
    ok(
        &mut c,
        "create table io.t (a int primary key, b int, c int, key kb (b), key kc (c))",
    );
    ok(
        &mut c,
        "insert into io.t values (1, 1, 1), (2, 2, 2), (3, 3, 3)",
    );
    ok(&mut c, "update io.t set c = 5 where a = 1");
    ok(&mut c, "delete from io.t where a = 3");
    let _: Vec<i64> = c.query("select a from io.t where b = 2").unwrap();
    let (fetch, ins, upd, del): (u64, u64, u64, u64) = c
        .query_first(
            "select count_fetch, count_insert, count_update, count_delete \
             from performance_schema.table_io_waits_summary_by_table \
             where object_schema = 'io' and object_name = 't'",
        )
        .unwrap()
        .unwrap();
    assert_eq!((ins, upd, del), (3, 1, 1));
    assert!(fetch >= 1);
    let unused: Vec<(String, String, String)> = c
        .query("select object_schema, object_name, index_name from sys.schema_unused_indexes")
        .unwrap();
    assert_eq!(unused, vec![("io".into(), "t".into(), "kc".into())]);
    let stats: Vec<(String, u64)> = c
        .query(
            "select table_name, rows_inserted from sys.schema_table_statistics \
             where table_schema = 'io'",
        )
        .unwrap();
    assert_eq!(stats, vec![("t".to_string(), 3)]);

    // A row-lock wait shows in data_locks, data_lock_waits and sys.innodb_lock_waits.
    let mut holder = b.conn();
    ok(&mut holder, "begin");
    ok(&mut holder, "update io.t set b = 10 where a = 1");
    let url = b.url();
    let waiter = std::thread::spawn(move || {
        let mut w = mysql::Conn::new(url.as_str()).unwrap();
        ok(&mut w, "set innodb_lock_wait_timeout = 10");
        ok(&mut w, "update io.t set b = 11 where a = 1");
    });
    let mut waits = 0u64;
    basalt_tests::eventually(Duration::from_secs(5), || {
        waits = value(
            &mut c,
            "select count(*) from performance_schema.data_lock_waits",
        )
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
        waits > 0
    });
    assert_eq!(waits, 1);
    let statuses: Vec<String> = lines(
        &mut c,
        "select lock_status from performance_schema.data_locks \
         where object_schema = 'io' order by lock_status",
    );
    assert_eq!(statuses, ["GRANTED", "WAITING"]);
    let sys_waits: Vec<String> = lines(&mut c, "select locked_table from sys.innodb_lock_waits");
    assert_eq!(sys_waits.len(), 1, "{sys_waits:?}");
    let trx: u64 = c
        .query_first("select count(*) from performance_schema.events_transactions_current")
        .unwrap()
        .unwrap();
    assert!(trx >= 2);
    ok(&mut holder, "commit");
    waiter.join().unwrap();
}

#[test]
fn every_table_and_view_answers() {
    let b = Basalt::start();
    let mut c = root(&b);
    let tables = lines(&mut c, "show tables from performance_schema");
    assert_eq!(tables.len(), 84);
    for t in &tables {
        let _: Vec<mysql::Row> = c
            .query(format!("select * from performance_schema.`{t}` limit 5"))
            .unwrap_or_else(|e| panic!("{t}: {e}"));
    }
    // The InnoDB buffer-page views (innodb_buffer_stats_*,
    // schema_table_statistics_with_buffer) need INNODB_BUFFER_PAGE, which
    // Basalt does not have (1356, as on a server without the table).
    let views = lines(&mut c, "show tables from sys");
    assert!(views.len() > 90);
    for v in &views {
        let r: Result<Vec<mysql::Row>, _> = c.query(format!("select * from sys.`{v}` limit 5"));
        match r {
            Ok(_) => {}
            Err(mysql::Error::MySqlError(e)) if v.contains("buffer") => {
                assert_eq!(e.code, 1356, "{v}: {e}")
            }
            Err(e) => panic!("sys.{v}: {e}"),
        }
    }
    let dbs = lines(&mut c, "show databases");
    assert!(dbs.contains(&"performance_schema".to_string()) && dbs.contains(&"sys".to_string()));
    ok(&mut c, "use sys");
    assert_eq!(
        value(&mut c, "select format_bytes(2048)").as_deref(),
        Some("2.00 KiB")
    );
    assert_eq!(
        value(&mut c, "select sys.format_time(1500000000)").as_deref(),
        Some("1.50 ms")
    );
    assert_eq!(
        value(&mut c, "select enabled from performance_schema.setup_consumers where name = 'statements_digest'").as_deref(),
        Some("YES")
    );
    assert_eq!(
        error(
            &mut c,
            "insert into performance_schema.setup_consumers values ('x', 'YES')"
        )
        .0,
        1036
    );
}

#[test]
fn off_at_start_records_nothing() {
    let b = Basalt::start_with(&["--performance-schema=OFF"]);
    let mut c = root(&b);
    let _: Vec<i64> = c.query("select 1").unwrap();
    assert_eq!(
        value(
            &mut c,
            "select count(*) from performance_schema.events_statements_summary_by_digest"
        )
        .as_deref(),
        Some("0")
    );
    assert_eq!(
        value(
            &mut c,
            "select count(*) from performance_schema.events_statements_history"
        )
        .as_deref(),
        Some("0")
    );
    assert_eq!(
        value(&mut c, "select @@performance_schema").as_deref(),
        Some("0")
    );
    assert_eq!(
        value(
            &mut c,
            "select count(*) from performance_schema.setup_consumers where enabled = 'YES'"
        )
        .as_deref(),
        Some("0")
    );
}

/// Statements whose digest text a MariaDB 10.11 computes the same.
const SCRIPT: &[&str] = &[
    "create table t (a int primary key, b varchar(20), c bigint, d decimal(6,2))",
    "insert into t values (1, 'x', 5, 1.5), (2, 'y', -3, 2.25)",
    "insert into t (a, b) values (3, 'z')",
    "select * from t where a = 1",
    "select a, b from t where a in (1, 2, 3) and b like 'x%' order by a desc limit 2",
    "select count(*), sum(c), avg(d) from t where c > -5 group by b having count(*) > 0",
    "update t set b = concat(b, '!'), c = c + 1 where a between 1 and 2",
    "delete from t where a = 3 or b is null",
    "select t1.a, t2.b from t t1 join t t2 on t1.a = t2.a where t1.c <> 0",
    "select (select max(a) from t) as m, now(), database(), user(), @@version",
    "select * from t where (a, b) in ((1, 'x!'), (2, 'y!'))",
    "select case when a = 1 then 'one' else 'other' end from t",
    "replace into t values (4, 'w', null, 0)",
    "select a from t where d is not null and b regexp '^x'",
    "set @v = 10",
    "show tables",
    "select substr(b, 1, 2), cast(a as char), -a from t",
];

#[test]
#[ignore = "needs Debian's mariadb-server; run by .ci/run"]
fn digest_texts_match_mariadbs() {
    assert!(mariadb::available(), "mariadb-server is not installed");
    let m = MariaDb::start(&["--performance-schema=ON"]);
    let b = Basalt::start();
    let mut texts = Vec::new();
    for url in [m.url(), b.url()] {
        let mut c = mysql::Conn::new(url.as_str()).unwrap();
        ok(&mut c, "create database dg");
        ok(&mut c, "use dg");
        for sql in SCRIPT {
            let _: Vec<mysql::Row> = c.query(*sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
        }
        let got: Vec<(String, u64)> = c
            .query(
                "select digest_text, count_star from performance_schema.\
                 events_statements_summary_by_digest where schema_name = 'dg' \
                 order by digest_text",
            )
            .unwrap();
        texts.push(got);
    }
    assert_eq!(texts[1], texts[0], "Basalt (left) and MariaDB (right)");
}

/// mysqld_exporter's performance_schema collectors (and the information_schema
/// ones that read table and column lists) scrape Basalt without an error and
/// export what the statements did.
#[test]
fn mysqld_exporter_scrapes_the_performance_schema_collectors() {
    use basalt_tests::which;
    let Some(bin) = which("prometheus-mysqld-exporter") else {
        eprintln!("prometheus-mysqld-exporter not installed; skipping");
        return;
    };
    let b = Basalt::start();
    let mut c = root(&b);
    ok(&mut c, "create database ex");
    // The statements collector leaves out digests without a schema.
    ok(&mut c, "use ex");
    ok(
        &mut c,
        "create table t (a int auto_increment primary key, b int, key kb (b))",
    );
    ok(&mut c, "insert into t (b) values (1), (2), (3)");
    ok(&mut c, "update t set b = 5 where a = 1");
    let _: Vec<i64> = c.query("select a from t where b = 2").unwrap();
    let collectors = [
        "perf_schema.eventsstatements",
        "perf_schema.eventsstatementssum",
        "perf_schema.eventswaits",
        "perf_schema.file_events",
        "perf_schema.file_instances",
        "perf_schema.indexiowaits",
        "perf_schema.memory_events",
        "perf_schema.tableiowaits",
        "perf_schema.tablelocks",
        "info_schema.tables",
        "auto_increment.columns",
        "global_variables",
        "global_status",
    ];
    let (metrics, log) = basalt_tests::scrape_with_exporter(&bin, b.port, &collectors);
    assert!(metrics.contains("\nmysql_up 1\n"), "{metrics}");
    let errors: Vec<&str> = metrics
        .lines()
        .filter(|l| l.starts_with("mysql_exporter_scrape_errors_total{"))
        .collect();
    assert!(errors.is_empty(), "{errors:?}\n{log}");
    assert!(!log.contains("Error from scraper"), "{log}");
    for want in [
        "mysql_perf_schema_events_statements_total{digest=",
        // MariaDB's digest texts end in a space.
        "digest_text=\"UPDATE `t` SET `b` = ? WHERE `a` = ? \",schema=\"ex\"} 1",
        "mysql_perf_schema_events_statements_sum_rows_affected ",
        "mysql_perf_schema_table_io_waits_total{name=\"t\",operation=\"insert\",schema=\"ex\"} 3",
        "mysql_perf_schema_index_io_waits_total{index=\"kb\",name=\"t\",operation=\"fetch\",schema=\"ex\"}",
        "mysql_info_schema_table_rows{schema=\"ex\",table=\"t\"} 3",
        "mysql_info_schema_auto_increment_column{column=\"a\",schema=\"ex\",table=\"t\"} 4",
    ] {
        assert!(
            metrics.contains(want),
            "missing {want}\n{}",
            metrics
                .lines()
                .filter(|l| l.starts_with("mysql_perf_schema") || l.starts_with("mysql_info"))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

/// information_schema lists the built-in schemas' tables and columns as
/// MariaDB does, and a sys view that reads information_schema.COLUMNS can be
/// listed by it.
#[test]
fn information_schema_lists_the_builtin_schemas() {
    let b = Basalt::start();
    let mut c = root(&b);
    ok(&mut c, "create database ai");
    ok(
        &mut c,
        "create table ai.t (a int auto_increment primary key)",
    );
    ok(&mut c, "insert into ai.t values (), ()");
    let counts: Vec<(String, String, String, u64)> = c
        .query(
            "select table_schema, table_type, ifnull(engine, 'NULL'), count(*) \
             from information_schema.tables \
             where table_schema in ('performance_schema', 'sys') group by 1, 2, 3 order by 1",
        )
        .unwrap();
    let want = [
        ("performance_schema", "BASE TABLE", "PERFORMANCE_SCHEMA", 84),
        ("sys", "VIEW", "NULL", 98),
    ]
    .map(|(s, t, e, n)| (s.to_string(), t.to_string(), e.to_string(), n));
    assert_eq!(counts, want);
    let system_views = value(
        &mut c,
        "select count(*) from information_schema.tables \
         where table_schema = 'information_schema' and table_name = 'TABLES' \
         and table_type = 'SYSTEM VIEW'",
    );
    assert_eq!(system_views.as_deref(), Some("1"));
    let cols = lines(
        &mut c,
        "select column_name from information_schema.columns where table_schema = \
         'performance_schema' and table_name = 'accounts' order by ordinal_position",
    );
    assert_eq!(
        cols,
        ["USER", "HOST", "CURRENT_CONNECTIONS", "TOTAL_CONNECTIONS"]
    );
    let cols = lines(
        &mut c,
        "select column_name from information_schema.columns \
         where table_schema = 'sys' and table_name = 'version' order by ordinal_position",
    );
    assert_eq!(cols, ["sys_version", "mysql_version"]);
    // sys.schema_auto_increment_columns reads information_schema.COLUMNS.
    let n = value(
        &mut c,
        "select count(*) from information_schema.columns \
         where table_schema = 'sys' and table_name = 'schema_auto_increment_columns'",
    );
    assert_eq!(n.as_deref(), Some("10"));
    let ratio: Vec<(String, u64)> = c
        .query("select table_name, auto_increment from sys.schema_auto_increment_columns where table_schema = 'ai'")
        .unwrap();
    assert_eq!(ratio, [("t".to_string(), 3)]);
}

/// UPDATE performance_schema.setup_consumers switches collection at runtime,
/// as in MariaDB.
#[test]
fn setup_consumers_switch_collection_at_runtime() {
    let b = Basalt::start();
    let mut c = root(&b);
    ok(&mut c, "create database sc");
    ok(&mut c, "use sc");
    let digests_of_select = |c: &mut mysql::Conn| {
        value(
            c,
            "select ifnull(sum(count_star), 0) from performance_schema.events_statements_summary_by_digest \
             where schema_name = 'sc' and digest_text = 'SELECT ? '",
        )
    };
    let history = |c: &mut mysql::Conn| {
        lines(
            c,
            "select sql_text from performance_schema.events_statements_history \
             where thread_id = connection_id()",
        )
    };
    ok(
        &mut c,
        "update performance_schema.setup_consumers set enabled = 'NO' \
         where name = 'statements_digest'",
    );
    assert_eq!(
        value(
            &mut c,
            "select enabled from performance_schema.setup_consumers where name = 'statements_digest'"
        )
        .as_deref(),
        Some("NO")
    );
    let _: Vec<i64> = c.query("select 42").unwrap();
    assert_eq!(digests_of_select(&mut c).as_deref(), Some("0"));
    assert!(history(&mut c).contains(&"select 42".to_string()));
    ok(
        &mut c,
        "update performance_schema.setup_consumers set enabled = 'YES' \
         where name = 'statements_digest'",
    );
    let _: Vec<i64> = c.query("select 43").unwrap();
    assert_eq!(digests_of_select(&mut c).as_deref(), Some("1"));
    ok(
        &mut c,
        "update performance_schema.setup_consumers set enabled = 'NO' \
         where name = 'events_statements_history'",
    );
    let _: Vec<i64> = c.query("select 44").unwrap();
    assert!(!history(&mut c).contains(&"select 44".to_string()));
    assert_eq!(digests_of_select(&mut c).as_deref(), Some("2"));
    // What Basalt does not collect cannot be turned on; names are fixed.
    let e = error(
        &mut c,
        "update performance_schema.setup_consumers set enabled = 'YES' \
         where name = 'events_statements_history_long'",
    );
    assert_eq!(e.0, 1235, "{e:?}");
    let e = error(
        &mut c,
        "update performance_schema.setup_consumers set name = 'x' where name = 'statements_digest'",
    );
    assert_eq!(e.0, 1683, "{e:?}");
    // global_instrumentation stops the transaction events too.
    ok(
        &mut c,
        "update performance_schema.setup_consumers set enabled = 'NO' \
         where name = 'global_instrumentation'",
    );
    ok(&mut c, "create table t (a int)");
    ok(&mut c, "begin");
    ok(&mut c, "insert into t values (1)");
    assert_eq!(
        value(
            &mut c,
            "select count(*) from performance_schema.events_transactions_current"
        )
        .as_deref(),
        Some("0")
    );
    ok(&mut c, "commit");
}
