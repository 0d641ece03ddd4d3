//! SHOW STATUS counters: `Com_*` for every statement and command, `Questions`,
//! `Handler_*`, `Rows_*`, `Select_*`, `Sort_*`, `Threads_*`, `Bytes_*`,
//! `Connection_errors_*`, `Access_denied_errors`; session values for SHOW
//! SESSION STATUS, sums over every session (ended ones included) for GLOBAL;
//! FLUSH STATUS. The ignored test runs one script on Basalt and on MariaDB and
//! compares the counters' changes.

use basalt_tests::mariadb::MariaDb;
use basalt_tests::Basalt;
use mysql::prelude::*;
use mysql::{Conn, Opts};
use std::collections::BTreeMap;

fn status(c: &mut Conn, scope: &str) -> BTreeMap<String, u64> {
    let rows: Vec<(String, String)> = c
        .query(format!("show {scope} status"))
        .expect("show status");
    rows.into_iter()
        .filter_map(|(k, v)| v.parse().ok().map(|v| (k, v)))
        .collect()
}

fn delta(before: &BTreeMap<String, u64>, after: &BTreeMap<String, u64>, name: &str) -> i64 {
    let a = *after.get(name).unwrap_or_else(|| panic!("{name} missing"));
    let b = *before.get(name).unwrap_or_else(|| panic!("{name} missing"));
    a as i64 - b as i64
}

fn connect(url: &str) -> Conn {
    Conn::new(Opts::from_url(url).expect("url")).expect("connect")
}

const SETUP: &[&str] = &[
    "create database sc",
    "create table sc.t (a int primary key, b int, c int, key(b))",
    "insert into sc.t values (1,1,1),(2,2,2),(3,3,3),(4,4,4)",
    "create table sc.m (a int primary key, b int) engine=memory",
    "insert into sc.m values (1,1),(2,2)",
];

/// The statements measured, each a different counter's case: data statements,
/// whose every [`COMPARED`] counter changes as in MariaDB.
const SCRIPT: &[&str] = &[
    "select * from sc.t where a = 2",
    "select * from sc.t where b between 2 and 3",
    "select * from sc.t",
    "select * from sc.t order by c",
    "select * from sc.t order by c limit 2",
    "select * from sc.t t1 join sc.t t2 on t1.c = t2.c",
    "select * from sc.t where a = 99",
    "update sc.t set c = c + 1 where a = 1",
    "delete from sc.t where a = 4",
    "insert into sc.t select a + 10, b, c from sc.t where a < 3",
    "replace into sc.t values (20, 1, 1)",
    "begin",
    "insert into sc.t values (9, 9, 9)",
    "savepoint s",
    "rollback to savepoint s",
    "commit",
    "set @x = 1",
    "do 1",
];

/// Statements for which MariaDB creates internal temporary tables (or, for
/// the plain UNION ALL, derived table and sort, does not), and statements on
/// MEMORY tables: only [`TMP_COMPARED`] is compared for them (MariaDB's
/// temporary tables also count in its `Handler_*`).
const TMP: &[&str] = &[
    "select c, count(*) from sc.t group by c",
    "select distinct c from sc.t",
    "select count(distinct c) from sc.t",
    "select a from sc.t union select a from sc.t",
    "select a from sc.t union all select a from sc.t",
    "select * from (select c, count(*) n from sc.t group by c) d",
    "select * from (select a from sc.t) d",
    "select a from sc.t order by c",
    "select a from sc.t intersect select a from sc.t",
    // MEMORY tables take a table lock per name in a statement.
    "select * from sc.m m1 join sc.m m2 on m1.a = m2.b",
    "insert into sc.m values (3,3)",
    "select * from sc.t join sc.m on t.a = m.a",
];

const TMP_COMPARED: &[&str] = &[
    "Created_tmp_tables",
    "Created_tmp_disk_tables",
    "Table_locks_immediate",
    "Table_locks_waited",
];

/// SHOW and DDL statements: their `Com_*` counters change as in MariaDB (its
/// SHOW statements also scan information_schema tables, which count in
/// `Select_scan` there).
const ADMIN: &[&str] = &[
    "show tables from sc",
    "show create table sc.t",
    "show variables like 'version'",
    "create table sc.u (a int)",
    "alter table sc.u add column b int",
    "drop table sc.u",
    "set statement sort_buffer_size = 100000 for select 1",
];

/// Counters whose changes over [`SCRIPT`] Basalt and MariaDB agree on.
const COMPARED: &[&str] = &[
    "Com_alter_table",
    "Com_begin",
    "Com_commit",
    "Com_create_table",
    "Com_delete",
    "Com_do",
    "Com_drop_table",
    "Com_insert",
    "Com_insert_select",
    "Com_replace",
    "Com_rollback_to_savepoint",
    "Com_savepoint",
    "Com_select",
    "Com_set_option",
    "Com_show_create_table",
    "Com_show_tables",
    "Com_show_variables",
    "Com_update",
    "Empty_queries",
    "Handler_delete",
    "Handler_read_next",
    "Handler_savepoint",
    "Handler_savepoint_rollback",
    "Handler_update",
    "Handler_write",
    "Questions",
    "Rows_sent",
    "Select_full_join",
    "Select_range",
    "Select_scan",
    "Sort_priority_queue_sorts",
    "Sort_rows",
    "Sort_scan",
];

/// Runs the script on a fresh connection; the changes of the session counters
/// over [`SCRIPT`], then over [`ADMIN`].
/// The changes of the session counters over [`SCRIPT`], [`ADMIN`] and [`TMP`].
type Deltas = (
    BTreeMap<String, i64>,
    BTreeMap<String, i64>,
    BTreeMap<String, i64>,
);

fn script_deltas(url: &str) -> Deltas {
    let mut c = connect(url);
    for s in SETUP {
        c.query_drop(s).expect(s);
    }
    c.query_drop("flush status").expect("flush");
    let mut run = |script: &[&str]| {
        let before = status(&mut c, "session");
        for s in script {
            c.query_drop(s).expect(s);
        }
        let after = status(&mut c, "session");
        after
            .keys()
            .filter(|k| before.contains_key(*k))
            .map(|n| (n.to_string(), delta(&before, &after, n)))
            .collect::<BTreeMap<_, _>>()
    };
    let data = run(SCRIPT);
    let admin = run(ADMIN);
    let tmp = run(TMP);
    (data, admin, tmp)
}

#[test]
fn statements_count_in_their_session_and_globally() {
    let b = Basalt::start();
    let mut c = b.conn();
    let (deltas, admin, tmp) = script_deltas(&b.url());
    assert_eq!(tmp["Created_tmp_tables"], 7, "{tmp:?}");
    assert_eq!(tmp["Created_tmp_disk_tables"], 0);
    assert_eq!(tmp["Table_locks_immediate"], 4, "{tmp:?}");
    for (name, want) in [
        ("Com_select", 7),
        ("Com_do", 1),
        ("Com_insert", 1),
        ("Com_insert_select", 1),
        ("Com_replace", 1),
        ("Com_update", 1),
        ("Com_delete", 1),
        ("Handler_write", 4),
        ("Handler_update", 1),
        ("Handler_delete", 1),
        ("Handler_read_key", 6),
        ("Select_scan", 4),
        ("Select_range", 2),
        ("Select_full_join", 1),
        ("Sort_rows", 6),
        ("Sort_priority_queue_sorts", 1),
        ("Empty_queries", 1),
        ("Handler_savepoint", 1),
        ("Handler_savepoint_rollback", 1),
    ] {
        assert_eq!(deltas[name], want, "{name}");
    }
    for (name, want) in [
        ("Com_show_tables", 1),
        ("Com_show_create_table", 1),
        ("Com_show_variables", 1),
        ("Com_create_table", 1),
        ("Com_alter_table", 1),
        ("Com_drop_table", 1),
        ("Com_select", 1),
        ("Com_set_option", 0),
    ] {
        assert_eq!(admin[name], want, "{name}");
    }
    // The script's connection has ended: its counts stay in the global sums.
    let global = status(&mut c, "global");
    assert!(global["Com_insert_select"] >= 1);
    assert!(global["Com_replace"] >= 1);
    let session = status(&mut c, "session");
    assert_eq!(session["Com_replace"], 0);
    assert!(global["Threads_running"] >= 1);
    assert!(global["Threads_created"] >= 1);
    assert!(global["Bytes_received"] > 0 && global["Bytes_sent"] > 0);
    assert!(global.contains_key("Uptime_since_flush_status"));
    // FLUSH STATUS zeroes this session and the ended sessions' totals.
    c.query_drop("flush status").expect("flush");
    let global = status(&mut c, "global");
    assert_eq!(global["Com_replace"], 0);
    assert_eq!(global["Com_insert_select"], 0);
}

#[test]
fn commands_and_prepared_statements_count() {
    let b = Basalt::start();
    let mut c = b.conn();
    c.query_drop("create database p").expect("db");
    let before = status(&mut c, "session");
    let stmt = c.prep("select ? + 1").expect("prepare");
    for i in 0..3 {
        let _: Option<i64> = c.exec_first(&stmt, (i,)).expect("execute");
    }
    c.close(stmt).expect("close");
    c.ping().expect("ping");
    c.select_db("p").expect("init db");
    let after = status(&mut c, "session");
    for (name, want) in [
        ("Com_stmt_prepare", 1),
        ("Com_stmt_execute", 3),
        ("Com_stmt_close", 1),
        // Each execution counts as the statement it runs.
        ("Com_select", 3),
        ("Com_admin_commands", 1),
        ("Com_change_db", 1),
        // SHOW STATUS, three executions, COM_INIT_DB (not prepare, close, ping).
        ("Questions", 5),
    ] {
        assert_eq!(delta(&before, &after, name), want, "{name}");
    }
}

#[test]
fn refused_logins_and_connections_are_counted() {
    // root may take one connection past max_connections; u may not.
    let b = Basalt::start_with(&["--max-connections", "1"]);
    let mut admin = b.conn();
    admin
        .query_drop("create user u@'%' identified by 'right'")
        .expect("user");
    let before = status(&mut admin, "global");
    let login = |password: &str| {
        let url = format!("mysql://u:{password}@127.0.0.1:{}/", b.port);
        Conn::new(Opts::from_url(&url).expect("url"))
    };
    assert!(login("wrong").is_err());
    assert!(login("right").is_err(), "over max_connections");
    let after = status(&mut admin, "global");
    assert_eq!(delta(&before, &after, "Access_denied_errors"), 1);
    assert_eq!(
        delta(&before, &after, "Connection_errors_max_connections"),
        1
    );
}

#[test]
#[ignore]
fn counters_change_as_mariadbs_do() {
    let m = MariaDb::start(&[]);
    let b = Basalt::start();
    let (theirs, their_admin, their_tmp) = script_deltas(&m.url());
    let (ours, our_admin, our_tmp) = script_deltas(&b.url());
    let mut differ: Vec<String> = COMPARED
        .iter()
        .filter(|n| theirs[**n] != ours[**n])
        .map(|n| format!("{n}: MariaDB {} Basalt {}", theirs[*n], ours[*n]))
        .collect();
    for (n, v) in &their_admin {
        if n.starts_with("Com_") && our_admin.get(n) != Some(v) {
            differ.push(format!(
                "{n} (admin): MariaDB {v} Basalt {:?}",
                our_admin.get(n)
            ));
        }
    }
    for (n, v) in &theirs {
        if n.starts_with("Com_") && ours.get(n) != Some(v) {
            differ.push(format!("{n}: MariaDB {v} Basalt {:?}", ours.get(n)));
        }
    }
    for n in TMP_COMPARED {
        if their_tmp[*n] != our_tmp[*n] {
            differ.push(format!(
                "{n} (tmp): MariaDB {} Basalt {}",
                their_tmp[*n], our_tmp[*n]
            ));
        }
    }
    assert!(differ.is_empty(), "{differ:#?}");
}

#[test]
fn table_and_index_statistics_show_what_was_read_and_changed() {
    let b = Basalt::start();
    let mut c = b.conn();
    c.query_drop("create database u").expect("db");
    c.query_drop("create table u.t (a int primary key, b int, c int, key kb (b), key kc (c))")
        .expect("table");
    let values: Vec<String> = (0..200).map(|i| format!("({i}, {i}, {i})")).collect();
    c.query_drop(format!("insert into u.t values {}", values.join(",")))
        .expect("rows");
    let other = b.conn();
    // Reads on another connection that has ended still count.
    {
        let mut o = other;
        let _: Vec<i64> = o.query("select a from u.t where b = 7").expect("by kb");
        let _: Vec<i64> = o
            .query("select b from u.t where a = 9")
            .expect("by primary");
    }
    c.query_drop("update u.t set c = c + 1 where a < 3")
        .expect("update");
    let tables: Vec<(String, String, i64, i64, i64)> = c
        .query("select * from information_schema.table_statistics where table_schema = 'u'")
        .expect("table_statistics");
    // 200 inserted + 3 updated rows changed, each in 3 indexes.
    assert_eq!(tables.len(), 1);
    let (_, name, read, changed, changed_x) = &tables[0];
    assert_eq!(name, "t");
    assert_eq!((*changed, *changed_x), (203, 609));
    assert!(*read >= 5, "{read}");
    let indexes: Vec<(String, i64)> = c
        .query("select index_name, rows_read from information_schema.index_statistics where table_schema = 'u' order by index_name")
        .expect("index_statistics");
    let names: Vec<&str> = indexes.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["kb", "PRIMARY"], "kc was never read: {indexes:?}");
    assert_eq!(indexes[0].1, 1);
    c.query_drop("flush table_statistics, index_statistics")
        .expect("flush");
    let n: Option<i64> = c
        .query_first("select count(*) from information_schema.index_statistics")
        .expect("count");
    assert_eq!(n, Some(0));
}

#[test]
fn a_statement_waiting_for_a_memory_tables_lock_counts_as_waited() {
    let b = Basalt::start();
    let mut holder = b.conn();
    holder
        .query_drop("create database w")
        .and_then(|_| holder.query_drop("create table w.m (a int) engine=memory"))
        .and_then(|_| holder.query_drop("use w"))
        .and_then(|_| holder.query_drop("lock tables m write"))
        .expect("setup");
    let mut c = b.conn();
    let before = status(&mut c, "global");
    let release = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(200));
        holder.query_drop("unlock tables").expect("unlock");
    });
    c.query_drop("select * from w.m")
        .expect("waits, then reads");
    release.join().expect("holder");
    let after = status(&mut c, "global");
    assert_eq!(delta(&before, &after, "Table_locks_waited"), 1);
    assert_eq!(delta(&before, &after, "Table_locks_immediate"), 0);
    c.query_drop("select * from w.m").expect("read");
    let last = status(&mut c, "session");
    assert_eq!(
        delta(&after, &last, "Table_locks_immediate"),
        1,
        "session shows the global value"
    );
}
